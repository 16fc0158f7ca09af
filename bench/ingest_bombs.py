"""Ingest the hostile files of issue 28 one by one and print time, peak RSS and the message.

Each bomb is generated in a temp folder (``tests/ingest/bombs.py``) and ingested by a fresh
``tablerag ingest --no-index --json`` into a fresh workspace; ``/usr/bin/time`` gives the peak
RSS of the CLI process and its children (the ingest worker). A safety net (``--guard-mb``
address space, ``--guard-s`` seconds) keeps an unbounded build from taking the machine down:
a run stopped by the net is printed as such.

    python bench/ingest_bombs.py                 # full-size bombs
    python bench/ingest_bombs.py --only csv_100k_columns --guard-s 120
    python bench/ingest_bombs.py --worker-cost   # what the worker adds per small file
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ingest import bombs  # noqa: E402 - the generators live with the tests that use them

BOMBS: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "xlsx_1_5gb_shared_string": (
        "bomb.xlsx",
        lambda p: bombs.xlsx_shared_string(p, 1_500_000_000),
    ),
    "docx_paragraphs_600mb": ("bomb.docx", lambda p: bombs.docx_paragraphs(p, 600_000_000)),
    "csv_100k_columns": ("wide.csv", lambda p: bombs.csv_wide(p, 100_000)),
    "markdown_10mb_one_line": ("one.md", lambda p: bombs.markdown_one_line(p, 10_000_000)),
    "json_depth_100k": ("deep.json", lambda p: bombs.json_deep(p, 100_000)),
    "html_depth_100k": ("deep.html", lambda p: bombs.html_deep(p, 100_000)),
    "docx_depth_10k": ("deep.docx", lambda p: bombs.docx_deep(p, 10_000)),
}


def _guard(mb: int) -> Callable[[], None]:
    def apply() -> None:
        limit = mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def run_one(name: str, folder: Path, *, guard_mb: int, guard_s: float) -> dict[str, object]:
    filename, make = BOMBS[name]
    path = make(folder / filename)
    ws = folder / f"ws_{name}"
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "tablerag", "ingest", "--no-index"]
    cmd += ["--json", "-w", str(ws), str(path)]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=guard_s,
            preexec_fn=_guard(guard_mb),  # noqa: PLW1509 - a resource limit, no threads yet
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {
            "bomb": name,
            "disk_bytes": path.stat().st_size,
            "seconds": f">{guard_s:.0f}",
            "peak_rss_mb": "?",
            "message": f"(stopped by the bench's {guard_s:.0f} s net)",
        }
    seconds = time.perf_counter() - start
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    message = _message(done.stdout) or done.stderr.strip().splitlines()[-2:]
    return {
        "bomb": name,
        "disk_bytes": path.stat().st_size,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(int(rss.group(1)) / 1024) if rss else "?",
        "exit": done.returncode,
        "message": message,
    }


def _message(stdout: str) -> str:
    try:
        reports = json.loads(stdout)
    except json.JSONDecodeError:
        return ""
    items = reports if isinstance(reports, list) else reports.get("sources", [])
    return "; ".join(
        f"{r.get('status')}: {r.get('error') or ''}".strip() for r in items if isinstance(r, dict)
    )


def worker_cost(
    folder: Path, files: int, kinds: tuple[str, ...] = ("csv", "md")
) -> dict[str, object]:
    """Ingest ``files`` small files with the worker and in this process, and compare."""
    from tablerag.ingest.limits import IngestLimits
    from tablerag.ingest.pipeline import ingest_sources
    from tablerag.ingest.worker import IngestWorker, LocalReaders
    from tablerag.service import Workspace
    from tablerag.settings import Settings

    data = folder / "small"
    data.mkdir()
    for i in range(files):
        kind = kinds[i % len(kinds)]
        text = f"id,name\n{i},a\n{i + 1},b\n" if kind == "csv" else f"# Note {i}\n\nText {i}.\n"
        (data / f"t{i}.{kind}").write_text(text, encoding="utf-8")
    settings = Settings(index_on_ingest=False)
    figures: dict[str, object] = {"files": files}
    for name, readers in (
        ("worker_s", IngestWorker(IngestLimits())),
        ("in_process_s", LocalReaders(IngestLimits())),
    ):
        with Workspace.open(folder / f"ws_{name}") as ws:
            start = time.perf_counter()
            reports = ingest_sources(ws, [data], settings=settings, readers=readers)
            figures[name] = round(time.perf_counter() - start, 3)
        assert all(r.status == "added" for r in reports), [r.error for r in reports]
    worker = IngestWorker(IngestLimits())
    start = time.perf_counter()
    worker.document(next(data.glob("*.md")))  # the first file pays the start
    figures["worker_start_s"] = round(time.perf_counter() - start, 3)
    worker.close()
    extra = float(figures["worker_s"]) - float(figures["in_process_s"])  # type: ignore[arg-type]
    figures["per_file_ms"] = round(extra / files * 1000, 1)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(BOMBS))
    parser.add_argument("--guard-mb", type=int, default=6144)
    parser.add_argument("--guard-s", type=float, default=300.0)
    parser.add_argument("--worker-cost", action="store_true")
    parser.add_argument("--files", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tablerag-bombs-") as tmp:
        folder = Path(tmp)
        if args.worker_cost:
            print(json.dumps(worker_cost(folder, args.files)))
            return
        for name in args.only or sorted(BOMBS):
            print(
                json.dumps(
                    run_one(name, folder, guard_mb=args.guard_mb, guard_s=args.guard_s),
                    ensure_ascii=False,
                ),
                flush=True,
            )
            for leftover in folder.iterdir():
                if leftover.is_file():
                    os.remove(leftover)


if __name__ == "__main__":
    main()
