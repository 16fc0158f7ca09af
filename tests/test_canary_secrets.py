"""Secrets and raw values nowhere (issue 28): canaries through every channel they could reach.

- a database password given inline: never in a workspace file (the lock file included), the
  workspace database, a message (the "in use by pid" one included) or any CLI output;
- sample values of hidden columns: never stored in the workspace (its DuckDB file is dumped
  table by table, every schema but ``data``, which holds a CSV's own rows), for database
  sources whose role can read the hidden columns and for files;
- personal data in visible cells: masked in ``chunks``, ``search``, the text index, the prompts
  a scripted model receives, ``sql`` results and engine errors;
- detection by name and comment (Chinese and English), descriptions-file flags in any case,
  ``sql --db`` exposed as a workspace source, and ``allow_columns`` unmasking its column.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import Result
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.errors import WorkspaceError
from tablerag.layout import DB_FILE
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.store.lock import LOCK_FILE, acquire
from tests.plugins import canary as canary_plugin
from tests.plugins.canary import (
    CanaryKit,
    assert_no_canary,
    build_duckdb,
    build_postgres,
    build_sqlite,
    canary_kit,
    find_canaries,
    workspace_index,
    write_customers,
)

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def both(*args: str) -> list[Result]:
    """The command as text and as ``--json``."""
    return [run(*args), run(*args, "--json")]


def plant(value: str, what: str) -> str:
    """Register one more canary for :func:`assert_no_canary` (the plugin's own registry)."""
    canary_plugin._register(value, what)
    return value


def workspace_dump(root: Path, *, skip_data: bool = True) -> list[str]:
    """Every row of every table of the workspace database, as text, plus the raw bytes of its
    files; ``skip_data``: without the ``data`` schema and the database file's bytes (they hold
    an ingested file's own rows)."""
    out: list[str] = []
    con = duckdb.connect(str(root / DB_FILE), read_only=True)
    try:
        names = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            "WHERE database_name = current_database()"
        ).fetchall()
        for schema, table in names:
            if skip_data and schema == "data":
                continue
            rows = con.execute(f'SELECT * FROM "{schema}"."{table}"').fetchall()
            out += [f"{schema}.{table}: {row!r}" for row in rows]
    finally:
        con.close()
    for path in sorted(root.rglob("*")):
        if path.is_file() and not (skip_data and path.name.startswith(DB_FILE)):
            out.append(f"{path.name}: " + path.read_bytes().decode("utf-8", "replace"))
    return out


# -- 1. no credential in any workspace file or message ------------------------------------------


def _tablerag(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TABLERAG_EMBEDDER": "hashing"}
    return subprocess.run(
        [sys.executable, "-m", "tablerag", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def password() -> str:
    return plant(f"CNRYpass{os.urandom(4).hex()}", "an inline database password")


def test_an_inline_password_reaches_no_workspace_file_and_no_output(
    tmp_path: Path, password: str
) -> None:
    """``ingest`` of a URL with an inline password, run as a user runs it (its command line is
    what the lock file's note records): the lock file, every workspace file and table, and
    every output are free of it; so are ``sources`` and ``sql --db``'s errors."""
    urls = [
        f"postgresql://bob:{password}@127.0.0.1:1/sales",
        f"postgresql://127.0.0.1:1/sales?user=bob&password={password}",
        f"mysql://bob:{password}@127.0.0.1:1/sales",
        f"postgresql://bob:{password[:6]}@{password[6:]}@127.0.0.1:1/sales",  # an '@' inside
    ]
    secrets = [password, password[:6], password[6:]]
    outputs: list[Any] = []
    for url in urls:
        done = _tablerag("ingest", url, "-w", "ws", cwd=tmp_path)
        outputs += [done.stdout, done.stderr]
        assert "failed" in done.stdout + done.stderr, done.stdout + done.stderr
        ws = str(tmp_path / "ws")
        outputs += [*both("sql", "SELECT 1", "--db", url, "-w", ws), *both("sources", "-w", ws)]
    lock = tmp_path / "ws" / LOCK_FILE
    assert lock.read_text("utf-8").split(" ", 1)[1].startswith("tablerag ingest postgresql://")
    texts = [*(o if isinstance(o, str) else o.output for o in outputs), *workspace_dump(
        tmp_path / "ws")]  # fmt: skip
    found = [(s, text[:300]) for s in secrets for text in texts if s in text]
    assert not found, found
    assert_no_canary(*outputs, tmp_path / "ws", workspace_dump(tmp_path / "ws"))


def test_the_in_use_message_names_the_holder_without_its_password(
    tmp_path: Path, password: str
) -> None:
    """Another process holds the workspace, its command line holding a password: the message
    that names it shows the command with the password redacted."""
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "hold.py").write_text(
        "import sys, time\nfrom pathlib import Path\nfrom tablerag.store.lock import acquire\n"
        "acquire(Path(sys.argv[1]), exclusive=True, wait_s=0)\nprint('held', flush=True)\n"
        "time.sleep(60)\n",
        "utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    url = f"postgresql://bob:{password}@db.example/sales"
    proc = subprocess.Popen(
        [sys.executable, "hold.py", "ws", url],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(WorkspaceError) as caught:
            acquire(root, exclusive=False, wait_s=0)
        message = str(caught.value)
        assert f"pid {proc.pid}" in message and "postgresql://bob:***@db.example" in message
        assert_no_canary(message, root)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


# -- 2. no sample of a hidden column stored -------------------------------------------------------


@pytest.fixture(scope="module")
def kit() -> CanaryKit:
    return canary_kit()


def _ingested(target: str, root: Path, *extra: str) -> list[Result]:
    outputs = both("ingest", target, *extra, "-w", str(root))
    assert outputs[0].exit_code == 0, outputs[0].output
    return outputs


def _catalog_outputs(root: Path) -> list[Result]:
    outputs = [
        *both("tables", "-w", str(root)),
        *both("schema", "customers", "-w", str(root)),
        *both("chunks", "-w", str(root)),
        *both("search", "customers phone password", "-w", str(root)),
        *both("sql", "SELECT * FROM customers", "-w", str(root)),
    ]
    assert all(r.exit_code in (0, 3) for r in outputs), [r.output for r in outputs]
    return outputs


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_a_database_source_stores_no_value_of_a_hidden_column(
    kit: CanaryKit, tmp_path: Path, kind: str
) -> None:
    """A database file queried in place: tablerag reads every column (the gate alone guards
    it), and the workspace keeps no sample of a hidden one, by name or by content."""
    build = build_duckdb if kind == "duckdb" else build_sqlite
    url = f"{kind}:///{build(tmp_path / f'shop.{kind}', kit)}"
    root = tmp_path / "ws"
    outputs = _ingested(url, root) + _catalog_outputs(root)
    dump = workspace_dump(root, skip_data=False)  # a database source stores no rows at all
    assert any("name_1" in line for line in dump)  # visible samples are kept
    assert_no_canary(*outputs, dump, workspace_index(root))
    # hidden by content only, its samples withheld: still hidden when read back
    schema = json.loads(run("schema", "customers", "-w", str(root), "--json").stdout)
    shown = {c["name"]: c for c in schema["columns"]}
    assert "contact" in shown and run("sql", "SELECT contact FROM customers", "-w", str(root)
                                      ).exit_code == 3  # fmt: skip


@pytest.mark.parametrize("order", ["data-first", "descriptions-first"])
def test_files_store_no_value_of_a_hidden_column_whatever_the_order(
    kit: CanaryKit, tmp_path: Path, order: str
) -> None:
    """A CSV with a descriptions file whose flags name the columns in another case: the flags
    hold (case aside), whichever file comes first, and no catalog table or cached profile of
    the workspace keeps a value of a hidden column."""
    folder = write_customers(tmp_path / "in", kit)
    spec = json.loads((folder / "descriptions.json").read_text("utf-8"))
    spec["tables"] = {"Customers": {"columns": {"Diagnosis": {"sensitive": True},
                                                "RISK_SCORE": {"sensitive": True}}}}  # fmt: skip
    (folder / "descriptions.json").write_text(json.dumps(spec), "utf-8")
    files = [str(folder / "customers.csv"), str(folder / "descriptions.json")]
    if order == "descriptions-first":
        files.reverse()
    root = tmp_path / "ws"
    outputs: list[Result] = []
    for file in files:
        outputs += _ingested(file, root)
    outputs += _catalog_outputs(root)
    outputs += both("sql", "SELECT diagnosis, risk_score FROM customers", "-w", str(root))
    assert outputs[-1].exit_code == 3, outputs[-1].output
    assert_no_canary(*outputs, workspace_dump(root), workspace_index(root))


@pytest.mark.postgres
def test_a_postgres_role_that_reads_hidden_columns_stores_none_of_them(
    kit: CanaryKit, postgres_dsn: str, tmp_path: Path
) -> None:
    """The gate-only setup: a role that can read every column (the operator allowed readable
    hidden columns); the workspace still stores no sample of a hidden column."""
    build_postgres(postgres_dsn, kit, "tablerag_secrets_gate_only")
    url = postgres_dsn.rsplit("/", 1)[0] + "/tablerag_secrets_gate_only"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "tablerag.toml").write_text(
        "allow_readable_hidden_columns = true\nallow_writable_role = true\n", "utf-8"
    )
    outputs = _ingested(url, root) + _catalog_outputs(root)
    assert_no_canary(*outputs, workspace_dump(root, skip_data=False), workspace_index(root))


# -- 3. masking on every output channel --------------------------------------------------------

FORMATS = (
    ("+86 139 {a} {b}", "+86 139****{b}"),
    ("139-{a}-{b}", "139****{b}"),
    ("(010) 6{c}-{b}", "(010) ****{b}"),
    ("110101 1990{a} 12{d}X", "110101********12{d}X"),
)


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], list[str]]:
    """A CSV whose visible ``note`` and numeric ``amount`` columns hold personal data among
    ordinary numbers: the written forms are canaries, the masked forms are expected."""
    folder = tmp_path_factory.mktemp("notes")
    raw: list[str] = []
    masked: list[str] = []
    lines = ["id,note,amount,order_no"]
    for i, (form, shown) in enumerate(FORMATS, start=1):
        parts = {"a": f"{4000 + i:04d}", "b": f"{7000 + i:04d}", "c": f"{300 + i}",
                 "d": f"{i}"}  # fmt: skip
        value = plant(form.format(**parts), "a phone or ID number in a visible cell")
        digits = "".join(ch for ch in value if ch.isdigit())
        plant(digits[2:] if value.startswith("+86") else digits, "its digits")
        raw.append(value)
        masked.append(shown.format(**parts))
        lines.append(f'{i},"call {value} (order 2024-05-0{i})",1{i}9.50,20240501{i:04d}')
    (folder / "notes.csv").write_text("\n".join(lines) + "\n", "utf-8")
    return folder / "notes.csv", raw, masked


def _answering_llm(messages: Sequence[Message]) -> str:
    system = messages[0]["content"]
    if "numbered passages" in system:
        return "The notes are listed [1]."
    if "NEXT:" in system:
        return "ANSWER: unknown"
    if "SELECT" in system or "corrected" in messages[-1]["content"]:
        return "```sql\nSELECT id, note, CAST(note AS INTEGER) AS n FROM notes\n```"
    return "The result lists them."


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Iterator[FunctionLLM]:
    llm = FunctionLLM(_answering_llm)
    monkeypatch.setattr("tablerag.service.load_llm", lambda spec=None, **kw: llm)
    yield llm


def test_personal_data_in_visible_cells_is_masked_on_every_channel(
    notes: tuple[Path, list[str], list[str]], tmp_path: Path, scripted: FunctionLLM
) -> None:
    csv, raw, masked = notes
    root = tmp_path / "ws"
    outputs = _ingested(str(csv), root)
    outputs += [
        *both("chunks", "-w", str(root)),
        *both("schema", "notes", "-w", str(root)),
        *both("search", "call order note", "-w", str(root)),
        *both("search", "call order note", "-w", str(root), "--mode", "bm25"),
        *both("sql", "SELECT * FROM notes", "-w", str(root)),
        *both("sql", "SELECT CAST(note AS INTEGER) FROM notes", "-w", str(root)),
        *both("sql", "SELECT CAST(note AS DATE) FROM notes", "-w", str(root)),
        *both("sql", "SELECT strptime(note, '%Y') FROM notes", "-w", str(root)),
        *both("ask", "List the note and amount of every row in the notes table", "-w", str(root)),
    ]
    assert outputs[-1].exit_code in (0, 1), outputs[-1].output
    index = workspace_index(root)
    assert_no_canary(*outputs, scripted, index, root)  # root: vocab.index.json and every file
    # not vacuous: the masked forms are there, and ordinary numbers are not masked
    shown = json.loads(run("sql", "SELECT note, amount, order_no FROM notes ORDER BY id",
                           "-w", str(root), "--json").stdout)  # fmt: skip
    for (note, amount, order_no), want, i in zip(shown["rows"], masked, range(1, 5), strict=True):
        assert want in note and f"2024-05-0{i}" in note, note
        assert float(amount) == float(f"1{i}9.5") and str(order_no) == f"20240501{i:04d}"
    assert any(want in text for want in masked for text in index)
    prompts = [c.messages[-1]["content"] for c in scripted.history]
    assert any("CREATE TABLE notes" in p and "139****" in p for p in prompts), prompts  # samples
    # the CAST is refused: the column holds phone numbers, and a cast could undo the mask
    assert any("'note' is masked in results" in p for p in prompts), prompts


def test_a_secret_key_inside_a_visible_json_value_is_masked(tmp_path: Path) -> None:
    """A visible column holding JSON whose keys name secrets (``{"password": …}``): the value
    under such a key is masked in results, chunks, the index, samples and errors."""
    secret = plant(f"CNRYjson{os.urandom(3).hex()}", "a password inside a visible JSON value")
    pin = plant(str(700_000_000 + int.from_bytes(os.urandom(3))), "a PIN inside a JSON value")
    profile = json.dumps({"nickname": "ann", "password": secret, "more": [{"pin_code": int(pin)}]})
    con = duckdb.connect(str(tmp_path / "p.duckdb"))
    con.execute(
        "CREATE TABLE profiles (id INTEGER, profile VARCHAR, prefs STRUCT(password VARCHAR))"
    )
    con.execute("INSERT INTO profiles VALUES (1, ?, {'password': ?})", [profile, secret])
    con.close()
    url = f"duckdb:///{tmp_path / 'p.duckdb'}"
    root = tmp_path / "ws"
    outputs = _ingested(url, root)
    for where in (["-w", str(root)], ["--db", url]):
        for query in ("SELECT profile FROM profiles", "SELECT prefs FROM profiles",
                      "SELECT to_json(prefs) AS j FROM profiles",
                      "SELECT CAST(profile AS INTEGER) FROM profiles"):  # fmt: skip
            outputs += both("sql", query, *where)
    outputs += [*both("schema", "profiles", "-w", str(root)), *both("chunks", "-w", str(root))]
    shown = json.loads(run("sql", "SELECT profile FROM profiles", "--db", url, "--json").stdout)
    assert json.loads(shown["rows"][0][0])["nickname"] == "ann", shown  # the rest is kept
    assert_no_canary(*outputs, workspace_dump(root, skip_data=False))


def test_engine_errors_quote_no_cell_value(tmp_path: Path) -> None:
    """A visible cell that is not personal-looking is not echoed by a conversion error either
    (a message shows no more of the data than a result)."""
    root = tmp_path / "ws"
    (tmp_path / "t.csv").write_text("id,label\n1,CNRYlabelAlpha\n", "utf-8")
    plant("CNRYlabelAlpha", "a visible cell a cast fails on")
    outputs = _ingested(str(tmp_path / "t.csv"), root)
    for query in ("SELECT CAST(label AS INTEGER) FROM t", "SELECT label::DATE FROM t",
                  "SELECT CAST(label AS JSON) FROM t", "SELECT label::INT[] FROM t"):  # fmt: skip
        results = both("sql", query, "-w", str(root))
        assert results[0].exit_code == 1 and "<value>" in results[0].output, results[0].output
        outputs += results
    assert_no_canary(*outputs)


# -- 4-6. detection, sql --db, allow_columns ------------------------------------------------------

DETECTED = {  # column -> hidden?
    "联系地址": True,
    "birthday": True,
    "生日": True,
    "银行账号": True,
    "pass": True,
    "real_name": True,
    "真实姓名": True,
    "id_no": True,  # by its comment, 身份证号
    "passenger_count": False,
    "address_count": False,
    "birthday_month_sales": False,
    "city": False,
}


@pytest.fixture
def people(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A DuckDB file whose columns are hidden by name or comment (values are canaries) or
    plain (values are ordinary)."""
    values: dict[str, str] = {}
    for column, hidden in DETECTED.items():
        value = f"CNRY{os.urandom(3).hex()}" if hidden else "17"
        values[column] = plant(value, f"people.{column}") if hidden else value
    path = tmp_path / "people.duckdb"
    con = duckdb.connect(str(path))
    cols = ", ".join(f'"{c}" VARCHAR' for c in DETECTED)
    con.execute(f"CREATE TABLE people (id INTEGER, {cols})")
    con.execute("COMMENT ON COLUMN people.id_no IS '身份证号'")
    marks = ", ".join("?" * (len(DETECTED) + 1))
    con.execute(f"INSERT INTO people VALUES ({marks})", [1, *values.values()])
    con.close()
    return f"duckdb:///{path}", values


def test_names_and_comments_in_chinese_and_english_hide_their_columns(
    people: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    url, values = people
    root = tmp_path / "ws"
    outputs = _ingested(url, root)
    schema = json.loads(run("schema", "people", "-w", str(root), "--json").stdout)
    hidden = {c["name"] for c in schema["columns"] if c.get("hidden")}
    assert hidden == {c for c, h in DETECTED.items() if h}, schema["columns"]
    plain = ", ".join(f'"{c}"' for c, h in DETECTED.items() if not h)
    for where in (["-w", str(root)], ["--db", url]):
        outputs += [
            *both("sql", "SELECT * FROM people", *where),
            *both("sql", 'SELECT "联系地址", pass, id_no FROM people', *where),
            *both("sql", f"SELECT {plain} FROM people", *where),
        ]
        assert {r.exit_code for r in outputs[-6:-2]} == {3}, [r.output for r in outputs[-6:]]
        shown = json.loads(outputs[-1].stdout)
        assert shown["rows"] == [[values[c] for c, h in DETECTED.items() if not h]], shown
    assert_no_canary(*outputs, workspace_dump(root, skip_data=False))


def test_sql_db_applies_the_workspace_flags_and_the_content_rules(
    kit: CanaryKit, tmp_path: Path
) -> None:
    """``--db`` on a database the workspace never ingested: its flags (a descriptions file in
    the workspace) and the content rules hide as they would for a workspace source."""
    path = tmp_path / "crm.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE leads (id INTEGER, score INTEGER, reach VARCHAR)")
    score = plant(str(900_000_000 + int.from_bytes(os.urandom(3))), "leads.score (flagged)")
    reach = plant(f"cnrylead{os.urandom(3).hex()}@mail.example.com", "leads.reach (content)")
    con.execute("INSERT INTO leads VALUES (1, ?, ?), (2, ?, ?)", [score, reach, score, reach])
    con.commit()
    con.close()
    spec = {"format": "tablerag-table-descriptions/1",
            "tables": {"LEADS": {"columns": {"Score": {"sensitive": True}}}}}  # fmt: skip
    (tmp_path / "d.json").write_text(json.dumps(spec), "utf-8")
    root = tmp_path / "ws"
    outputs = _ingested(str(tmp_path / "d.json"), root)
    url = f"sqlite:///{path}"
    for query in ("SELECT * FROM leads", "SELECT score FROM leads", "SELECT reach FROM leads",
                  "SELECT max(score) + 0 AS s FROM leads"):  # fmt: skip
        outputs += both("sql", query, "--db", url, "-w", str(root))
        assert outputs[-1].exit_code == 3, outputs[-1].output
    shown = run("sql", "SELECT id FROM leads ORDER BY id", "--db", url, "-w", str(root), "--json")
    assert json.loads(shown.stdout)["rows"] == [[1], [2]], shown.output
    assert_no_canary(*outputs, shown)


def test_allow_columns_unmasks_its_column(tmp_path: Path) -> None:
    (tmp_path / "stores.csv").write_text(
        "id,name,phone\n1,North,13912345678\n2,South,13887654321\n", "utf-8"
    )
    root = tmp_path / "ws"
    _ingested(str(tmp_path / "stores.csv"), root)
    query = "SELECT name, phone FROM stores ORDER BY id"
    refused = run("sql", query, "-w", str(root), "--json")
    assert refused.exit_code == 3, refused.output  # hidden by name
    (root / "tablerag.toml").write_text('allow_columns = ["stores.phone"]\n', "utf-8")
    shown = run("sql", query, "-w", str(root), "--json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["rows"] == [["North", 13912345678], ["South", 13887654321]], data
    assert data["masked_columns"] == []
    # an alias keeps its value's masking: only the allowed column is unmasked
    aliased = json.loads(run("sql", "SELECT phone AS p FROM stores ORDER BY id", "-w",
                             str(root), "--json").stdout)  # fmt: skip
    assert aliased["rows"][0] == ["139****5678"]


def test_a_canary_is_found_where_it_is(tmp_path: Path, password: str) -> None:
    """The scans are not vacuous: a password written into a workspace file is found."""
    root = tmp_path / "ws"
    root.mkdir()
    duckdb.connect(str(root / DB_FILE)).close()
    (root / LOCK_FILE).write_text(f"1 tablerag ingest postgresql://bob:{password}@db/x\n")
    assert find_canaries(workspace_dump(root))
