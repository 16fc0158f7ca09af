"""Where an HTTP provider's base URL and key come from; loopback servers may run without a key."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

OPENAI_URL = "https://api.openai.com/v1"


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


def setting(explicit: str | None, *env_names: str) -> str | None:
    """``explicit`` when given, else the first of ``env_names`` set to a non-empty value.

    Example:
        >>> setting("http://a/v1", "PATH"), setting(None, "TABLERAG_NO_SUCH_VARIABLE")
        ('http://a/v1', None)
    """
    return explicit or next((os.environ[n] for n in env_names if os.environ.get(n)), None)


def openai_endpoint(base_url: str | None, api_key: str | None) -> tuple[str, str | None]:
    """Base URL (no trailing slash) and key of an OpenAI-compatible API.

    The URL is ``base_url``, else ``TABLERAG_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``, else
    OpenAI itself; the key is ``api_key``, else ``TABLERAG_OPENAI_API_KEY``, else
    ``OPENAI_API_KEY``, else None.

    Example:
        >>> openai_endpoint("http://localhost:11434/v1/", "k")
        ('http://localhost:11434/v1', 'k')
    """
    url = setting(base_url, "TABLERAG_OPENAI_BASE_URL", "OPENAI_BASE_URL") or OPENAI_URL
    return url.rstrip("/"), setting(api_key, "TABLERAG_OPENAI_API_KEY", "OPENAI_API_KEY")
