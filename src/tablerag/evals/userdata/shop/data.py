"""The shop database's records, built from a seed. Amounts are integers in 分 (minor units), as
the database stores them; :mod:`.truth` converts to 元 the way the definitions say."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

SEED = 3011
TODAY = dt.date(2026, 11, 15)
"""The pinned date relative questions (上个月, last month, 今年) are asked on."""

CATEGORIES: tuple[tuple[int, str], ...] = (
    (1, "手机数码"),
    (2, "家用电器"),
    (3, "服饰鞋包"),
    (4, "食品生鲜"),
    (5, "美妆个护"),
)
STORES: tuple[tuple[int, str, str, str], ...] = (
    (1, "官方商城", "自营商城", "全国"),
    (2, "天猫旗舰店", "天猫", "全国"),
    (3, "上海南京路店", "门店", "华东"),
    (4, "北京西单店", "门店", "华北"),
    (5, "广州天河店", "门店", "华南"),
)
"""store_id, store_name, channel, region."""
CITIES = ("上海", "北京", "广州", "杭州", "成都", "武汉")
STATUSES = ("PAID", "REFUND", "CANCELLED")
REASONS = ("质量问题", "尺码不合适", "不想要了", "发错货")
_PRODUCT_NAMES = {
    1: ("智能手机X1", "蓝牙耳机Pro", "平板电脑S", "智能手表W2"),
    2: ("空气净化器", "扫地机器人", "电饭煲", "吸尘器V8"),
    3: ("羊毛大衣", "运动鞋跑者", "双肩背包", "真丝衬衫"),
    4: ("有机大米5kg", "坚果礼盒", "进口牛排", "龙井茶叶"),
    5: ("保湿面霜", "防晒乳", "洗发水套装", "精华液"),
}
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭"
_GIVEN = ("伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "杰", "娟", "涛", "明", "超", "霞")


@dataclass(frozen=True)
class Product:
    product_id: int
    name: str
    category_id: int
    price_fen: int
    cost_fen: int


@dataclass(frozen=True)
class Customer:
    customer_id: int
    name: str
    phone: str
    """Sensitive: the reader role is not granted this column; the DuckDB copy leaves it out."""
    city: str
    register_date: dt.date
    level: int
    """会员等级 1–5; the definitions call level ≥ 4 VIP."""


@dataclass(frozen=True)
class Order:
    order_id: int
    customer_id: int
    store_id: int
    order_time: dt.datetime
    status: str
    pay_amt_fen: int
    """Σ(qty × unit price − discount) of its items."""


@dataclass(frozen=True)
class Item:
    item_id: int
    order_id: int
    product_id: int
    qty: int
    unit_price_fen: int
    discount_fen: int


@dataclass(frozen=True)
class Refund:
    refund_id: int
    order_id: int
    refund_time: dt.datetime
    refund_amt_fen: int
    reason: str


@dataclass(frozen=True)
class Shop:
    """Every row of the database."""

    products: tuple[Product, ...]
    customers: tuple[Customer, ...]
    orders: tuple[Order, ...]
    items: tuple[Item, ...]
    refunds: tuple[Refund, ...]


def build(seed: int = SEED) -> Shop:
    """The database's rows; the same seed gives the same rows.

    Example:
        >>> s = build()
        >>> len(s.products), len(s.customers), len(s.orders)
        (20, 80, 600)
    """
    rng = random.Random(seed)
    products = _products(rng)
    customers = _customers(rng)
    orders: list[Order] = []
    items: list[Item] = []
    refunds: list[Refund] = []
    start = dt.datetime(2025, 1, 1, 8, 0)
    span_min = int((dt.datetime(2026, 11, 14, 22, 0) - start).total_seconds() // 60)
    times = sorted(start + dt.timedelta(minutes=rng.randint(0, span_min)) for _ in range(600))
    for n, when in enumerate(times, start=1):
        order_id = 100_000 + n
        status = rng.choices(STATUSES, weights=(80, 11, 9))[0]
        total = 0
        for p in rng.sample(products, rng.choices((1, 2, 3, 4), weights=(5, 3, 2, 1))[0]):
            qty = rng.choices((1, 2, 3), weights=(6, 3, 1))[0]
            discount = rng.choice((0, 0, 0, 500, 1000, p.price_fen * qty // 10))
            items.append(Item(len(items) + 1, order_id, p.product_id, qty, p.price_fen, discount))
            total += qty * p.price_fen - discount
        orders.append(
            Order(order_id, rng.randint(1, len(customers)), _store(rng), when, status, total)
        )
        if status == "REFUND":
            back = when + dt.timedelta(days=rng.randint(1, 20), hours=rng.randint(0, 10))
            refunds.append(Refund(len(refunds) + 1, order_id, back, total, rng.choice(REASONS)))
    return Shop(products, customers, tuple(orders), tuple(items), tuple(refunds))


def _store(rng: random.Random) -> int:
    return rng.choices([s[0] for s in STORES], weights=(4, 5, 2, 2, 1))[0]


def _products(rng: random.Random) -> tuple[Product, ...]:
    out: list[Product] = []
    for category, names in _PRODUCT_NAMES.items():
        for name in names:
            price = (
                rng.randint(20, 600) * 1000 if category in (1, 2) else rng.randint(30, 900) * 100
            )
            price -= 100  # prices end in 9 元
            cost = price * rng.randint(50, 78) // 100
            out.append(Product(len(out) + 1, name, category, price, cost))
    return tuple(out)


def _customers(rng: random.Random) -> tuple[Customer, ...]:
    out = []
    for i in range(1, 81):
        name = rng.choice(_SURNAMES) + rng.choice(_GIVEN) + rng.choice(("", *_GIVEN))
        phone = f"1{rng.choice((3, 5, 8))}{rng.randint(0, 9)}{rng.randint(10**7, 10**8 - 1)}"
        day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 900))
        level = rng.choices((1, 2, 3, 4, 5), weights=(30, 25, 20, 15, 10))[0]
        out.append(Customer(i, name, phone, rng.choice(CITIES), day, level))
    return tuple(out)
