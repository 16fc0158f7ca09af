"""Pytest fixtures that run a real, throw-away MariaDB server on loopback.

Loaded from the root ``conftest.py`` (``pytest_plugins``), like :mod:`tests.plugins.postgres`.
Fixtures:

* ``mariadb_server`` (session): a :class:`MariaDBServer` started from Debian's
  ``mariadb-server`` binaries (``mariadb-install-db`` and ``mariadbd`` on ``PATH`` or in
  ``/usr/sbin``; override the directory with ``TABLERAG_MARIADB_BINDIR``): a data directory in a
  temp dir, no config file read (``--no-defaults``), TCP on 127.0.0.1 and a free port, the Unix
  socket in the temp dir, the binary log off and InnoDB flushing relaxed. Stopped and deleted at
  the end of the session, also when a test fails. Under pytest-xdist each worker starts its own.
* ``mariadb_root_url`` (session): ``mysql://root@127.0.0.1:PORT/`` (root has no password and
  logs in over TCP: ``--auth-root-authentication-method=normal``).
* ``mariadb_database`` (function): a fresh, empty database with a unique name; yields its name
  and drops it afterwards.

When no MariaDB binaries are found the tests that use these fixtures are skipped, unless
``TABLERAG_REQUIRE_MARIADB=1`` is set (CI), in which case they fail.

``mariadbd`` refuses to run as root without ``--user``, so when the tests run as root the data
directory is owned by the ``mysql`` user (created with ``useradd`` if missing) and every server
command runs through ``runuser -u mysql --``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymysql
import pytest

SERVER_USER = "mysql"
_START_ATTEMPTS = 3
_START_TIMEOUT_S = 60.0
_COMMAND_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class MariaDBServer:
    """A running test server: where it listens and how to reach it."""

    host: str
    port: int
    socket: Path
    data_dir: Path
    pid: int

    def url(self, database: str = "", user: str = "root", password: str = "") -> str:
        """A ``mysql://`` URL of ``database`` on this server."""
        auth = f"{user}:{password}" if password else user
        return f"mysql://{auth}@{self.host}:{self.port}/{database}"

    def connect(self, database: str | None = None) -> pymysql.connections.Connection[Any]:
        """An autocommit root connection, for test setup."""
        return pymysql.connect(
            host=self.host,
            port=self.port,
            user="root",
            password="",
            database=database,
            autocommit=True,
            charset="utf8mb4",
            connect_timeout=10,
        )

    def execute(self, *statements: str, database: str | None = None) -> None:
        """Run setup statements as root."""
        con = self.connect(database)
        try:
            with con.cursor() as cur:
                for statement in statements:
                    cur.execute(statement)
        finally:
            con.close()


def _required() -> bool:
    return os.environ.get("TABLERAG_REQUIRE_MARIADB", "") == "1"


def _unavailable(reason: str) -> None:
    """Skip (or fail when MariaDB is required) with ``reason``."""
    if _required():
        pytest.fail(f"{reason} (TABLERAG_REQUIRE_MARIADB=1 makes this a failure)", pytrace=False)
    pytest.skip(reason)


def find_binaries() -> tuple[Path, Path] | None:
    """``(mariadb-install-db, mariadbd)``, or None when MariaDB is not installed."""
    if env := os.environ.get("TABLERAG_MARIADB_BINDIR"):
        dirs = [Path(env)]
    else:
        dirs = [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
        dirs += [Path("/usr/sbin"), Path("/usr/bin")]
    install = next(
        (d / "mariadb-install-db" for d in dirs if (d / "mariadb-install-db").is_file()), None
    )
    server = next((d / "mariadbd" for d in dirs if (d / "mariadbd").is_file()), None)
    return (install, server) if install and server else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Runner:
    """Runs server commands as the current user, or as ``mysql`` when we are root."""

    def __init__(self) -> None:
        self.as_root = os.geteuid() == 0
        if self.as_root:
            try:
                pwd.getpwnam(SERVER_USER)
            except KeyError:
                subprocess.run(
                    ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                     SERVER_USER],
                    check=True, capture_output=True, timeout=30,
                )  # fmt: skip
            if shutil.which("runuser") is None:
                _unavailable("running as root and 'runuser' is missing; cannot start MariaDB")

    def own(self, path: Path) -> None:
        """Give ``path`` to the user that runs the server."""
        if self.as_root:
            entry = pwd.getpwnam(SERVER_USER)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def argv(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", SERVER_USER, "--", *argv] if self.as_root else argv

    def run(self, argv: list[str], cwd: Path) -> None:
        """Run ``argv``; raise RuntimeError with its output when it fails."""
        proc = subprocess.run(
            self.argv(argv), cwd=cwd, capture_output=True, text=True, timeout=_COMMAND_TIMEOUT_S
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{Path(argv[0]).name} failed ({proc.returncode}): {proc.stdout}{proc.stderr}"
            )


def _log_tail(log: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


def _reachable(port: int) -> bool:
    try:
        con = pymysql.connect(host="127.0.0.1", port=port, user="root", connect_timeout=2)
    except pymysql.Error:
        return False
    con.close()
    return True


def _start(
    runner: _Runner, server: Path, data: Path, base: Path
) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``mariadbd`` on a free port (retrying on a port race); return it and the port."""
    log = base / "server.log"
    error = ""
    for _ in range(_START_ATTEMPTS):
        port = _free_port()
        argv = [
            str(server), "--no-defaults", f"--datadir={data}", f"--socket={base / 'sock'}",
            f"--port={port}", "--bind-address=127.0.0.1", f"--pid-file={base / 'mariadb.pid'}",
            f"--log-error={log}", "--skip-name-resolve", "--skip-log-bin",
            "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0", "--max-connections=60",
            "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci",
        ]  # fmt: skip
        proc = subprocess.Popen(
            runner.argv(argv), cwd=base, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline and proc.poll() is None:
            if _reachable(port):
                return proc, port
            time.sleep(0.2)
        error = _log_tail(log)
        _stop(proc)
    raise RuntimeError(f"MariaDB did not start after {_START_ATTEMPTS} attempts: {error}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server we started (runuser passes SIGTERM on to mariadbd)."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextlib.contextmanager
def running_server() -> Iterator[MariaDBServer]:
    """Start a private MariaDB server; stop it and delete its files on exit."""
    found = find_binaries()
    if found is None:
        _unavailable(
            "MariaDB server binaries not found (apt-get install mariadb-server, or set "
            "TABLERAG_MARIADB_BINDIR to the directory holding mariadb-install-db and mariadbd)"
        )
        raise AssertionError("unreachable")
    install, server = found
    runner = _Runner()
    base = Path(tempfile.mkdtemp(prefix="tablerag-mariadb-"))
    runner.own(base)
    data = base / "data"
    proc: subprocess.Popen[bytes] | None = None
    try:
        runner.run(
            [str(install), "--no-defaults", f"--datadir={data}", "--skip-test-db",
             "--auth-root-authentication-method=normal", "--skip-name-resolve"],
            cwd=base,
        )  # fmt: skip
        proc, port = _start(runner, server, data, base)
        yield MariaDBServer("127.0.0.1", port, base / "sock", data, proc.pid)
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[MariaDBServer]:
    """A real MariaDB server for this test session (per xdist worker)."""
    try:
        with running_server() as server:
            yield server
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        if _required():
            raise
        pytest.skip(f"could not start MariaDB: {exc}")


@pytest.fixture(scope="session")
def mariadb_root_url(mariadb_server: MariaDBServer) -> str:
    """URL of the server as root (no database, no password)."""
    return mariadb_server.url()


_counter = itertools.count()


@pytest.fixture
def mariadb_database(mariadb_server: MariaDBServer) -> Iterator[str]:
    """A fresh empty database with a unique name; yields its name, drops it afterwards."""
    name = f"t_{os.getpid()}_{next(_counter)}_{uuid.uuid4().hex[:6]}"
    mariadb_server.execute(f"CREATE DATABASE `{name}`")
    try:
        yield name
    finally:
        mariadb_server.execute(f"DROP DATABASE IF EXISTS `{name}`")
