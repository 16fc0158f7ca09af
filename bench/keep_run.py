"""Keep an evaluation run folder in ``bench/runs``: its outcomes without dataset text, re-rendered.

The machines forget ``eval-runs/`` between sessions; a run quoted in ``RESULTS.md`` is kept here
so it can be checked case by case and resumed (see ``bench/runs/README.md``). The datasets stay
in ``../shared/bench`` under their own licences, so outcome fields that can quote them (the
loop's answer text, which cites TAT-QA passages) are left out; ids, predictions, SQL, scores,
latencies and token counts stay. Copying a kept run back to ``eval-runs/`` and running the
command in its ``run.json`` resumes it.

Usage::

    .venv/bin/python bench/keep_run.py eval-runs/mixed-tatqa-n200-s0
    .venv/bin/python bench/keep_run.py eval-runs/some-run --name other-name
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from tablerag.evals.report import write_report
from tablerag.evals.runner import RESULTS_FILE

ROOT = Path(__file__).resolve().parents[1]
DATASET_TEXT = ("answer_text",)
"""Outcome ``detail`` fields that can quote the dataset."""
KEPT_FILES = ("run.json",)


def strip_line(line: str) -> str:
    """One results line without the detail fields that can quote the dataset.

    Example:
        >>> strip_line('{"case_id": "a", "detail": {"answer_text": "x", "sql": ["S"]}}')
        '{"case_id": "a", "detail": {"sql": ["S"]}}'
    """
    row = json.loads(line)
    detail = row.get("detail")
    if isinstance(detail, dict):
        row["detail"] = {k: v for k, v in detail.items() if k not in DATASET_TEXT}
    return json.dumps(row, ensure_ascii=False)


def keep(source: Path, dest: Path) -> int:
    """Write ``source``'s outcomes (stripped) and run record to ``dest``; the number of lines."""
    lines = (source / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    dest.mkdir(parents=True, exist_ok=True)
    kept = [strip_line(line) for line in lines if line.strip()]
    (dest / RESULTS_FILE).write_text("\n".join(kept) + "\n", encoding="utf-8")
    for name in KEPT_FILES:
        if (source / name).is_file():
            shutil.copyfile(source / name, dest / name)
    write_report(dest)
    return len(kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the run folder (holds results.jsonl)")
    parser.add_argument("--name", help="folder name under bench/runs (default: the run's)")
    args = parser.parse_args(argv)
    if not (args.run / RESULTS_FILE).is_file():
        print(f"error: no {RESULTS_FILE} in {args.run}; pass a run folder.", file=sys.stderr)
        return 2
    dest = ROOT / "bench" / "runs" / (args.name or args.run.name)
    n = keep(args.run, dest)
    print(f"kept {n} outcomes in {dest.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
