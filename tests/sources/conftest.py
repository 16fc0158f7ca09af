"""Databases queried in place beside the workspace's own files: builders and a scripted model."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import duckdb
import pytest

from tablerag.llm.base import Message
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import SourceReport

SETTINGS = Settings(embedder="hashing", rag_min_score=0.0, draft_on_ingest=False)

EMPLOYEES = [(1, "Ann", "sales", 5200.0), (2, "Bob", "ops", 4100.0), (3, "Cy", "ops", 3900.0)]
"""hr.db (SQLite): employees(id, name, dept, salary)."""
ORDERS = [(1, "Zed", 10.0), (2, "Yu", 20.5), (3, "Zed", 4.5)]
"""shop.duckdb (DuckDB): orders(id, customer, amount)."""
STAFF = [(9, "Dee")]
"""staff.duckdb (DuckDB): employees(id, name) - the same table name as hr.db's."""
SALES_CSV = "region,amount\nnorth,5\nsouth,7\nnorth,11\n"
POLICY_MD = """# Travel policy

## Hotels

Employees of the ops department may book hotels up to 120 euros a night.
"""


def make_hr(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT, dept TEXT, salary REAL)"
    )
    con.executemany("INSERT INTO employees VALUES (?, ?, ?, ?)", EMPLOYEES)
    con.commit()
    con.close()
    return path


def make_shop(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE orders (id INTEGER, customer VARCHAR, amount DOUBLE)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
    con.close()
    return path


def make_staff(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE employees (id INTEGER, name VARCHAR)")
    con.executemany("INSERT INTO employees VALUES (?, ?)", STAFF)
    con.close()
    return path


def url(scheme: str, path: Path) -> str:
    """``sqlite:////abs/path`` (an absolute path after the three slashes)."""
    return f"{scheme}:///{path.resolve()}"


def ingest(ws_path: Path, targets: Sequence[str | Path]) -> list[SourceReport]:
    with Workspace.open(ws_path) as ws:
        reports = ws.ingest(list(targets), settings=SETTINGS)
    assert [r.error for r in reports if r.status == "failed"] == []
    return reports


@pytest.fixture(scope="session")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """A workspace holding a SQLite and a DuckDB database in place, a CSV and a document."""
    root = tmp_path_factory.mktemp("mixed")
    files = root / "files"
    files.mkdir()
    (files / "sales.csv").write_text(SALES_CSV, encoding="utf-8")
    (files / "policy.md").write_text(POLICY_MD, encoding="utf-8")
    hr = url("sqlite", make_hr(root / "hr.db"))
    shop = url("duckdb", make_shop(root / "shop.duckdb"))
    ingest(root / "ws", [hr, shop, files])
    return {"ws": root / "ws", "hr": hr, "shop": shop, "root": root}


@pytest.fixture(scope="session")
def twins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """A workspace of two databases that both hold a table ``employees``."""
    root = tmp_path_factory.mktemp("twins")
    hr = url("sqlite", make_hr(root / "hr.db"))
    staff = url("duckdb", make_staff(root / "staff.duckdb"))
    ingest(root / "ws", [hr, staff])
    return {"ws": root / "ws", "hr": hr, "staff": staff}


Reply = Callable[[str], str]


def sql_prompt(messages: Sequence[Message]) -> bool:
    """Whether a request is the NL2SQL prompt (or its repair)."""
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    return "SELECT" in system


class Model:
    """``FunctionLLM`` body: SQL by question keyword, a cited sentence for passages; records
    the SQL prompts it saw."""

    def __init__(self, sql: dict[str, str], passages: str = "See the policy [1].") -> None:
        self.sql, self.passages = sql, passages
        self.sql_prompts: list[str] = []
        self.calls = 0

    def __call__(self, messages: Sequence[Message]) -> str:
        self.calls += 1
        text = "\n".join(m["content"] for m in messages)
        if sql_prompt(messages):
            self.sql_prompts.append(text)
            question = messages[-1]["content"].rsplit("Question:", 1)[-1]
            for word, sql in self.sql.items():
                if word in question:
                    return f"```sql\n{sql}\n```"
            raise AssertionError(f"no scripted SQL for {question[-200:]!r}")
        if "numbered passages" in messages[0]["content"]:
            return self.passages
        return "NEXT: none"
