"""The shop set (``--set shop``): the same seed gives the same database and documents, every
stored answer equals the truth recomputed in plain Python, each gold SQL gives it on the DuckDB
file and on PostgreSQL, the read-only role cannot read the phone, and the ``oracle`` method
scores 100 % through ``tablerag eval userdata`` on both (scripted model, no real one)."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import docx
import duckdb
import psycopg
import pytest

from tablerag.cli import app
from tablerag.errors import ConfigError
from tablerag.evals.userdata.shop import data as shopdata
from tablerag.evals.userdata.shop.docs import DEFINITIONS_FILE, NOTES_FILE, write_docs
from tablerag.evals.userdata.shop.load import (
    READER,
    TABLES,
    content_hash,
    granted_customer_columns,
    load_postgres,
    write_duckdb,
)
from tablerag.evals.userdata.shop.questions import QUESTIONS
from tablerag.evals.userdata.shop.truth import TRUTH
from tablerag.evals.userdata.task import judge
from tests.evals.userdata_helpers import assert_truths_match, results, run_eval, runner

AMOUNTS = {
    ("products", "list_price"),
    ("products", "cost_price"),
    ("orders", "pay_amt"),
    ("order_items", "unit_price"),
    ("order_items", "discount"),
    ("refunds", "refund_amt"),
}


def test_the_set_holds_thirty_bilingual_questions_with_truths() -> None:
    assert len(QUESTIONS) >= 30 and len({q.qid for q in QUESTIONS}) == len(QUESTIONS)
    languages = Counter(q.language for q in QUESTIONS)
    assert abs(languages["zh"] - languages["en"]) <= 4
    kinds = Counter(q.kind for q in QUESTIONS)
    assert kinds["metric"] >= 8 and kinds["breakdown"] >= 3 and kinds["unanswerable"] >= 3
    for q in QUESTIONS:
        assert q.answerable == (q.qid in TRUTH), q.qid
        assert q.sql or q.kind in ("definition", "unanswerable"), q.qid


def test_every_stored_answer_equals_the_truth_recomputed_from_the_records() -> None:
    shop = shopdata.build()
    assert assert_truths_match(QUESTIONS, TRUTH, shop) == sum(q.answerable for q in QUESTIONS)
    # the traps are real: 分 not 元, and the PAID-only caliber changes 客单价
    paid = [o for o in shop.orders if o.status == "PAID"]
    every = sum(o.pay_amt_fen for o in shop.orders) / len(shop.orders)
    assert abs(every - sum(o.pay_amt_fen for o in paid) / len(paid)) > 100


def _rows(text: list[Any]) -> str:
    return json.dumps([list(r) for r in text], ensure_ascii=False, default=str)


def _check_gold(execute: Any) -> int:
    checked = 0
    for q in QUESTIONS:
        if q.sql:
            assert judge(q, _rows(execute(q.sql)), "ok") == (True, ""), q.qid
            checked += 1
    return checked


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_duckdb(tmp_path_factory.mktemp("shop") / "shop.duckdb", shopdata.build())


def test_gold_sql_on_the_duckdb_file_gives_every_truth(duck: Path) -> None:
    con = duckdb.connect(str(duck), read_only=True)
    try:
        assert _check_gold(lambda sql: con.execute(sql).fetchall()) >= 25
        comments = dict(
            ((t, c), text)
            for t, c, text in con.execute(
                "SELECT table_name, column_name, comment FROM duckdb_columns()"
            ).fetchall()
        )
        for column in AMOUNTS:
            assert "单位：分" in comments[column], column
        assert ("customers", "phone") not in comments  # the copy holds what the reader sees
        fks = con.execute(
            "SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'FOREIGN KEY'"
        ).fetchone()
        assert fks == (6,)  # products, orders ×2, order_items ×2, refunds
    finally:
        con.close()


def test_the_same_seed_gives_the_same_database_and_documents(tmp_path: Path, duck: Path) -> None:
    assert content_hash(shopdata.build()) == content_hash(shopdata.build())
    assert content_hash(shopdata.build(shopdata.SEED + 1)) != content_hash(shopdata.build())
    again = write_duckdb(tmp_path / "again.duckdb", shopdata.build())
    for table in TABLES:
        with duckdb.connect(str(duck), read_only=True) as a, duckdb.connect(str(again)) as b:
            sql = f"SELECT * FROM {table} ORDER BY 1"
            assert a.execute(sql).fetchall() == b.execute(sql).fetchall(), table
    one = write_docs(tmp_path / "a")
    time.sleep(1.1)
    two = write_docs(tmp_path / "b")
    for x, y in zip(one, two, strict=True):
        assert x.read_bytes() == y.read_bytes(), x.name
    text = (tmp_path / "a" / DEFINITIONS_FILE).read_text(encoding="utf-8")
    for metric in ("GMV", "毛利", "客单价", "退货率", "仅 PAID 订单"):
        assert metric in text
    # the definition questions' answers are in the documents, as the questions' sources say
    assert "REFUND 订单数 ÷ (PAID + REFUND 订单数)" in text
    notes = "\n".join(p.text for p in docx.Document(str(tmp_path / "a" / NOTES_FILE)).paragraphs)
    assert "member_level ≥ 4 为 VIP 客户" in notes and "退款按退款时间 refund_time" in notes
    assert "以分为单位" in notes


def test_an_unreachable_server_is_a_config_error_without_the_password() -> None:
    with pytest.raises(ConfigError, match="Give --db the URL of an existing database") as err:
        load_postgres("postgresql://admin:s3cret-pw@127.0.0.1:1/shop", shopdata.build())
    assert "s3cret-pw" not in str(err.value)


def test_the_oracle_scores_every_question_on_the_duckdb_file(tmp_path: Path) -> None:
    summary = run_eval(tmp_path / "run", ["--set", "shop", "--part", "all", "--methods", "oracle"])
    assert summary["methods"]["oracle"]["accuracy"] == 1.0
    assert summary["cases"] == len(QUESTIONS) and summary["today"] == "2026-11-15"
    assert len(results(tmp_path / "run")) == len(QUESTIONS)
    assert (tmp_path / "run" / "db" / "shop.duckdb").is_file()
    notes = (tmp_path / "run" / "workspace" / ".userdata-ingested").read_text(encoding="utf-8")
    assert "shop.duckdb" in notes and DEFINITIONS_FILE in notes


@pytest.mark.postgres
def test_on_postgresql_the_reader_is_denied_the_phone_and_the_oracle_scores_all(
    pg_database: str, tmp_path: Path
) -> None:
    reader = load_postgres(pg_database, shopdata.build())
    assert reader.startswith(f"postgresql://{READER}@")
    with psycopg.connect(pg_database, autocommit=True) as admin:
        granted = admin.execute(
            "SELECT column_name FROM information_schema.column_privileges "
            "WHERE grantee = %s AND table_name = 'customers' AND privilege_type = 'SELECT' "
            "ORDER BY column_name",
            (READER,),
        ).fetchall()
        assert sorted(c for (c,) in granted) == sorted(granted_customer_columns())
        comments = admin.execute(
            "SELECT c.relname, a.attname, col_description(c.oid, a.attnum) FROM pg_class c "
            "JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relkind = 'r' AND a.attnum > 0 "
            "AND c.relnamespace = 'public'::regnamespace"
        ).fetchall()
        found = {(t, c): text for t, c, text in comments}
        assert all("单位：分" in (found[col] or "") for col in AMOUNTS)
        writable = admin.execute(
            "SELECT count(*) FROM information_schema.table_privileges WHERE grantee = %s "
            "AND privilege_type <> 'SELECT'",
            (READER,),
        ).fetchone()
        assert writable == (0,)
    with psycopg.connect(reader, autocommit=True) as con:
        assert _check_gold(lambda sql: con.execute(sql).fetchall()) >= 25
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            con.execute("SELECT phone FROM customers")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            con.execute("DELETE FROM refunds")
    folder = tmp_path / "run"
    args = ["--set", "shop", "--part", "all", "--db", pg_database, "--methods", "oracle"]
    summary = run_eval(folder, args)
    assert summary["methods"]["oracle"]["accuracy"] == 1.0
    assert summary["cases"] == len(QUESTIONS)
    notes = (folder / "workspace" / ".userdata-ingested").read_text(encoding="utf-8")
    assert "failed" not in notes
    assert not (folder / "db").exists()  # no DuckDB copy when the server is given
    # the phone reaches no output: the run's files, nor a query through the workspace
    phones = [c.phone for c in shopdata.build().customers]
    texts_of_refusals: list[str] = []
    workspace = folder / "workspace"
    sql = ["sql", "--workspace", str(workspace), "--json"]
    every = runner.invoke(
        app, [*sql, "SELECT " + ", ".join(granted_customer_columns()) + " FROM customers"]
    )
    assert every.exit_code == 0 and len(json.loads(every.stdout)["rows"]) == 80, every.output
    for denied in ("SELECT * FROM customers", "SELECT customer_id, phone FROM customers"):
        refused = runner.invoke(app, [*sql, denied])
        assert refused.exit_code != 0 and "error" in json.loads(refused.stdout), denied
        texts_of_refusals.append(refused.output)
    texts = [every.output, *texts_of_refusals] + [
        p.read_text(encoding="utf-8") for p in folder.iterdir() if p.suffix in (".json", ".md")
    ]
    texts.append((folder / "results.jsonl").read_text(encoding="utf-8"))
    assert not [p for p in phones if any(p in t for t in texts)]
