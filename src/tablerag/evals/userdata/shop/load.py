"""Load the shop database: into a PostgreSQL server given by URL (with a read-only role whose
column grants leave out the customers' phone), or into a DuckDB file of the same data (without
the phone column: what that role sees) for runs without PostgreSQL.

Tables: categories, products, customers, stores, orders, order_items, refunds; primary and
foreign keys; every amount an integer in 分 with a ``COMMENT`` saying so; order statuses
PAID / REFUND / CANCELLED under a ``CHECK``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tablerag.errors import ConfigError
from tablerag.evals.userdata.shop.data import CATEGORIES, STORES, Shop

READER = "tablerag_shop_reader"
"""The read-only role the evaluation asks as on PostgreSQL."""
TABLES: tuple[str, ...] = (
    "categories",
    "products",
    "customers",
    "stores",
    "orders",
    "order_items",
    "refunds",
)
SENSITIVE = ("customers", "phone")
"""The column the reader role is not granted (and the DuckDB copy leaves out)."""


def ddl(*, phone: bool) -> list[str]:
    """The statements that create the tables and their comments (PostgreSQL and DuckDB)."""
    contact = "    phone VARCHAR(20),\n" if phone else ""
    statements = [
        "CREATE TABLE categories (\n    category_id INTEGER PRIMARY KEY,\n"
        "    category_name VARCHAR(20) NOT NULL\n)",
        "CREATE TABLE products (\n    product_id INTEGER PRIMARY KEY,\n"
        "    product_name VARCHAR(40) NOT NULL,\n"
        "    category_id INTEGER NOT NULL REFERENCES categories (category_id),\n"
        "    list_price BIGINT NOT NULL,\n    cost_price BIGINT NOT NULL\n)",
        "CREATE TABLE customers (\n    customer_id INTEGER PRIMARY KEY,\n"
        f"    customer_name VARCHAR(20) NOT NULL,\n{contact}    city VARCHAR(10),\n"
        "    register_date DATE,\n    member_level INTEGER\n)",
        "CREATE TABLE stores (\n    store_id INTEGER PRIMARY KEY,\n"
        "    store_name VARCHAR(20) NOT NULL,\n    channel VARCHAR(10) NOT NULL,\n"
        "    region VARCHAR(10)\n)",
        "CREATE TABLE orders (\n    order_id INTEGER PRIMARY KEY,\n"
        "    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),\n"
        "    store_id INTEGER NOT NULL REFERENCES stores (store_id),\n"
        "    order_time TIMESTAMP NOT NULL,\n"
        "    status VARCHAR(10) NOT NULL CHECK (status IN ('PAID', 'REFUND', 'CANCELLED')),\n"
        "    pay_amt BIGINT NOT NULL\n)",
        "CREATE TABLE order_items (\n    item_id INTEGER PRIMARY KEY,\n"
        "    order_id INTEGER NOT NULL REFERENCES orders (order_id),\n"
        "    product_id INTEGER NOT NULL REFERENCES products (product_id),\n"
        "    qty INTEGER NOT NULL,\n    unit_price BIGINT NOT NULL,\n"
        "    discount BIGINT NOT NULL\n)",
        "CREATE TABLE refunds (\n    refund_id INTEGER PRIMARY KEY,\n"
        "    order_id INTEGER NOT NULL REFERENCES orders (order_id),\n"
        "    refund_time TIMESTAMP NOT NULL,\n    refund_amt BIGINT NOT NULL,\n"
        "    reason VARCHAR(20)\n)",
    ]
    comments = {
        "products.list_price": "标价，单位：分",
        "products.cost_price": "成本价，单位：分",
        "customers.member_level": "会员等级 1-5",
        "orders.order_time": "下单时间",
        "orders.status": "订单状态：PAID 已支付，REFUND 已退款，CANCELLED 已取消",
        "orders.pay_amt": "实付金额，单位：分",
        "order_items.qty": "数量（件）",
        "order_items.unit_price": "成交单价，单位：分",
        "order_items.discount": "该行优惠金额，单位：分",
        "refunds.refund_time": "退款时间",
        "refunds.refund_amt": "退款金额，单位：分",
    }
    if phone:
        comments["customers.phone"] = "手机号（敏感）"
    statements += [f"COMMENT ON COLUMN {col} IS '{text}'" for col, text in comments.items()]
    statements += [
        "COMMENT ON TABLE orders IS '订单：一行一笔订单，金额单位为分'",
        "COMMENT ON TABLE order_items IS '订单明细：一行一个商品'",
    ]
    return statements


def rows(shop: Shop, *, phone: bool) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """Each table with its rows, in the order foreign keys need."""
    yield "categories", list(CATEGORIES)
    yield (
        "products",
        [(p.product_id, p.name, p.category_id, p.price_fen, p.cost_fen) for p in shop.products],
    )
    yield (
        "customers",
        [
            (
                c.customer_id,
                c.name,
                *((c.phone,) if phone else ()),
                c.city,
                c.register_date,
                c.level,
            )
            for c in shop.customers
        ],
    )
    yield "stores", list(STORES)
    yield (
        "orders",
        [
            (o.order_id, o.customer_id, o.store_id, o.order_time, o.status, o.pay_amt_fen)
            for o in shop.orders
        ],
    )
    yield (
        "order_items",
        [
            (i.item_id, i.order_id, i.product_id, i.qty, i.unit_price_fen, i.discount_fen)
            for i in shop.items
        ],
    )
    yield (
        "refunds",
        [
            (r.refund_id, r.order_id, r.refund_time, r.refund_amt_fen, r.reason)
            for r in shop.refunds
        ],
    )


def write_duckdb(path: Path, shop: Shop) -> Path:
    """A DuckDB file of the shop (replaced when present), without the phone column."""
    import duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in (path, path.with_name(path.name + ".wal")):
        stale.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    try:
        for statement in ddl(phone=False):
            con.execute(statement)
        for table, values in rows(shop, phone=False):
            # one statement per 500 rows: executemany runs one statement per row, slowly
            marks = "(" + ", ".join("?" * len(values[0])) + ")"
            for at in range(0, len(values), 500):
                chunk = values[at : at + 500]
                flat = [v for row in chunk for v in row]
                con.execute(f"INSERT INTO {table} VALUES " + ", ".join([marks] * len(chunk)), flat)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return path


def load_postgres(admin_url: str, shop: Shop, *, reader: str = READER) -> str:
    """Create the shop's tables in the database of ``admin_url`` (dropping ones of the same
    name first), fill them, and create role ``reader`` (LOGIN, no password) with SELECT on every
    table and, on customers, on every column but the phone.

    Returns:
        The URL to ask as the reader: ``admin_url`` with the reader's name and no password.

    Raises:
        ConfigError: the server cannot be reached or refuses a statement.
    """
    import psycopg

    try:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=15) as con:
            con.execute("DROP TABLE IF EXISTS " + ", ".join(reversed(TABLES)) + " CASCADE")
            for statement in ddl(phone=True):
                con.execute(statement)
            with con.cursor() as cur:
                for table, values in rows(shop, phone=True):
                    marks = ", ".join(["%s"] * len(values[0]))
                    cur.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
            _grant(con, reader)
    except psycopg.Error as exc:
        raise ConfigError(
            f"Could not load the shop database into {_shown(admin_url)}: {exc}. Give --db the "
            "URL of an existing database and a role that may create tables and roles."
        ) from exc
    return reader_url(admin_url, reader)


def _grant(con: Any, reader: str) -> None:
    dbname = con.info.dbname
    con.execute(
        f"DO $$ BEGIN CREATE ROLE {reader} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$"
    )
    con.execute(f'GRANT CONNECT ON DATABASE "{dbname}" TO {reader}')
    con.execute(f"GRANT USAGE ON SCHEMA public TO {reader}")
    con.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {reader}")
    open_tables = [t for t in TABLES if t != SENSITIVE[0]]
    con.execute(f"GRANT SELECT ON {', '.join(open_tables)} TO {reader}")
    visible = ", ".join(granted_customer_columns())
    con.execute(f"GRANT SELECT ({visible}) ON customers TO {reader}")


def granted_customer_columns() -> list[str]:
    """The customers' columns the reader may read: all but the phone."""
    return ["customer_id", "customer_name", "city", "register_date", "member_level"]


def reader_url(admin_url: str, reader: str = READER) -> str:
    """``admin_url`` with the user ``reader`` and no password.

    Example:
        >>> reader_url("postgresql://admin:pw@127.0.0.1:5432/shop?sslmode=disable")
        'postgresql://tablerag_shop_reader@127.0.0.1:5432/shop?sslmode=disable'
    """
    parts = urlsplit(admin_url)
    host = parts.hostname or ""
    netloc = f"{reader}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _shown(url: str) -> str:
    parts = urlsplit(url)
    netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def content_hash(shop: Shop) -> str:
    """SHA-256 of every row the loaders write (with the phone): the database's identity.

    Example:
        >>> from tablerag.evals.userdata.shop.data import build
        >>> content_hash(build()) == content_hash(build())
        True
    """
    digest = hashlib.sha256()
    for table, values in rows(shop, phone=True):
        digest.update(table.encode())
        for row in values:
            digest.update(repr(row).encode("utf-8"))
    return digest.hexdigest()


def table_rows(shop: Shop) -> dict[str, int]:
    """Rows per table."""
    return {table: len(values) for table, values in rows(shop, phone=False)}
