"""Who may call the API: loopback callers, or holders of an API token, each within its rate.

A server bound to loopback (the default) answers local callers without a token; one bound to
any other address requires ``Authorization: Bearer <token>`` on every ``/v1`` request
(``tablerag token create``). A token's requests are counted over a sliding minute; above its
rate (its own, else ``serve_rate_limit_per_minute``) the caller gets 429 and a Retry-After.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from tablerag.api.errors import ApiError, RateLimited
from tablerag.store import tokens

WINDOW_S = 60.0


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``.

    Example:
        >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
        (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Caller:
    """Who made a request: a token's id, or None for a local caller without one."""

    token_id: str | None


@dataclass
class Access:
    """The access rules of one server.

    Args:
        workspace: where the tokens are kept.
        require_token: every request needs a token (the server is not on loopback).
        rate_per_minute: the default rate of a token.
    """

    workspace: Path
    require_token: bool
    rate_per_minute: int
    _seen: dict[str, deque[float]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def check(self, authorization: str | None) -> Caller:
        """The caller of a request with this ``Authorization`` header.

        Raises:
            ApiError: 401, no token where one is needed, or a token that is unknown or revoked.
            RateLimited: the token's rate is used up.
        """
        if not authorization:
            if self.require_token:
                raise _unauthorized("This server needs an API token")
            return Caller(None)
        scheme, _, text = authorization.partition(" ")
        if scheme.lower() != "bearer" or not text.strip():
            raise _unauthorized("The Authorization header must be 'Bearer <token>'")
        token = tokens.verify(self.workspace, text.strip())
        if token is None:
            raise _unauthorized("The API token is unknown or revoked")
        self._count(token.token_id, token.rate_per_minute or self.rate_per_minute)
        return Caller(token.token_id)

    def _count(self, token_id: str, rate: int) -> None:
        now = time.monotonic()
        with self._lock:
            seen = self._seen.setdefault(token_id, deque())
            while seen and now - seen[0] >= WINDOW_S:
                seen.popleft()
            if len(seen) >= rate:
                wait = WINDOW_S - (now - seen[0])
                raise RateLimited(
                    f"This token may make {rate} requests a minute; try again in "
                    f"{wait:.0f} s, or ask the operator for a higher rate "
                    "(`tablerag token create --rate-per-minute`).",
                    retry_after_s=wait,
                )
            seen.append(now)


def _unauthorized(what: str) -> ApiError:
    return ApiError(
        401,
        "unauthorized",
        f"{what}: send 'Authorization: Bearer <token>'; the operator creates tokens with "
        "`tablerag token create --name NAME`.",
        headers={"WWW-Authenticate": "Bearer"},
    )
