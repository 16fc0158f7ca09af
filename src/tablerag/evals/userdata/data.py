"""The facts behind the user-data evaluation's files: plain rows, built from a seed.

The writers (:mod:`tablerag.evals.userdata.files`) turn these rows into messy files; the
questions' expected values were worked out by hand from these rows and are recomputed from them
by the tests, independently of the product's SQL over the ingested files.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

SEED = 23

EMPLOYEES: tuple[tuple[str, str, str, int, int], ...] = (
    ("E01", "张伟", "研发部", 9000, 1000),
    ("E02", "王芳", "研发部", 8500, 800),
    ("E03", "李强", "研发部", 12000, 1500),
    ("E04", "刘洋", "研发部", 7500, 700),
    ("E05", "陈静", "销售部", 6000, 2000),
    ("E06", "杨磊", "销售部", 6500, 2200),
    ("E07", "赵敏", "销售部", 5500, 1800),
    ("E08", "黄丽", "财务部", 7000, 600),
    ("E09", "周杰", "财务部", 8000, 900),
)
"""工号, 姓名, 部门, 月薪 (元), 绩效奖金 (元): the workbook's salary sheet, before its 合计 row."""

DEPARTMENTS: tuple[tuple[str, str, str], ...] = (
    ("研发部", "李强", "上海"),
    ("销售部", "陈静", "北京"),
    ("财务部", "黄丽", "上海"),
)
"""部门, 负责人, 办公地点: the workbook's second sheet."""

CHANNELS = ("天猫旗舰店", "京东自营", "经销商")
STATUSES = ("已支付", "已退款", "已取消")
PRODUCTS = ("Air Purifier", "Water Heater", "Dishwasher", "Range Hood")
REGIONS = ("North", "South", "East", "West")
CUSTOMERS = ("Acme Ltd", "Borealis GmbH", "Cobalt Inc", "Delta Traders")

TRAVEL_TIERS: tuple[tuple[str, int, int], ...] = (
    ("一线城市", 600, 100),
    ("二线城市", 450, 80),
    ("其他城市", 350, 60),
)
"""城市等级, 住宿标准 (元/晚), 伙食补助 (元/天): the Word policy's table."""


@dataclass(frozen=True)
class Order:
    """One line of the GBK orders CSV."""

    order_id: str
    day: dt.date
    channel: str
    status: str
    amount: float


@dataclass(frozen=True)
class Claim:
    """One row of the PDF report's warranty table."""

    claim_id: str
    product: str
    region: str
    filed: dt.date
    amount: float


@dataclass(frozen=True)
class Payment:
    """One row of the payments CSV (dates written MM/DD/YYYY, amounts with separators)."""

    payment_id: str
    day: dt.date
    customer: str
    amount: float


@dataclass(frozen=True)
class UserData:
    """Every row of the evaluation's files."""

    orders: tuple[Order, ...]
    claims: tuple[Claim, ...]
    payments: tuple[Payment, ...]


def build(seed: int = SEED) -> UserData:
    """The rows of every file; the same seed gives the same rows.

    Example:
        >>> d = build()
        >>> len(d.orders), len(d.claims), len(d.payments)
        (60, 80, 30)
    """
    rng = random.Random(seed)
    return UserData(_orders(rng), _claims(rng), _payments(rng))


def _orders(rng: random.Random) -> tuple[Order, ...]:
    out = []
    for i in range(60):
        channel = CHANNELS[i % 3]
        status = rng.choices(STATUSES, weights=(7, 2, 1))[0]
        if channel == "经销商":
            # few large paid orders, many small cancelled ones: the mean over every order line
            # puts 经销商 last, the paid-order 客单价 the metric document defines puts it first
            status = "已支付" if i % 2 else "已取消"
            amount = rng.randint(900, 1400) if status == "已支付" else rng.randint(20, 60)
        elif channel == "京东自营":
            amount = rng.randint(300, 700) if status == "已支付" else rng.randint(1500, 2500)
        else:
            amount = rng.randint(400, 900)
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randint(0, 89))
        out.append(Order(f"SO{1001 + i}", day, channel, status, float(amount)))
    return tuple(out)


def _claims(rng: random.Random) -> tuple[Claim, ...]:
    out = []
    for i in range(80):
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randint(0, 89))
        cents = rng.randint(80_000, 900_000)
        out.append(
            Claim(f"WC-{i + 1:03d}", rng.choice(PRODUCTS), rng.choice(REGIONS), day, cents / 100)
        )
    return tuple(out)


def _payments(rng: random.Random) -> tuple[Payment, ...]:
    out = []
    for i in range(30):
        if i == 7:  # the day a DD/MM reading would swap with 05/03/2026
            day = dt.date(2026, 3, 5)
        elif i == 19:
            day = dt.date(2026, 5, 3)
        else:
            day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randint(0, 150))
        cents = rng.randint(120_000, 2_500_000)
        out.append(Payment(f"P{501 + i}", day, CUSTOMERS[i % 4], cents / 100))
    return tuple(out)
