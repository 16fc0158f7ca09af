"""The PostgreSQL test server fixture really starts a server, isolates databases and cleans up."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import psycopg
import pytest

from tests.plugins.postgres import PostgresServer, find_bindir, running_server

pytestmark = pytest.mark.postgres


def test_server_is_real_postgres_15_on_loopback(postgres_server: PostgresServer) -> None:
    with postgres_server.connect() as con:
        row = con.execute(
            "SELECT current_setting('server_version_num')::int, "
            "current_setting('fsync'), inet_server_addr()::text"
        ).fetchone()
    assert row is not None
    version, fsync, addr = row
    assert int(str(version)) >= 150000
    assert fsync == "off"
    assert str(addr).startswith("127.0.0.1")


def test_dsn_connects_as_superuser(postgres_dsn: str) -> None:
    assert postgres_dsn.startswith("postgresql://postgres@127.0.0.1:")
    with psycopg.connect(postgres_dsn) as con:
        assert con.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone() == (True,)


def test_pg_database_is_fresh_and_writable(pg_database: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as con:
        tables = con.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone()
        con.execute("CREATE TABLE t (x int)")
        con.execute("INSERT INTO t VALUES (1), (2)")
        assert con.execute("SELECT sum(x) FROM t").fetchone() == (3,)
    assert tables == (0,)


def test_pg_database_names_are_unique_and_dropped(
    postgres_server: PostgresServer, pg_database: str
) -> None:
    name = pg_database.rsplit("/", 1)[1]
    with postgres_server.connect() as con:
        names = {str(r[0]) for r in con.execute("SELECT datname FROM pg_database").fetchall()}
    assert name in names
    # Databases created by earlier tests of this worker have been dropped already.
    leftovers = {n for n in names if n.startswith(f"t_{os.getpid()}_") and n != name}
    assert leftovers == set()


def test_server_stops_and_files_are_removed() -> None:
    if find_bindir() is None:
        pytest.skip("PostgreSQL server binaries not found")
    with running_server() as server:
        base = server.data_dir.parent
        assert (server.data_dir / "PG_VERSION").is_file()
        with server.connect() as con:
            assert con.execute("SELECT 1").fetchone() == (1,)
    assert not base.exists()
    with socket.socket() as sock:
        sock.settimeout(1)
        assert sock.connect_ex(("127.0.0.1", server.port)) != 0


def test_server_is_cleaned_up_when_the_body_fails() -> None:
    if find_bindir() is None:
        pytest.skip("PostgreSQL server binaries not found")
    with pytest.raises(ZeroDivisionError), running_server() as server:
        base = server.data_dir.parent
        _ = 1 / 0
    assert not base.exists()


def test_missing_binaries_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLERAG_PG_BINDIR", str(tmp_path))  # no initdb in there
    monkeypatch.delenv("TABLERAG_REQUIRE_POSTGRES", raising=False)
    assert find_bindir() is None
    with pytest.raises(pytest.skip.Exception, match="binaries not found"), running_server():
        pass


def test_missing_binaries_fail_when_postgres_is_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLERAG_PG_BINDIR", str(tmp_path))
    monkeypatch.setenv("TABLERAG_REQUIRE_POSTGRES", "1")
    with pytest.raises(pytest.fail.Exception, match="TABLERAG_REQUIRE_POSTGRES"), running_server():
        pass
