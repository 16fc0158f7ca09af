"""The records behind the third user-data set, built from a seed.

A vocational training school (启航职业技能培训学校): its courses, the enrollments of the spring
term and the attendance of each class session. The file writers (:mod:`.files`) spoil these
records the way people's files are spoiled; the expected answers (:mod:`.truth`) are computed
from these records, so they do not depend on how any reader parses the files.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

SEED = 8317
TODAY = dt.date(2026, 6, 15)
"""The pinned date relative questions (上个月, last month, 本月) are asked on."""

COURSES: tuple[tuple[str, str, str, int, int, str], ...] = (
    ("PY101", "Python数据分析", "信息技术", 64, 3800, "赵磊"),
    ("WD102", "网页设计", "信息技术", 48, 2900, "钱芳"),
    ("CK201", "中式烹调", "烹饪", 80, 4200, "孙强"),
    ("BK202", "西点烘焙", "烹饪", 60, 3600, "李娜"),
    ("EL301", "低压电工", "电工", 40, 1800, "周斌"),
    ("AC401", "初级会计实务", "财会", 56, 2600, "吴静"),
    ("AC402", "税务实操", "财会", 32, 1500, "吴静"),
)
"""课程代码, 课程名称, 类别, 课时, 学费 (元), 主讲讲师: the workbook's 课程 sheet."""

STATUSES = ("在读", "已结业", "退学")
EARLY_BIRD = "早鸟九折"
"""The 备注 of an enrollment paid at the early-bird price (90 % of the fee)."""
ATTENDANCE = ("present", "absent", "excused")
"""The attendance CSV's status values: 出勤, 缺勤, 请假."""


@dataclass(frozen=True)
class Enrollment:
    """One row of the 报名记录 sheet."""

    enroll_id: str
    student: str
    course: str
    """The course code (名称, 类别 and 讲师 are on the 课程 sheet)."""
    day: dt.date
    paid: float
    """实收学费 in 元: the course fee, or 90 % of it with the early-bird note."""
    note: str
    status: str
    score: int | None
    """结业成绩, for a graduated enrollment only."""


@dataclass(frozen=True)
class Attendance:
    """One line of the UTF-16 attendance CSV: one student at one class session."""

    day: dt.date
    enroll_id: str
    student: str
    course: str
    hours: int
    status: str


@dataclass(frozen=True)
class Records:
    """Every record of the set's files."""

    enrollments: tuple[Enrollment, ...]
    attendance: tuple[Attendance, ...]


def build(seed: int = SEED) -> Records:
    """The records; the same seed gives the same records.

    Example:
        >>> r = build()
        >>> len(r.enrollments), len(r.attendance) > 300
        (160, True)
    """
    rng = random.Random(seed)
    enrollments = _enrollments(rng)
    return Records(enrollments, _attendance(rng, enrollments))


def course(code: str) -> tuple[str, str, str, int, int, str]:
    """The 课程 sheet's row of the course ``code``."""
    return next(c for c in COURSES if c[0] == code)


def _enrollments(rng: random.Random) -> tuple[Enrollment, ...]:
    out = []
    start = dt.date(2026, 1, 5)
    for i in range(160):
        day = start + dt.timedelta(days=rng.randint(0, (TODAY - start).days - 1))
        code = rng.choices([c[0] for c in COURSES], weights=(6, 4, 5, 3, 4, 3, 2))[0]
        fee = course(code)[4]
        early = rng.random() < 0.3
        paid = round(fee * 0.9, 2) if early else float(fee)
        if day < dt.date(2026, 4, 1):
            status = rng.choices(STATUSES, weights=(20, 70, 10))[0]
        else:
            status = rng.choices(STATUSES[::2], weights=(85, 15))[0]
        score = rng.randint(45, 98) if status == "已结业" else None
        student = f"S{rng.randint(1, 130):03d}"
        out.append(
            Enrollment(
                f"E26-{i + 1:04d}",
                student,
                code,
                day,
                paid,
                EARLY_BIRD if early else "",
                status,
                score,
            )
        )
    return tuple(sorted(out, key=lambda e: (e.day, e.enroll_id)))


def _attendance(rng: random.Random, enrollments: tuple[Enrollment, ...]) -> tuple[Attendance, ...]:
    out = []
    for e in enrollments:
        sessions = rng.randint(1, 2) if e.status == "退学" else rng.randint(3, 6)
        for k in range(1, sessions + 1):
            day = e.day + dt.timedelta(days=7 * k + rng.randint(0, 2))
            if day >= TODAY:
                break
            status = rng.choices(ATTENDANCE, weights=(80, 12, 8))[0]
            out.append(
                Attendance(day, e.enroll_id, e.student, e.course, rng.choice((2, 3, 4)), status)
            )
    return tuple(sorted(out, key=lambda a: (a.day, a.enroll_id)))
