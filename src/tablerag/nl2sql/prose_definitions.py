"""Prose definition notes: a retrieved passage that defines the metric the question names.

A glossary table row says what a metric is in one line ("退货率 | 发生退款的订单数 ÷ 已支付订单数");
the section of the same document that explains it says how to count it ("分子：含有 status =
'REFUND' 订单行的订单，按 order_id 去重；分母：status 为 PAID 或 REFUND 的订单"). The TableRAG
loop retrieves that section for the question and used to show it to the passage answer only:
the SQL model, given the glossary line alone, counted refunds over refunded orders (a rate of
1 in every category, issue 23). A passage is quoted to the SQL model when its own heading is
a term of the question (the section is *about* the metric, not a passage that mentions it)
and its text states a formula.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

from tablerag.sql.sensitive import sanitize_sample
from tablerag.types import Hit

MAX_PASSAGES = 2
MAX_CHARS = 320
"""Characters of one passage quoted (the explanation of a metric is a few lines)."""
MIN_TERM_CHARS = 2
_NUMBERING = re.compile(r"^[\s\d.、()（）一二三四五六七八九十第章节条]*")
_FORMULA = re.compile(r"[=÷]|divided by", re.IGNORECASE)


def heading_term(heading: str) -> str:
    """The term a section heading names, without its numbering.

    Example:
        >>> heading_term("3.3 退货率"), heading_term("二、指标定义"), heading_term("Return rate")
        ('退货率', '指标定义', 'Return rate')
    """
    return _NUMBERING.sub("", heading).strip()


def prose_definitions(question: str, hits: Sequence[Hit]) -> list[str]:
    """Comment lines quoting the passages among ``hits`` that define a term of ``question``.

    A passage qualifies when the last part of its heading (numbering stripped) occurs in the
    question (case-insensitive) and its text holds a formula (``=``, ``÷``, "divided by");
    table chunks never do (their rows are the tables' business). The text is sanitised like
    a stored value: it is untrusted.

    Example:
        >>> h = Hit("c1", "/d/指标口径.md", 3, "退货率 = 发生退款的订单数 ÷ 已支付订单数。",
        ...         ("口径说明", "3.3 退货率"), None, None, 1.0, 1)
        >>> prose_definitions("退货率最高的三个品类", [h])
        ['-- 指标口径.md > 3.3 退货率: 退货率 = 发生退款的订单数 ÷ 已支付订单数。']
        >>> prose_definitions("销售额最高的三个品类", [h])
        []
    """
    out: list[str] = []
    for _, hit in defining_passages(question, hits):
        text = sanitize_sample(hit.text, limit=MAX_CHARS, fold=False)
        out.append(f"-- {PurePath(hit.source).name} > {hit.heading_path[-1]}: {text}")
    return out


def defining_passages(question: str, hits: Sequence[Hit]) -> list[tuple[str, Hit]]:
    """The passages among ``hits`` that define a term of ``question``, each with its term
    (at most :data:`MAX_PASSAGES`; see :func:`prose_definitions` for what qualifies).

    Example:
        >>> h = Hit("c1", "指标.md", 1, "客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。",
        ...         ("客单价",), None, None, 1.0, 1)
        >>> [(term, hit.chunk_id) for term, hit in defining_passages("哪个渠道的客单价最高？", [h])]
        [('客单价', 'c1')]
    """
    asked = question.lower()
    out: list[tuple[str, Hit]] = []
    for hit in hits:
        if hit.table is not None or not hit.heading_path:
            continue
        term = heading_term(hit.heading_path[-1])
        if len(term) < MIN_TERM_CHARS or term.lower() not in asked:
            continue
        if not _FORMULA.search(hit.text):
            continue
        out.append((term, hit))
        if len(out) == MAX_PASSAGES:
            break
    return out
