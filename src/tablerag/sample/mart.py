"""The sample sales analysis mart: 9 tables, 57 columns, 10 implicit foreign keys.

The data is synthetic but shaped like a real retail mart, traps included: ``stat_month`` holds
both ``'2026-09'`` and ``'202609'``, ``fact_sales.cost_amt`` is in 分 (cents) while every other
amount is in 元, one order has several lines (客单价 must divide by distinct orders), status codes
are English (``PAID``/``REFUND``/``UNPAID``), ``华东`` appears only as a parent region, and a few
cells are empty. Everything is derived from one ``random.Random(seed)``; nothing reads the clock.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

Cell = str | int | None

MONTHS: tuple[str, ...] = tuple(f"2026-{m:02d}" for m in range(1, 11))
"""The fixed calendar: January to October 2026 ("上月" is 2026-10 at the reference date)."""

REFERENCE_DATE = dt.date(2026, 11, 15)
"""The date the corpus is "as of": questions about "last month" mean 2026-10."""

# code, Chinese name, English name, cost ratio of list price, base refund probability
CATEGORIES: tuple[tuple[str, str, str, float, float], ...] = (
    ("C01", "手机数码", "Phones & Digital", 0.78, 0.030),
    ("C02", "家用电器", "Home Appliances", 0.70, 0.025),
    ("C03", "服装鞋帽", "Apparel & Shoes", 0.45, 0.060),
    ("C04", "食品饮料", "Food & Beverage", 0.66, 0.010),
    ("C05", "美妆个护", "Beauty & Personal Care", 0.40, 0.030),
    ("C06", "家居日用", "Home & Living", 0.55, 0.030),
)

# code, name, category, brand, list price (元), launch date, refund probability (None = category)
PRODUCTS: tuple[tuple[str, str, str, str | None, int, str | None, float | None], ...] = (
    ("P1001", "星耀X5智能手机", "C01", "星耀", 2999, "2025-09-20", None),
    ("P1002", "声岚Air3蓝牙降噪耳机", "C01", "声岚", 399, "2025-11-11", 0.14),
    ("P1003", "星耀S2智能手表", "C01", "星耀", 899, "2025-08-01", None),
    ("P1004", "65W氮化镓充电器", "C01", "星耀", 129, "2024-03-15", None),
    ("P1005", "星耀Pad 11平板电脑", "C01", "星耀", 1999, "2025-10-08", None),
    ("P2001", "厨匠5L空气炸锅", "C02", "厨匠", 349, "2024-09-01", None),
    ("P2002", "T8扫地机器人", "C02", "净界", 1799, "2025-06-18", None),
    ("P2003", "厨匠破壁料理机", "C02", "厨匠", 599, "2024-05-20", None),
    ("P2004", "1.7L电热水壶", "C02", "厨匠", 129, None, None),
    ("P2005", "立式空调扇", "C02", "净界", 459, "2025-04-01", None),
    ("P3001", "云织真丝连衣裙", "C03", "云织", 459, "2026-03-01", 0.25),
    ("P3002", "男士轻薄羽绒服", "C03", "云织", 699, "2025-10-15", None),
    ("P3003", "Flow 2跑步鞋", "C03", "疾风", 399, "2025-07-01", None),
    ("P3004", "纯棉T恤三件装", "C03", "云织", 129, "2024-04-10", None),
    ("P3005", "直筒牛仔裤", "C03", "疾风", 239, "2024-08-20", None),
    ("P4001", "云南小粒咖啡豆1kg", "C04", "山谷", 128, "2024-01-05", None),
    ("P4002", "每日坚果30袋", "C04", "山谷", 99, "2024-01-05", None),
    ("P4003", "有机纯牛奶12盒", "C04", "牧原", 69, "2024-02-01", None),
    ("P4004", "明前龙井茶250g", "C04", "山谷", 368, "2026-03-20", None),
    ("P4005", "无糖气泡水24瓶", "C04", "牧原", 59, "2025-05-01", None),
    ("P5001", "清研保湿精华液50ml", "C05", "清研", 329, "2025-03-08", None),
    ("P5002", "氨基酸洗面奶", "C05", "清研", 79, "2024-06-01", None),
    ("P5003", "E5声波电动牙刷", "C05", "声岚", 199, "2025-02-14", None),
    ("P5004", "清透防晒霜SPF50", "C05", "清研", 139, "2025-04-20", None),
    ("P5005", "清研香氛身体乳", "C05", "清研", 119, "2026-11-01", None),
    ("P6001", "玻璃保鲜盒10件套", "C06", "木棉家", 89, "2024-07-01", 0.09),
    ("P6002", "记忆棉护颈枕", "C06", "木棉家", 159, "2024-10-01", None),
    ("P6003", "全棉床品四件套", "C06", "木棉家", 299, "2025-01-10", None),
    ("P6004", "不锈钢锅具三件套", "C06", None, 499, "2025-09-01", None),
    ("P6005", "加厚收纳箱3只装", "C06", "木棉家", 69, "2024-03-01", None),
)

UNLAUNCHED = "P5005"
"""Launched after the calendar ends: listed in dim_product, never sold (a LEFT JOIN trap)."""

# code, name, parent code, English name of the parent group, sales weight
REGIONS: tuple[tuple[str, str, str | None, float], ...] = (
    ("EAST", "华东", None, 0.0),
    ("NORTH", "华北", None, 0.0),
    ("SOUTH", "华南", None, 0.0),
    ("WEST", "西南", None, 0.0),
    ("SH", "上海", "EAST", 0.16),
    ("JS", "江苏", "EAST", 0.14),
    ("ZJ", "浙江", "EAST", 0.13),
    ("BJ", "北京", "NORTH", 0.12),
    ("TJ", "天津", "NORTH", 0.05),
    ("HE", "河北", "NORTH", 0.06),
    ("GD", "广东", "SOUTH", 0.15),
    ("FJ", "福建", "SOUTH", 0.06),
    ("SC", "四川", "WEST", 0.08),
    ("CQ", "重庆", "WEST", 0.05),
)

# code, name, type, order weight, price factor, line-count weights (1..n), qty range,
# category weights (C01..C06)
CHANNELS: tuple[
    tuple[str, str, str, float, float, tuple[int, ...], tuple[int, int], tuple[int, ...]], ...
] = (
    ("TMALL", "天猫旗舰店", "线上", 0.28, 0.97, (5, 3, 2), (1, 2), (3, 2, 3, 2, 3, 2)),
    ("JD", "京东自营", "线上", 0.22, 0.95, (8, 2), (1, 1), (6, 4, 1, 1, 1, 1)),
    ("APP", "自营App", "线上", 0.15, 0.93, (4, 3, 2, 1), (1, 2), (2, 1, 2, 3, 3, 2)),
    ("STORE", "线下门店", "线下", 0.22, 1.00, (0, 2, 3, 3, 2), (1, 2), (2, 2, 2, 2, 2, 2)),
    ("DIST", "经销商", "线下", 0.13, 0.80, (0, 0, 2, 3, 2, 1), (2, 6), (0, 0, 1, 6, 2, 4)),
)

# code, Chinese name, per-category weight when a line is refunded (C01..C06)
REFUND_REASONS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("R01", "七天无理由退货", (3, 2, 4, 1, 3, 2)),
    ("R02", "商品破损", (1, 2, 0, 3, 1, 4)),
    ("R03", "质量问题", (3, 3, 1, 1, 1, 2)),
    ("R04", "发错货或漏发", (1, 1, 1, 2, 1, 1)),
    ("R05", "尺码或规格不符", (0, 0, 5, 0, 0, 1)),
    ("R06", "物流超时", (1, 1, 1, 2, 1, 1)),
)

# Reasons forced for the trap products, so the policy question has an obvious cause.
TRAP_REASONS: dict[str, tuple[int, ...]] = {
    "P1002": (1, 0, 6, 0, 0, 0),
    "P3001": (2, 0, 1, 0, 6, 0),
    "P6001": (0, 6, 0, 1, 0, 0),
}

MONTH_WEIGHTS: tuple[float, ...] = (0.9, 0.7, 0.95, 1.0, 1.05, 1.4, 1.0, 1.0, 1.1, 1.25)
SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗"
GIVEN = ("伟", "芳", "娜", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛")
PAY_METHODS = {
    "TMALL": ("ALIPAY",),
    "JD": ("WECHAT", "CARD"),
    "APP": ("ALIPAY", "WECHAT"),
    "STORE": ("WECHAT", "ALIPAY", "CARD", "CASH"),
    "DIST": ("BANK_TRANSFER",),
}
REMARKS = ("加急配送", "需开发票", '客户要求"周末送货", 电话联系', "赠品已随单发出", "门店自提")


@dataclass(frozen=True)
class Table:
    """One generated table: a name, its column names and its rows (money as ``'12.34'`` text)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Mart:
    """The generated tables plus the figures the documents quote (so both agree)."""

    tables: tuple[Table, ...]
    paid_net_fen: dict[tuple[str, str], int] = field(default_factory=dict)
    """Net amount of PAID lines in 分, keyed by (top-level region code, ``'YYYY-MM'``)."""


def yuan(fen: int) -> str:
    """Format an amount in 分 as 元 text with two decimals.

    Example:
        >>> yuan(123456), yuan(-5), yuan(0)
        ('1234.56', '-0.05', '0.00')
    """
    sign = "-" if fen < 0 else ""
    return f"{sign}{abs(fen) // 100}.{abs(fen) % 100:02d}"


def compact_month(month: str) -> str:
    """Turn ``'2026-09'`` into the legacy ``'202609'`` form some upstream systems write.

    Example:
        >>> compact_month("2026-09")
        '202609'
    """
    return month.replace("-", "")


def build_mart(seed: int = 7) -> Mart:
    """Generate the whole mart for ``seed``; the same seed always gives the same rows.

    Args:
        seed: Seed of the private ``random.Random`` every value is drawn from.

    Returns:
        The nine tables in dependency order (dimensions first) and the regional sales figures.
    """
    rng = random.Random(seed)
    employees = _employees(rng)
    sales, refunds, paid_net = _sales(rng, employees)
    tables = (
        _dim_date(),
        Table(
            "dim_category",
            ("category_code", "category_name", "category_name_en"),
            tuple((c[0], c[1], c[2]) for c in CATEGORIES),
        ),
        Table(
            "dim_product",
            ("product_code", "product_name", "category_code", "brand", "list_price", "launch_date"),
            tuple((p[0], p[1], p[2], p[3], yuan(p[4] * 100), p[5]) for p in PRODUCTS),
        ),
        Table(
            "dim_region",
            ("region_code", "region_name", "parent_code", "region_level"),
            tuple((r[0], r[1], r[2], 1 if r[2] is None else 2) for r in REGIONS),
        ),
        Table(
            "dim_channel",
            ("channel_code", "channel_name", "channel_type"),
            tuple((c[0], c[1], c[2]) for c in CHANNELS),
        ),
        Table(
            "dim_employee",
            ("emp_code", "emp_name", "region_code", "hire_date", "mobile"),
            tuple(employees),
        ),
        Table(
            "dim_refund_reason",
            ("reason_code", "reason_name"),
            tuple((r[0], r[1]) for r in REFUND_REASONS),
        ),
        Table("fact_sales", SALES_COLUMNS, tuple(sales)),
        Table(
            "fact_refund",
            ("refund_id", "order_id", "line_no", "refund_date", "refund_amt", "reason_code"),
            tuple(refunds),
        ),
    )
    return Mart(tables, paid_net)


def write_csv(table: Table, directory: Path) -> Path:
    """Write ``table`` as ``<directory>/<name>.csv`` (UTF-8, header row, ``\\n`` line ends).

    Empty cells stand for NULL.

    Returns:
        The path written.
    """
    path = directory / f"{table.name}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(["" if cell is None else cell for cell in row] for row in table.rows)
    return path


SALES_COLUMNS: tuple[str, ...] = (
    "order_id",
    "line_no",
    "stat_month",
    "order_date",
    "product_code",
    "region_code",
    "channel_code",
    "emp_code",
    "customer_id",
    "qty",
    "unit_price",
    "gross_amt",
    "discount_amt",
    "net_amt",
    "cost_amt",
    "status",
    "pay_method",
    "is_promo",
    "coupon_code",
    "currency",
    "ship_date",
    "created_at",
    "updated_at",
    "remark",
)


def _dim_date() -> Table:
    rows = tuple((m, 2026, (int(m[5:]) - 1) // 3 + 1, int(m[5:])) for m in MONTHS)
    return Table("dim_date", ("stat_month", "year", "quarter", "month"), rows)


def _employees(rng: random.Random) -> list[tuple[Cell, ...]]:
    rows: list[tuple[Cell, ...]] = []
    for code, _name, parent, _weight in REGIONS:
        for _ in range(1 if parent is None else 2):
            emp_code = f"E{101 + len(rows)}"
            name = rng.choice(SURNAMES) + "".join(rng.choices(GIVEN, k=rng.choice((1, 2))))
            hired = dt.date(2018, 1, 1) + dt.timedelta(days=rng.randrange(2900))
            mobile = f"1{rng.choice('3589')}{rng.randrange(10**9):09d}"
            rows.append((emp_code, name, code, hired.isoformat(), mobile))
    return rows


@dataclass(frozen=True)
class _Order:
    order_id: str
    day: dt.date
    region: str
    channel: int
    emp_code: str | None
    customer_id: str | None
    unpaid: bool


def _orders(rng: random.Random, employees: Sequence[tuple[Cell, ...]]) -> list[_Order]:
    leaves = [r for r in REGIONS if r[2] is not None]
    staff: dict[str, list[str]] = {}
    for emp in employees:
        staff.setdefault(str(emp[2]), []).append(str(emp[0]))
    days: list[dt.date] = []
    for month, weight in zip(MONTHS, MONTH_WEIGHTS, strict=True):
        first = dt.date.fromisoformat(f"{month}-01")
        length = ((first + dt.timedelta(days=32)).replace(day=1) - first).days
        days += [first + dt.timedelta(days=rng.randrange(length)) for _ in range(int(150 * weight))]
    days.sort()
    orders = []
    for number, day in enumerate(days, start=1):
        region = rng.choices(leaves, weights=[r[3] for r in leaves])[0][0]
        channel = rng.choices(range(len(CHANNELS)), weights=[c[3] for c in CHANNELS])[0]
        walk_in = CHANNELS[channel][0] == "STORE" and rng.random() < 0.25
        orders.append(
            _Order(
                order_id=f"SO26{number:06d}",
                day=day,
                region=region,
                channel=channel,
                emp_code=None if rng.random() < 0.03 else rng.choice(staff[region]),
                customer_id=None if walk_in else f"C{rng.randrange(100001, 100900)}",
                unpaid=rng.random() < 0.04,
            )
        )
    return orders


def _sales(
    rng: random.Random, employees: Sequence[tuple[Cell, ...]]
) -> tuple[list[tuple[Cell, ...]], list[tuple[Cell, ...]], dict[tuple[str, str], int]]:
    parent_of = {r[0]: r[2] for r in REGIONS}
    sellable = [p for p in PRODUCTS if p[0] != UNLAUNCHED]
    category_index = {c[0]: i for i, c in enumerate(CATEGORIES)}
    unit_cost = {
        p[0]: round(p[4] * 100 * CATEGORIES[category_index[p[2]]][3] * rng.uniform(0.95, 1.05))
        for p in sellable
    }
    sales: list[tuple[Cell, ...]] = []
    refunds: list[tuple[Cell, ...]] = []
    paid_net: dict[tuple[str, str], int] = {}
    refund_due = {p[0]: rng.random() for p in sellable}
    by_code = {p[0]: p for p in sellable}
    product_weights = {  # cumulative, for rng.choices: same draws as weights=, less work
        c[0]: list(accumulate(c[7][category_index[p[2]]] for p in sellable)) for c in CHANNELS
    }
    for order in _orders(rng, employees):
        code, _, _, _, price_factor, line_weights, qty_range, cat_weights = CHANNELS[order.channel]
        n_lines = rng.choices(range(1, len(line_weights) + 1), weights=line_weights)[0]
        weights = product_weights[code]
        products: list[str] = []
        while len(products) < n_lines:
            pick = rng.choices(sellable, cum_weights=weights)[0][0]
            if pick not in products:
                products.append(pick)
        month = order.day.isoformat()[:7]
        stat_month = compact_month(month) if code == "DIST" or rng.random() < 0.05 else month
        created = dt.datetime.combine(
            order.day, dt.time(rng.randrange(8, 23), rng.randrange(60), rng.randrange(60))
        )
        promo_rate = 0.45 if month == "2026-06" else 0.22
        pay_method = None if order.unpaid else rng.choice(PAY_METHODS[code])
        for line_no, product_code in enumerate(products, start=1):
            product = by_code[product_code]
            qty = rng.randint(*qty_range) if rng.random() < 0.3 or code == "DIST" else 1
            price = round(product[4] * price_factor) * 100
            gross = price * qty
            promo = rng.random() < promo_rate
            discount = round(gross * rng.choice((0.05, 0.1, 0.15, 0.2))) if promo else 0
            net = gross - discount
            refund_p = (
                product[6] if product[6] is not None else CATEGORIES[category_index[product[2]]][4]
            )
            # Error diffusion instead of a coin flip: each product's refund rate lands within
            # about one order of its target for every seed, so the traps never vanish by chance.
            if not order.unpaid:
                refund_due[product_code] += refund_p * rng.uniform(0.5, 1.5)
            refunded = refund_due[product_code] >= 1.0
            if refunded:
                refund_due[product_code] -= 1.0
            status = "UNPAID" if order.unpaid else "REFUND" if refunded else "PAID"
            updated = created + dt.timedelta(minutes=30) if order.unpaid else created
            if refunded:
                refund_day = order.day + dt.timedelta(days=rng.randint(1, 20))
                refund_day = min(refund_day, REFERENCE_DATE - dt.timedelta(days=1))
                reasons = TRAP_REASONS.get(product_code) or tuple(
                    r[2][category_index[product[2]]] for r in REFUND_REASONS
                )
                reason = rng.choices(REFUND_REASONS, weights=reasons)[0][0]
                amount = net // 2 if reason == "R02" and rng.random() < 0.4 else net
                refunds.append(
                    (
                        f"RF{len(refunds) + 1:06d}",
                        order.order_id,
                        line_no,
                        refund_day.isoformat(),
                        yuan(amount),
                        reason,
                    )
                )
                updated = dt.datetime.combine(refund_day, dt.time(rng.randrange(9, 18), 0, 0))
            elif status == "PAID":
                key = (str(parent_of[order.region]), month)
                paid_net[key] = paid_net.get(key, 0) + net
            ship_offset = 0 if code == "STORE" else rng.randint(0, 3)
            sales.append(
                (
                    order.order_id,
                    line_no,
                    stat_month,
                    order.day.isoformat(),
                    product_code,
                    order.region,
                    code,
                    order.emp_code,
                    order.customer_id,
                    qty,
                    yuan(price),
                    yuan(gross),
                    yuan(discount),
                    yuan(net),
                    unit_cost[product_code] * qty,
                    status,
                    pay_method,
                    int(promo),
                    f"CP{rng.randrange(1000, 9999)}"
                    if promo and code in ("TMALL", "APP") and rng.random() < 0.5
                    else None,
                    "CNY",
                    None
                    if order.unpaid
                    else (order.day + dt.timedelta(days=ship_offset)).isoformat(),
                    created.isoformat(sep=" "),
                    updated.isoformat(sep=" "),
                    rng.choice(REMARKS) if rng.random() < 0.03 else None,
                )
            )
    return sales, refunds, paid_net
