"""The expected answers of the third set, computed in plain Python from the generator's
records (:func:`tablerag.evals.userdata.v3.data.build`): no SQL, no tablerag reader.

``TRUTH[qid](records)`` gives the answer's parts in the order the question stores them: its
figures first, then its facts. A rate is a percentage. Document answers are constants read off
the documents' text in :mod:`.files` by hand; they are listed here so every answerable question
has one place its answer comes from.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tablerag.evals.userdata.v2.truth import _unique_top
from tablerag.evals.userdata.v3.data import COURSES, EARLY_BIRD, TODAY, Records, course
from tablerag.evals.userdata.v3.files import LEAD_HOURLY_PAY

LAST_MONTH = (dt.date(2026, 5, 1), dt.date(2026, 6, 1))
"""上个月 / last month on :data:`TODAY` (2026-06-15): May 2026."""
THIS_MONTH = (dt.date(2026, 6, 1), dt.date(2026, 7, 1))


def _in(day: dt.date, span: tuple[dt.date, dt.date]) -> bool:
    return span[0] <= day < span[1]


def _name(code: str) -> str:
    return course(code)[1]


def _category(code: str) -> str:
    return course(code)[2]


def attendance_rate(r: Records, code: str | None = None) -> float:
    """出勤率 as the student handbook defines it (第二条): present ÷ (present + absent +
    excused), in %, over one course or all."""
    rows = [a for a in r.attendance if code is None or a.course == code]
    return 100 * sum(a.status == "present" for a in rows) / len(rows)


def _graduates(r: Records) -> list[Any]:
    return [e for e in r.enrollments if e.status == "已结业"]


def _mean(values: Iterable[float]) -> float:
    got = list(values)
    return sum(got) / len(got)


def _paid_by_course(r: Records) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for e in r.enrollments:
        out[e.course] += e.paid
    return out


def _score_by_category(r: Records) -> dict[str, float]:
    scores: dict[str, list[int]] = defaultdict(list)
    for e in _graduates(r):
        scores[_category(e.course)].append(e.score or 0)
    return {k: _mean(v) for k, v in scores.items()}


def _counts(values: Iterable[str]) -> Mapping[str, float]:
    return Counter(values)


TRUTH: dict[str, Callable[[Records], tuple[Any, ...]]] = {
    # the enrollment workbook and the attendance export
    "k-01": lambda r: (len(r.enrollments),),
    "k-02": lambda r: (sum(e.status == "退学" for e in r.enrollments),),
    "k-03": lambda r: (_mean(e.score or 0 for e in _graduates(r)),),
    "k-04": lambda r: (sum(e.paid for e in r.enrollments),),
    "k-05": lambda r: (sum(e.paid for e in r.enrollments if _category(e.course) == "信息技术"),),
    "k-06": lambda r: tuple(_unique_top(_counts(e.course for e in r.enrollments))),
    "k-07": lambda r: tuple(_unique_top(_paid_by_course(r), 3)),
    "k-08": lambda r: (sum(_in(e.day, LAST_MONTH) for e in r.enrollments),),
    "k-09": lambda r: (sum(_in(e.day, THIS_MONTH) for e in r.enrollments),),
    "k-10": lambda r: (sum(e.note == EARLY_BIRD for e in r.enrollments),),
    "k-11": lambda r: (
        sum(
            e.status == "已结业" and _in(e.day, (dt.date(2026, 3, 1), dt.date(2026, 4, 1)))
            for e in r.enrollments
        ),
    ),
    "k-12": lambda r: (_mean(e.paid for e in r.enrollments if e.course == "PY101"),),
    "k-13": lambda r: (sum(course(e.course)[5] == "吴静" for e in r.enrollments),),
    "k-14": lambda r: (len({e.student for e in r.enrollments}),),
    "k-15": lambda r: (sum(a.status == "absent" for a in r.attendance),),
    "k-16": lambda r: (attendance_rate(r),),
    "k-17": lambda r: (attendance_rate(r, "CK201"),),
    "k-18": lambda r: (
        sum(a.hours for a in r.attendance if a.status == "absent" and _in(a.day, LAST_MONTH)),
    ),
    "k-19": lambda r: tuple(
        _unique_top(_counts(a.course for a in r.attendance if a.status == "excused"))
    ),
    "k-20": lambda r: tuple(_unique_top(_score_by_category(r))),
    "k-21": lambda r: (max(e.score or 0 for e in r.enrollments),),
    "k-22": lambda r: (sum(c[3] for c in COURSES if c[2] == "烹饪"),),
    "k-23": lambda r: tuple(_unique_top({c[0]: c[3] for c in COURSES})),
    "k-24": lambda r: (sum(_in(a.day, LAST_MONTH) for a in r.attendance),),
    # the documents (read off the text of .files)
    "p-01": lambda r: (7,),
    "p-02": lambda r: (70,),
    "p-03": lambda r: (200,),
    "p-04": lambda r: (90,),
    "p-05": lambda r: (30,),
    "p-06": lambda r: (1500,),
    "p-07": lambda r: (5,),
    "p-08": lambda r: ("No,",),
    "p-09": lambda r: (30,),
    "p-10": lambda r: (LEAD_HOURLY_PAY,),
    "p-11": lambda r: (120,),
    "p-12": lambda r: (8,),
    "p-13": lambda r: (48,),
    "p-14": lambda r: (10,),
    "p-15": lambda r: (800,),
    "p-16": lambda r: ("No,",),
    "p-17": lambda r: (12,),
    # a figure from the data and the rule
    "x-01": lambda r: (
        sum(_category(e.course) == "电工" and (e.score or 0) >= 60 for e in _graduates(r)),
        800,
    ),
    "x-02": lambda r: (sum(e.note == EARLY_BIRD for e in r.enrollments), 30),
    "x-03": lambda r: (sum((e.score or 0) < 60 for e in _graduates(r)), 200),
    "x-04": lambda r: (course("PY101")[3] * LEAD_HOURLY_PAY,),
    "x-05": lambda r: (sum(e.status == "退学" for e in r.enrollments), 70),
}
"""qid → the answer's parts, from the records (document answers are read off the text)."""

__all__ = ["LAST_MONTH", "THIS_MONTH", "TODAY", "TRUTH", "attendance_rate"]
