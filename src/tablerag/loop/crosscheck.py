"""The compositional step answer: cross-check the SQL result with the text, then decide.

* both answered and agree → take the SQL answer (its numbers are computed over whole tables);
* the SQL failed (rejected, error, no rows) → fall back to the text and say so;
* both answered and disagree → take the more reliable side and record the conflict;
* both answered, reliably, without agreeing, for a question that asks for figures *and* for
  what the documents say (top categories, then their return policy) → keep both: the two
  sides answered different parts, and the final answer composes them;
* both answered with nothing to compare, one side weak (a row count against words) → the
  more reliable side;
* only one side answered → take it; neither → nothing.

"Agree" means: the text's own figures (those not already in the sub-question) include one
the SQL result holds (rounded to the text's precision, percents of ratios allowed — see
:mod:`tablerag.answer.grounding`); for answers without figures, a SQL text cell occurs in the
text. Pure functions only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tablerag.answer import FactSource, StepDecision, detect_language
from tablerag.answer.grounding import ungrounded_numbers
from tablerag.linking.text import han_text
from tablerag.router.features import extract_features

SQLStatus = Literal["ok", "no_data", "error", "skipped"]
TextStatus = Literal["ok", "not_found", "degraded", "error", "skipped"]


@dataclass(frozen=True)
class SQLSide:
    """What the SQL of a step produced."""

    status: SQLStatus
    answer: str = ""
    cells: tuple[Any, ...] = ()
    """Result cells (the first rows), for the comparison."""
    error: str = ""
    reliability: float = 0.0
    """The SQL path's confidence: lower after repairs."""
    doubted: bool = False
    """The answer checks doubt the result (its answer's first line says why)."""


@dataclass(frozen=True)
class TextSide:
    """What the passages of a step answered."""

    status: TextStatus
    answer: str = ""
    reliability: float = 0.0
    """The document path's confidence: lower without citations or with ungrounded numbers."""


@dataclass(frozen=True)
class Verdict:
    """The step's intermediate answer and how it was chosen."""

    decision: StepDecision
    chosen: FactSource | None
    answer: str
    note: str = ""
    confidence: float = 0.0


def agrees(sql: SQLSide, text: TextSide, question: str = "") -> bool | None:
    """Whether the text agrees with the SQL result; None when the text has nothing to compare.

    Example:
        >>> agrees(SQLSide("ok", cells=(1452.4,)), TextSide("ok", "Revenue was $1,452.4m."))
        True
        >>> agrees(SQLSide("ok", cells=(1452.4,)), TextSide("ok", "Revenue was 1,390.1 in 2019"),
        ...        "What was revenue in 2019?")
        False
        >>> agrees(SQLSide("ok", cells=("Europe", 3)), TextSide("ok", "Mostly in europe [1]."))
        True
        >>> agrees(SQLSide("ok", cells=(7,)), TextSide("ok", "It is not stated clearly.")) is None
        True
    """
    own = ungrounded_numbers(text.answer, [question]) if question else _all_numbers(text.answer)
    if own:
        unsupported = ungrounded_numbers(" ".join(own), list(sql.cells))
        return len(unsupported) < len(own)
    words = [str(c).strip().lower() for c in sql.cells if isinstance(c, str) and len(c) > 1]
    if not words:
        return None
    lowered = text.answer.lower()
    return any(w in lowered for w in words)


def _all_numbers(text: str) -> list[str]:
    return ungrounded_numbers(text, [])


def crosscheck(sql: SQLSide, text: TextSide, question: str = "") -> Verdict:
    """Choose the step's answer from the SQL side and the text side.

    Args:
        sql: the SQL outcome (``skipped`` when no table chunk was retrieved or SQL is off).
        text: the passages' answer (``skipped`` when no passage was retrieved).
        question: the sub-question (its own numbers, e.g. years, are not evidence).

    Example:
        >>> v = crosscheck(SQLSide("ok", "1452.4", (1452.4,), reliability=0.85),
        ...                TextSide("ok", "It was 1,452.4 [1].", 0.8))
        >>> v.decision, v.chosen, v.answer
        ('agree', 'sql', '1452.4')
        >>> v = crosscheck(SQLSide("ok", "1", (1,), reliability=0.4), TextSide("ok", "Yearly", 0.8))
        >>> v.decision, v.chosen, v.answer
        ('text', 'document', 'Yearly')
        >>> v = crosscheck(SQLSide("error", error="no such column"), TextSide("ok", "12 [1]", 0.8))
        >>> v.decision, v.chosen, v.note
        ('sql_failed', 'document', 'The SQL failed (no such column); answered from the text.')
        >>> v = crosscheck(SQLSide("ok", "10", (10,), reliability=0.85),
        ...                TextSide("ok", "It was 12 [1].", 0.8))
        >>> v.decision, v.chosen, v.answer
        ('conflict', 'sql', '10')
        >>> v = crosscheck(SQLSide("ok", "Phones", ("Phones", 0.12), reliability=0.85),
        ...                TextSide("ok", "Above 10%: suspend promotions [1].", 0.8),
        ...                "Which category has the highest return rate, and what is the policy?")
        >>> v.decision, v.chosen, v.answer
        ('both', 'sql', 'SQL: Phones | Text: Above 10%: suspend promotions [1].')
        >>> v = crosscheck(SQLSide("ok", "Phones", ("Phones", 0.12), reliability=0.3, doubted=True),
        ...                TextSide("ok", "Above 10%: suspend promotions [1].", 0.8),
        ...                "Which category has the highest return rate, and what is the policy?")
        >>> v.decision, v.chosen, v.confidence
        ('both', 'document', 0.3)
    """
    sql_ok = sql.status == "ok"
    text_ok = text.status == "ok"
    if sql_ok and text_ok:
        same = agrees(sql, text, question)
        weaker = min(sql.reliability, text.reliability)
        two_parts = not same and asks_two_things(question)
        if two_parts and (weaker >= BOTH_MIN or (sql.doubted and text.reliability >= BOTH_MIN)):
            # a doubted figure is still the figure part: kept, with its doubt, not dropped
            pick: FactSource = "sql" if sql.reliability >= text.reliability else "document"
            note = (
                "The question asks for figures and for what the documents say; the SQL "
                "result and the text answer different parts, both are kept."
            )
            return Verdict("both", pick, f"SQL: {sql.answer} | Text: {text.answer}", note, weaker)
        if same is None and sql.reliability >= text.reliability:
            return Verdict(
                "sql",
                "sql",
                sql.answer,
                "The passages gave nothing to compare with the SQL result.",
                sql.reliability,
            )
        if same is None:
            note = (
                "The SQL result and the text answer share nothing to compare; took the text "
                f"(reliability {text.reliability:.2f} vs {sql.reliability:.2f})."
            )
            return Verdict("text", "document", text.answer, note, text.reliability)
        if same:
            return Verdict("agree", "sql", sql.answer, "", min(1.0, sql.reliability + 0.1))
        pick_sql = sql.reliability >= text.reliability
        chosen: FactSource = "sql" if pick_sql else "document"
        taken, other = (sql, text) if pick_sql else (text, sql)
        note = (
            f"Conflict: the SQL result says {sql.answer!r} but the text says {text.answer!r}; "
            f"took the {'SQL' if pick_sql else 'text'} answer (reliability "
            f"{taken.reliability:.2f} vs {other.reliability:.2f})."
        )
        return Verdict("conflict", chosen, taken.answer, note, taken.reliability * 0.8)
    if sql_ok:
        return Verdict("sql", "sql", sql.answer, "", sql.reliability)
    if text_ok:
        if sql.status in ("error", "no_data"):
            why = sql.error if sql.status == "error" else "it found no rows"
            note = f"The SQL failed ({why}); answered from the text."
            return Verdict("sql_failed", "document", text.answer, note, text.reliability * 0.9)
        return Verdict("text", "document", text.answer, "", text.reliability)
    return Verdict("none", None, "", _nothing(sql, text), 0.0)


def _nothing(sql: SQLSide, text: TextSide) -> str:
    parts: list[str] = []
    if sql.status == "error":
        parts.append(f"the SQL failed ({sql.error})")
    elif sql.status == "no_data":
        parts.append("the SQL found no rows")
    if text.status in ("not_found", "skipped"):
        parts.append("the passages do not answer it")
    elif text.status in ("degraded", "error"):
        parts.append("the model gave no usable answer from the passages")
    return ("Not answered: " + "; ".join(parts) + ".") if parts else "Not answered."


BOTH_MIN = 0.5
"""For a two-part question, both sides not agreeing are kept when both are at least this
reliable (a listing, SQL repaired twice, or a text without citations is below it)."""
_FIGURE = re.compile(
    r"\b(?:change|difference|increase|decrease|rate|value)\b|变化|差|增长|下降", re.I
)
_CLAUSE = re.compile(r"[，,；;？?]")
LISTING_ROWS = 3
"""A SQL result with more rows than this is a listing, not one answer."""


def sql_reliability(confidence: float, rows: int, question: str = "") -> float:
    """How far to trust a SQL result in a conflict: a listing, or SQL for a question that
    asks for no figure, counts for half.

    A sub-question the text answers with one fact ("the contract types are fixed-price and
    cost-plus"; "annually") and SQL answers by listing a column's values (``SELECT DISTINCT
    item``) or by counting rows disagree because the SQL did not find the answer, not because
    the text is wrong. Without ``question`` only the listing rule applies.

    Example:
        >>> sql_reliability(0.85, 1), sql_reliability(0.85, 7)
        (0.85, 0.425)
        >>> sql_reliability(0.85, 1, "How much was revenue in 2019?")
        0.85
        >>> sql_reliability(0.85, 1, "How often are the assumptions reviewed?")
        0.425
    """
    figure = not question or asks_for_figure(question)
    return confidence if rows <= LISTING_ROWS and figure else round(confidence / 2, 3)


def asks_for_figure(question: str) -> bool:
    """Whether the question asks for a number or a set-level result (how many, total, 多少…).

    Example:
        >>> asks_for_figure("What was the change in revenue?"), asks_for_figure("上月毛利是多少")
        (True, True)
        >>> asks_for_figure("How is end market information presented?")
        False
    """
    features = extract_features(question)
    cues = [*features.quantity_words, *features.cues["aggregate"], *features.cues["measure"]]
    return bool(cues) or bool(_FIGURE.search(question))


def asks_two_things(question: str) -> bool:
    """Whether the question asks for a figure *and* for what the documents say (a policy, a
    reason, a procedure), so that SQL and text may answer different parts of it.

    Example:
        >>> asks_two_things("上个月退货率最高的三个品类，按退货政策分别应该怎么处理？")
        True
        >>> asks_two_things("What was revenue in 2019?"), asks_two_things("What is the policy?")
        (False, False)
    """
    return bool(extract_features(question).cues["policy"]) and asks_for_figure(question)


def figure_part(question: str) -> str:
    """The clauses of a two-part question that ask for the figures, for the SQL side.

    "上个月退货率最高的三个品类，按退货政策分别应该怎么处理？" asked whole made the local model
    compute the policy in SQL (a ``CASE WHEN refund_count > 10 THEN '处理退货'`` over a table it
    made up); the documents answer that clause, the SQL side needs only the first. A question
    that does not ask two things, or whose clauses do not split into figure clauses and
    policy clauses, is returned whole.

    Example:
        >>> figure_part("上个月退货率最高的三个品类，按退货政策分别应该怎么处理？")
        '上个月退货率最高的三个品类'
        >>> figure_part("Which 3 categories had the highest return rate, and what does the "
        ...             "return policy say to do?")
        'Which 3 categories had the highest return rate'
        >>> figure_part("上个月退款金额最多的退款原因是什么？按退货政策应该怎么处理？")
        '上个月退款金额最多的退款原因是什么'
        >>> figure_part("上个月销售额是多少？")
        '上个月销售额是多少？'
        >>> q = ("What is the proportion, in percentage, of deferred revenue and accrued "
        ...      "warranty over gross deferred tax assets in 2019?")  # 'warranty': a policy cue
        >>> figure_part(q) == q  # every clause asks for the figure: nothing to split off
        True
    """
    parts = _two_parts(question)
    return _joined(parts[0], question) if parts else question


def text_part(question: str) -> str:
    """The clauses of a two-part question that ask what the documents say, for the text side.

    Asked whole, "... the highest return rate last month, and how should each be handled under
    the return policy?" made the local model reply that the passages do not say which
    categories had the highest rate, though the first passage was the policy for products
    with many returns; the SQL side answers the figures. Returned whole when
    :func:`figure_part` is.

    Example:
        >>> text_part("上个月退货率最高的三个品类，按退货政策分别应该怎么处理？")
        '按退货政策分别应该怎么处理'
        >>> text_part("Which 3 categories had the highest return rate, and what does the "
        ...           "return policy say to do?")
        'what does the return policy say to do?'
        >>> text_part("上个月销售额是多少？")
        '上个月销售额是多少？'
        >>> text_part("Which segment had the highest revenue in 2019, and why?")
        'Which segment had the highest revenue in 2019, and why?'
    """
    parts = _two_parts(question)
    if not parts:
        return question
    rest = _joined([_LEADING_AND.sub("", c) for c in parts[1]], question)
    if len(rest.split()) < MIN_PART_WORDS and len(han_text(rest)) < MIN_PART_HAN:
        return question  # "why?" cannot stand on its own
    return rest + ("?" if detect_language(question) == "en" else "")


MIN_PART_WORDS = 4
MIN_PART_HAN = 6
"""A text part shorter than this (in words, or in Chinese characters) is asked whole."""
_LEADING_AND = re.compile(r"^(?:and|but|then)\s+|^(?:并且|而且|那么|以及|并)", re.IGNORECASE)


def _two_parts(question: str) -> tuple[list[str], list[str]] | None:
    """The figure clauses and the other clauses of a question that asks two things, or None
    when it does not, or its clauses do not split that way."""
    if not asks_two_things(question):
        return None
    clauses = [c.strip() for c in _CLAUSE.split(question) if c.strip()]
    figures = [c for c in clauses if _figure_clause(c)]
    if not figures or len(figures) == len(clauses) or not asks_for_figure(" ".join(figures)):
        return None
    return figures, [c for c in clauses if c not in figures]


def _joined(clauses: Sequence[str], question: str) -> str:
    return ("，" if detect_language(question) == "zh" else ", ").join(clauses)


def _figure_clause(clause: str) -> bool:
    """A clause without a policy cue, or one naming a measure or quantity with it ("退款金额最多
    的退款原因是什么" asks for the reason SQL finds; "分别应该怎么处理" asks the documents)."""
    features = extract_features(clause)
    return not features.cues["policy"] or bool(features.cues["measure"] or features.quantity_words)


def result_cells(rows: Sequence[Sequence[Any]], limit: int = 10) -> tuple[Any, ...]:
    """The cells of the first ``limit`` rows, flattened (what :func:`agrees` compares).

    Example:
        >>> result_cells([["a", 1], ["b", 2]], limit=1)
        ('a', 1)
    """
    return tuple(v for row in rows[:limit] for v in row)
