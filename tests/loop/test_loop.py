"""The TableRAG loop through QA.loop / QA.ask with a scripted model: every cross-check branch,
SQL failure fallback, budgets, multi-step traces and the ablation switches."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablerag.llm.testing import FunctionLLM
from tablerag.service import QA
from tablerag.settings import Settings
from tests.loop.conftest import ByKind

Q = "What was the cloud revenue in 2019?"
SQL_2019 = "```sql\nSELECT revenue FROM revenue WHERE segment = 'Cloud' AND year = 2019\n```"
SQL_2018 = "```sql\nSELECT revenue FROM revenue WHERE segment = 'Cloud' AND year = 2018\n```"


def qa(ws: Path, script: ByKind, **settings: object) -> QA:
    options: dict[str, object] = {"embedder": "hashing", "rag_min_score": 0.0, **settings}
    return QA.open(ws, llm=FunctionLLM(script), settings=Settings(**options))  # type: ignore[arg-type]


def test_agreement_takes_the_sql_answer_and_stops_after_one_step(loop_ws: Path) -> None:
    script = ByKind(
        decompose=f"NEXT: {Q}", sql=SQL_2019, passages="Cloud revenue was 1,452.4 in 2019 [1]."
    )
    with qa(loop_ws, script) as q:
        answer = q.loop(Q)
    assert answer.path == "loop" and answer.status == "ok"
    assert answer.answer == "1452.4"
    first = answer.steps[0]
    assert (first.decision, first.chosen, first.input) == ("agree", "sql", Q)
    assert first.tables == ["revenue"] and first.result is not None
    assert answer.sql and "revenue" in answer.sql and answer.table is not None
    assert answer.table.rows == [[1452.4]]
    assert [s.action for s in answer.steps] == ["sub-question", "answer"]
    assert answer.budget_exhausted is None
    # the first step asks the question whole; answered, no planning call at all
    assert script.seen == ["sql", "passages"]


def test_the_papers_order_plans_before_the_first_step(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="1,452.4 [1]")
    with qa(loop_ws, script, loop_decompose_first=True) as q:
        answer = q.loop(Q)
    assert answer.answer == "1452.4"
    assert script.seen == ["decompose", "sql", "passages"]


def test_what_the_first_step_leaves_unanswered_is_decomposed_with_the_schemas(
    loop_ws: Path,
) -> None:
    question = "What was the change in cloud revenue from 2018 to 2019?"
    prompts: list[str] = []
    plans = iter(
        [
            "NEXT: What was the cloud revenue in 2018?",
            "NEXT: What was the cloud revenue in 2019?",
            "ANSWER: 251.9",
        ]
    )

    def decompose(prompt: str) -> str:
        prompts.append(prompt)
        return next(plans)

    script = ByKind(decompose=decompose, sql=["none", SQL_2018, SQL_2019], passages="NOT_FOUND")
    with qa(loop_ws, script, nl2sql_max_repairs=0) as q:
        answer = q.loop(question)
    subs = [s.input for s in answer.steps if s.action == "sub-question"]
    assert subs == [
        question,
        "What was the cloud revenue in 2018?",
        "What was the cloud revenue in 2019?",
    ]
    assert answer.steps[0].decision == "none" and answer.answer == "251.9"
    assert script.seen[:3] == ["sql", "passages", "decompose"]
    assert "CREATE TABLE" in prompts[0] and f"1. {question} -> (not found)" in prompts[0]
    assert "gives both" not in prompts[0]


def test_conflict_is_recorded_and_the_more_reliable_side_wins(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="It was 1,390.0 [1].")
    with qa(loop_ws, script) as q:
        answer = q.loop(Q)
    step = answer.steps[0]
    assert step.decision == "conflict" and step.chosen == "sql"
    assert "1452.4" in step.note and "1,390.0" in step.note
    # the tables and the text disagree: the answer says both and is not ok (issue 23)
    first, rest = answer.answer.split("\n", 1)
    assert first.startswith("This answer may be wrong: the tables and the documents disagree")
    assert "1452.4" in first and "1,390.0" in first
    assert rest == "1452.4"
    assert answer.status == "unsure" and answer.confidence <= 0.35


@pytest.mark.parametrize(
    ("question", "sql", "decision"),
    [
        # a listing of many rows is not one answer: it loses the conflict
        ("Which region drove the growth?", "SELECT segment, year FROM revenue", "conflict"),
        # a count for a question that asks for no figure: nothing to compare, the text wins
        (
            "How does the board see the cloud segment?",
            "SELECT count(*) FROM revenue WHERE segment = 'Cloud'",
            "text",
        ),
    ],
)
def test_the_texts_one_answer_beats_sql_that_did_not_find_it(
    loop_ws: Path, question: str, sql: str, decision: str
) -> None:
    script = ByKind(
        decompose=f"NEXT: {question}", sql=f"```sql\n{sql}\n```", passages="Europe [1]."
    )
    with qa(loop_ws, script) as q:
        answer = q.loop(question)
    step = answer.steps[0]
    assert step.decision == decision and step.chosen == "document", step.note
    assert answer.answer.splitlines()[-1].startswith("Europe")
    assert answer.status == ("unsure" if decision == "conflict" else "ok")


TWO_PARTS = "Which segment had the highest revenue in 2019, and why?"
SQL_TOP = "```sql\nSELECT segment FROM revenue WHERE year = 2019 ORDER BY revenue DESC LIMIT 1\n```"


@pytest.mark.parametrize("cites", [True, False])
def test_sql_and_text_answering_two_parts_are_both_kept_and_composed(
    loop_ws: Path, cites: bool
) -> None:
    prompts: list[str] = []
    composed = "Cloud, thanks to new enterprise customers in Europe [1]." if cites else "Cloud"

    def decompose(prompt: str) -> str:
        prompts.append(prompt)
        return f"ANSWER: {composed}"

    def sql(prompt: str) -> str:
        prompts.append(prompt)
        return SQL_TOP

    passages = "Growth came from new enterprise customers in Europe [1]."
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt.rsplit("Question: ", 1)[-1])
        return passages

    script = ByKind(decompose=decompose, sql=sql, passages=read)
    with qa(loop_ws, script) as q:
        answer = q.loop(TWO_PARTS)
    # SQL is asked for the figures only (the passages get the rest, when it stands on its own;
    # the follow-up, SQL skipped, asks the whole question led by what SQL found)
    sql_prompt = prompts.pop(0)
    assert sql_prompt.endswith("Question: Which segment had the highest revenue in 2019")
    assert asked == [TWO_PARTS, f"Cloud — {TWO_PARTS}"]  # "why?" alone is asked whole
    first, follow = answer.steps[0], answer.steps[1]
    assert (first.decision, first.chosen) == ("both", "sql"), first.note
    assert first.observation == f"SQL: Cloud | Text: {passages}"
    # then the documents alone, asked again with what SQL found, then one composing call
    assert follow.input == f"Cloud — {TWO_PARTS}"
    assert (follow.sql, follow.decision) == (None, "text")
    assert script.seen == ["sql", "passages", "passages", "decompose"]
    assert f"1. {TWO_PARTS} -> SQL: Cloud | Text: {passages}" in prompts[0]
    assert f"2. Cloud — {TWO_PARTS} -> Growth came from" in prompts[0]
    assert "the final answer gives both" in prompts[0]
    assert answer.status == "ok"
    if cites:
        assert answer.answer == composed
    else:  # a composition that keeps only the figures gets the text's part on its own line
        assert answer.answer == f"Cloud\n{follow.text_answer}"
        assert follow.text_answer.startswith("Growth came from new enterprise customers")
    assert answer.table is not None and answer.table.rows == [["Cloud"]]
    assert 1 in first.citations and answer.citations[0].n == 1


def test_where_sql_answers_the_figures_the_passages_are_asked_the_rest(loop_ws: Path) -> None:
    question = "Which segment had the highest revenue in 2019, and why did it grow per the report?"
    asked: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt.rsplit("Question: ", 1)[-1])
        return "New enterprise customers in Europe [1]."

    script = ByKind(
        decompose="ANSWER: Cloud, thanks to customers in Europe [1].", sql=SQL_TOP, passages=read
    )
    with qa(loop_ws, script) as q:
        answer = q.loop(question)
    assert asked[0] == "why did it grow per the report?"
    assert answer.steps[0].decision == "both"
    # without SQL there is nothing to answer the figures: the passages get the whole question
    asked.clear()
    with qa(loop_ws, script) as q:
        q.loop(question, use_sql=False)
    assert asked[0] == question


def test_a_composition_that_keeps_only_the_text_gets_the_sql_answer_back(loop_ws: Path) -> None:
    passages = "Growth came from new enterprise customers in Europe [1]."
    echo = f"segment had the highest revenue in 2019, and why? -> {passages}"
    script = ByKind(decompose=f"ANSWER: {echo}", sql=SQL_TOP, passages=passages)
    with qa(loop_ws, script) as q:
        answer = q.loop(TWO_PARTS)
    assert answer.steps[0].decision == "both"
    # the echoed question is dropped, the figures SQL found lead the answer
    assert answer.answer == f"Result: segment = Cloud.\n{passages}"


def test_a_one_part_question_keeps_the_conflict_rule(loop_ws: Path) -> None:
    question = "Which segment had the highest revenue in 2019?"
    script = ByKind(sql=SQL_TOP, passages="Growth came from new customers [1].")
    with qa(loop_ws, script) as q:
        answer = q.loop(question)
    assert answer.steps[0].decision == "conflict" and answer.answer.endswith("\nCloud")
    assert answer.status == "unsure"
    assert script.seen == ["sql", "passages"]  # answered: no composing call


def test_sql_failure_falls_back_to_the_text_and_says_so(loop_ws: Path) -> None:
    bad = "```sql\nSELECT revenue FROM no_such_table\n```"
    script = ByKind(decompose=f"NEXT: {Q}", sql=bad, passages="Revenue grew strongly [1].")
    with qa(loop_ws, script, nl2sql_max_repairs=1) as q:
        answer = q.loop(Q)
    step = answer.steps[0]
    assert step.decision == "sql_failed" and step.chosen == "document"
    assert step.sql_error and "The SQL failed" in step.note
    # the figures part is missing: the answer says so and is not ok
    first, rest = answer.answer.split("\n", 1)
    assert first.startswith("This answer may be incomplete") and "no_such_table" in first
    assert rest.startswith("Revenue grew strongly")
    assert answer.status == "unsure" and answer.confidence <= 0.4
    assert len(answer.sql_attempts) == 2 and all(a.error for a in answer.sql_attempts)
    assert answer.citations and answer.facts[0].source == "document"
    assert script.seen.count("sql") + script.seen.count("repair") == 2


def test_nothing_found_is_an_honest_not_found(loop_ws: Path) -> None:
    bad = "no sql here"
    script = ByKind(decompose=f"NEXT: {Q}", sql=bad, passages="NOT_FOUND")
    with qa(loop_ws, script, nl2sql_max_repairs=0, loop_max_steps=1) as q:
        answer = q.loop(Q)
    assert answer.steps[0].decision == "none"
    assert answer.status in ("not_found", "degraded")
    assert "not found" in answer.answer.lower()


def test_two_steps_then_the_final_answer_with_every_steps_sql_and_citations(
    loop_ws: Path,
) -> None:
    question = "What was the change in cloud revenue from 2018 to 2019?"
    script = ByKind(
        decompose=[
            "NEXT: What was the cloud revenue in 2018?",
            "NEXT: What was the cloud revenue in 2019?",
            "ANSWER: 251.9",
        ],
        sql=[SQL_2018, SQL_2019],
        passages="NOT_FOUND",
    )
    with qa(loop_ws, script, loop_decompose_first=True) as q:
        answer = q.loop(question)
    assert answer.status == "ok" and answer.answer == "251.9"
    subs = [s for s in answer.steps if s.action == "sub-question"]
    assert [s.observation for s in subs] == ["1200.5", "1452.4"]
    assert all(s.sql and s.result is not None for s in subs)
    assert {s.decision for s in subs} == {"sql"}
    assert len(answer.sql_attempts) == 2
    # the decomposer saw the answered steps
    assert answer.steps[-1].action == "answer"
    # 251.9 is computed by the model from two SQL results: not in any source, so flagged
    assert "251.9" in answer.steps[-1].note and answer.confidence <= 0.4


def test_the_step_budget_stops_a_runaway_loop(loop_ws: Path) -> None:
    counter = iter(range(100))
    script = ByKind(
        decompose=lambda _prompt: f"NEXT: What was the cloud revenue in {2000 + next(counter)}?",
        sql=SQL_2019,
        passages="NOT_FOUND",
    )
    with qa(loop_ws, script, loop_max_steps=2, loop_decompose_first=True) as q:
        answer = q.loop("What was the change in cloud revenue over the years?")
    assert answer.budget_exhausted == "steps" and answer.status == "degraded"
    assert len([s for s in answer.steps if s.action == "sub-question"]) == 2
    # what was answered, not one answer passed for the whole
    lines = answer.answer.splitlines()
    assert lines[0] == "This answer is incomplete: the sub-question limit (2) was reached."
    assert lines[1] == "Answered:" and lines[2].endswith("→ 1452.4")
    assert lines[-1] == "The parts were not combined into a final answer."
    assert "steps budget (2)" in (answer.error or "")
    # the last planning call was told to answer now
    assert script.seen.count("decompose") == 3


def test_the_token_budget_stops_the_loop(loop_ws: Path) -> None:
    script = ByKind(
        decompose=["NEXT: What was the cloud revenue in 2018?", "NEXT: something else?"],
        sql=SQL_2018,
        passages="NOT_FOUND",
    )
    with qa(loop_ws, script, loop_max_tokens=500, loop_decompose_first=True) as q:
        answer = q.loop("What was the change in cloud revenue from 2018 to 2019?")
    assert answer.budget_exhausted == "tokens"
    assert answer.status == "degraded"
    assert answer.answer.splitlines()[:3] == [
        "This answer is incomplete: the token limit (500) ran out.",
        "Answered:",
        "- What was the cloud revenue in 2018? → 1200.5",
    ]


def test_a_repeated_sub_question_forces_an_answer(loop_ws: Path) -> None:
    script = ByKind(
        decompose=[
            "NEXT: What was the cloud revenue in 2018?",
            # a copy of the history line is the same sub-question
            "NEXT: What was the cloud revenue in 2018? -> 1200.5",
            "ANSWER: 1200.5",
        ],
        sql=SQL_2018,
        passages="NOT_FOUND",
    )
    with qa(loop_ws, script, loop_decompose_first=True) as q:
        answer = q.loop("How did cloud revenue in 2018 compare with the plan?")
    assert answer.answer == "1200.5" and answer.status == "ok"
    assert len([s for s in answer.steps if s.action == "sub-question"]) == 1


def test_without_sql_tables_are_read_as_text(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", passages="Cloud revenue was 1452.4 [1].")
    with qa(loop_ws, script) as q:
        answer = q.loop(Q, use_sql=False)
    assert "sql" not in script.seen
    assert answer.steps[0].decision == "text" and answer.sql is None
    assert answer.answer.startswith("Cloud revenue was 1452.4")


def test_without_documents_only_table_chunks_are_retrieved(loop_ws: Path) -> None:
    script = ByKind(decompose=f"NEXT: {Q}", sql=SQL_2019, passages="1,452.4 [1]")
    with qa(loop_ws, script) as q:
        answer = q.loop(Q, use_documents=False)
    assert answer.citations and all(c.table == "revenue" for c in answer.citations)
    assert answer.steps[0].decision == "agree"


@pytest.mark.parametrize("aware", [True, False], ids=["schema-aware", "no-schema"])
def test_decomposition_sees_the_schemas_only_when_schema_aware(loop_ws: Path, aware: bool) -> None:
    prompts: list[str] = []

    def decompose(prompt: str) -> str:
        prompts.append(prompt)
        return f"NEXT: {Q}"

    script = ByKind(decompose=decompose, sql=SQL_2019, passages="1,452.4 [1]")
    with qa(loop_ws, script, loop_decompose_first=True) as q:
        q.loop(Q, schema_aware=aware)
    assert ("CREATE TABLE" in prompts[0]) is aware


def test_an_answer_before_any_evidence_is_not_trusted(loop_ws: Path) -> None:
    script = ByKind(decompose=["ANSWER: 42", f"NEXT: {Q}"], sql=SQL_2019, passages="NOT_FOUND")
    with qa(loop_ws, script, loop_decompose_first=True) as q:
        answer = q.loop(Q)
    assert answer.answer == "1452.4" and answer.steps[0].input == Q


def test_chinese_question_gets_a_chinese_not_found(loop_ws: Path) -> None:
    script = ByKind(decompose="NEXT: 云业务的员工人数？", sql="none", passages="NOT_FOUND")
    with qa(loop_ws, script, nl2sql_max_repairs=0, loop_max_steps=1) as q:
        answer = q.loop("云业务的员工人数分别是多少？")
    assert answer.language == "zh" and "没有找到" in answer.answer


def test_ask_routes_a_multi_hop_question_over_tables_and_text_to_the_loop(loop_ws: Path) -> None:
    question = "What was the change in cloud revenue from 2018 to 2019, and why did it grow?"
    script = ByKind(
        decompose=["NEXT: What was the cloud revenue in 2018?", "ANSWER: 251.9"],
        sql=SQL_2018,
        passages="NOT_FOUND",
    )
    with qa(loop_ws, script) as q:
        answer = q.ask(question)
    assert answer.route is not None
    assert answer.path == "loop", answer.route.reasons
    assert any("TableRAG loop" in r for r in answer.route.reasons)
    assert answer.llm.calls == len(script.seen)


def test_a_simple_question_keeps_the_one_call_path(loop_ws: Path) -> None:
    script = ByKind(sql=SQL_2019, passages="1,452.4 [1]")
    with qa(loop_ws, script) as q:
        answer = q.ask("What was the cloud revenue in 2019?")
    assert answer.path != "loop" and "decompose" not in script.seen


def test_the_documents_only_follow_up_keeps_to_the_step_budget(loop_ws: Path) -> None:
    passages = "Growth came from new enterprise customers in Europe [1]."
    script = ByKind(decompose="ANSWER: Cloud", sql=SQL_TOP, passages=passages)
    with qa(loop_ws, script, loop_max_steps=1) as q:
        answer = q.loop(TWO_PARTS)
    assert script.seen == ["sql", "passages", "decompose"]
    assert [s.decision for s in answer.steps if s.action == "sub-question"] == ["both"]
    assert answer.answer == f"Cloud\n{answer.steps[0].text_answer}"


def test_a_step_whose_query_ran_is_not_asked_again(loop_ws: Path) -> None:
    # the query ranks by revenue for a growth-rate question: it ran, so it is the step's SQL
    # answer (the answer checks judge it); no repair round is asked for
    question = "Which segment had the highest growth rate in 2019, and why?"
    script = ByKind(
        decompose="ANSWER: Cloud, thanks to new enterprise customers in Europe.",
        sql=SQL_TOP,
        passages="Growth came from new enterprise customers in Europe [1].",
    )
    with qa(loop_ws, script) as q:
        answer = q.loop(question)
    first = answer.steps[0]
    assert first.decision == "both", first.note
    assert "repair" not in script.seen and answer.sql_attempts[0].error is None
    assert answer.answer.splitlines()[0] == "Cloud, thanks to new enterprise customers in Europe."
