"""A loopback HTTP server speaking the OpenAI and Anthropic chat shapes, for provider tests.

Real sockets on 127.0.0.1, real server-sent events, and programmable failures: each request gets
the next queued :class:`Reply` (status, headers, JSON or raw bytes, a delay, SSE events). Every
request is recorded (path, headers, decoded JSON body).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One programmed answer."""

    status: int = 200
    body: Any = None
    """A JSON-able value, or raw ``bytes`` sent as they are (malformed JSON)."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (longer than the client's timeout = a timeout)."""
    events: tuple[str, ...] | None = None
    """Server-sent-event blocks (e.g. ``'data: {...}'``); the reply is then a stream."""
    event_delay_s: float = 0.0


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: Any


def openai_reply(
    text: str | None,
    *,
    prompt_tokens: int = 11,
    completion_tokens: int = 3,
    finish_reason: str = "stop",
    usage: bool = True,
) -> Reply:
    """A ``/chat/completions`` answer."""
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": text},
            }
        ],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(body=body)


def openai_stream(pieces: list[str], *, event_delay_s: float = 0.0) -> Reply:
    """A streamed ``/chat/completions`` answer, one delta per piece, then ``[DONE]``."""
    events = [
        "data: "
        + json.dumps({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        for p in pieces
    ]
    events.append(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    )
    events.append("data: [DONE]")
    return Reply(events=tuple(events), event_delay_s=event_delay_s)


def anthropic_reply(
    text: str, *, input_tokens: int = 13, output_tokens: int = 5, stop_reason: str = "end_turn"
) -> Reply:
    """A ``/v1/messages`` answer."""
    return Reply(
        body={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "served-claude",
            "content": [{"type": "text", "text": text}] if text else [],
            "stop_reason": stop_reason,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }
    )


def anthropic_stream(pieces: list[str], *, event_delay_s: float = 0.0) -> Reply:
    """A streamed ``/v1/messages`` answer with Anthropic's event names."""

    def block(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps(data)}"

    events = [
        block(
            "message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 21}}}
        ),
        block(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        'event: ping\ndata: {"type": "ping"}',
    ]
    events += [
        block(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
        )
        for p in pieces
    ]
    events += [
        block(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": len(pieces)},
            },
        ),
        block("message_stop", {"type": "message_stop"}),
    ]
    return Reply(events=tuple(events), event_delay_s=event_delay_s)


def error_reply(status: int, message: str = "boom", *, retry_after: str | None = None) -> Reply:
    """An HTTP error in the shape both APIs use."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, body={"error": {"message": message}}, headers=headers)


class LoopbackServer:
    """The server; use as a context manager. ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """Base URL of the server."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, *replies: Reply) -> None:
        """Queue answers for the next requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        # 418: a status no client retries, so a missing reply fails the test at once
        return error_reply(418, "the test queued no reply for this request")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
                return

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                reply = server._next(
                    Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                try:
                    if reply.events is not None:
                        self._send_events(reply)
                    else:
                        self._send_body(reply)
                except OSError:  # the client gave up (timeout test); nothing to answer
                    return

            def _send_body(self, reply: Reply) -> None:
                data = (
                    reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                )
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_events(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in reply.events or ():
                    self.wfile.write(f"{event}\n\n".encode())
                    self.wfile.flush()
                    if reply.event_delay_s and server._stopping.wait(reply.event_delay_s):
                        return
                self.close_connection = True

        return Handler
