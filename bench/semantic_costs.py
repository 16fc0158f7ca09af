"""What the semantic model costs per question and per session on the sample workspace (issue 30).

Builds the sample workspace (hashing embedder), imports the sample's Ossie model and times:
``check_model`` of the whole model (what ``QA`` runs once per source and session), compiling
each of the seven requests of ``tests/semantic/test_sample_model.py`` for DuckDB and PostgreSQL,
and ``draft_workspace`` (what ingest could run at its end). No model call anywhere.

Usage::

    PYTHONPATH=src:. .venv/bin/python bench/semantic_costs.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.semantic.test_sample_model import CASES, TODAY

from tablerag.sample import write_sample
from tablerag.sample.documents import read_text
from tablerag.semantic.check import check_model
from tablerag.semantic.compile import compile_request
from tablerag.semantic.draft import draft_workspace
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import loads
from tablerag.semantic.request import Request
from tablerag.service import Workspace
from tablerag.settings import Settings


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus, root = Path(tmp) / "sample", Path(tmp) / "ws"
        write_sample(corpus)
        with Workspace.open(root) as ws:
            ws.ingest([corpus], settings=Settings(embedder="hashing"))
            tables = ws.tables()
            draft_ms = median_ms(lambda: draft_workspace(ws), max(1, args.repeat // 4))
            drafted = draft_workspace(ws)
    document = loads(read_text("semantic_model.yaml"))
    knowledge = Knowledge(document)
    check_ms = median_ms(lambda: check_model(document, tables), max(1, args.repeat // 4))
    print(f"check_model, sample model: {check_ms:.1f} ms (median)")
    for dialect in ("duckdb", "postgres"):
        per = [
            median_ms(
                lambda r=request, d=dialect: compile_request(  # type: ignore[misc]
                    Request(**r), knowledge, dialect=d, today=TODAY
                ),
                args.repeat,
            )
            for _, request, _ in CASES
        ]
        print(
            f"compile, {dialect}: median {statistics.median(per):.1f} ms, "
            f"max {max(per):.1f} ms over {len(per)} requests"
        )
    metrics = drafted.semantic_model[0].metrics or []
    print(f"draft_workspace: {draft_ms:.0f} ms, {len(metrics)} metrics drafted")
    print(f"today={TODAY}, run at {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC")


if __name__ == "__main__":
    main()
