"""A query that does not follow a definition is doubted whatever the definition's wording: the
key counted once is a key column of the schema it names, the denominator's set is the values the
data holds that its clause names (issue 30). The sample's ``fact_sales`` is at order-line
grain; its ``status`` holds PAID, REFUND and other values. (The mends that rewrote such a
query, ``distinct`` and ``denominator``, were removed in issue 29: they changed no answer on
six sets; the doubt they turned into an ``ok`` stays.)"""

from __future__ import annotations

import datetime as dt

from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.sql.engines import SQLEngine
from tablerag.types import Hit

QUESTION = "What is the refund share of orders?"
PASSAGE = (
    "Refund share = refunded ÷ paid orders (denominator: status PAID or later REFUND), once "
    "per order_id (去重)."
)
LINES = (
    "```sql\nSELECT SUM(CASE WHEN status = 'REFUND' THEN 1 ELSE 0 END) * 1.0 / "
    "SUM(CASE WHEN status = 'PAID' THEN 1 ELSE 0 END) AS refund_share FROM fact_sales\n```"
)


def _hit(text: str) -> Hit:
    return Hit("m-1", "/corpus/shares.md", 1, text, ("Metrics", "Refund share"), None, None, 3.0, 1)


def test_a_definition_in_other_words_doubts_the_count_and_the_denominator(
    parts: tuple[SQLEngine, SchemaCatalog],
) -> None:
    engine, catalog = parts
    status = next(c for c in catalog.tables["fact_sales"].columns if c.name.lower() == "status")
    assert {"PAID", "REFUND"} <= set(status.samples)  # what the denominator's clause names
    schema = schema_context(QUESTION, catalog, engine=engine, passages=[_hit(PASSAGE)])
    llm = ScriptedLLM(replies=[LINES] * 3)
    answer = answer_with_sql(
        QUESTION,
        llm=llm,
        engine=engine,
        schema=schema,
        language="en",
        options=NL2SQLOptions(today=dt.date(2026, 11, 30), explain=False, max_repairs=1),
    )
    assert answer.status == "unsure", (answer.status, answer.checks)
    ignored = [f for f in answer.findings if f.code == "definition_ignored"]
    assert ignored, answer.findings
    missing = dict(ignored[0].values)["missing"]
    assert "DISTINCT" in missing and "PAID" in missing and "REFUND" in missing, missing
    assert answer.sql is not None and "DISTINCT" not in answer.sql.upper()  # not rewritten
