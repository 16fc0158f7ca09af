"""The loop's own doubts are findings (issue 29): the line above its answer is rendered from
them, and the scorer's body is what is under it."""

from __future__ import annotations

from pathlib import Path

from tablerag.answer.findings import body, lines, says
from tests.loop.conftest import ByKind
from tests.loop.test_loop import SQL_2019, Q, qa


def test_a_conflict_is_a_finding_rendered_above_the_answer(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="It was 1,390.0 [1].")
    with qa(loop_ws, script) as q:
        answer = q.loop(Q)
    (conflict,) = answer.findings
    assert (conflict.code, conflict.severity, conflict.stage) == ("conflict", "doubt", "loop")
    assert "1452.4" in conflict.values["sql"] and "1,390.0" in conflict.values["text"]
    first = answer.answer.split("\n", 1)[0]
    assert lines(answer.findings, "en", "lead") == [first] == [says(conflict, "en")]
    assert body(answer) == "1452.4"
    assert says(conflict, "zh").startswith("这个回答可能不对：表格和文档的说法不一致")


def test_the_conflict_verdict_is_a_step_switched_off_by_name(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="It was 1,390.0 [1].")
    with qa(loop_ws, script) as q:
        doubted = q.loop(Q)
    with qa(loop_ws, script, stages={"conflict": False}) as q:
        kept = q.loop(Q)
    assert doubted.status == "unsure" and doubted.confidence <= 0.35
    assert kept.findings == [] and kept.answer == body(doubted)
    assert kept.status == "ok" and kept.confidence > doubted.confidence


def test_a_sub_question_continuing_the_users_question_is_not_doubted_for_its_pronoun(
    loop_ws: Path,
) -> None:
    """A step the decomposer words as a continuation ("What was their revenue in 2019?")
    points back to the user's question, which the loop holds: its SQL runs with
    ``NL2SQLOptions.earlier`` and the ``referent`` check leaves it alone; the same question
    asked by a user with nothing before it is doubted."""
    from tablerag.linking.cache import workspace_catalog
    from tablerag.llm.testing import ScriptedLLM
    from tablerag.loop.run import _continuing
    from tablerag.loop.step import StepTools
    from tablerag.loop.tablesql import answer_over_tables
    from tablerag.sql.engines import open_engine
    from tablerag.store.workspace import Workspace

    follow = "What was their revenue in 2019?"
    tools = StepTools(search=None, engine=None, catalog=None)  # type: ignore[arg-type]
    assert _continuing(tools).nl2sql.earlier and not tools.nl2sql.earlier
    with Workspace.open(loop_ws, create=False, read_only=True) as w:
        tables, catalog = w.tables(), workspace_catalog(w)
    codes = {}
    for label, options in (("step", _continuing(tools).nl2sql), ("user", tools.nl2sql)):
        with open_engine(loop_ws, catalog=tables) as engine:
            answer, _ = answer_over_tables(
                follow, llm=ScriptedLLM(replies=[SQL_2019]), engine=engine, catalog=catalog,
                tables=["revenue"], language="en", options=options, max_tokens=700,
            )  # fmt: skip
        codes[label] = answer.checks
    assert "unresolved_reference" not in codes["step"] and "unresolved_reference" in codes["user"]


def test_an_answer_another_path_made_is_checked_for_its_pronoun_as_the_free_path_is(
    loop_ws: Path,
) -> None:
    """``checked_answer`` (a compiled semantic answer) reads ``earlier`` as the free-SQL path
    does: a follow-up that continues an earlier turn is not doubted for its pronoun."""
    from tablerag.answer import Answer, ResultTable
    from tablerag.nl2sql.path import checked_answer
    from tablerag.nl2sql.schema_context import SchemaContext
    from tablerag.sql.engines import open_engine
    from tablerag.store.workspace import Workspace

    with Workspace.open(loop_ws, create=False, read_only=True) as w:
        tables = w.tables()
    compiled = Answer(
        question="他们的收入是多少？", answer="1452.4", language="zh", path="nl2sql",
        sql="SELECT revenue FROM revenue WHERE segment = 'Cloud' AND year = 2019",
        table=ResultTable(columns=["revenue"], rows=[[1452.4]], row_count=1), confidence=0.9,
    )  # fmt: skip
    with open_engine(loop_ws, catalog=tables) as engine:
        alone = checked_answer(compiled.question, compiled, engine, SchemaContext("", (), 0))
        continued = checked_answer(
            compiled.question, compiled, engine, SchemaContext("", (), 0), earlier=True
        )
    assert alone.status == "unsure" and "unresolved_reference" in alone.checks
    assert continued.status == "ok" and continued == compiled
