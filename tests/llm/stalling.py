"""Loopback endpoints that misbehave in time: one that accepts and never answers, one that
trickles its answer a few bytes at a time, one that stalls in the middle of the body.

Raw sockets on 127.0.0.1 (the network plugin allows loopback only), one thread per connection;
``connections`` counts the attempts a client made.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Literal

Mode = Literal["hang", "trickle", "stall"]


def chat_body(text: str, finish_reason: str = "stop") -> bytes:
    """An OpenAI ``/chat/completions`` reply body."""
    return json.dumps(
        {
            "choices": [{"index": 0, "finish_reason": finish_reason, "message": {"content": text}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        }
    ).encode()


class StallingServer:
    """Use as a context manager; ``url`` is the OpenAI-style base URL (``.../v1``).

    Args:
        mode: ``hang`` reads the request and never answers; ``trickle`` sends the headers at
            once, then the body ``piece`` bytes every ``interval_s``; ``stall`` trickles half
            the body that way, then sends nothing more.
        body: the reply body (a chat completion).
        piece: bytes per trickled piece.
        interval_s: wait between trickled pieces.
    """

    def __init__(
        self,
        mode: Mode,
        *,
        body: bytes | None = None,
        piece: int = 1,
        interval_s: float = 0.2,
    ) -> None:
        self.mode, self.piece, self.interval_s = mode, piece, interval_s
        self.body = body if body is not None else chat_body("a slow answer")
        self.connections = 0
        self._stop = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.05)
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StallingServer:
        accept = threading.Thread(target=self._accept, daemon=True)
        accept.start()
        self._threads.append(accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            worker.start()
            self._threads.append(worker)

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(0.05)
            self._read_request(conn)
            try:
                if self.mode != "hang":
                    head = (
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(self.body)}\r\n\r\n"
                    )
                    conn.sendall(head.encode())
                if self.mode != "hang":
                    sent = self.body if self.mode == "trickle" else self.body[: len(self.body) // 2]
                    for start in range(0, len(sent), self.piece):
                        conn.sendall(sent[start : start + self.piece])
                        if self._stop.wait(self.interval_s):
                            return
                self._stop.wait()  # hang: never answer; stall: never finish
            except OSError:  # the client gave up and closed the connection
                return

    def _read_request(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data and not self._stop.is_set():
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                return
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length and not self._stop.is_set():
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                return
            rest += chunk
