"""One confidence scheme: an answer's findings and its model's base give its confidence.

Every path starts from its profile's :class:`~tablerag.llm.profiles.ConfidenceBase` (an SQL
answer from the model's first query, a document answer with or without a cited sentence, a
query that found nothing) or, for an answer composed from others (the loop, a fallback), from
theirs; then :func:`confidence` takes off what its doubts say: a *weight* is subtracted (the
answer checks' findings; each further query the model wrote costs
``base.rewrite``) and a *cap* is a ceiling (a document answer's number from nowhere, the loop's
tables and documents disagreeing). The weights and the base are what a calibration run tunes
(``bench/calibrate_checks.py``, :mod:`tablerag.evals.calibration`); the caps are the figures
each path used before they were gathered here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tablerag.llm.profiles import PROFILES, ConfidenceBase

LOCAL = PROFILES["local"].confidence
"""The base of the embedded model's profile (the default where no profile is given)."""

WEIGHTS: Mapping[str, float] = {
    # the answer checks (tablerag.nl2sql.checks): 0 only cites
    "constant_query": 0.6,
    "unrelated_table": 0.5,
    "weak_link": 0.35,
    "unread_table": 0.4,
    "ignored_value": 0.35,
    "all_zero": 0.3,
    "over_count": 0.4,
    "totals_in_result": 0.25,
    "totals_in_table": 0.35,
    "scale_jump": 0.3,
    "date_order": 0.4,
    "definition_ignored": 0.35,
    "definition_followed": 0.0,
    "count_asked": 0.35,
    "amount_asked": 0.35,
    "period_narrowed": 0.35,
    "unasked_period": 0.35,
    "other_period": 0.45,
    "many_rows": 0.35,
    "many_groups": 0.35,
    "nothing_named": 0.35,
    "arbitrary_pick": 0.35,
    "rate_out_of_range": 0.4,
    "minor_unit": 0.4,
    "mixed_units": 0.4,
    # not fitted yet (no run of the local model carries them): the weight of their neighbours,
    # count_asked and amount_asked (the figure is not what was asked) and ignored_value (a
    # value of the question and the filters disagree), so either alone makes the answer unsure
    "no_quantity": 0.35,
    "invented_filter": 0.35,
    "negated_join": 0.35,
    "unresolved_reference": 0.35,
    "echoed_filter": 0.35,
    "text_order": 0.35,
    "same_operands": 0.35,
    "ids_only": 0.35,
}
"""What each doubt takes off the confidence (the answer checks' figures are calibrated by
``bench/calibrate_checks.py``)."""

CAPS: Mapping[str, float] = {
    # the document answer (tablerag.rag.answer)
    "ungrounded": 0.3,
    "table_figure": 0.3,
    "off_subject": 0.35,
    "differing": 0.35,
    # the loop (tablerag.loop.run)
    "sql_failed": 0.4,
    "sql_doubted": 0.4,
    "loop_ungrounded": 0.4,
    # its SQL and text disagreed: on TAT-QA (5462e4b, 122 questions) 20 of the 23 such
    # answers marked ok were wrong (issue 23)
    "conflict": 0.35,
    # the fallback (tablerag.answer.fallback): a document figure for a doubted data figure
    "figure_for_figure": 0.4,
}
"""The most an answer with each doubt is trusted."""


def confidence(
    start: float,
    doubts: Iterable[str] = (),
    *,
    written: int = 1,
    base: ConfidenceBase = LOCAL,
) -> float:
    """The confidence of an answer that starts at ``start`` and carries the doubts ``doubts``
    (finding codes), from ``written`` queries of the model.

    ``start − base.rewrite × (written − 1) − Σ WEIGHTS[doubt]``, at most every ``CAPS[doubt]``;
    when anything was subtracted, at least ``base.ok_floor`` without a doubt and
    ``base.unsure_floor`` with one. A code in neither table takes nothing off.

    Example:
        >>> confidence(LOCAL.sql), confidence(LOCAL.sql, ["constant_query"])
        (0.85, 0.25)
        >>> confidence(LOCAL.sql, written=4), confidence(LOCAL.cited, ["off_subject"])
        (0.3, 0.35)
        >>> confidence(0.0)
        0.0
    """
    codes = list(doubts)
    taken = base.rewrite * (max(1, written) - 1) + sum(WEIGHTS.get(c, 0.0) for c in codes)
    score = start - taken
    if taken > 0:
        score = max(base.unsure_floor if any(WEIGHTS.get(c) for c in codes) else base.ok_floor,
                    score)  # fmt: skip
    for code in codes:
        if code in CAPS:
            score = min(score, CAPS[code])
    return round(score, 3)


__all__ = ["CAPS", "LOCAL", "WEIGHTS", "confidence"]
