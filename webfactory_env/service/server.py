"""The executor service on uvicorn: the socket, the server's limits, and start-up order.

uvicorn (h11) serves every connection from one event loop, so a client that stalls holds
nothing but its own socket; on top of its keep-alive timeout and header size limit this
module adds what it lacks: a header read timeout (a connection that has not sent a whole
request head within `header_timeout_s` gets a 408 and is closed), the head size limit
however the head arrives (431), and JSON bodies for the 400 it sends for malformed HTTP
(`Content-Length: abc`, a broken request line).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import sys
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from webfactory_env.executor.web import WebExecutor
from webfactory_env.service.app import ExecutorService, Limits, RedactingFilter, make_app
from webfactory_env.service.privileges import drop_privileges, parse_bind
from webfactory_env.service.worker import BrowserWorker

log = logging.getLogger("webfactory.executor_web")

BACKLOG = 1024  # connections the kernel queues before the loop accepts them
MAX_HEADER_BYTES = 16 * 1024
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 512  # past this, uvicorn answers 503 at once
_HEAD_END = re.compile(rb"\r?\n\r?\n")


def _raw_json(status: int, reason: str, body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(data)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + data


class HardenedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a header read timeout and JSON error bodies."""

    header_timeout_s = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._head = b""  # the request head so far (see `_head_too_large`)
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # the next request's head starts: it has a deadline
            if self._head_too_large(data):
                return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_header_timer()  # the head is complete (or the connection failed)
            self._head = b""

    def _head_too_large(self, data: bytes) -> bool:
        """Past `MAX_HEADER_BYTES` of request head, however it arrives: h11's own limit
        counts only a head still incomplete after a read, so a large one sent in one write
        passed it. Answers 431 and closes."""
        self._head += data
        end = _HEAD_END.search(self._head)
        size = end.end() if end else len(self._head)
        if size <= MAX_HEADER_BYTES:
            self._head = self._head[: MAX_HEADER_BYTES + 4]
            return False
        self._disarm_header_timer()
        self.transport.write(
            _raw_json(
                431,
                "Request Header Fields Too Large",
                {
                    "error": f"send a request head (request line and headers) of at most"
                    f" {MAX_HEADER_BYTES} bytes"
                },
            )
        )
        self.transport.close()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # arms the keep-alive timeout for the idle wait

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is being written: that is not a stalled head
        self.transport.write(
            _raw_json(
                408,
                "Request Timeout",
                {"error": f"the request head did not arrive within {self.header_timeout_s:g} s"},
            )
        )
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        # h11's message can quote the offending bytes: say what kind of thing is wrong only.
        self.transport.write(
            _raw_json(
                400,
                "Bad Request",
                {
                    "error": "malformed HTTP request",
                    "detail": "the request line or a header does not follow HTTP/1.1"
                    " (a Content-Length that is not a number, say)",
                },
            )
        )
        self.transport.close()


def listen_socket(host: str, port: int) -> socket.socket:
    """A bound socket (before privileges are dropped: a low port stays possible)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(False)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, telling `ready` when it listens."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._ready()


def serve(
    *,
    bind: str | None = None,
    user: str | None = None,
    family: str = "shop",
    seed: int = 0,
    allowed_origins: tuple[str, ...] = (),
    ready: Callable[[str, int], None] | None = None,
    limits: Limits | None = None,
    header_timeout_s: float = 10.0,
) -> None:
    """Run the service until SIGINT or SIGTERM. `ready(host, port)` is called once listening."""
    from webfactory_env.sitegen import generate_site

    limits = limits or Limits()
    host, port = parse_bind(bind or os.environ.get("WEB_EXECUTOR_BIND_ADDR"))
    sock = listen_socket(host, port)
    # Load every module first: the interpreter's own files may be readable by root only.
    import playwright.sync_api  # noqa: F401

    site = generate_site(family, seed)
    identity = drop_privileges(user or os.environ.get("WEB_EXECUTOR_USER", "nobody"))
    worker = BrowserWorker(limits.max_pending)
    executor = worker.call(lambda: WebExecutor(site, allowed_origins=allowed_origins))
    service = ExecutorService(worker, executor, identity, limits)
    worker.call(service.refresh_facts)
    _log_to_stderr(service)
    protocol = type("Protocol", (HardenedH11Protocol,), {"header_timeout_s": header_timeout_s})
    config = uvicorn.Config(
        make_app(service),
        http=protocol,
        ws="none",
        lifespan="off",
        backlog=BACKLOG,
        timeout_keep_alive=KEEP_ALIVE_S,
        limit_concurrency=MAX_CONNECTIONS,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        access_log=False,  # URLs and sizes only, but nothing a deployment needs from us
        server_header=False,
        log_config=None,
    )
    bound_host, bound_port = sock.getsockname()[:2]
    server = _Server(
        config, lambda: ready(str(bound_host), int(bound_port)) if ready is not None else None
    )
    try:
        server.run(sockets=[sock])
    finally:
        worker.call(executor.close, 60)
        worker.shutdown()
        sock.close()


def _log_to_stderr(service: ExecutorService) -> None:
    """Log lines on stderr, with every in-flight redacted value scrubbed from them."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(service.secrets))
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
