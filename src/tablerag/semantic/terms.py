"""Document terms: the words people use for the documents' own terms, kept in the semantic model.

Ossie has a place for the synonyms of datasets, fields and metrics, none for the vocabulary of
the documents ("退款" in the return policy, "SKU编码" in the handbook). A semantic model's
``TABLERAG`` extension holds it under ``terms``::

    {"terms": [{"term": "退款", "synonyms": ["退钱", "money back"]}, ...]}

Search rewrites a question's ``synonyms`` to their ``term`` before BM25 and the query embedder
read it (:mod:`tablerag.rag.rewrite`, the ``query_rewriting`` setting). The list is what a
curator wrote; nothing here adds a word of its own.
"""

from __future__ import annotations

from typing import Any

from tablerag.rag.rewrite import Synonym
from tablerag.semantic.ossie import OssieDocument, SemanticModel

TERMS_KEY = "terms"
"""Key of the document terms in a semantic model's ``TABLERAG`` extension."""


def model_terms(model: SemanticModel) -> list[tuple[str, tuple[str, ...]]]:
    """``(term, synonyms)`` of one model, as written (malformed entries skipped; ``check``
    names them)."""
    out = []
    for entry in model.ext.get(TERMS_KEY) or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("term"), str):
            continue
        words = entry.get("synonyms")
        if isinstance(words, list):
            out.append((entry["term"].strip(), tuple(str(w).strip() for w in words)))
    return out


def document_terms(document: OssieDocument | None) -> tuple[Synonym, ...]:
    """Every ``(words, term)`` of the document's models, the people's models before the drafted
    one (a word two models map takes the first model's term).

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> doc = loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets: [{name: t, source: t}]
        ...   custom_extensions:
        ...   - vendor_name: TABLERAG
        ...     data: '{"terms":[{"term":"退款","synonyms":["退钱","money back"]}]}'
        ... ''')
        >>> document_terms(doc)
        (('退钱', '退款'), ('money back', '退款'))
    """
    if document is None:
        return ()
    out: dict[str, Synonym] = {}
    models = sorted(document.semantic_model, key=lambda m: m.name == "drafted")
    for model in models:
        for term, words in model_terms(model):
            for word in words:
                if word and term and word.lower() != term.lower():
                    out.setdefault(word.lower(), (word, term))
    return tuple(out.values())


def term_problems(document: OssieDocument) -> list[tuple[str, str]]:
    """``(model name, problem)`` for every malformed ``terms`` entry and every word two terms
    claim.

    Example:
        >>> from tablerag.semantic.ossie import Dataset, SemanticModel
        >>> m = SemanticModel(name="m", datasets=[Dataset(name="t", source="t")])
        >>> m.set_ext({"terms": [{"term": "退款", "synonyms": ["退钱"]},
        ...                      {"term": "退货", "synonyms": ["退钱", ""]}, {"synonyms": []}]})
        >>> for p in term_problems(OssieDocument(version="0.2.0.dev0", semantic_model=[m])):
        ...     print(p)
        ('m', "terms[1] ('退货'): synonym 2 is empty")
        ('m', "terms[2]: needs a non-empty 'term' (text) and 'synonyms' (a list of text)")
        ('m', "synonym '退钱' is claimed by terms '退款' and '退货'")
    """
    found: list[tuple[str, str]] = []
    for model in document.semantic_model:
        raw: Any = model.ext.get(TERMS_KEY)
        if raw is None:
            continue
        if not isinstance(raw, list):
            found.append((model.name, f"'{TERMS_KEY}' must be a list of {{term, synonyms}}"))
            continue
        owners: dict[str, list[str]] = {}
        for i, entry in enumerate(raw):
            term = entry.get("term") if isinstance(entry, dict) else None
            words = entry.get("synonyms") if isinstance(entry, dict) else None
            if not isinstance(term, str) or not term.strip() or not isinstance(words, list):
                found.append(
                    (
                        model.name,
                        f"terms[{i}]: needs a non-empty 'term' (text) and 'synonyms' "
                        "(a list of text)",
                    )
                )
                continue
            for j, word in enumerate(words, start=1):
                if not isinstance(word, str) or not word.strip():
                    found.append((model.name, f"terms[{i}] ({term!r}): synonym {j} is empty"))
                    continue
                claims = owners.setdefault(word.strip().lower(), [])
                if term not in claims:
                    claims.append(term)
        for word, terms in owners.items():
            if len(terms) > 1:
                found.append(
                    (
                        model.name,
                        f"synonym {word!r} is claimed by terms {terms[0]!r} and {terms[1]!r}",
                    )
                )
    return found
