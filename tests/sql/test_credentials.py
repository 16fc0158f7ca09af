"""Database passwords named by a variable or a file, never stored: tablerag.sql.credentials."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest

from tablerag import registry
from tablerag.errors import ConfigError
from tablerag.sql.credentials import connect_url, has_inline_password
from tablerag.sql.engines import open_engine

SECRET = "s3-" + secrets.token_hex(6)


@pytest.mark.parametrize(
    ("url", "inline"),
    [
        pytest.param(f"postgresql://bob:{SECRET}@db/sales", True, id="userinfo"),
        pytest.param(f"postgresql://db/sales?user=bob&password={SECRET}", True, id="query"),
        pytest.param("postgresql://bob:***@db/sales", False, id="stored"),
        pytest.param("postgresql://bob@db/sales?password_env=PW", False, id="env"),
        pytest.param("mysql://bob@db/sales?password_file=/run/pw", False, id="file"),
        pytest.param("sqlite:///data/a.db", False, id="file-db"),
    ],
)
def test_an_inline_password_is_told_apart(url: str, inline: bool) -> None:
    assert has_inline_password(url) is inline


def test_the_variable_and_the_file_fill_in_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TR_PW", SECRET)
    assert connect_url("postgresql://bob@db:5432/s?password_env=TR_PW&sslmode=require") == (
        f"postgresql://bob:{SECRET}@db:5432/s?sslmode=require"
    )
    (tmp_path / "pw").write_text(f"{SECRET}\nsecond line\n", encoding="utf-8")
    assert connect_url(f"mysql://bob@db/s?password_file={tmp_path / 'pw'}") == (
        f"mysql://bob:{SECRET}@db/s"
    )
    # a stored URL's redacted password is dropped: PGPASSWORD and ~/.pgpass apply
    assert connect_url("postgresql://bob:***@db/s?password=***") == "postgresql://bob@db/s"
    plain = f"postgresql://bob:{SECRET}@db/s"
    assert connect_url(plain) is plain  # nothing to do: untouched


@pytest.mark.parametrize(
    ("query", "match"),
    [
        pytest.param(
            "password_env=TR_UNSET_PW", "'TR_UNSET_PW', which is not set; export", id="unset"
        ),
        pytest.param(
            "password_file=/nonexistent/pw", "Cannot read the password file", id="missing"
        ),
        pytest.param("password_file={empty}", "is empty; write the password", id="empty"),
        pytest.param("password_env=A&password_file=/x", "names both", id="both"),
    ],
)
def test_a_password_that_cannot_be_found_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str, match: str
) -> None:
    monkeypatch.delenv("TR_UNSET_PW", raising=False)
    (tmp_path / "empty").write_text("", encoding="utf-8")
    url = f"postgresql://bob@127.0.0.1:1/s?{query.format(empty=tmp_path / 'empty')}"
    with pytest.raises(ConfigError, match=match) as caught:
        open_engine(url)
    assert "\n" not in str(caught.value)


def test_a_rejected_login_never_shows_the_password() -> None:
    with pytest.raises(ConfigError) as caught:
        open_engine(f"postgresql://bob:{SECRET}@127.0.0.1:1/s")
    assert str(caught.value).startswith("Cannot connect to PostgreSQL at 127.0.0.1:1")
    assert SECRET not in str(caught.value)


def test_a_missing_driver_names_what_to_install() -> None:
    def factory(location: object, **options: Any) -> object:
        raise ModuleNotFoundError("No module named 'fancydb'", name="fancydb")

    registry.register("engine", "fancy", factory)
    try:
        with pytest.raises(ConfigError, match="needs the driver 'fancydb'.*pip install fancydb"):
            open_engine("fancy://db/x")
    finally:
        registry.unregister("engine", "fancy")
