"""Findings are written into an answer's text by one function, and read off by its inverse."""

from __future__ import annotations

from tablerag.answer import Answer, Finding
from tablerag.answer.findings import body, composed, lines

DOUBT = Finding(
    code="constant_query", severity="doubt", message="checks.constant_query", stage="checks"
)
OTHER = Finding(
    code="unread_table",
    severity="doubt",
    message="checks.unread_table",
    values={"table": "orders", "terms": "order", "tables": "dim_region"},
    stage="checks",
)
CITED = Finding(
    code="definition_followed",
    severity="cite",
    message="checks.definition_followed",
    values={
        "term": "退货率",
        "document": "metrics.md",
        "definition": "x",
        "table": "",
        "chunk": "c",
    },
    stage="checks",
    placement="tail",
)


def test_lead_lines_go_above_tail_lines_below_and_body_takes_the_lead_off() -> None:
    text = composed("3 orders.", [DOUBT, CITED, OTHER], "en")
    first, middle, last = text.split("\n")
    assert first == lines([DOUBT, OTHER], "en", "lead")[0]  # the checks' doubts share a line
    assert "the query reads no table" in first and "orders" in first
    assert middle == "3 orders." and last == lines([CITED], "en", "tail")[0]
    found = [DOUBT, CITED, OTHER]
    answer = Answer(question="q", answer=text, language="en", path="nl2sql", findings=found)
    assert body(answer) == "3 orders.\n" + last
    assert composed("3 orders.", [], "zh") == "3 orders."
