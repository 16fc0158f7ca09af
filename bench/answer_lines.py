"""The first lines of data answers, before and after: what a reader sees first (issue 36).

Files nobody tuned for (a clinic's visits and doctors, generated here with a fixed seed) and ten
data questions in Chinese and English. The model is scripted with the SQL a good model would
write for each question, so the SQL is the same in both trees and only what tablerag does
around it differs; every other model call (routing, explanation) gets an empty reply, so each
tree falls back to its own words. Each tree runs in its own process from its own ``src``:
the baseline is checked out from git with ``git archive``.

    python bench/answer_lines.py --baseline 18e285a --append bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

QUESTIONS: tuple[tuple[str, str], ...] = (
    (
        "2026年3月内科完成了多少次就诊？",
        "SELECT count(*) AS visits FROM clinic_visits WHERE department = '内科' AND status = "
        "'done' AND visit_date >= DATE '2026-03-01' AND visit_date < DATE '2026-04-01'",
    ),
    (
        "What was the total fee of completed visits in May 2026?",
        "SELECT sum(fee_yuan) AS total_fee FROM clinic_visits WHERE status = 'done' AND "
        "visit_date BETWEEN DATE '2026-05-01' AND DATE '2026-05-31'",
    ),
    (
        "各科室的平均费用是多少？",
        "SELECT department, round(avg(fee_yuan), 2) AS avg_fee FROM clinic_visits "
        "GROUP BY department ORDER BY avg_fee DESC",
    ),
    (
        "Which doctor had the most visits?",
        "SELECT doctor, count(*) AS visits FROM clinic_visits GROUP BY doctor "
        "ORDER BY visits DESC LIMIT 1",
    ),
    (
        "取消的就诊占全部就诊的比例是多少？",
        "SELECT round(avg(CASE WHEN status = 'cancelled' THEN 1.0 ELSE 0 END), 4) AS cancel_rate "
        "FROM clinic_visits",
    ),
    (
        "How many insured visits did pediatrics (儿科) have in Q2 2026?",
        "SELECT count(*) AS visits FROM clinic_visits WHERE insured = 'Y' AND department = '儿科' "
        "AND visit_date >= DATE '2026-04-01' AND visit_date < DATE '2026-07-01'",
    ),
    (
        "每个月的就诊次数是多少？",
        "SELECT strftime(visit_date, '%Y-%m') AS month, count(*) AS visits FROM clinic_visits "
        "GROUP BY 1 ORDER BY 1",
    ),
    (
        "主任医师接诊的就诊总费用是多少元？",
        "SELECT sum(v.fee_yuan) AS total_fee FROM clinic_visits AS v JOIN doctors AS d "
        "ON v.doctor = d.doctor WHERE d.title = '主任医师'",
    ),
    (
        "What is the highest single fee in ophthalmology (眼科)?",
        "SELECT max(fee_yuan) AS max_fee FROM clinic_visits WHERE department = '眼科'",
    ),
    (
        "爽约次数最多的三位医生是谁？",
        "SELECT doctor, count(*) AS no_shows FROM clinic_visits WHERE status = 'no_show' "
        "GROUP BY doctor ORDER BY no_shows DESC LIMIT 3",
    ),
)

DEPARTMENTS = ("内科", "外科", "儿科", "眼科")
DOCTORS = (
    ("王磊", "主任医师", "内科"),
    ("李娜", "副主任医师", "内科"),
    ("张伟", "主治医师", "外科"),
    ("刘洋", "主任医师", "外科"),
    ("陈静", "主治医师", "儿科"),
    ("赵敏", "副主任医师", "儿科"),
    ("孙浩", "主治医师", "眼科"),
    ("周婷", "主任医师", "眼科"),
)


def write_files(folder: Path) -> list[Path]:
    """The clinic's two tables as CSV files (seed 36)."""
    rng = random.Random(36)
    folder.mkdir(parents=True, exist_ok=True)
    visits = folder / "clinic_visits.csv"
    with visits.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["visit_id", "visit_date", "department", "doctor", "fee_yuan", "insured",
                      "status"])  # fmt: skip
        start = dt.date(2026, 1, 1)
        for i in range(1, 601):
            doctor, _, department = rng.choice(DOCTORS)
            status = rng.choices(("done", "cancelled", "no_show"), (80, 12, 8))[0]
            day = start + dt.timedelta(days=rng.randrange(181))
            fee = round(rng.uniform(20, 900), 2)
            out.writerow([f"V{i:04d}", day.isoformat(), department, doctor, fee,
                          rng.choice("YN"), status])  # fmt: skip
    doctors = folder / "doctors.csv"
    with doctors.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["doctor", "title", "department"])
        out.writerows(DOCTORS)
    return [visits, doctors]


def child(out: Path) -> None:
    """Ingest the files with this process's tablerag and answer every question."""
    from tablerag.llm.testing import FunctionLLM
    from tablerag.service import QA, Workspace
    from tablerag.settings import Settings

    def reply(messages: Any) -> str:
        asked = messages[-1]["content"]
        if "SELECT" in messages[0]["content"]:
            for question, sql in QUESTIONS:
                if question in asked:
                    return f"```sql\n{sql}\n```"
        return ""

    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp) / "in")
        root = Path(tmp) / "ws"
        settings = Settings(embedder="hashing")
        with Workspace.open(root) as ws:
            ws.ingest(files, settings=settings)
        qa = QA.open(root, settings=settings, llm=FunctionLLM(reply))
        try:
            rows = []
            for question, _ in QUESTIONS:
                answer = qa.ask(question)
                rows.append({"question": question, "status": answer.status,
                             "answer": _printed(answer)})  # fmt: skip
        finally:
            qa.close()
    out.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")


def _printed(answer: Any) -> str:
    """The answer's text as the terminal prints it: the reading of its SQL first, where the
    tree has one (``Answer.reading``, shown above the answer by ``tablerag ask``)."""
    reading = getattr(answer, "reading", None)
    if reading is None:
        return str(answer.answer)
    from tablerag.answer.reading import reading_line

    return reading_line(reading, answer.language) + "\n" + str(answer.answer)


def run_tree(src: Path, tmp: Path, name: str) -> list[dict[str, str]]:
    out = tmp / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": str(src), "TABLERAG_EMBEDDER": "hashing"}
    subprocess.run([sys.executable, __file__, "--child", str(out)], env=env, check=True)
    rows: list[dict[str, str]] = json.loads(out.read_text(encoding="utf-8"))
    return rows


def baseline_src(rev: str, tmp: Path) -> Path:
    """The ``src`` folder of ``rev``, unpacked from ``git archive``."""
    repo = Path(__file__).resolve().parents[1]
    data = subprocess.run(
        ["git", "-C", str(repo), "archive", rev, "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(tmp / "baseline", filter="data")
    return tmp / "baseline" / "src"


def first_lines(text: str, n: int = 2) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " / ".join(lines[:n]).replace("|", "\\|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="18e285a", help="The git revision before.")
    parser.add_argument("--append", type=Path, help="Append the table to this Markdown file.")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    here = Path(__file__).resolve().parents[1] / "src"
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        before = run_tree(baseline_src(args.baseline, tmp), tmp, "before")
        after = run_tree(here, tmp, "after")
    head = subprocess.run(
        ["git", "-C", str(here.parent), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    lines = [f"| question | before ({args.baseline}) | after ({head}) |", "|---|---|---|"]
    for b, a in zip(before, after, strict=True):
        lines.append(
            f"| {b['question']} | `{b['status']}` {first_lines(b['answer'])} | "
            f"`{a['status']}` {first_lines(a['answer'])} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.append:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write(
                f"\n## The first lines of data answers, before and after (issue 36) — {stamp}\n\n"
                f"`python bench/answer_lines.py --baseline {args.baseline}`: a clinic's visits "
                "and doctors generated with seed 36 (600 visits, 8 doctors), ten questions; the "
                "model scripted with the same SQL in both trees, every other call answered "
                "with an empty reply (each tree's own fallback words). The answers' first two "
                "lines, as the terminal prints them:\n\n" + table + "\n"
            )


if __name__ == "__main__":
    main()
