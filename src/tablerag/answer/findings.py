"""Findings rendered in the reader's language: the edge of "data inside, words at the edge".

A path records what its checks and steps found as :class:`~tablerag.answer.envelope.Finding`
data (a code, a severity, the values of one sentence of ``lang/messages.json``); the functions
here say them. The answer checks' doubts about one SQL answer share one line
(``checks.unsure``: "This result may be wrong: A; B."); every other finding is its own sentence.
Nothing reads a sentence back: code that needs a reason takes it from the findings.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablerag.answer.envelope import Answer, Finding, FindingPlacement, Language
from tablerag.lang.messages import message

CHECKS = "checks"
"""The stage of the answer checks' findings (:mod:`tablerag.nl2sql.checks`)."""
UNSURE = "checks.unsure"
"""The line that leads the answer checks' doubts."""


def says(finding: Finding, language: Language) -> str:
    """The finding as its sentence (or clause) in ``language``.

    Example:
        >>> f = Finding(code="constant_query", severity="doubt", message="checks.constant_query",
        ...             stage="checks")
        >>> says(f, "en")
        'the query reads no table'
    """
    return message(finding.message, language, **finding.values)


def reasons(findings: Sequence[Finding], language: Language) -> str:
    """The answer checks' doubts among ``findings`` as one clause ("A; B"), "" without any.

    Example:
        >>> f = Finding(code="constant_query", severity="doubt", message="checks.constant_query",
        ...             stage="checks")
        >>> reasons([f, f], "zh") == says(f, "zh") + "；" + says(f, "zh")
        True
    """
    sep = "；" if language == "zh" else "; "
    return sep.join(says(f, language) for f in _check_doubts(findings))


def unsure_line(findings: Sequence[Finding], language: Language) -> str:
    """The line saying what the answer checks doubt: "This result may be wrong: A; B.".

    Example:
        >>> f = Finding(code="constant_query", severity="doubt", message="checks.constant_query",
        ...             stage="checks")
        >>> unsure_line([f], "en")
        'This result may be wrong: the query reads no table.'
    """
    return message(UNSURE, language, reasons=reasons(findings, language))


def lines(
    findings: Sequence[Finding], language: Language, placement: FindingPlacement
) -> list[str]:
    """The lines of ``findings`` placed at ``placement``, in the order the text states them;
    the answer checks' doubts are one line where the first of them stands.

    Example:
        >>> f = Finding(code="constant_query", severity="doubt", message="checks.constant_query",
        ...             stage="checks")
        >>> g = Finding(code="off_subject", severity="doubt", message="rag.off_subject",
        ...             values={"words": "Tibet"}, stage="rag")
        >>> lines([g, f, f], "en", "lead")  # doctest: +NORMALIZE_WHITESPACE
        ['This answer may be wrong: the passages it cites do not mention Tibet from the question.',
         'This result may be wrong: the query reads no table; the query reads no table.']
    """
    placed = [f for f in findings if f.placement == placement]
    out: list[str] = []
    grouped = False
    for f in placed:
        if _is_check_doubt(f):
            if not grouped:
                out.append(unsure_line(placed, language))
                grouped = True
            continue
        out.append(says(f, language))
    return out


LLM_FAILED = "llm_failed"
"""The code of a path's finding that the model failed (the answer says only that)."""


def has(answer: Answer, code: str) -> bool:
    """Whether ``answer`` carries a finding with ``code``.

    Example:
        >>> f = Finding(code="llm_failed", severity="doubt", message="nl2sql.llm_failed",
        ...             stage="llm", placement="whole")
        >>> a = Answer(question="q", answer="x", language="en", path="nl2sql", findings=[f])
        >>> has(a, LLM_FAILED), has(a, "constant_query")
        (True, False)
    """
    return any(f.code == code for f in answer.findings)


def composed(text: str, findings: Sequence[Finding], language: Language) -> str:
    """``text`` with the words of ``findings``: the lead lines above it, the inline clauses
    after it, the tail lines below it. Every path writes its findings into its answer's text
    through this one function; :func:`body` takes the lead lines off again.

    Example:
        >>> g = Finding(code="off_subject", severity="doubt", message="rag.off_subject",
        ...             values={"words": "Tibet"}, stage="rag")
        >>> n = Finding(code="ungrounded", severity="doubt", message="rag.ungrounded",
        ...             values={"numbers": "7"}, stage="rag", placement="inline")
        >>> print(composed("7 days [1].", [g, n], "en"))  # doctest: +NORMALIZE_WHITESPACE
        This answer may be wrong: the passages it cites do not mention Tibet from the question.
        7 days [1]. (Note: these numbers are not in the cited passages or the question: 7)
    """
    inline = "".join(" " + line for line in lines(findings, language, "inline"))
    return "\n".join(
        [*lines(findings, language, "lead"), text + inline, *lines(findings, language, "tail")]
    )


def body(answer: Answer) -> str:
    """The answer's text without the lines its lead findings put above it (what a scorer
    reads): the lines are rendered from the findings and removed where they stand, never
    recognised by their words.

    Example:
        >>> g = Finding(code="off_subject", severity="doubt", message="rag.off_subject",
        ...             values={"words": "Tibet"}, stage="rag")
        >>> a = Answer(question="q", language="en", path="rag", status="unsure", findings=[g],
        ...            answer=says(g, "en") + "\\n3 days [1]")
        >>> body(a)
        '3 days [1]'

        A two-part answer's part keeps its label (``[data] ``) before its own first line:

        >>> b = Answer(question="q", language="en", path="hybrid", status="unsure", findings=[g],
        ...            answer="[data] " + says(g, "en") + "\\n3 days\\n[documents] 2 days [1]")
        >>> body(b)
        '[data] 3 days\\n[documents] 2 days [1]'
    """
    text = answer.answer.split("\n")
    labels = [message(f"hybrid.{part}_label", answer.language) for part in ("data", "documents")]
    for line in lines(answer.findings, answer.language, "lead"):
        if len(text) > 1 and text[0] == line:
            text = text[1:]
            continue
        for i, said in enumerate(text[:-1]):
            if any(said == label + line for label in labels):
                text[i : i + 2] = [said[: -len(line)] + text[i + 1]]
                break
    return "\n".join(text)


def _check_doubts(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if _is_check_doubt(f)]


def _is_check_doubt(finding: Finding) -> bool:
    return finding.stage == CHECKS and finding.severity == "doubt"
