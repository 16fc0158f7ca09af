"""Where an HTTP provider's base URL points: loopback servers may run without an API key."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_url(url: str) -> bool:
    """True when ``url`` points at this machine (localhost, 127.0.0.0/8, ::1).

    Example:
        >>> is_loopback_url("http://localhost:11434/v1"), is_loopback_url("http://127.0.0.1:8080")
        (True, True)
        >>> is_loopback_url("https://api.deepseek.com/v1"), is_loopback_url("http://[::1]:9/v1")
        (False, True)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
