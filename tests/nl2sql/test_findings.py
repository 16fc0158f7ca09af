"""Findings as data: what the checks found travels in ``Answer.findings`` and the words are
rendered from it (issue 29); nothing reads a sentence back."""

from __future__ import annotations

from tablerag.answer import Answer
from tablerag.answer.fallback import reason
from tablerag.answer.findings import body, unsure_line
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.testing import ScriptedLLM
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.sql.engines import SQLEngine
from tests.nl2sql.test_path import TODAY

Parts = tuple[SQLEngine, SchemaCatalog]


def _ask(question: str, replies: list[str], parts: Parts, language: str = "en") -> Answer:
    engine, catalog = parts
    schema = schema_context(question, catalog, engine=engine)
    options = NL2SQLOptions(today=TODAY, explain=False)
    return answer_with_sql(
        question,
        llm=ScriptedLLM(replies=replies),
        engine=engine,
        schema=schema,
        language=language,  # type: ignore[arg-type]
        options=options,
    )


def test_a_doubt_is_a_finding_and_the_text_is_rendered_from_it(parts: Parts) -> None:
    constant = "```sql\nSELECT 1 AS n\n```"
    answer = _ask("How many refunds are there?", [constant], parts)
    assert answer.status == "unsure"
    doubts = [f for f in answer.findings if f.severity == "doubt"]
    assert "constant_query" in {f.code for f in doubts}
    assert all(f.stage == "checks" and f.placement == "lead" for f in doubts)
    assert answer.checks == [f.code for f in answer.findings]
    # the first line is the findings rendered; the body is what is left under it
    first, rest = answer.answer.split("\n", 1)
    assert first == unsure_line(answer.findings, "en")
    assert body(answer) == rest
    # the same data says it in the other language at the edge, and gives the fallback's reason
    assert unsure_line(answer.findings, "zh").startswith("这个结果可能不对：")
    assert reason(answer) == first.removeprefix("This result may be wrong: ").rstrip(".")
    dumped = answer.model_dump(mode="json")["findings"]
    assert dumped[0]["code"] == answer.findings[0].code and "values" in dumped[0]
