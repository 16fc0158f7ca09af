"""Pytest fixtures that run a real, throw-away PostgreSQL server on loopback.

Load with ``pytest_plugins = ["tests.plugins.postgres"]`` in the root ``conftest.py`` (or
``pytest -p tests.plugins.postgres``). Fixtures:

* ``postgres_server`` (session): a :class:`PostgresServer` started from the binaries that
  ``pg_config --bindir`` names (override with ``TABLERAG_PG_BINDIR``); ``initdb`` into a temp dir,
  trust auth for loopback only, fsync off, Unix socket in the temp dir, TCP on 127.0.0.1 and a free
  port. Stopped and deleted at the end of the session, also when a test fails. Under
  pytest-xdist each worker starts its own server.
* ``postgres_dsn`` (session): ``postgresql://postgres@127.0.0.1:PORT/postgres``.
* ``pg_database`` (function): a fresh, empty database with a unique name; yields its URL and
  drops it afterwards.

Every role logs in without a password (trust, loopback only), except :data:`PASSWORD_USER`,
which must use scram-sha-256, so that tests can check wrong-password handling.

When no PostgreSQL binaries are found the tests that use these fixtures are skipped, unless
``TABLERAG_REQUIRE_POSTGRES=1`` is set (CI), in which case they fail.

PostgreSQL refuses to run as root, so when the tests run as root the data directory is owned by the
``postgres`` user (created with ``useradd`` if missing) and every server command runs through
``runuser -u postgres --``.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

SUPERUSER = "postgres"
PASSWORD_USER = "tablerag_pw"
"""The only role that must give a password over TCP (create it with one in your test)."""
_START_ATTEMPTS = 3
_COMMAND_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class PostgresServer:
    """A running test server: where it listens and how to reach it."""

    host: str
    port: int
    socket_dir: Path
    data_dir: Path
    bindir: Path
    user: str = SUPERUSER

    def url(self, dbname: str = "postgres") -> str:
        """SQLAlchemy/libpq URL of ``dbname`` on this server (no password: trust auth)."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{dbname}"

    def connect(self, dbname: str = "postgres") -> psycopg.Connection[tuple[object, ...]]:
        """An autocommit psycopg connection to ``dbname``, for test setup."""
        return psycopg.connect(self.url(dbname), autocommit=True, connect_timeout=10)


def _required() -> bool:
    return os.environ.get("TABLERAG_REQUIRE_POSTGRES", "") == "1"


def _unavailable(reason: str) -> None:
    """Skip (or fail when PostgreSQL is required) with ``reason``."""
    if _required():
        pytest.fail(f"{reason} (TABLERAG_REQUIRE_POSTGRES=1 makes this a failure)", pytrace=False)
    pytest.skip(reason)


def find_bindir() -> Path | None:
    """The directory holding ``initdb``/``pg_ctl``/``postgres``, or None when not installed."""
    candidates: list[str] = []
    if env := os.environ.get("TABLERAG_PG_BINDIR"):
        candidates.append(env)  # an explicit choice: no fallback
    elif pg_config := shutil.which("pg_config"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=10, check=True
            )
            candidates.append(out.stdout.strip())
    if not env:
        candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for cand in candidates:
        path = Path(cand)
        if all((path / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return path
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ensure_postgres_user() -> None:
    try:
        pwd.getpwnam(SUPERUSER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SUPERUSER],
            check=True,
            capture_output=True,
            timeout=30,
        )


class _Runner:
    """Runs server commands as the current user, or as ``postgres`` when we are root."""

    def __init__(self) -> None:
        self.as_root = os.geteuid() == 0
        if self.as_root:
            _ensure_postgres_user()
            if shutil.which("runuser") is None:
                _unavailable("running as root and 'runuser' is missing; cannot start PostgreSQL")

    def own(self, path: Path) -> None:
        """Give ``path`` to the user that runs the server."""
        if self.as_root:
            entry = pwd.getpwnam(SUPERUSER)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def run(self, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        """Run ``argv``; raise RuntimeError with its output when it fails."""
        full = ["runuser", "-u", SUPERUSER, "--", *argv] if self.as_root else argv
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C.UTF-8"
        proc = subprocess.run(
            full, cwd=cwd, env=env, capture_output=True, text=True, timeout=_COMMAND_TIMEOUT_S
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(argv[:2])} failed ({proc.returncode}): {proc.stdout}{proc.stderr}"
            )
        return proc


def _log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


def _init_cluster(runner: _Runner, bindir: Path, base: Path) -> tuple[Path, Path]:
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    runner.own(sock)
    runner.run(
        [
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            SUPERUSER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
            "--no-instructions",
        ],
        cwd=base,
    )
    # Trust, but only on the Unix socket in our private dir and on loopback; the one role
    # PASSWORD_USER must log in with its password (to test wrong-password handling).
    hba = (
        f"local all all trust\nhost all {PASSWORD_USER} 127.0.0.1/32 scram-sha-256\n"
        "host all all 127.0.0.1/32 trust\n"
    )
    (data / "pg_hba.conf").write_text(hba)
    return data, sock


def _start(runner: _Runner, bindir: Path, data: Path, sock: Path, base: Path) -> int:
    """Start the server on a free port (retrying on a port race); return the port."""
    log = base / "server.log"
    error = ""
    for _ in range(_START_ATTEMPTS):
        port = _free_port()
        options = (
            f"-k {sock} -h 127.0.0.1 -p {port} -F -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=50 -c shared_buffers=32MB"
        )
        try:
            runner.run(
                [
                    str(bindir / "pg_ctl"),
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    str(data),
                    "-l",
                    str(log),
                    "-o",
                    options,
                ],
                cwd=base,
            )
            return port
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            error = f"{exc}\n{_log_tail(log)}"
    raise RuntimeError(f"PostgreSQL did not start after {_START_ATTEMPTS} attempts: {error}")


def _stop(runner: _Runner, bindir: Path, data: Path, base: Path) -> None:
    if (data / "postmaster.pid").exists():
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            runner.run(
                [str(bindir / "pg_ctl"), "stop", "-w", "-m", "immediate", "-D", str(data)], cwd=base
            )


@contextlib.contextmanager
def running_server() -> Iterator[PostgresServer]:
    """Start a private PostgreSQL server; stop it and delete its files on exit."""
    bindir = find_bindir()
    if bindir is None:
        _unavailable(
            "PostgreSQL server binaries not found (install postgresql, or set "
            "TABLERAG_PG_BINDIR to the directory holding initdb and pg_ctl)"
        )
        raise AssertionError("unreachable")
    runner = _Runner()
    base = Path(tempfile.mkdtemp(prefix="tablerag-pg-"))
    runner.own(base)
    data = base / "data"
    try:
        data, sock = _init_cluster(runner, bindir, base)
        port = _start(runner, bindir, data, sock, base)
        server = PostgresServer("127.0.0.1", port, sock, data, bindir)
        with server.connect() as con:
            con.execute("SELECT 1")
        yield server
    finally:
        _stop(runner, bindir, data, base)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for this test session (per xdist worker)."""
    try:
        with running_server() as server:
            yield server
    except RuntimeError as exc:
        if _required():
            raise
        pytest.skip(f"could not start PostgreSQL: {exc}")


@pytest.fixture(scope="session")
def postgres_dsn(postgres_server: PostgresServer) -> str:
    """URL of the ``postgres`` database on the session's server (superuser, trust auth)."""
    return postgres_server.url()


_counter = itertools.count()


@pytest.fixture
def pg_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh empty database with a unique name; yields its URL, drops it afterwards."""
    name = f"t_{os.getpid()}_{next(_counter)}_{uuid.uuid4().hex[:6]}"
    with postgres_server.connect() as con:
        con.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield postgres_server.url(name)
    finally:
        with postgres_server.connect() as con:
            con.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
