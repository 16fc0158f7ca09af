"""The expected answers of the second set, computed in plain Python from the generator's
records (:func:`tablerag.evals.userdata.v2.data.build`): no SQL, no tablerag reader.

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

from tablerag.evals.userdata.v2.data import CUSTOMERS, DOCTORS, TODAY, Records, department
from tablerag.evals.userdata.v2.files import PROMISED_DAYS

LAST_MONTH = (dt.date(2026, 3, 1), dt.date(2026, 4, 1))
"""上个月 / last month on :data:`TODAY` (2026-04-20): March 2026."""
THIS_MONTH = (dt.date(2026, 4, 1), dt.date(2026, 5, 1))


def _in(day: dt.date, span: tuple[dt.date, dt.date]) -> bool:
    return span[0] <= day < span[1]


def _month(year: int, month: int) -> tuple[dt.date, dt.date]:
    end = dt.date(year + month // 12, month % 12 + 1, 1)
    return dt.date(year, month, 1), end


def _unique_top(counts: Mapping[str, float], k: int = 1) -> list[str]:
    """The ``k`` largest keys; raises when the k-th and the next tie (the question would have
    two right answers)."""
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if len(ranked) > k and abs(ranked[k - 1][1] - ranked[k][1]) < 1e-9:
        raise ValueError(f"tie at rank {k}: {ranked[: k + 1]}")
    return [name for name, _ in ranked[:k]]


def _by_appt(r: Records) -> dict[str, Any]:
    return {a.appt_id: a for a in r.appointments}


def _visits(r: Records, span: tuple[dt.date, dt.date] | None = None) -> list[Any]:
    return [
        a for a in r.appointments if a.status == "已就诊" and (span is None or _in(a.day, span))
    ]


def no_show_rate(r: Records, span: tuple[dt.date, dt.date] | None = None) -> float:
    """爽约率 as the clinic's rules define it (第二条): no-shows ÷ (visits + no-shows), in %."""
    picked = [a for a in r.appointments if span is None or _in(a.day, span)]
    shows = sum(a.status == "爽约" for a in picked)
    valid = sum(a.status in ("已就诊", "爽约") for a in picked)
    return 100 * shows / valid


def _invoices_of(r: Records, keep: Callable[[Any], bool]) -> list[Any]:
    appts = _by_appt(r)
    return [inv for inv in r.invoices if keep(appts[inv.appt_id])]


def _sum(values: Iterable[float]) -> float:
    return round(sum(values), 2)


def on_time_rate(r: Records, service: str) -> float:
    """The on-time rate the service terms define (clause 1), in %, for one service."""
    signed = [s for s in r.shipments if s.service == service and s.signed is not None]
    on_time = [s for s in signed if (s.signed - s.shipped).days <= PROMISED_DAYS[service]]  # type: ignore[operator]
    return 100 * len(on_time) / len(signed)


def _late(r: Records, service: str) -> int:
    return sum(
        s.service == service
        and s.signed is not None
        and (s.signed - s.shipped).days > PROMISED_DAYS[service]
        for s in r.shipments
    )


def _industry(name: str) -> str:
    return next(c[1] for c in CUSTOMERS if c[0] == name)


def _tier(name: str) -> str:
    return next(c[4] for c in CUSTOMERS if c[0] == name)


def _freight_by_customer(r: Records) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for s in r.shipments:
        out[s.customer] += s.freight
    return out


def _invoiced_by_doctor(r: Records) -> dict[str, float]:
    appts = _by_appt(r)
    out: dict[str, float] = defaultdict(float)
    for inv in r.invoices:
        out[appts[inv.appt_id].doctor] += inv.amount
    return out


TRUTH: dict[str, Callable[[Records], tuple[Any, ...]]] = {
    # the clinic's workbook
    "c-01": lambda r: (len(r.appointments),),
    "c-02": lambda r: (sum(a.status == "已取消" for a in r.appointments),),
    "c-03": lambda r: (sum(department(a.doctor) == "口腔科" for a in _visits(r)),),
    "c-04": lambda r: (no_show_rate(r),),
    "c-05": lambda r: (no_show_rate(r, LAST_MONTH),),
    "c-06": lambda r: (
        _sum(i.amount for i in _invoices_of(r, lambda a: _in(a.day, _month(2026, 3)))),
    ),
    "c-07": lambda r: (_sum(i.insured for i in _invoices_of(r, lambda a: _in(a.day, LAST_MONTH))),),
    "c-08": lambda r: (sum(i.amount for i in r.invoices) / len(_visits(r)),),
    "c-09": lambda r: tuple(_unique_top(Counter(a.doctor for a in _visits(r)))),
    "c-10": lambda r: tuple(_unique_top(_invoiced_by_doctor(r), 3)),
    "c-11": lambda r: (
        _sum(
            i.amount - i.insured
            for i in _invoices_of(r, lambda a: department(a.doctor) == "口腔科")
        ),
    ),
    "c-12": lambda r: (sum(i.amount > 2000 for i in r.invoices),),
    "c-13": lambda r: (sum(_in(a.day, _month(2026, 2)) for a in r.appointments),),
    "c-14": lambda r: (len({a.patient for a in _visits(r)}),),
    "c-15": lambda r: (sum(d[3] in ("副主任医师", "主任医师") for d in DOCTORS),),
    "c-16": lambda r: (24,),
    "c-17": lambda r: (30,),
    "c-18": lambda r: ("不纳入",),
    "c-19": lambda r: (80,),
    "c-20": lambda r: (40,),
    "c-21": lambda r: (sum(i.amount > 2000 for i in r.invoices), "科室主任"),
    "c-22": lambda r: (
        sum(department(a.doctor) == "口腔科" for a in _visits(r)),
        "不纳入",
    ),
    "c-23": lambda r: (len(_visits(r, THIS_MONTH)),),
    # the freight company's waybills, customer list and terms
    "l-01": lambda r: (len(r.shipments),),
    "l-02": lambda r: (_sum(s.freight for s in r.shipments),),
    "l-03": lambda r: (sum(s.declared > 50_000 for s in r.shipments),),
    "l-04": lambda r: (sum(s.declared for s in r.shipments if s.destination == "成都"),),
    "l-05": lambda r: (
        sum(s.freight for s in r.shipments if s.service == "加急")
        / sum(s.service == "加急" for s in r.shipments),
    ),
    "l-06": lambda r: (on_time_rate(r, "加急"),),
    "l-07": lambda r: (on_time_rate(r, "标准"),),
    "l-08": lambda r: tuple(_unique_top(Counter(s.customer for s in r.shipments))),
    "l-09": lambda r: tuple(_unique_top(_freight_by_customer(r), 3)),
    "l-10": lambda r: (sum(_in(s.shipped, LAST_MONTH) for s in r.shipments),),
    "l-11": lambda r: (
        sum(_in(s.shipped, THIS_MONTH) and s.status == "运输中" for s in r.shipments),
    ),
    "l-12": lambda r: (
        _sum(s.freight for s in r.shipments if _industry(s.customer) == "Electronics"),
    ),
    "l-13": lambda r: (
        round(sum(s.weight_kg for s in r.shipments if _tier(s.customer) == "Gold"), 1),
    ),
    "l-14": lambda r: (
        sum(s.origin == "广州" and _in(s.shipped, _month(2026, 2)) for s in r.shipments),
    ),
    "l-15": lambda r: tuple(_unique_top(Counter(s.destination for s in r.shipments))),
    "l-16": lambda r: (max(s.weight_kg for s in r.shipments),),
    "l-17": lambda r: (2,),
    "l-18": lambda r: (50,),
    "l-19": lambda r: (7,),
    "l-20": lambda r: (50_000,),
    "l-21": lambda r: ("Operations Department",),
    "l-22": lambda r: (_late(r, "加急"), 10),
    "l-23": lambda r: (sum(s.declared > 50_000 for s in r.shipments), "insur"),
    "l-24": lambda r: (_sum(s.freight for s in r.shipments if s.status == "退回"),),
}
"""qid → the answer's parts, from the records (document answers are read off the text)."""

__all__ = ["LAST_MONTH", "THIS_MONTH", "TODAY", "TRUTH", "no_show_rate", "on_time_rate"]
