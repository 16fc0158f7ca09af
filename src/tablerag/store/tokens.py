"""API tokens of ``tablerag serve``, kept in the workspace's service file, hashed.

A token is ``trg_<id>_<secret>``: the id names it in lists and logs, the secret (32 random
bytes) is shown once at creation and only its SHA-256 is stored, so a copy of the workspace
gives nobody a working token. A revoked token stays listed, refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.store.querylog import connect, now

PREFIX = "trg_"


@dataclass(frozen=True)
class Token:
    """One API token as stored (never with its secret)."""

    token_id: str
    name: str
    created_at: str
    revoked_at: str | None = None
    rate_per_minute: int | None = None

    @property
    def active(self) -> bool:
        """Not revoked."""
        return self.revoked_at is None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create(workspace: Path, name: str, *, rate_per_minute: int | None = None) -> tuple[Token, str]:
    """A new token; returns it and the full token text (shown once, never stored).

    Raises:
        ConfigError: the name is empty or the rate is not positive.
    """
    name = name.strip()
    if not name:
        raise ConfigError("A token needs a name (who or what uses it): --name NAME.")
    if rate_per_minute is not None and rate_per_minute < 1:
        raise ConfigError(f"--rate-per-minute must be at least 1, not {rate_per_minute}.")
    token_id = secrets.token_hex(4)
    text = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    token = Token(token_id, name, now(), None, rate_per_minute)
    with connect(workspace) as con:
        con.execute(
            "INSERT INTO tokens (token_id, name, secret_sha256, created_at, rate_per_minute) "
            "VALUES (?, ?, ?, ?, ?)",
            (token_id, name, _digest(text), token.created_at, rate_per_minute),
        )
    return token, text


def listed(workspace: Path) -> list[Token]:
    """Every token, oldest first."""
    with connect(workspace) as con:
        rows = con.execute(
            "SELECT token_id, name, created_at, revoked_at, rate_per_minute FROM tokens "
            "ORDER BY created_at, token_id"
        ).fetchall()
    return [Token(*row) for row in rows]


def revoke(workspace: Path, token_id: str) -> bool:
    """Revoke a token; False when no active token has that id."""
    with connect(workspace) as con:
        cur = con.execute(
            "UPDATE tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
            (now(), token_id),
        )
        return cur.rowcount > 0


def verify(workspace: Path, text: str) -> Token | None:
    """The active token whose full text is ``text``, or None."""
    if not text.startswith(PREFIX) or text.count("_") < 2:
        return None
    token_id = text[len(PREFIX) :].split("_", 1)[0]
    with connect(workspace) as con:
        row = con.execute(
            "SELECT token_id, name, created_at, revoked_at, rate_per_minute, secret_sha256 "
            "FROM tokens WHERE token_id = ?",
            (token_id,),
        ).fetchone()
    if row is None or not hmac.compare_digest(row[5], _digest(text)):
        return None
    token = Token(*row[:5])
    return token if token.active else None


def any_active(workspace: Path) -> bool:
    """Whether at least one token can be used."""
    return any(t.active for t in listed(workspace))
