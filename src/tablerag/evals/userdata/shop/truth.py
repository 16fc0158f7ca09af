"""The shop set's expected answers, computed in plain Python from the generator's records
(:func:`tablerag.evals.userdata.shop.data.build`) as the definition documents say (:mod:`.docs`):
amounts ÷ 100 to 元; 销售额, 毛利 and 客单价 over PAID orders only; GMV over PAID and REFUND
orders; 退货率 = REFUND ÷ (PAID + REFUND); periods by order time, refunds by refund time; VIP =
member level 4 and up. No SQL, no tablerag.

``TRUTH[qid](shop)`` gives the answer's parts in the order the question stores them: figures
first, then facts; a rate is a percentage.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from tablerag.evals.userdata.shop.data import CATEGORIES, STORES, TODAY, Item, Order, Shop

Span = tuple[dt.date, dt.date]
LAST_MONTH: Span = (dt.date(2026, 10, 1), dt.date(2026, 11, 1))
"""上个月 / last month on :data:`TODAY` (2026-11-15)."""
LAST_QUARTER: Span = (dt.date(2026, 7, 1), dt.date(2026, 10, 1))
YEAR_TO_DATE: Span = (dt.date(2026, 1, 1), TODAY + dt.timedelta(days=1))


def year(y: int) -> Span:
    return dt.date(y, 1, 1), dt.date(y + 1, 1, 1)


def month(y: int, m: int) -> Span:
    return dt.date(y, m, 1), dt.date(y + m // 12, m % 12 + 1, 1)


def _in(when: dt.datetime, span: Span | None) -> bool:
    return span is None or span[0] <= when.date() < span[1]


def _yuan(fen: int) -> float:
    return fen / 100


class _Index:
    """Lookups over one :class:`Shop`."""

    def __init__(self, shop: Shop) -> None:
        self.shop = shop
        self.orders = {o.order_id: o for o in shop.orders}
        self.products = {p.product_id: p for p in shop.products}
        self.customers = {c.customer_id: c for c in shop.customers}
        self.channel = {s[0]: s[2] for s in STORES}
        self.store_name = {s[0]: s[1] for s in STORES}
        self.category = dict(CATEGORIES)

    def orders_of(
        self, statuses: Iterable[str], span: Span | None, keep: Callable[[Order], bool] = bool
    ) -> list[Order]:
        wanted = set(statuses)
        return [
            o
            for o in self.shop.orders
            if o.status in wanted and _in(o.order_time, span) and keep(o)
        ]

    def items_of(self, orders: Iterable[Order]) -> list[Item]:
        ids = {o.order_id for o in orders}
        return [i for i in self.shop.items if i.order_id in ids]

    def category_of(self, item: Item) -> str:
        return self.category[self.products[item.product_id].category_id]


def gmv(x: _Index, span: Span | None, keep: Callable[[Order], bool] = bool) -> float:
    """GMV in 元: Σ qty × unit price over PAID and REFUND orders."""
    items = x.items_of(x.orders_of(("PAID", "REFUND"), span, keep))
    return _yuan(sum(i.qty * i.unit_price_fen for i in items))


def net_sales(
    x: _Index,
    span: Span | None,
    keep: Callable[[Order], bool] = bool,
    item_keep: Callable[[Item], bool] = lambda i: True,
) -> float:
    """销售额 in 元: Σ (qty × unit price − discount) over PAID orders."""
    items = x.items_of(x.orders_of(("PAID",), span, keep))
    return _yuan(sum(i.qty * i.unit_price_fen - i.discount_fen for i in items if item_keep(i)))


def gross_profit(
    x: _Index, span: Span | None, item_keep: Callable[[Item], bool] = lambda i: True
) -> float:
    """毛利 in 元: 销售额 − Σ qty × cost price, PAID orders only."""
    items = [i for i in x.items_of(x.orders_of(("PAID",), span)) if item_keep(i)]
    cost = sum(i.qty * x.products[i.product_id].cost_fen for i in items)
    return _yuan(sum(i.qty * i.unit_price_fen - i.discount_fen for i in items) - cost)


def aov(x: _Index, span: Span | None, keep: Callable[[Order], bool] = bool) -> float:
    """客单价 in 元: 销售额 ÷ PAID orders."""
    return net_sales(x, span, keep) / len(x.orders_of(("PAID",), span, keep))


def return_rate(x: _Index, span: Span | None, keep: Callable[[Order], bool] = bool) -> float:
    """退货率 in %: REFUND orders ÷ (PAID + REFUND) orders."""
    refunds = len(x.orders_of(("REFUND",), span, keep))
    return 100 * refunds / len(x.orders_of(("PAID", "REFUND"), span, keep))


def margin(x: _Index, span: Span | None) -> float:
    """毛利率 in %: 毛利 ÷ 销售额."""
    return 100 * gross_profit(x, span) / net_sales(x, span)


def _top(scores: dict[Any, float], k: int = 1) -> list[Any]:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    if len(ranked) > k and abs(ranked[k - 1][1] - ranked[k][1]) < 1e-9:
        raise ValueError(f"tie at rank {k}: {ranked[: k + 1]}")
    return [key for key, _ in ranked[:k]]


def _by(x: _Index, span: Span | None, key: Callable[[Item], Any]) -> dict[Any, float]:
    out: dict[Any, float] = defaultdict(float)
    for i in x.items_of(x.orders_of(("PAID",), span)):
        out[key(i)] += _yuan(i.qty * i.unit_price_fen - i.discount_fen)
    return out


def _channel(x: _Index, name: str) -> Callable[[Order], bool]:
    return lambda o: x.channel[o.store_id] == name


def _of_category(x: _Index, name: str) -> Callable[[Item], bool]:
    return lambda i: x.category_of(i) == name


def _at_store(x: _Index, name: str) -> Callable[[Order], bool]:
    return lambda o: x.store_name[o.store_id] == name


def _per_category_profit(x: _Index, span: Span) -> tuple[float, ...]:
    return tuple(
        gross_profit(x, span, _of_category(x, c))
        for _, c in CATEGORIES
        if any(x.category_of(i) == c for i in x.items_of(x.orders_of(("PAID",), span)))
    )


def _busiest_month(x: _Index, y: int) -> str:
    counts = Counter(o.order_time.month for o in x.orders_of(("PAID",), year(y)))
    return f"{_top(dict(counts))[0]}月"


CHANNELS = ("自营商城", "天猫", "门店")
SHOPS = tuple(s[1] for s in STORES if s[2] == "门店")


def _t(f: Callable[[_Index], tuple[Any, ...]]) -> Callable[[Shop], tuple[Any, ...]]:
    return lambda shop: f(_Index(shop))


TRUTH: dict[str, Callable[[Shop], tuple[Any, ...]]] = {
    "s-01": _t(lambda x: (gmv(x, year(2025)),)),
    "s-02": _t(lambda x: (gmv(x, (dt.date(2026, 1, 1), dt.date(2026, 7, 1))),)),
    "s-03": _t(lambda x: _per_category_profit(x, month(2026, 10))),
    "s-04": _t(lambda x: (gross_profit(x, month(2026, 10)),)),
    "s-05": _t(lambda x: tuple(aov(x, year(2026), _channel(x, c)) for c in CHANNELS)),
    "s-06": _t(lambda x: (aov(x, year(2025)),)),
    "s-07": _t(lambda x: (return_rate(x, year(2025)),)),
    "s-08": _t(lambda x: (return_rate(x, year(2026), _channel(x, "天猫")),)),
    "s-09": _t(lambda x: (net_sales(x, LAST_MONTH),)),
    "s-10": _t(lambda x: (margin(x, LAST_MONTH),)),
    "s-11": _t(
        lambda x: (
            sum(
                i.qty
                for i in x.items_of(x.orders_of(("PAID",), LAST_QUARTER))
                if x.category_of(i) == "手机数码"
            ),
        )
    ),
    "s-12": _t(lambda x: tuple(_top(_by(x, year(2025), x.category_of)))),
    "s-13": _t(
        lambda x: tuple(
            x.products[p].name for p in _top(_by(x, year(2026), lambda i: i.product_id), 3)
        )
    ),
    "s-14": _t(
        lambda x: (
            len(
                x.orders_of(
                    ("PAID",), month(2026, 9), lambda o: x.store_name[o.store_id] == "上海南京路店"
                )
            ),
        )
    ),
    "s-15": _t(
        lambda x: (net_sales(x, year(2026), lambda o: x.customers[o.customer_id].level >= 4),)
    ),
    "s-16": _t(lambda x: (len({o.customer_id for o in x.orders_of(("PAID",), year(2026))}),)),
    "s-17": _t(
        lambda x: tuple(
            _top(_by(x, year(2026), lambda i: x.customers[x.orders[i.order_id].customer_id].city))
        )
    ),
    "s-18": _t(
        lambda x: (
            _yuan(sum(r.refund_amt_fen for r in x.shop.refunds if _in(r.refund_time, year(2026)))),
        )
    ),
    "s-19": _t(lambda x: (len(x.orders_of(("CANCELLED",), YEAR_TO_DATE)),)),
    "s-20": _t(lambda x: (gross_profit(x, None, lambda i: x.category_of(i) == "家用电器"),)),
    "s-21": _t(lambda x: (gmv(x, year(2025), _channel(x, "门店")),)),
    "s-22": _t(
        lambda x: (
            sum(i.qty for i in x.items_of(x.orders_of(("PAID",), year(2026))))
            / len(x.orders_of(("PAID",), year(2026))),
        )
    ),
    "s-23": _t(lambda x: (_busiest_month(x, 2025),)),
    "s-24": _t(lambda x: (sum(p.category_id == 5 for p in x.shop.products),)),
    "s-25": _t(lambda x: (margin(x, LAST_QUARTER),)),
    "s-26": _t(lambda x: (gmv(x, YEAR_TO_DATE),)),
    "s-27": _t(lambda x: tuple(net_sales(x, year(2026), _at_store(x, s)) for s in SHOPS)),
    "s-28": _t(
        lambda x: tuple(_top({s: net_sales(x, year(2025), _at_store(x, s)) for s in SHOPS}))
    ),
    "s-29": _t(lambda x: ("PAID", "REFUND")),
    "s-30": _t(lambda x: (4,)),
    "s-31": _t(lambda x: ("refund_time",)),
}
"""qid → the answer's parts, from the records (document answers read off :mod:`.docs`)."""
