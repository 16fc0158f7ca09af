"""A metric glossary in the workspace's documents defines what a connected database's query
computes: quoted to the SQL prompt of the database and checked against its query."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.llm.base import Message
from tablerag.llm.cache import CachedLLM
from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tests.plugins.canary import (
    assert_no_canary,
    build_sqlite,
    canary_kit,
    plant,
    workspace_index,
)
from tests.sources.conftest import SETTINGS, Model, ingest, sql_prompt, url

GLOSSARY_MD = """# 经营指标定义

| 指标 | 英文名 | 计算公式 | 口径 |
| --- | --- | --- | --- |
| GMV | GMV | Σ(pay_amt) | 状态为 PAID 或 REFUND 的订单（不含 CANCELLED）；单位：元 |
| 销售额 | Net sales | Σ(pay_amt) | 仅 PAID 订单；单位：元 |
"""
ORDERS = [(1, "PAID", 100.0), (2, "REFUND", 40.0), (3, "CANCELLED", 70.0), (4, "PAID", 10.0)]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("glossary")
    con = sqlite3.connect(root / "shop.db")
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT, pay_amt REAL)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
    con.commit()
    con.close()
    files = root / "files"
    files.mkdir()
    (files / "指标定义.md").write_text(GLOSSARY_MD, encoding="utf-8")
    ingest(root / "ws", [url("sqlite", root / "shop.db"), files])
    return root / "ws"


@pytest.mark.parametrize(
    ("sql", "status", "total"),
    [
        ("SELECT SUM(pay_amt) AS gmv FROM orders", "unsure", 220.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status IN ('PAID', 'REFUND')", "ok", 150.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status <> 'CANCELLED'", "ok", 150.0),
        ("SELECT SUM(pay_amt) AS gmv FROM orders WHERE status = 'PAID'", "unsure", 110.0),
    ],
)
def test_a_glossary_in_the_documents_defines_the_databases_metric(
    shop: Path, sql: str, status: str, total: float
) -> None:
    model = Model({"GMV": sql}, passages="NOT_FOUND")  # the glossary gives no figure
    with QA.open(shop, llm=FunctionLLM(model), settings=SETTINGS) as qa:
        answer = qa.ask("GMV是多少元？")  # "GMV" inside Chinese text names the glossary's row
    assert answer.table is not None and answer.table.rows == [[total]]
    assert answer.status == status, answer.answer
    prompt = model.sql_prompts[0]
    assert "指标定义.md" in prompt and "状态为 PAID 或 REFUND" in prompt
    assert "orders" in prompt  # the database's table, in its own prompt
    if status == "ok":
        assert "指标定义.md" in answer.answer  # the definition followed is cited
    else:
        assert "指标定义.md" in answer.answer.splitlines()[0]  # the doubt names it


# --- hidden means hidden across places -------------------------------------------------------

GLOSSARY_CANARY_MD = """# 客户指标定义

| 指标 | 计算公式 | 口径 | 负责人 | 手机 | 邮箱 | password |
| --- | --- | --- | --- | --- | --- | --- |
| 人均消费 | AVG(amount) | 仅统计 city 为 Oslo 或 Lyon | 王芳 | {phone} | {email} | {password} |
"""
GRABS = (
    "SELECT 手机, 邮箱, password FROM 指标定义_table_1",  # the glossary's table, from the database
    "SELECT name, password, phone FROM customers",  # the database's own hidden columns
    "SELECT AVG(amount) AS avg_amount FROM customers WHERE city IN ('Oslo', 'Lyon')",
)


def _grabbing_model(messages: Sequence[Message]) -> str:
    """A model that tries the hidden columns of both places before it answers."""
    if sql_prompt(messages):
        n = sum("```sql" in m["content"] for m in messages if m["role"] == "assistant")
        return f"```sql\n{GRABS[min(n, len(GRABS) - 1)]}\n```"
    if "numbered passages" in messages[0]["content"]:
        return "王芳的手机和邮箱见表 [1]。"
    return "NEXT: none"


@pytest.fixture(scope="module")
def canary_shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The canary ``customers`` asked in place (SQLite) and a metric glossary in the files whose
    table holds a phone, an e-mail and a password column of planted canaries."""
    kit = canary_kit()
    root = tmp_path_factory.mktemp("glossary_canary")
    db = build_sqlite(root / "shop.db", kit)
    tag = secrets.token_hex(4)
    values = {
        "phone": plant(f"139{secrets.randbelow(10**8):08d}", "glossary phone"),
        "email": plant(f"cnry{tag}@example.com", "glossary e-mail"),
        "password": plant(f"CNRYgl{tag}", "glossary password"),
    }
    files = root / "files"
    files.mkdir()
    (files / "指标定义.md").write_text(GLOSSARY_CANARY_MD.format(**values), encoding="utf-8")
    out = CliRunner().invoke(app, ["ingest", url("sqlite", db), str(files), "-w", str(root / "ws")])
    assert out.exit_code == 0, out.output
    assert_no_canary(out)
    return root / "ws", values["phone"]


@pytest.mark.parametrize(
    "question", ["人均消费是多少？", "人均消费是多少？负责人的手机、邮箱和密码是什么？"]
)
def test_a_glossary_in_the_documents_never_shows_its_hidden_columns(
    canary_shop: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    question: str,
) -> None:
    """Definition rows read from another place than the one asked (the files' glossary for a
    database) quote its visible cells only: no planted value of the glossary's hidden columns,
    nor of the database's, reaches the answer, its JSON, the model's prompts or the response
    cache, whatever the model tries."""
    ws, phone = canary_shop
    inner = FunctionLLM(_grabbing_model)
    monkeypatch.setattr(  # a fresh cache per command, as a user's; one log of prompts and replies
        "tablerag.service.load_llm", lambda spec=None, **kw: CachedLLM(inner, tmp_path / "cache")
    )
    runner = CliRunner()
    outputs = [runner.invoke(app, ["ask", question, "-w", str(ws), *x]) for x in ((), ("--json",))]
    assert all(r.exit_code in (0, 1) and not isinstance(r.exception, Exception) for r in outputs), [
        (r.output, r.exception) for r in outputs
    ]
    # not vacuous: the database's prompt quoted the glossary's row, the grabs were tried
    prompts = [c.messages[-1]["content"] for c in inner.history if sql_prompt(c.messages)]
    assert any("仅统计 city 为 Oslo 或 Lyon" in p and "customers" in p for p in prompts), prompts
    data = json.loads(outputs[1].stdout)
    assert "指标定义.md" in {c["source"].rsplit("/", 1)[-1] for c in data["citations"]}, data
    tried = [a["sql"] or "" for a in data["sql_attempts"]]
    assert any("手机" in sql for sql in tried) and any("password" in sql for sql in tried), tried
    assert_no_canary(*outputs, inner, tmp_path / "cache", workspace_index(ws))
    assert phone not in " ".join(r.output for r in outputs)  # the assertion knows this value
