"""The stage registry: names, families, profiles, and that a switched-off stage does not run."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from tablerag.answer.confidence import confidence
from tablerag.errors import ConfigError, Issue
from tablerag.llm.profiles import PROFILES, ConfidenceBase, profile_for
from tablerag.llm.testing import ScriptedLLM, Truncated
from tablerag.nl2sql.autofix import Fixed
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.nl2sql.stages import (
    NAMES,
    REFUSAL_MENDS,
    REMOVED,
    STAGES,
    Refusal,
    Switches,
    describe,
    switches,
)
from tablerag.settings import Settings

TODAY = dt.date(2026, 11, 30)
WRONG_ALIAS = (
    "```sql\nSELECT r.reason_name, count(*) AS n FROM fact_refund AS f "
    "JOIN dim_refund_reason AS r ON f.reason_code = r.reason_code "
    "GROUP BY f.reason_name ORDER BY n DESC LIMIT 1\n```"
)
RIGHT_ALIAS = WRONG_ALIAS.replace("GROUP BY f.reason_name", "GROUP BY r.reason_name")
IN_RANGE = "```sql\nSELECT count(*) AS n FROM fact_sales WHERE stat_month = '2026-10'\n```"


def _ask(question: str, replies: list[str], parts, stages: Switches):  # type: ignore[no-untyped-def]
    engine, catalog = parts
    llm = ScriptedLLM(replies=replies)
    schema = schema_context(question, catalog, engine=engine, stages=stages)
    options = NL2SQLOptions(today=TODAY, explain=False, stages=stages)
    answer = answer_with_sql(
        question, llm=llm, engine=engine, schema=schema, language="en", options=options
    )
    return answer, llm


def test_every_stage_has_a_unique_name_a_family_and_a_reason() -> None:
    assert len(NAMES) == len(set(NAMES))
    for name, family, reason in describe():
        assert family in ("note", "mend", "doubt", "check") and len(reason) > 20, name


def test_every_stage_a_module_asks_about_by_name_is_registered() -> None:
    src = Path(__file__).resolve().parents[2] / "src" / "tablerag"
    asked = {
        m.group(1)
        for path in src.rglob("*.py")
        for m in re.finditer(r"\.on\(\"(\w+)\"\)", path.read_text("utf-8"))
    }
    assert asked and asked <= set(NAMES), asked - set(NAMES)


def test_every_profile_names_registered_stages_only() -> None:
    for profile in PROFILES.values():
        assert set(profile.off) <= set(NAMES), profile.name
        switches(profile.off)  # raises for an unknown name
    assert PROFILES["local"].off == ()
    assert profile_for("auto", "scripted").name == "local"
    assert profile_for("auto", "openai:gpt-4o-mini").name == "lean"
    with pytest.raises(ConfigError, match="Unknown model profile 'big'"):
        profile_for("big", "local")


def test_families_and_names_switch_in_order_and_typos_are_named() -> None:
    notes = {s.name for s in STAGES if s.family == "note"}
    assert switches((), {"notes": False}).off == notes
    assert switches((), {"notes": False, "rollup": True}).off == notes - {"rollup"}
    assert switches(("label_round",), {"doubts": True}).off == frozenset()
    with pytest.raises(ConfigError, match="Did you mean 'spelling'"):
        switches((), {"speling": False})


def test_the_stages_setting_reads_name_equals_on_or_off() -> None:
    assert Settings(stages="notes=off, rollup=on").stages == {"notes": False, "rollup": True}  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name=on or name=off"):
        Settings(stages="rollup")  # type: ignore[arg-type]


def test_a_refusal_mend_that_is_off_leaves_the_refusal_to_the_model(parts) -> None:  # type: ignore[no-untyped-def]
    question = "Which refund reason is the most common?"
    mended, llm = _ask(question, [WRONG_ALIAS], parts, Switches())
    assert mended.status == "ok" and len(llm.history) == 1
    assert mended.sql_attempts[1].note is not None
    asked, llm = _ask(question, [WRONG_ALIAS, RIGHT_ALIAS], parts, switches((), {"mends": False}))
    assert asked.status == "ok" and len(llm.history) == 2
    assert all(a.note is None for a in asked.sql_attempts)
    assert "write r.reason_name" in llm.history[1].messages[-1]["content"]


def test_notes_that_are_off_leave_the_prompt(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    question = "上月华东的毛利是多少？"
    full = schema_context(question, catalog, engine=engine)
    assert any("华东 is a parent row" in n for n in full.notes)
    assert not any("as stored" in n for n in full.notes)  # the roll-up note covers 华东
    bare = schema_context(question, catalog, engine=engine, stages=switches((), {"rollup": False}))
    assert not any("parent row" in n for n in bare.notes)
    assert any("as stored: dim_region.region_name = '华东'" in n for n in bare.notes)
    none = schema_context(question, catalog, engine=engine, stages=switches((), {"notes": False}))
    assert none.notes == () and none.text in full.text
    _, llm = _ask(question, [IN_RANGE], parts, Switches())
    assert "上月（2026-10）" in llm.history[0].messages[-1]["content"]
    _, llm = _ask(question, [IN_RANGE], parts, switches((), {"dates": False}))
    assert "上月（" not in llm.history[0].messages[-1]["content"]


def test_every_stage_is_documented_with_its_profiles() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "stages.md").read_text("utf-8")
    lean = set(PROFILES["lean"].off)
    for name, family, reason in describe():
        row = f"| `{name}` | {family} |"
        assert row in page, f"docs/stages.md has no row for {name}"
        line = next(ln for ln in page.splitlines() if ln.startswith(row))
        on_off = [c.strip() for c in line.split("|")[4:6]]
        assert on_off == ["on", "off" if name in lean else "on"], name
        assert line.rstrip(" |").endswith(reason), name


CONSTANT = "```sql\nSELECT 1 AS n\n```"


def test_the_answer_checks_are_steps_switched_by_name_and_family(parts) -> None:  # type: ignore[no-untyped-def]
    question = "How many sales lines were there in 2026-10?"
    doubted, llm = _ask(question, [CONSTANT], parts, Switches())
    assert doubted.status == "unsure" and "constant_query" in doubted.checks
    assert len(llm.history) == 1  # a query that ran is final: the checks judge it
    for off in ({"checks": False}, {"relevance": False}):
        trusted, llm = _ask(question, [CONSTANT], parts, switches((), off))
        assert trusted.status == "ok" and "constant_query" not in trusted.checks, off
        assert len(llm.history) == 1 and trusted.confidence == 0.85


def test_the_confidence_starts_at_the_profiles_base(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    question = "How many sales lines were there in 2026-10?"
    schema = schema_context(question, catalog, engine=engine)
    base = ConfidenceBase(sql=0.7)
    options = NL2SQLOptions(today=TODAY, explain=False, confidence=base)
    answer = answer_with_sql(
        question, llm=ScriptedLLM(replies=[IN_RANGE]), engine=engine, schema=schema,
        language="en", options=options,
    )  # fmt: skip
    assert answer.status == "ok" and answer.confidence == 0.7
    assert confidence(base.sql, ["constant_query"], base=base) == 0.1
    assert confidence(0.8, ["off_subject"]) == 0.35  # a cap, not a weight


def test_pin_today_is_a_query_mend_that_can_be_switched_off(parts) -> None:  # type: ignore[no-untyped-def]
    question = "How many sales lines were there this month?"
    clock = (
        "```sql\nSELECT count(*) AS n FROM fact_sales WHERE CURRENT_DATE > DATE '2000-01-01'\n```"
    )
    pinned, _ = _ask(question, [clock], parts, Switches())
    assert "2026-11-30" in pinned.sql_attempts[0].sql
    free, _ = _ask(question, [clock], parts, switches((), {"pin_today": False}))
    assert "CURRENT_DATE" in free.sql_attempts[0].sql.upper()


def test_a_reply_cut_inside_its_sql_block_is_not_run_unless_the_check_is_off(parts) -> None:  # type: ignore[no-untyped-def]
    question = "How many sales lines were there in 2026-10?"
    cut = Truncated(IN_RANGE.removesuffix("\n```"))
    refused, llm = _ask(question, [cut, IN_RANGE], parts, Switches())
    assert len(llm.history) == 2 and refused.sql_attempts[0].error is not None
    ran, llm = _ask(question, [cut], parts, switches((), {"cut_reply": False}))
    assert len(llm.history) == 1 and ran.status == "ok"


def test_an_ungrounded_explanation_is_replaced_unless_the_check_is_off(parts) -> None:  # type: ignore[no-untyped-def]
    engine, catalog = parts
    question = "How many sales lines did each channel have in 2026-10?"
    sql = (
        "```sql\nSELECT channel_code, count(*) AS n FROM fact_sales "
        "WHERE stat_month = '2026-10' GROUP BY channel_code\n```"
    )
    said = "There were 987654 lines in all."
    schema = schema_context(question, catalog, engine=engine)
    for stages, kept in (
        (Switches(), False),
        (switches((), {"grounded_explanation": False}), True),
    ):
        options = NL2SQLOptions(today=TODAY, stages=stages)
        answer = answer_with_sql(
            question, llm=ScriptedLLM(replies=[sql, said]), engine=engine, schema=schema,
            language="en", options=options,
        )  # fmt: skip
        assert (said in answer.answer) is kept, stages


def test_one_kind_mends_the_first_kind_of_a_two_kind_refusal() -> None:
    def only(prefix: str):  # type: ignore[no-untyped-def]
        def mend(r: Refusal) -> Fixed | None:
            if all(i.message.startswith(prefix) for i in r.issues):
                return Fixed(f"{r.sql} /* {prefix} x{len(r.issues)} */", prefix)
            return None

        return mend

    one_kind = next(s for s in REFUSAL_MENDS if s.name == "one_kind").run
    issues = [Issue("x", "alias a"), Issue("x", "join b"), Issue("x", "alias c")]
    refusal = Refusal("SELECT 1", issues, "duckdb", (only("alias"), only("join")))
    fixed = one_kind(refusal)
    assert fixed is not None and fixed.sql == "SELECT 1 /* alias x2 */"
    assert one_kind(refusal.only(issues[:1])) is None
    assert one_kind(Refusal("SELECT 1", issues, "duckdb", (only("alias"),))) is None


def test_a_removed_step_in_the_setting_says_it_was_removed() -> None:
    with pytest.raises(ConfigError, match="'distinct' was removed.*delete it"):
        switches((), {"distinct": False})
    assert not REMOVED & set(NAMES)
