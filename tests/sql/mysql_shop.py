"""The shop of :mod:`tests.sql.conftest` on the test MariaDB server, with a reader and a writer
account (the fixtures ``mysql_shop`` and ``mysql_engine`` in the conftest use it)."""

from __future__ import annotations

from tests.plugins.mariadb import MariaDBServer
from tests.sql.conftest import DDL, _fill

SHOP_DB = "tablerag_sql_shop"
ACCOUNTS = {"tr_reader": "reader-pw", "tr_writer": "writer-pw"}


def create_mysql_shop(server: MariaDBServer, database: str = SHOP_DB) -> dict[str, str]:
    """Create the shop database, a read-only and a writable account; return their URLs."""
    server.execute(f"DROP DATABASE IF EXISTS `{database}`", f"CREATE DATABASE `{database}`")
    for user, password in ACCOUNTS.items():
        server.execute(
            f"DROP USER IF EXISTS '{user}'@'%'",
            f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'",
        )
    con = server.connect(database)
    try:
        with con.cursor() as cur:
            for ddl in DDL:
                cur.execute(ddl.replace('"', "`"))
            _fill(lambda sql, rows: cur.executemany(sql.replace('"', "`"), rows), "%s")
            # the hidden columns (phone, email, password) are not granted: the start-up check
            cur.execute(
                f"GRANT SELECT (id, name, city) ON `{database}`.customers TO 'tr_reader'@'%'"
            )
            for table in ("orders", "`销售`"):
                cur.execute(f"GRANT SELECT ON `{database}`.{table} TO 'tr_reader'@'%'")
            cur.execute(
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON `{database}`.* TO 'tr_writer'@'%'"
            )
    finally:
        con.close()
    return {
        user: server.url(database, user=user, password=password)
        for user, password in ACCOUNTS.items()
    }
