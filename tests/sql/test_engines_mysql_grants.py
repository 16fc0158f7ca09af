"""MariaDB with column GRANTs, as the docs describe, on the real server the tests start: the
account cannot see the ungranted columns' names, so the engine marks such tables ``partial``
and refuses USING/NATURAL joins over them and any statement but one SELECT (``HANDLER`` reads
every column); privileges from PUBLIC and from anonymous-user rows count as writable; the
refusal of an account that reads a hidden column prints the narrowest fix. Canaries in every
ungranted column; the gate is bypassed where the engine's own layer is under test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tablerag.errors import ConfigError, QueryFailed, SQLRejected, TableragError
from tablerag.sql.engines import open_engine
from tablerag.sql.policy import ExecutionPolicy
from tests.plugins.canary import COLUMNS, VISIBLE, CanaryKit, assert_no_canary, canary_kit
from tests.plugins.mariadb import MariaDBServer

pytestmark = pytest.mark.mariadb
POLICY = ExecutionPolicy(time_limit_ms=5000, max_rows=50)
TYPES = {"id": "INT", "amount": "DOUBLE", "mobile": "BIGINT", "secret_pin": "BIGINT",
         "risk_score": "BIGINT"}  # fmt: skip


def _ddl(db: str) -> str:
    cols = ", ".join(f"{c} {TYPES.get(c, 'VARCHAR(80)')}" for c in COLUMNS)
    return f"CREATE TABLE `{db}`.customers ({cols}, KEY (phone))"


@pytest.fixture
def shop(
    mariadb_server: MariaDBServer, mariadb_database: str
) -> Iterator[tuple[str, str, CanaryKit]]:
    """(URL of an account granted the visible columns only, account name, canaries)."""
    kit = canary_kit()
    db, user = mariadb_database, f"tr_g_{uuid.uuid4().hex[:6]}"
    con = mariadb_server.connect(db)
    try:
        with con.cursor() as cur:
            cur.execute(_ddl(db))
            marks = ", ".join(["%s"] * len(COLUMNS))
            cur.executemany(f"INSERT INTO customers VALUES ({marks})", kit.tuples())
            cur.execute(f"CREATE TABLE `{db}`.orders (id INT, amount DOUBLE)")
            cur.execute(f"INSERT INTO `{db}`.orders VALUES (1, 10), (2, 20)")
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'g-pw'")
            cur.execute(f"GRANT SELECT ({', '.join(VISIBLE)}) ON `{db}`.customers TO '{user}'@'%'")
            cur.execute(f"GRANT SELECT ON `{db}`.orders TO '{user}'@'%'")
    finally:
        con.close()
    yield mariadb_server.url(db, user=user, password="g-pw"), user, kit
    mariadb_server.execute(f"DROP USER IF EXISTS '{user}'@'%'")


JOINS = (
    "SELECT a.name FROM customers AS a JOIN customers AS b USING (phone)",
    "SELECT a.name FROM customers AS a JOIN customers AS b USING (password) WHERE a.id = 1",
    "SELECT name FROM customers NATURAL JOIN customers AS b",
    "SELECT a.name FROM customers AS a NATURAL JOIN (SELECT 1 AS id) AS x",
    "SELECT c.name FROM customers AS c JOIN (SELECT '13900000000' AS phone) AS x USING (phone)",
)
"""MariaDB compares ungranted columns in these without checking the column privilege."""

STATEMENTS = (
    "HANDLER customers OPEN",
    "HANDLER customers READ FIRST",
    "/*!HANDLER customers OPEN*/",
    "SELECT 1 /*! , phone FROM customers */",
    "SHOW CREATE TABLE customers",
    "DO 1",
    "SET @x = 1",
)


def test_ungranted_columns_mark_the_table_partial(shop: tuple[str, str, CanaryKit]) -> None:
    url, _, _ = shop
    with open_engine(url, policy=POLICY) as engine:
        tables = {t.name: t for t in engine.catalog.tables}
        assert tables["customers"].partial and not tables["orders"].partial
        assert set(tables["customers"].columns) == set(VISIBLE)


@pytest.mark.parametrize("sql", JOINS + STATEMENTS)
def test_engine_refuses_what_column_grants_do_not_cover(
    shop: tuple[str, str, CanaryKit], sql: str
) -> None:
    """The gate bypassed: the engine's own check refuses, and no canary comes back."""
    url, _, kit = shop
    with open_engine(url, policy=POLICY) as engine:
        with pytest.raises(QueryFailed) as info:
            engine._run(sql, POLICY)
        assert_no_canary(str(info.value), info.value.sql)
        try:  # and through the gate: refused, or run without what the gate removed
            through = repr(engine.execute(sql, POLICY))
        except TableragError as exc:
            through = str(exc)
        assert_no_canary(through)
        assert engine.execute("SELECT name FROM customers ORDER BY id", POLICY).rows[0] == (
            "name_1",
        )


def test_joins_on_visible_columns_still_run(shop: tuple[str, str, CanaryKit]) -> None:
    url, _, _ = shop
    with open_engine(url, policy=POLICY) as engine:
        rows = engine.execute(
            "SELECT a.name FROM customers AS a JOIN orders AS o ON o.id = a.id ORDER BY a.id",
            POLICY,
        ).rows
        assert rows == (("name_1",), ("name_2",))
        assert engine.execute("SELECT o.id FROM orders AS o JOIN orders AS p USING (id)").rows


def test_public_grants_count_as_writable(
    mariadb_server: MariaDBServer, shop: tuple[str, str, CanaryKit]
) -> None:
    """MariaDB 10.11+ PUBLIC: a grant every account holds (as on `test\\_%` by default)."""
    url, _, kit = shop
    name = f"test_pub_{uuid.uuid4().hex[:6]}"
    mariadb_server.execute(
        f"CREATE DATABASE `{name}`", f"GRANT CREATE, INSERT ON `{name}`.* TO PUBLIC"
    )
    try:
        with pytest.raises(ConfigError) as info:
            open_engine(url, policy=POLICY)
        assert f"has CREATE, INSERT on {name}.*" in str(info.value)
        assert "g-pw" not in str(info.value)
        assert_no_canary(str(info.value))
    finally:
        mariadb_server.execute(
            f"REVOKE CREATE, INSERT ON `{name}`.* FROM PUBLIC", f"DROP DATABASE `{name}`"
        )
    open_engine(url, policy=POLICY).close()  # acceptable again


def test_anonymous_user_rows_count_as_writable(
    mariadb_server: MariaDBServer, shop: tuple[str, str, CanaryKit]
) -> None:
    """An anonymous-user row of mysql.db (MariaDB's old default for `test`) applies to every
    account and shows in no grant of it: the database it opens is refused as unexplained."""
    url, _, _ = shop
    name = f"test_anon_{uuid.uuid4().hex[:6]}"
    mariadb_server.execute(
        f"CREATE DATABASE `{name}`",
        "INSERT INTO mysql.db (Host, Db, User, Select_priv, Insert_priv, Create_priv) "
        f"VALUES ('%', '{name}', '', 'Y', 'Y', 'Y')",
        "FLUSH PRIVILEGES",
    )
    try:
        with pytest.raises(ConfigError) as info:
            open_engine(url, policy=POLICY)
        message = str(info.value)
        assert f"privileges on database {name} that none of its grants explain" in message
        assert "DELETE FROM mysql.db WHERE User = ''" in message
    finally:
        mariadb_server.execute(
            f"DELETE FROM mysql.db WHERE Db = '{name}' AND User = ''",
            "FLUSH PRIVILEGES",
            f"DROP DATABASE `{name}`",
        )
    open_engine(url, policy=POLICY).close()


@pytest.mark.parametrize("how", ["column", "table", "both"])
def test_refusal_prints_the_narrowest_fix_and_allow_columns(
    mariadb_server: MariaDBServer, shop: tuple[str, str, CanaryKit], how: str
) -> None:
    url, user, kit = shop
    db = url.rsplit("/", 1)[1]
    grants = {
        "column": [f"GRANT SELECT (phone) ON `{db}`.customers TO '{user}'@'%'"],
        "table": [f"GRANT SELECT ON `{db}`.customers TO '{user}'@'%'"],
        "both": [
            f"GRANT SELECT (phone) ON `{db}`.customers TO '{user}'@'%'",
            f"GRANT SELECT ON `{db}`.customers TO '{user}'@'%'",
        ],
    }[how]
    mariadb_server.execute(*grants)
    with pytest.raises(ConfigError) as info:
        open_engine(url, policy=POLICY)
    message = str(info.value)
    assert 'allow_columns = ["customers.' in message
    statements = [line for line in message.splitlines() if line.startswith(("REVOKE", "GRANT"))]
    table_revoke = f"REVOKE SELECT ON `{db}`.`customers` FROM '{user}'@'%';"
    if how == "column":
        assert statements == [f"REVOKE SELECT (`phone`) ON `{db}`.`customers` FROM '{user}'@'%';"]
    else:
        assert table_revoke in statements
        granted = next(s for s in statements if s.startswith("GRANT SELECT ("))
        assert "`phone`" not in granted and "`password`" not in granted, granted
        assert granted.startswith("GRANT SELECT (`id`, `name`, `city`, `amount`"), granted
    assert_no_canary(message)
    mariadb_server.execute(*statements)  # the operator runs what the message says
    with open_engine(url, policy=POLICY) as engine:
        assert engine.execute("SELECT count(*) AS n FROM customers", POLICY).rows == ((8,),)
        with pytest.raises((SQLRejected, QueryFailed)):
            engine._run("SELECT phone FROM customers", POLICY)
