"""Clarification and follow-up resolution on the sample corpus, through the product (issue 34).

``bench/data/clarify.jsonl``: bilingual conversations about the sample corpus, each turn with
its expected outcome, written before any run: ``asks`` (the answer should ask back: the
question's readings give different numbers, or it is a bad pick or leans on nothing) with the
``kind`` of ask-back, ``pick`` (the turn picks one of the choices offered), ``dependent`` (a
follow-up that needs the resolver's model call) and ``terms``, the key values its standalone
question must contain.

Every turn is asked with ``QA.answer`` in one session per conversation, on the sample
workspace (built in a temporary folder with its semantic model, the hashing embedder, today =
the corpus's reference date). Without ``--llm`` the model is a stub that writes a constant
query and no JSON: the ask-backs and the picks need no model call, so their figures are the
product's; the follow-ups that need the resolver are not resolved (counted apart). With
``--llm SPEC`` the follow-ups are resolved by that model too.

Figures: clarification precision and recall (asked = an answer with status ``clarify``), the
kind of each ask-back, the number of choices, model calls on the turns asked back, and
resolution accuracy (a turn is right when its standalone question contains every expected
term). Without a model, the follow-ups that need the resolver are left out of every figure
(``followups_without_model``): what they ask is not known.

Usage::

    .venv/bin/python bench/clarify.py [--json]
    .venv/bin/python bench/clarify.py --llm SPEC --json   # follow-ups resolved by a model
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablerag.llm import LLM, load_llm
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.request import Request
from tablerag.sample import MODEL_NAME, write_sample
from tablerag.sample.mart import REFERENCE_DATE
from tablerag.semantic.library import import_document, read_file
from tablerag.service import QA, Workspace
from tablerag.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CASES = ROOT / "bench" / "data" / "clarify.jsonl"
SETTINGS = Settings(embedder="hashing", today=REFERENCE_DATE)


def load_conversations(path: Path) -> list[dict[str, Any]]:
    """The conversations of a JSONL file."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def build_workspace(root: Path) -> Path:
    """The sample corpus ingested into ``root / "ws"`` with its semantic model imported."""
    corpus, ws = root / "corpus", root / "ws"
    corpus.mkdir(parents=True)
    write_sample(corpus)
    with Workspace.open(ws) as opened:
        opened.ingest([corpus], settings=Settings(index_on_ingest=True, embedder="hashing"))
        import_document(
            opened.con, read_file(corpus / MODEL_NAME), opened.tables(), origin=MODEL_NAME
        )
    return ws


def stub() -> LLM:
    """A model that writes a constant query and never valid JSON (so nothing is resolved or
    compiled by it): what is measured without a model is what needs none."""

    def reply(messages: Sequence[Message]) -> str:
        return "```sql\nSELECT 1 AS n\n```"

    return FunctionLLM(reply)


@dataclass
class Tally:
    """Counts of one run."""

    turns: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    kinds_right: int = 0
    kinds: int = 0
    choices: list[int] = field(default_factory=list)
    asking_calls: int = 0
    picks_right: int = 0
    picks: int = 0
    followups_right: int = 0
    followups: int = 0
    followups_unresolved: int = 0
    misses: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The figures, as plain JSON values."""
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        resolved = self.picks + self.followups
        right = self.picks_right + self.followups_right
        return {
            "turns": self.turns,
            "asked_right": self.tp,
            "asked_wrongly": self.fp,
            "not_asked": self.fn,
            "rightly_answered": self.tn,
            "clarify_precision": round(precision, 3),
            "clarify_recall": round(recall, 3),
            "kind_right": f"{self.kinds_right}/{self.kinds}",
            "choices_per_ask": sorted(set(self.choices)),
            "model_calls_asking_back": self.asking_calls,
            "pick_accuracy": f"{self.picks_right}/{self.picks}",
            "followup_accuracy": f"{self.followups_right}/{self.followups}",
            "followups_without_model": self.followups_unresolved,
            "resolution_accuracy": round(right / resolved, 3) if resolved else None,
            "misses": self.misses,
        }


def has_terms(text: str, terms: Sequence[str]) -> bool:
    """Whether ``text`` holds every term (case-insensitive).

    Example:
        >>> has_terms("2026年10月销售额是多少？", ["2026年10月", "销售额"])
        True
        >>> has_terms("What is net revenue in 2026?", ["2026-10"])
        False
    """
    low = text.casefold()
    return all(t.casefold() in low for t in terms)


def _kind(rq: Request, answer: Any) -> str:
    """What kind of ask-back ``answer`` is: the readings' kind, or the follow-up's case."""
    for e in rq.trace.events:
        if e.kind == "clarify":
            return str(e.data["reading"])
    for e in rq.trace.events:
        if e.kind == "followup" and e.data["resolution"] in ("orphan", "no_choice"):
            return str(e.data["resolution"])
    return "vague" if answer.status == "clarify" else ""


def run(conversations: list[dict[str, Any]], qa: QA, *, with_model: bool) -> Tally:
    """Ask every turn and score it."""
    tally = Tally()
    for conv in conversations:
        session = f"bench-{conv['id']}"
        for i, turn in enumerate(conv["turns"]):
            where = f"{conv['id']}#{i + 1}"
            rq = Request.make(turn["q"], max_seconds=120, session=session, origin="bench")
            answer = qa.answer(rq)
            tally.turns += 1
            if turn.get("dependent") and answer.standalone_question is None and not with_model:
                tally.followups_unresolved += 1  # what it asks needs the resolver's model call
                continue
            asked = answer.status == "clarify"
            kind = _kind(rq, answer)
            if asked and turn["asks"]:
                tally.tp += 1
                tally.kinds += 1
                tally.kinds_right += kind == turn["kind"]
                if kind != turn["kind"]:
                    tally.misses.append(f"{where} asked ({kind}), expected {turn['kind']}")
                if kind in ("period", "value", "column"):
                    tally.choices.append(len(answer.clarifications))
                    tally.asking_calls += rq.usage.calls
                    if rq.usage.calls:
                        tally.misses.append(f"{where} asked back after {rq.usage.calls} calls")
            elif asked:
                tally.fp += 1
                tally.misses.append(f"{where} asked back ({kind}) a question with one reading")
            elif turn["asks"]:
                tally.fn += 1
                tally.misses.append(f"{where} answered ({answer.path}), expected an ask-back")
            else:
                tally.tn += 1
            if "terms" not in turn:
                continue
            standalone = answer.standalone_question or turn["q"]
            right = has_terms(standalone, turn["terms"])
            if turn.get("pick"):
                tally.picks += 1
                tally.picks_right += right
            else:
                tally.followups += 1
                tally.followups_right += right
            if not right:
                tally.misses.append(f"{where} understood as {standalone!r}")
    return tally


def main() -> None:
    """Print the figures (``--json`` as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--llm", default=None, help="Resolve follow-ups with this model.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    llm = load_llm(args.llm) if args.llm else stub()
    with tempfile.TemporaryDirectory() as tmp:
        ws = build_workspace(Path(tmp))
        with QA.open(ws, settings=SETTINGS, llm=llm, home=Path(tmp)) as qa:
            figures = run(load_conversations(args.cases), qa, with_model=args.llm is not None)
    out = figures.summary()
    out["model"] = args.llm or "none (a stub that writes a constant query)"
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
