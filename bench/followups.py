"""Follow-up resolution on a bilingual conversation set (issue 34).

``bench/data/followups.jsonl``: conversations about the sample corpus, one per line; each turn
has the question, whether it depends on earlier turns (``dependent``), for a dependent turn
the words its standalone form must contain (``terms``) and whether it changes the previous
query (``modifies``), and ``orphan`` for a first turn that leans on nothing.

Without a model it measures the cheap cues alone (which turns would cost a resolving call):
precision and recall of "dependent", and the orphan replies of first turns. With ``--llm SPEC``
it also runs :func:`tablerag.conversation.resolve` turn by turn (each conversation's history
is its own earlier turns as the model resolved them) and reports resolution accuracy: a
dependent turn is right when its standalone question contains every expected term
(case-insensitive), a standalone turn when it is left as asked.

Usage::

    .venv/bin/python bench/followups.py                      # cues only, no model
    .venv/bin/python bench/followups.py --llm local --json   # with the resolving model call
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablerag.answer import detect_language
from tablerag.conversation import resolve
from tablerag.lang.followups import dependency_cues
from tablerag.llm import LLM, load_llm
from tablerag.store.sessions import Turn

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CASES = ROOT / "bench" / "data" / "followups.jsonl"


def load_conversations(path: Path) -> list[dict[str, Any]]:
    """The conversations of a JSONL file."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@dataclass
class Tally:
    """Counts of one run."""

    turns: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    orphans_right: int = 0
    orphans: int = 0
    false_orphans: int = 0
    resolved_right: int = 0
    resolved: int = 0
    misses: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The figures, as plain JSON values."""
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        out: dict[str, Any] = {
            "turns": self.turns,
            "cue_precision": round(precision, 3),
            "cue_recall": round(recall, 3),
            "orphan_replies": f"{self.orphans_right}/{self.orphans}",
            "false_orphan_replies": self.false_orphans,
            "misses": self.misses,
        }
        if self.resolved:
            out["resolution_accuracy"] = round(self.resolved_right / self.resolved, 3)
            out["resolved_turns"] = self.resolved
        return out


def right_resolution(turn: dict[str, Any], standalone: str) -> bool:
    """Whether ``standalone`` is a right resolution of ``turn``.

    Example:
        >>> right_resolution({"q": "那华南呢？", "dependent": True, "terms": ["华南", "毛利"]},
        ...                  "上月华南的毛利是多少？")
        True
        >>> right_resolution({"q": "What is X?", "dependent": False}, "What is X about Y?")
        False
    """
    if not turn["dependent"]:
        return standalone.strip() == turn["q"].strip()
    text = standalone.casefold()
    return all(term.casefold() in text for term in turn.get("terms", []))


def run(conversations: list[dict[str, Any]], llm: LLM | None = None) -> Tally:
    """Score the cues (and, with ``llm``, the resolutions) of every turn."""
    tally = Tally()
    for conv in conversations:
        history: list[Turn] = []
        for i, turn in enumerate(conv["turns"]):
            q = turn["q"]
            tally.turns += 1
            predicted = bool(dependency_cues(q))
            if predicted and turn["dependent"]:
                tally.tp += 1
            elif predicted:
                tally.fp += 1
                tally.misses.append(f"{conv['id']}#{i + 1} cue on a standalone question: {q!r}")
            elif turn["dependent"]:
                tally.fn += 1
                tally.misses.append(f"{conv['id']}#{i + 1} no cue on a follow-up: {q!r}")
            if i == 0:
                tally.orphans += bool(turn.get("orphan"))
                res = resolve(q, [], llm=llm or _NoModel(), language="en", timeout_s=30)
                tally.orphans_right += bool(turn.get("orphan")) and res.kind == "orphan"
                if res.kind == "orphan" and not turn.get("orphan"):
                    tally.false_orphans += 1
                    tally.misses.append(f"{conv['id']}#1 asked back, but stands alone: {q!r}")
            if llm is None or i == 0:
                history.append(Turn(q, q, f"{conv['id']}-{i}"))
                continue
            language = detect_language(q)
            res = resolve(q, history, llm=llm, language=language, timeout_s=60)
            tally.resolved += 1
            if right_resolution(turn, res.standalone):
                tally.resolved_right += 1
            else:
                tally.misses.append(f"{conv['id']}#{i + 1} resolved {q!r} as {res.standalone!r}")
            history.append(Turn(q, res.standalone, f"{conv['id']}-{i}"))
    return tally


class _NoModel(LLM):
    """A first turn never calls the model; this one says so if it is called."""

    backend = "none"

    def complete(self, messages: Any, **kw: Any) -> Any:
        raise AssertionError("a first turn called the model")


def main() -> None:
    """Print the figures (``--json`` as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--llm", default=None, help="Also resolve with this model (a spec).")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    llm = load_llm(args.llm) if args.llm else None
    try:
        figures = run(load_conversations(args.cases), llm).summary()
    finally:
        if llm is not None:
            llm.close()
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
        return
    for key, value in figures.items():
        if key != "misses":
            print(f"{key}: {value}")
    for miss in figures["misses"]:
        print(f"  - {miss}")


if __name__ == "__main__":
    main()
