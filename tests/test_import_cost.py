"""Start-up cost: ``tablerag --help`` and ``import tablerag`` load no heavy library.

Each check runs in a fresh interpreter, since this test session has imported everything already.
A failure names the library and what pulled it in is found with
``python -X importtime -c "import tablerag.cli"``: move that import into the function that needs
it (a ``TYPE_CHECKING`` import when only a type annotation needs it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tablerag
from tablerag.service import Workspace
from tablerag.settings import load_settings

#: Libraries no CLI start needs: what the question-answering, ingestion and linking stacks load.
HEAVY = (
    "bm25s",
    "duckdb",
    "httpx",
    "jieba",
    "networkx",
    "numpy",
    "openpyxl",
    "pdfplumber",
    "sqlalchemy",
    "sqlglot",
)

#: Runs the command line in this interpreter, then writes the heavy modules it loaded to a file.
_PROBE = """
import json, sys
out, args, heavy = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
if args is None:
    import tablerag.cli
    code = None
else:
    sys.argv = ["tablerag", *args]
    from tablerag.cli import main
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
with open(out, "w") as f:
    json.dump({"exit": code, "loaded": sorted(m for m in heavy if m in sys.modules)}, f)
"""


def _probe(
    tmp_path: Path, *commands: list[str] | None, heavy: tuple[str, ...] = HEAVY
) -> dict[str, Any]:
    """Run ``commands`` (``None``: only ``import tablerag.cli``) in one fresh interpreter."""
    out = tmp_path / "probe.json"
    results: dict[str, Any] = {}
    for args in commands:
        subprocess.run(
            [sys.executable, "-c", _PROBE, str(out), json.dumps(args), json.dumps(heavy)],
            check=True,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            timeout=120,
        )
        results[" ".join(args) if args is not None else "import"] = json.loads(out.read_text())
    return results


def test_import_cli_loads_no_heavy_library(tmp_path: Path) -> None:
    # pydantic is checked here only: typer itself imports it to convert option values, so every
    # command run (``--help`` included) loads it whatever tablerag does.
    result = _probe(tmp_path, None, heavy=(*HEAVY, "pydantic", "tablerag.service"))
    assert result["import"]["loaded"] == []


def test_help_loads_no_heavy_library(tmp_path: Path) -> None:
    result = _probe(tmp_path, ["--help"], ["sql", "--help"], ["eval", "sql", "--help"])
    assert {k: v["exit"] for k, v in result.items()} == {
        "--help": 0,
        "sql --help": 0,
        "eval sql --help": 0,
    }
    assert {k: v["loaded"] for k, v in result.items() if v["loaded"]} == {}


def test_sql_command_loads_only_the_engine(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("name,qty\napple,3\npear,5\n", encoding="utf-8")
    with Workspace.open(tmp_path / "ws") as ws:
        settings = load_settings(tmp_path / "ws", index_on_ingest=False)
        assert [r.status for r in ws.ingest([csv], settings=settings)] == ["added"]
    result = _probe(tmp_path, ["sql", "SELECT sum(qty) FROM t", "-w", "ws", "--json"])
    run = result["sql SELECT sum(qty) FROM t -w ws --json"]
    assert run["exit"] == 0
    # duckdb runs the query and sqlglot is the safety gate: the command cannot do without them.
    assert run["loaded"] == ["duckdb", "sqlglot"]


def test_import_tablerag_is_lazy_and_complete(tmp_path: Path) -> None:
    code = (
        "import sys, tablerag\n"
        "print(sorted(m for m in ('duckdb', 'pydantic', 'tablerag.service') if m in sys.modules))\n"
        "from tablerag import QA, Workspace, ask, load_settings\n"
        "print(QA.__module__, Workspace.__module__, ask.__module__, load_settings.__module__)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert run.stdout.splitlines() == [
        "[]",
        "tablerag.service tablerag.service tablerag.service tablerag.settings",
    ]


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        tablerag.Nope  # noqa: B018 - the access is the test
    assert {"QA", "Workspace", "load_settings"} <= set(dir(tablerag))


def test_constants_repeated_for_a_light_cli_match_their_source() -> None:
    from tablerag.cli import _common, eval_retrieval
    from tablerag.rag import index
    from tablerag.store.workspace import DEFAULT_PATH

    assert _common.DEFAULT_PATH == DEFAULT_PATH
    assert eval_retrieval.DEFAULT_EMBEDDER == index.DEFAULT_EMBEDDER
