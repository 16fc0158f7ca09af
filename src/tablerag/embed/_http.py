"""A small JSON-over-HTTP POST (stdlib only) with errors mapped to ProviderError."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tablerag.errors import ProviderError, ProviderTimeout


def post_json(
    url: str, payload: dict[str, Any], *, api_key: str | None, timeout_s: float, provider: str
) -> Any:
    """POST ``payload`` as JSON to ``url`` and return the decoded JSON reply.

    Raises:
        ProviderTimeout: no reply within ``timeout_s``.
        ProviderError: the server could not be reached, answered with an HTTP error or with
            something that is not JSON.
    """
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:300].decode("utf-8", "replace")
        hint = "check the API key" if exc.code in (401, 403) else "check the model name and URL"
        raise ProviderError(
            f"{provider} at {url!r} answered HTTP {exc.code}: {detail!r}; {hint}.",
            provider=provider,
            status_code=exc.code,
        ) from exc
    except TimeoutError as exc:
        raise ProviderTimeout(
            f"{provider} at {url!r} did not answer within {timeout_s} s; raise the timeout or "
            "check the server.",
            provider=provider,
        ) from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise ProviderTimeout(
                f"{provider} at {url!r} did not answer within {timeout_s} s; raise the timeout "
                "or check the server.",
                provider=provider,
            ) from exc
        raise ProviderError(
            f"Cannot reach {provider} at {url!r} ({exc.reason}); start the server or fix the URL.",
            provider=provider,
        ) from exc
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ProviderError(
            f"{provider} at {url!r} did not answer with JSON; check that the URL is the API's "
            "base URL (usually ending in /v1).",
            provider=provider,
        ) from exc
