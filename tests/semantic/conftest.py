"""A small retailer schema (amounts in 分) built alike on DuckDB, SQLite, PostgreSQL, MariaDB."""

from __future__ import annotations

import datetime as dt

import pytest

from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import loads

DDL = [
    "CREATE TABLE category (id INTEGER PRIMARY KEY, name VARCHAR(20))",
    "CREATE TABLE product (id INTEGER PRIMARY KEY, category_id INTEGER, name VARCHAR(20))",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, status VARCHAR(10), paid_on DATE, "
    "pay_amt INTEGER)",
    "CREATE TABLE item (order_id INTEGER, line INTEGER, product_id INTEGER, qty INTEGER, "
    "price_fen INTEGER, cost_fen INTEGER)",
]
ROWS = {
    "category": [(1, "饮料"), (2, "零食")],
    "product": [(10, 1, "可乐"), (11, 1, "果汁"), (20, 2, "薯片")],
    "orders": [
        (1, "PAID", "2026-10-03", 1000),
        (2, "PAID", "2026-10-20", 701),
        (3, "UNPAID", "2026-10-21", 500),
        (4, "PAID", "2026-09-30", 300),
        (5, "REFUND", "2026-10-05", 250),
    ],
    "item": [
        (1, 1, 10, 2, 300, 200),
        (1, 2, 20, 1, 400, 250),
        (2, 1, 11, 1, 701, 500),
        (3, 1, 10, 5, 100, 60),
        (4, 1, 20, 3, 100, 70),
        (5, 1, 10, 1, 250, 150),
    ],
}
TODAY = dt.date(2026, 11, 15)

MODEL = """
version: 0.2.0.dev0
semantic_model:
- name: shop
  datasets:
  - name: orders
    source: shop.public.orders
    primary_key: [id]
    fields:
    - {name: status, expression: {dialects: [{dialect: ANSI_SQL, expression: status}]}}
    - name: paid_on
      expression: {dialects: [{dialect: ANSI_SQL, expression: paid_on}]}
      datatype: Date
    - name: is_paid
      expression: {dialects: [{dialect: ANSI_SQL, expression: "status = 'PAID'"}]}
      datatype: Boolean
      ai_context: {synonyms: [已支付, paid]}
    - name: pay_amt
      expression: {dialects: [{dialect: ANSI_SQL, expression: pay_amt / 100.0}]}
      custom_extensions: [{vendor_name: TABLERAG, data: '{"unit":"元","source_unit":"分"}'}]
  - name: item
    source: item
    primary_key: [order_id, line]
    fields:
    - {name: qty, expression: {dialects: [{dialect: ANSI_SQL, expression: qty}]}}
    - name: sales
      expression: {dialects: [{dialect: ANSI_SQL, expression: qty * price_fen / 100.0}]}
      custom_extensions: [{vendor_name: TABLERAG, data: '{"unit":"元"}'}]
    - name: cost
      expression: {dialects: [{dialect: ANSI_SQL, expression: qty * cost_fen / 100.0}]}
      custom_extensions: [{vendor_name: TABLERAG, data: '{"unit":"元"}'}]
  - name: product
    source: product
    fields:
    - {name: name, expression: {dialects: [{dialect: ANSI_SQL, expression: name}]}}
  - name: category
    source: category
    fields:
    - name: category_name
      expression: {dialects: [{dialect: ANSI_SQL, expression: name}]}
      ai_context: {synonyms: [品类, category]}
  relationships:
  - {name: item_order, from: item, to: orders, from_columns: [order_id], to_columns: [id]}
  - {name: item_product, from: item, to: product, from_columns: [product_id], to_columns: [id]}
  - {name: product_category, from: product, to: category, from_columns: [category_id],
     to_columns: [id]}
  metrics:
  - name: gross_profit
    expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(item.sales) - SUM(item.cost)}]}
    ai_context: {synonyms: [毛利, gross profit]}
    custom_extensions:
    - vendor_name: TABLERAG
      data: '{"caliber":"销售额−成本，仅已支付订单","filters":["orders.is_paid"],"unit":"元",
        "calibers":[{"name":"含未支付","expression":"SUM(item.sales) - SUM(item.cost)"}],
        "time_field":"orders.paid_on"}'
  - name: order_count
    expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(DISTINCT orders.id)}]}
    ai_context: {synonyms: [订单数, orders]}
    custom_extensions: [{vendor_name: TABLERAG, data: '{"filters":["orders.is_paid"]}'}]
  - name: avg_order_value
    expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(orders.pay_amt) / order_count}]}
    ai_context: {synonyms: [客单价, average order value]}
    custom_extensions: [{vendor_name: TABLERAG, data: '{"filters":["orders.is_paid"]}'}]
  - name: units_sold
    expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(item.qty)}]}
    ai_context: {synonyms: [销量, units sold]}
    custom_extensions: [{vendor_name: TABLERAG, data: '{"filters":["orders.is_paid"]}'}]
"""


def seed_statements(quote: str = '"') -> list[str]:
    """INSERT statements of ROWS (values written as SQL literals)."""
    out = []
    for table, rows in ROWS.items():
        for row in rows:
            values = ", ".join(str(v) if isinstance(v, int) else f"'{v}'" for v in row)
            out.append(f"INSERT INTO {table} VALUES ({values})")
    return out


@pytest.fixture
def shop() -> Knowledge:
    return Knowledge(loads(MODEL))
