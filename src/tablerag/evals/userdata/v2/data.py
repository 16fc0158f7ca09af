"""The records behind the second user-data set, built from a seed.

A community clinic (doctors, appointments, invoices) and a freight company (customers,
shipments). The file writers (:mod:`.files`) spoil these records the way people's files are
spoiled; the expected answers (:mod:`.truth`) are computed from these records, so they do not
depend on how any reader parses the files.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

SEED = 4729
TODAY = dt.date(2026, 4, 20)
"""The pinned date relative questions (上个月, last month, 本月) are asked on."""

DOCTORS: tuple[tuple[str, str, str, str, int], ...] = (
    ("D01", "陈立", "全科", "主治医师", 30),
    ("D02", "林小雨", "全科", "医师", 20),
    ("D03", "周海", "口腔科", "副主任医师", 50),
    ("D04", "郑敏", "口腔科", "主治医师", 30),
    ("D05", "吴凡", "儿科", "主治医师", 30),
    ("D06", "孙悦", "中医科", "主任医师", 80),
)
"""医生编号, 姓名, 科室, 职称, 挂号费 (元): the workbook's 医生 sheet."""

APPOINTMENT_STATUSES = ("已就诊", "爽约", "已取消")
ITEMS = ("检查费", "治疗费", "药品费")

CUSTOMERS: tuple[tuple[str, str, str, dt.date, str], ...] = (
    ("华东电子", "Electronics", "上海", dt.date(2023, 5, 12), "Gold"),
    ("鹏城科技", "Electronics", "深圳", dt.date(2024, 2, 1), "Silver"),
    ("蜀香食品", "Food", "成都", dt.date(2022, 11, 20), "Gold"),
    ("长安汽配", "Auto parts", "西安", dt.date(2025, 3, 8), "Standard"),
    ("西湖服饰", "Apparel", "杭州", dt.date(2024, 9, 30), "Silver"),
    ("楚天医药", "Pharma", "武汉", dt.date(2023, 7, 15), "Gold"),
    ("南粤家电", "Electronics", "广州", dt.date(2025, 10, 1), "Standard"),
)
"""customer, industry, city, since, tier: ``customers.csv``."""

ORIGINS = ("上海", "广州", "武汉")
DESTINATIONS = ("北京", "成都", "西安", "杭州", "深圳")
SERVICES = ("标准", "加急")


@dataclass(frozen=True)
class Appointment:
    """One row of the 预约记录 sheet."""

    appt_id: str
    patient: str
    doctor: str
    """The doctor's name (the sheet has no department: that is on the 医生 sheet)."""
    day: dt.date
    status: str


@dataclass(frozen=True)
class Invoice:
    """One row of the 收费明细 sheet: amounts in 元 with cents."""

    invoice_id: str
    appt_id: str
    item: str
    amount: float
    insured: float
    """医保支付: the part the medical insurance paid (0 for 口腔科)."""


@dataclass(frozen=True)
class Shipment:
    """One line of the GBK waybill CSV."""

    waybill: str
    shipped: dt.date
    customer: str
    service: str
    origin: str
    destination: str
    weight_kg: float
    freight: float
    declared: int
    """货值 in 元; written as ``2.35万`` from 10,000 up."""
    status: str
    signed: dt.date | None


@dataclass(frozen=True)
class Records:
    """Every record of the set's files."""

    appointments: tuple[Appointment, ...]
    invoices: tuple[Invoice, ...]
    shipments: tuple[Shipment, ...]


def build(seed: int = SEED) -> Records:
    """The records; the same seed gives the same records.

    Example:
        >>> r = build()
        >>> len(r.appointments), len(r.shipments)
        (120, 150)
    """
    rng = random.Random(seed)
    appointments = _appointments(rng)
    return Records(appointments, _invoices(rng, appointments), _shipments(rng))


def department(doctor: str) -> str:
    """The department of the doctor called ``doctor``."""
    return next(d[2] for d in DOCTORS if d[1] == doctor)


def _appointments(rng: random.Random) -> tuple[Appointment, ...]:
    out = []
    start = dt.date(2026, 1, 5)
    for i in range(120):
        day = start + dt.timedelta(days=rng.randint(0, (TODAY - start).days - 1))
        doctor = rng.choices([d[1] for d in DOCTORS], weights=(5, 3, 4, 3, 4, 2))[0]
        status = rng.choices(APPOINTMENT_STATUSES, weights=(70, 15, 15))[0]
        patient = f"P{rng.randint(1, 45):03d}"
        out.append(Appointment(f"A26-{i + 1:04d}", patient, doctor, day, status))
    return tuple(sorted(out, key=lambda a: (a.day, a.appt_id)))


def _invoices(rng: random.Random, appointments: tuple[Appointment, ...]) -> tuple[Invoice, ...]:
    fee = {d[1]: d[4] for d in DOCTORS}
    out: list[Invoice] = []
    for a in appointments:
        if a.status != "已就诊":
            continue
        dental = department(a.doctor) == "口腔科"
        lines = [("挂号费", float(fee[a.doctor]))]
        for item in rng.sample(ITEMS, rng.randint(0, 2)):
            top = 380_000 if dental and item == "治疗费" else 90_000
            lines.append((item, rng.randint(3_000, top) / 100))
        for item, amount in lines:
            insured = 0.0 if dental or item == "挂号费" else round(amount * 0.6, 2)
            out.append(Invoice(f"INV{len(out) + 1:05d}", a.appt_id, item, amount, insured))
    return tuple(out)


def _shipments(rng: random.Random) -> tuple[Shipment, ...]:
    out = []
    start = dt.date(2026, 1, 3)
    names = [c[0] for c in CUSTOMERS]
    for i in range(150):
        shipped = start + dt.timedelta(days=rng.randint(0, (TODAY - start).days - 2))
        service = rng.choices(SERVICES, weights=(3, 1))[0]
        weight = round(rng.uniform(5, 3200), 1)
        rate = 1.6 if service == "标准" else 3.1
        freight = round(30 + weight * rate * rng.uniform(0.9, 1.1), 2)
        declared = rng.choice((rng.randint(800, 9_900), rng.randint(10_000, 120_000)))
        days = rng.randint(2, 7) if service == "标准" else rng.randint(1, 3)
        if rng.random() < 0.06:
            status, signed = "退回", None
        elif shipped + dt.timedelta(days=days) >= TODAY:
            status, signed = "运输中", None
        else:
            status, signed = "已签收", shipped + dt.timedelta(days=days)
        out.append(
            Shipment(
                f"SD{260001 + i}",
                shipped,
                rng.choices(names, weights=(6, 4, 5, 2, 3, 4, 2))[0],
                service,
                rng.choice(ORIGINS),
                rng.choice(DESTINATIONS),
                weight,
                freight,
                declared,
                status,
                signed,
            )
        )
    return tuple(out)
