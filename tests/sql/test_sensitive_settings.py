"""The operator's ``sensitive_columns`` and ``allow_columns`` reach every place that hides.

A column nothing marks (``nickname``, a canary in each cell) is hidden by ``sensitive_columns``
in the workspace's ``tablerag.toml``; a column that looks sensitive by name (``shop_email``) is
shown by ``allow_columns``. Through the CLI as a user runs it: the table chunks (search,
chunks), the schema, the gate and the engine (sql), and the prompt a model receives (ask).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA, execution_policy
from tablerag.settings import Settings, load_settings
from tablerag.sql.engines import open_engine
from tablerag.sql.sensitive import SensitiveRules, is_hidden
from tablerag.types import ColumnInfo

CANARY = "CANARY-nick-4e7a"
NICK = ColumnInfo("nickname", "")
TOML = 'sensitive_columns = ["customers.nick*"]\nallow_columns = ["*.shop_email"]\n'
runner = CliRunner()


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("rules")
    (base / "in").mkdir()
    rows = "\n".join(f"n{i},Lyon,{CANARY}-{i},shop{i}@example.com" for i in range(1, 4))
    (base / "in" / "customers.csv").write_text(
        f"name,city,nickname,shop_email\n{rows}\n", encoding="utf-8"
    )
    root = base / "ws"
    root.mkdir()
    (root / "tablerag.toml").write_text(TOML + 'embedder = "hashing"\n', encoding="utf-8")
    res = runner.invoke(app, ["ingest", str(base / "in" / "customers.csv"), "-w", str(root)])
    assert res.exit_code == 0, res.output
    assert CANARY not in res.output
    return root


def cli(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def test_the_settings_are_read(ws: Path) -> None:
    settings = load_settings(ws)
    assert settings.sensitive_columns == ("customers.nick*",)
    assert execution_policy(settings).sensitive.hides("customers", "nickname")


def test_chunks_search_and_schema_hide_the_listed_column(ws: Path) -> None:
    for args in (("chunks",), ("search", "Lyon customers"), ("search", "n1 shop1")):
        code, out = cli(*args, "-w", str(ws))
        assert code == 0, out
        assert CANARY not in out and "nickname" not in out, out
    for args in (("schema", "customers"), ("schema", "customers", "--json")):
        code, out = cli(*args, "-w", str(ws))
        assert code == 0, out
        assert CANARY not in out, out  # the column is named (as hidden), its values are not


def test_sql_refuses_the_listed_column_and_shows_the_allowed_one(ws: Path) -> None:
    for sql in (
        "SELECT nickname FROM customers",
        "SELECT * FROM customers",
        "SELECT c FROM customers AS c",
        "SELECT d FROM customers AS c(a, b, d)",
        "SELECT #3 FROM customers",
    ):
        code, out = cli("sql", sql, "-w", str(ws), "--json")
        assert code in (1, 3), out
        assert CANARY not in out
    code, out = cli("sql", "SELECT name, shop_email FROM customers ORDER BY name", "-w", str(ws),
                    "--json")  # fmt: skip
    assert code == 0, out
    assert json.loads(out)["columns"] == ["name", "shop_email"]


def test_the_prompt_lacks_the_listed_column(ws: Path) -> None:
    seen: list[str] = []

    def model(messages: Sequence[Message]) -> str:
        seen.extend(m["content"] for m in messages)
        return "```sql\nSELECT name, nickname FROM customers\n```"

    with QA.open(ws, llm=FunctionLLM(model)) as qa:
        answer = qa.ask("What are the customers' nicknames?")
    assert seen and all(CANARY not in text and "nickname" not in text for text in seen[:1])
    assert CANARY not in json.dumps(answer.model_dump(mode="json"), default=str)


def test_engine_uses_the_policys_rules(ws: Path) -> None:
    settings = load_settings(ws)
    with open_engine(ws, policy=execution_policy(settings)) as engine:
        table = engine.catalog.table("customers")
        assert table is not None and "nickname" in table.hidden
        assert "shop_email" in table.columns
    with open_engine(ws, policy=execution_policy(Settings())) as engine:  # no operator lists
        table = engine.catalog.table("customers")
        assert table is not None and "shop_email" in table.hidden
        assert "nickname" in table.columns


@pytest.mark.parametrize(
    ("table", "column", "rules", "hidden"),
    [
        ("customers", ColumnInfo("nickname", ""), SensitiveRules(hide=("nick*",)), True),
        ("s.customers", NICK, SensitiveRules(hide=("customers.nickname",)), True),
        ("s.customers", ColumnInfo("nickname", ""), SensitiveRules(hide=("s.*.nickname",)), True),
        ("staff", ColumnInfo("nickname", ""), SensitiveRules(hide=("customers.nickname",)), False),
        ("staff", ColumnInfo("phone", ""), SensitiveRules(allow=("staff.phone",)), False),
        ("staff", ColumnInfo("phone", ""), SensitiveRules(allow=("customers.phone",)), True),
        ("staff", ColumnInfo("phone", "", sensitive=True), SensitiveRules(allow=("phone",)), True),
        ("staff", ColumnInfo("phone", ""), SensitiveRules(hide=("phone",), allow=("phone",)), True),
    ],
)  # fmt: skip
def test_patterns(table: str, column: ColumnInfo, rules: SensitiveRules, hidden: bool) -> None:
    assert is_hidden(table, column, rules) is hidden
