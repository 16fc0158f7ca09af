"""Tokens for BM25 and the script check of queries; Chinese via jieba, English lower-cased.

The same :func:`tokenize` runs on passages and on queries, so both sides always agree.
Mixed text works: jieba segments the Chinese runs and passes Latin words through.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import jieba
from bm25s.stopwords import STOPWORDS_EN

jieba.setLogLevel(60)

#: Bump when tokenization changes: an index built with another version must be rebuilt.
TOKENIZER_VERSION = "jieba-search+light-stem/2"

_WORD = re.compile(r"\w")
# Han runs go to jieba; everything else is split here (jieba is ~10x slower on Latin text and
# keeps trailing dots: "days." would not match "days").
_HAN_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
_LATIN_TOKEN = re.compile(r"\w+(?:[.+#&%-]\w+)*[+#%]*")
_EN_QUESTION_WORDS = (
    "what which who whom how when where why does do did can could would should may might "
    "i you we my your our its has have had been am s"
)
_STOP_EN = frozenset(STOPWORDS_EN) | frozenset(_EN_QUESTION_WORDS.split())
_ZH_FUNCTION_WORDS = (
    "的 了 吗 呢 吧 啊 是 在 和 与 及 或 也 都 就 而 之 其 于 被 把 从 对 为 以 等 个 这 那 "
    "什么 哪些 哪个 怎么 怎样 如何 多少 是否 可以 能否 请问 一下"
)
_STOP_ZH = frozenset(_ZH_FUNCTION_WORDS.split())
#: Scripts the index and the default embedder handle; letters of any other script are suspect.
SUPPORTED_SCRIPTS = frozenset({"LATIN", "CJK"})


def light_stem(word: str) -> str:
    """Fold English plurals the same way on both sides (Porter step 1a + y/ie → i); no more.

    Stems need not be words, only agree: "policy" and "policies" both give "polici".

    Example:
        >>> [light_stem(w) for w in ["policies", "policy", "cookies", "cookie", "boxes", "box"]]
        ['polici', 'polici', 'cooki', 'cooki', 'box', 'box']
        >>> [light_stem(w) for w in ["refunds", "process", "processes", "days", "changes"]]
        ['refund', 'process', 'process', 'day', 'change']
    """
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith(("sses", "ies", "ches", "shes", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ie"):
        return word[:-1]
    if len(word) > 2 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "i"
    return word


def tokenize(text: str) -> list[str]:
    """BM25 tokens: jieba search-mode words, lower-cased, plural-folded, stopwords dropped.

    Example:
        >>> tokenize("What is the Refund policy?")
        ['refund', 'polici']
        >>> tokenize("退货后多久可以换货")
        ['退货', '后', '多久', '换货']
        >>> tokenize("2019年revenue增长")
        ['2019', '年', 'revenue', '增长']
        >>> tokenize("Refunds take 14 days. Contact c++ team at e-mail 3.5% fee")
        ['refund', 'take', '14', 'day', 'contact', 'c++', 'team', 'e-mail', '3.5%', 'fee']
    """
    out: list[str] = []
    for n, run in enumerate(_HAN_RUN.split(text.lower())):
        pieces = jieba.cut_for_search(run) if n % 2 else _LATIN_TOKEN.findall(run)
        for token in pieces:
            if not _WORD.search(token) or token in _STOP_EN or token in _STOP_ZH:
                continue
            out.append(light_stem(token))
    return out


def script_of(char: str) -> str | None:
    """The Unicode script family of a letter (``LATIN``, ``CJK``, ``CYRILLIC`` ...), else None.

    Example:
        >>> [script_of(c) for c in "a退Я1 "]
        ['LATIN', 'CJK', 'CYRILLIC', None, None]
    """
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    if not name:
        return "UNKNOWN"
    head = name.split()[0]
    return "CJK" if head in {"CJK", "FULLWIDTH"} else head


def scripts(text: str) -> Counter[str]:
    """How many letters of each script a text has (digits and punctuation are not counted).

    Example:
        >>> sorted(scripts("Hello 世界 мир").items())
        [('CJK', 2), ('CYRILLIC', 3), ('LATIN', 5)]
    """
    return Counter(s for s in map(script_of, text) if s is not None)


_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
_HAN_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def written_in(text: str) -> str | None:
    """``CJK`` or ``LATIN``: the script a text is written in, None when it has no letters.

    A Han character stands for a word, a Latin word has about five letters: a text is Chinese
    when its Han characters are at least a third of its Latin letters (an English passage
    naming a Chinese term stays English).

    Example:
        >>> [written_in(t) for t in ("退货政策", "refund policy", "考勤（absent）次数", "2026")]
        ['CJK', 'LATIN', 'CJK', None]
        >>> written_in("Lead instructors are paid 180 yuan (讲课费) per hour.")
        'LATIN'
    """
    han, latin = len(_HAN_CHAR.findall(text)), len(_LATIN_LETTER.findall(text))
    if not han and not latin:
        return None
    return "CJK" if 3 * han >= latin else "LATIN"


def unsupported_script(text: str) -> str | None:
    """The script that dominates a query when it is not one the index supports, else None.

    A query passes when it has at least as many Latin/CJK letters as letters of other scripts,
    or when it has no letters but digits (``"2019"``).

    Example:
        >>> unsupported_script("退货后多久可以换货") is None
        True
        >>> unsupported_script("Какова политика возврата?")
        'CYRILLIC'
        >>> unsupported_script("refund policy für Kunden") is None
        True
    """
    counts = scripts(text)
    supported = sum(n for s, n in counts.items() if s in SUPPORTED_SCRIPTS)
    other = {s: n for s, n in counts.items() if s not in SUPPORTED_SCRIPTS}
    if other and sum(other.values()) > supported:
        return max(other, key=lambda s: other[s])
    return None
