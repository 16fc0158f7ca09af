"""Router accuracy, confusion matrix and latency on a labelled question set.

Three router set-ups are compared on the same questions: rules and features alone (no
workspace), plus the catalog vocabulary of the sample workspace, plus the BM25 probe of its
text index. The workspace is the bundled sample corpus, ingested with the hashing embedder
(the router's probe uses BM25 only, so the embedder does not matter).

Usage::

    .venv/bin/python bench/routing.py --append bench/RESULTS.md
    .venv/bin/python bench/routing.py --cases src/tablerag/router/data/router_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from tablerag.router.router import INTENTS, RouterContext, route
from tablerag.service import Workspace

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CASES = ROOT / "tests" / "router" / "routing_cases.jsonl"


def load_cases(path: Path) -> list[dict[str, str]]:
    """The labelled questions of a JSONL file (``question``, ``intent``, optional ``id``)."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def evaluate(cases: list[dict[str, str]], context: RouterContext) -> dict[str, object]:
    """Accuracy, confusion counts, misses and per-question latency (ms) for one set-up."""
    route("warm-up question 预热", context)
    confusion: Counter[tuple[str, str]] = Counter()
    times: list[float] = []
    misses: list[str] = []
    for case in cases:
        start = time.perf_counter()
        decision = route(case["question"], context)
        times.append((time.perf_counter() - start) * 1000)
        confusion[(case["intent"], decision.intent)] += 1
        if decision.intent != case["intent"]:
            misses.append(
                f"{case.get('id', '-')}: {case['question']!r} expected {case['intent']}, "
                f"got {decision.intent} ({decision.confidence:.2f})"
            )
    right = sum(n for (gold, got), n in confusion.items() if gold == got)
    times.sort()
    return {
        "accuracy": right / len(cases),
        "right": right,
        "confusion": confusion,
        "misses": misses,
        "p50": statistics.median(times),
        "p95": times[min(len(times) - 1, round(0.95 * (len(times) - 1)))],
    }


def confusion_table(confusion: Counter[tuple[str, str]]) -> list[str]:
    """Markdown rows: gold intent down, predicted across."""
    lines = ["| gold \\ routed | " + " | ".join(INTENTS) + " |"]
    lines.append("|---" * (len(INTENTS) + 1) + "|")
    for gold in INTENTS:
        cells = [str(confusion.get((gold, got), 0)) for got in INTENTS]
        lines.append(f"| {gold} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    """Run the three set-ups and print (and optionally append) a markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--workspace", type=Path, help="An ingested sample workspace to reuse.")
    parser.add_argument("--append", type=Path, help="Append the report to this markdown file.")
    args = parser.parse_args()
    cases = load_cases(args.cases)
    with tempfile.TemporaryDirectory() as tmp:
        ws_path = args.workspace or _sample_workspace(Path(tmp))
        with Workspace.open(ws_path, read_only=True) as ws:
            setups = {
                "rules + features (no workspace)": RouterContext.empty(),
                "+ catalog vocabulary and values": RouterContext.from_workspace(ws, probe=False),
                "+ BM25 probe": RouterContext.from_workspace(ws),
            }
            results = {name: evaluate(cases, ctx) for name, ctx in setups.items()}
    report = _report(args.cases, cases, results)
    print("\n".join(report))
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + "\n".join(report) + "\n")


def _sample_workspace(tmp: Path) -> Path:
    from tablerag.sample import write_sample
    from tablerag.settings import Settings

    corpus = tmp / "corpus"
    write_sample(corpus)
    with Workspace.open(tmp / "ws") as ws:
        ws.ingest([corpus], settings=Settings.model_validate({"embedder": "hashing"}))
    return tmp / "ws"


def _report(
    path: Path, cases: list[dict[str, str]], results: dict[str, dict[str, object]]
) -> list[str]:
    by_intent = Counter(c["intent"] for c in cases)
    zh = sum(1 for c in cases if any("\u4e00" <= ch <= "\u9fff" for ch in c["question"]))
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## Router v1 — routing accuracy ({when})",
        "",
        f"`bench/routing.py --cases {_rel(path)}`: {len(cases)} questions ({zh} Chinese, "
        f"{len(cases) - zh} English; "
        + ", ".join(f"{k} {v}" for k, v in sorted(by_intent.items()))
        + "). Latency per question, warm, one core of a shared 2-core machine.",
        "",
        "| set-up | accuracy | P50 ms | P95 ms |",
        "|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['accuracy']:.1%} ({r['right']}/{len(cases)}) | "
            f"{r['p50']:.2f} | {r['p95']:.2f} |"
        )
    last_name, last = list(results.items())[-1]
    lines += ["", f"Confusion matrix ({last_name}):", ""]
    confusion = last["confusion"]
    assert isinstance(confusion, Counter)
    lines += confusion_table(confusion)
    misses = last["misses"]
    assert isinstance(misses, list)
    if misses:
        lines += ["", "Misses:", ""] + [f"- {m}" for m in misses]
    return lines


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    main()
