"""The MariaDB test server fixture really starts a server on loopback, isolates databases and
cleans up."""

from __future__ import annotations

import os

import pytest

from tests.plugins.mariadb import MariaDBServer, running_server

pytestmark = pytest.mark.mariadb


def test_server_is_real_mariadb_on_loopback(mariadb_server: MariaDBServer) -> None:
    con = mariadb_server.connect()
    with con.cursor() as cur:
        cur.execute("SELECT version(), @@bind_address, @@port, @@log_bin")
        version, bind, port, log_bin = cur.fetchone()
    con.close()
    assert "MariaDB" in version
    assert bind == "127.0.0.1"
    assert port == mariadb_server.port
    assert log_bin == 0


def test_database_is_fresh_and_dropped(
    mariadb_server: MariaDBServer, mariadb_database: str
) -> None:
    mariadb_server.execute("CREATE TABLE t (x INT)", "INSERT INTO t VALUES (1), (2)",
                           database=mariadb_database)  # fmt: skip
    con = mariadb_server.connect(mariadb_database)
    with con.cursor() as cur:
        cur.execute("SELECT sum(x) FROM t")
        assert cur.fetchone() == (3,)
    con.close()


def test_stopped_server_leaves_no_files_or_process() -> None:
    with running_server() as server:
        base = server.data_dir.parent
        assert (server.data_dir / "mysql").is_dir()
        pid = server.pid
    assert not base.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
