"""JSON and server-sent-event POSTs for every HTTP provider: retries, backoff, error mapping.

The LLM providers keep one :class:`HTTPChat` each; the embedder and the reranker use
:func:`post_json`. Nothing above this module sees an ``httpx`` exception: timeouts become
``ProviderTimeout``, everything else ``ProviderError`` (with ``status_code`` when the server
answered).

``timeout_s`` is the limit of the whole call, retries and waits included (issue 23: a hung
endpoint took 362 s with a 120 s limit, because each of three attempts got 120 s again). httpx
has no such total limit - its timeouts bound each connect and each read, so a server that
trickles a byte a second never times out - so every attempt gets what is left of the call's
time, the body is read in pieces with the clock checked after each, and a watchdog shuts the
connection when the time is up in the middle of a read. A retry that would start after the
time is up is not made. The official SDKs were weighed for this job and not taken: their
``timeout`` is the same per-read httpx timeout and their ``max_retries`` gives every attempt
the full timeout again, so they would need this same bookkeeping on top.
"""

from __future__ import annotations

import email.utils
import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from tablerag.errors import ProviderError, ProviderTimeout

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
#: Longest wait for a TCP connection, within the call's time.
CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed request is repeated.

    Timeouts, connection failures, HTTP 429 and 5xx are retried; other errors are not.
    """

    max_retries: int = 2
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0

    def delay_s(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based).

        ``Retry-After`` (seconds or an HTTP date) wins when the server sends it; the wait is
        capped at ``max_delay_s`` either way.

        Example:
            >>> policy = RetryPolicy(base_delay_s=0.5, max_delay_s=4)
            >>> [policy.delay_s(n) for n in range(5)]
            [0.5, 1.0, 2.0, 4.0, 4.0]
            >>> policy.delay_s(0, retry_after="3")
            3.0
            >>> policy.delay_s(0, retry_after="120")
            4.0
        """
        wait = self.base_delay_s * (2**attempt)
        if retry_after:
            parsed = _parse_retry_after(retry_after)
            if parsed is not None:
                wait = parsed
        return float(min(max(wait, 0.0), self.max_delay_s))


def _parse_retry_after(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


def iter_sse(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Parse server-sent events into ``(event, data)`` pairs (event is "" when unnamed).

    Example:
        >>> list(iter_sse(["event: ping", "data: {}", "", ": comment", "data: a", "data: b", ""]))
        [('ping', '{}'), ('', 'a\\nb')]
    """
    event, data = "", list[str]()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", list[str]()
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield event, "\n".join(data)


class _Retry(Exception):  # noqa: N818 - internal control flow, never leaves this module
    def __init__(self, error: ProviderError, retry_after: str | None = None) -> None:
        super().__init__(str(error))
        self.error, self.retry_after = error, retry_after


class HTTPChat:
    """POSTs to one API base URL with the provider's headers, retrying what is worth retrying.

    Args:
        provider: Backend name used in error messages (``openai``, ``anthropic``).
        base_url: API base URL, e.g. ``https://api.openai.com/v1``.
        headers: Extra headers (auth, API version).
        retry: The retry policy.
        sleep: Wait function (tests may replace it to record waits).
    """

    def __init__(
        self,
        provider: str,
        base_url: str,
        headers: dict[str, str],
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.provider, self.base_url = provider, base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self.sleep = sleep
        self.waits: list[float] = []
        self._client = httpx.Client(
            headers={"Content-Type": "application/json", **headers}, follow_redirects=True
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def post(self, path: str, payload: dict[str, Any], *, timeout_s: float) -> Any:
        """POST JSON and return the decoded JSON reply.

        Raises:
            ProviderTimeout: no whole reply within ``timeout_s`` (retries included).
            ProviderError: HTTP error, unreachable server or a reply that is not JSON.
        """
        url = f"{self.base_url}{path}"
        until = time.monotonic() + timeout_s

        def attempt() -> Any:
            with self._map_errors(url, timeout_s, until):
                response = self._send(url, payload, until)
                try:
                    raw = _read_body(response, until)
                finally:
                    response.close()
                text = raw.decode(response.encoding or "utf-8", "replace")
                self._check(url, response, text)
            try:
                return json.loads(text)
            except ValueError as exc:
                raise ProviderError(
                    f"{self.provider} at {url!r} did not answer with JSON (malformed JSON "
                    f"{text[:80]!r}); check that the base URL is the API's "
                    "(usually ending in /v1).",
                    provider=self.provider,
                    status_code=response.status_code,
                ) from exc

        return self._with_retries(attempt, until)

    def _send(self, url: str, payload: dict[str, Any], until: float) -> httpx.Response:
        """Send the request and wait for the headers, for at most what is left until ``until``."""
        left = until - time.monotonic()
        if left <= 0:
            raise httpx.TimeoutException("no time left for another attempt")
        timeout = httpx.Timeout(left, connect=min(left, CONNECT_TIMEOUT_S))
        request = self._client.build_request("POST", url, json=payload, timeout=timeout)
        return self._client.send(request, stream=True)

    def stream(
        self, path: str, payload: dict[str, Any], *, timeout_s: float
    ) -> Iterator[tuple[str, str]]:
        """POST JSON and yield the server-sent events of the reply.

        Failures before the first event are retried like :meth:`post`; a failure mid-stream
        is raised, since the caller has already seen part of the answer.

        Raises:
            ProviderTimeout: the stream did not end within ``timeout_s`` (retries included).
            ProviderError: HTTP error or unreachable server.
        """
        url = f"{self.base_url}{path}"
        until = time.monotonic() + timeout_s

        def attempt() -> tuple[httpx.Response, Iterator[str]]:
            with self._map_errors(url, timeout_s, until):
                response = self._send(url, payload, until)
                if response.status_code >= 400:
                    try:
                        body = _read_body(response, until).decode("utf-8", "replace")
                    finally:
                        response.close()
                    self._check(url, response, body)
                return response, response.iter_lines()

        response, lines = self._with_retries(attempt, until)
        try:
            with (
                _ErrorMap(self.provider, url, timeout_s, until, retry=False),
                _Watchdog(response, until),
            ):
                for event in iter_sse(lines):
                    yield event
                    if time.monotonic() > until:
                        raise httpx.ReadTimeout("stream ran past its time limit")
        finally:
            response.close()

    def _with_retries(self, attempt: Callable[[], Any], until: float) -> Any:
        """Run ``attempt`` until it succeeds, retrying what is retryable while time is left."""
        for number in range(self.retry.max_retries + 1):
            try:
                return attempt()
            except _Retry as retry:
                wait = self.retry.delay_s(number, retry.retry_after)
                # a retry that could not start before the time is up is not made
                if number == self.retry.max_retries or time.monotonic() + wait >= until:
                    raise retry.error from retry.error.__cause__
                self.waits.append(wait)
                self.sleep(wait)
        raise AssertionError("unreachable")

    def _check(self, url: str, response: httpx.Response, body: str) -> None:
        status = response.status_code
        if status < 400:
            return
        if status in (401, 403):
            hint = "check the API key"
        elif status == 404:
            hint = "check the model name and the base URL"
        elif status in RETRY_STATUS:
            hint = "the server is busy or failing; try again later"
        else:
            hint = "check the request parameters"
        error = ProviderError(
            f"{self.provider} at {url!r} answered HTTP {status}: {body[:200]!r}; {hint}.",
            provider=self.provider,
            status_code=status,
        )
        if status in RETRY_STATUS:
            raise _Retry(error, response.headers.get("retry-after"))
        raise error

    def _map_errors(self, url: str, timeout_s: float, until: float) -> _ErrorMap:
        return _ErrorMap(self.provider, url, timeout_s, until)


def _read_body(response: httpx.Response, until: float) -> bytes:
    """The body of a streamed response, read in pieces; a body still arriving at ``until`` is
    a timeout (a server trickling bytes resets httpx's read timeout with each one).

    Raises:
        httpx.TimeoutException: the body did not arrive before ``until``.
        httpx.TransportError: the connection failed (or the watchdog shut it at ``until``).
    """
    chunks: list[bytes] = []
    with _Watchdog(response, until):
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            if time.monotonic() > until:
                raise httpx.ReadTimeout("the reply was still arriving when the time was up")
    return b"".join(chunks)


class _Watchdog:
    """Shuts the response's socket at ``until``, ending a read that is stuck waiting for data
    (httpx's read timeout, set when the request started, may end later)."""

    def __init__(self, response: httpx.Response, until: float) -> None:
        stream = response.extensions.get("network_stream")
        self._socket = stream.get_extra_info("socket") if stream is not None else None
        self._timer = threading.Timer(max(0.0, until - time.monotonic()), self._shut)
        self._timer.daemon = True

    def _shut(self) -> None:
        if isinstance(self._socket, socket.socket):
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed: nothing left to stop
                return

    def __enter__(self) -> None:
        if self._socket is not None:
            self._timer.start()

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()


def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str | None,
    timeout_s: float,
    provider: str,
    retry: RetryPolicy | None = None,
) -> Any:
    """POST ``payload`` as JSON to ``url`` with a bearer key and return the decoded JSON reply.

    Args:
        url: The full endpoint URL.
        payload: The JSON body.
        api_key: Sent as ``Authorization: Bearer``; None sends no key.
        timeout_s: Wall-clock limit of the call, retries included.
        provider: Backend name used in error messages.
        retry: The retry policy; by default the request is not repeated.

    Raises:
        ProviderTimeout: no reply within ``timeout_s``.
        ProviderError: the server could not be reached, answered with an HTTP error or with
            something that is not JSON.
    """
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    chat = HTTPChat(provider, url, headers, retry or RetryPolicy(max_retries=0))
    try:
        return chat.post("", payload, timeout_s=timeout_s)
    finally:
        chat.close()


class _ErrorMap:
    """Context manager turning httpx exceptions into retryable provider errors.

    A connection that fails after ``until`` is a timeout: the watchdog shut it.
    """

    def __init__(
        self, provider: str, url: str, timeout_s: float, until: float, *, retry: bool = True
    ) -> None:
        self.provider, self.url, self.timeout_s, self.retry = provider, url, timeout_s, retry
        self.until = until

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> Literal[False]:
        late = isinstance(exc, httpx.TransportError) and time.monotonic() >= self.until
        if isinstance(exc, httpx.TimeoutException) or late:
            error: ProviderError = ProviderTimeout(
                f"{self.provider} at {self.url!r} did not answer within {self.timeout_s:g} s "
                "(retries included); raise the time limit (llm_timeout_s, answer_max_seconds) or "
                "check the server.",
                provider=self.provider,
            )
        elif isinstance(exc, httpx.TransportError):
            error = ProviderError(
                f"Cannot reach {self.provider} at {self.url!r} ({exc}); start the server or "
                "fix the base URL.",
                provider=self.provider,
            )
        else:
            return False
        if not self.retry:
            raise error from exc
        error.__cause__ = exc
        raise _Retry(error)


def loads_event(provider: str, data: str) -> dict[str, Any]:
    """Decode one event's JSON data.

    Raises:
        ProviderError: the data is not a JSON object.
    """
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ProviderError(
            f"{provider} sent a malformed stream event ({data[:80]!r}); check the server.",
            provider=provider,
        ) from exc
    if not isinstance(value, dict):
        raise ProviderError(
            f"{provider} sent a stream event that is not an object ({data[:80]!r}); check "
            "the server.",
            provider=provider,
        )
    return value
