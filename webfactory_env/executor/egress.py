"""Egress for sessions with allowed origins: origins compared as a browser does, and the
proxy every connection of such a session must go through.

Request interception sees only the first request of a redirect chain and no WebSocket, so
it cannot keep a page inside an allow-list. `EgressProxy` can: a browser context whose
proxy it is (loopback included, `<-loopback>`) opens every HTTP request, every redirect
hop, every WebSocket and every tunnel through it, and it connects only to an allowed
`host:port`. Anything else is refused before a byte reaches the other address: a plain
request gets its connection closed (the page sees a network error), a CONNECT a 403.
WebTransport (HTTP/3) and WebRTC cannot use an HTTP proxy, so with one set Chromium does not
open them at all (`--webrtc-ip-handling-policy=disable_non_proxied_udp`, no QUIC).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterable
from urllib.parse import urlsplit

from webfactory_env.core.errors import ConfigError

log = logging.getLogger(__name__)

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
Origin = tuple[str, str, int]  # (scheme, host, port), lower-case, port always given
HEAD_LIMIT = 64 * 1024  # request line and headers
HEAD_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 10.0


def origin_of(url: str) -> Origin | None:
    """(scheme, host, port) of an absolute http(s)/ws(s) URL, compared as browsers do:
    scheme and host case-insensitively, a trailing dot dropped, the default port filled in;
    None for anything else (no host, another scheme, a port that is no port)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def parse_origins(origins: Iterable[str]) -> tuple[Origin, ...]:
    """The allow-list, each entry checked: `scheme://host[:port]`, nothing after it."""
    parsed = []
    for text in origins:
        origin = origin_of(text)
        rest = urlsplit(text.strip()).path.strip("/") if origin else ""
        if origin is None or origin[0] not in ("http", "https") or rest:
            raise ConfigError(
                f"allowed origin {text!r} must look like http://host:port or https://host"
            )
        parsed.append(origin)
    return tuple(parsed)


def show(origin: Origin) -> str:
    scheme, host, port = origin
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + ("" if DEFAULT_PORTS[scheme] == port else f":{port}")


class EgressProxy:
    """An HTTP proxy on 127.0.0.1 that connects only to the allowed origins' host:port.

    It runs on its own thread and event loop (the browser talks to it while the session's
    thread waits inside Playwright). `refused` lists what it turned away, newest last.
    """

    def __init__(self, allowed: Iterable[Origin], quiet: Iterable[str] = ()) -> None:
        self.allowed = {(host, port) for _scheme, host, port in allowed}
        # Hosts refused without a note: the fake origin, whose requests interception
        # answers, and which Chromium only preconnects to.
        self.quiet = {h.lower() for h in quiet}
        self.refused: list[str] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._run, name="egress-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._server is None:
            raise RuntimeError("the egress proxy did not start")
        self.port = int(self._server.sockets[0].getsockname()[1])

    @property
    def server(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._server = await asyncio.start_server(
                self._handle, "127.0.0.1", 0, limit=HEAD_LIMIT
            )

        try:
            self._loop.run_until_complete(start())
        finally:
            self._ready.set()
        self._loop.run_forever()

    def close(self) -> None:
        if self._loop.is_closed():
            return

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        with contextlib.suppress(Exception):
            self._loop.close()

    # ---------------------------------------------------------------- serving
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
            method, target, rest = _request_line(head)
            if method == "CONNECT":  # a tunnel: TLS, or a WebSocket through the proxy
                host, _, port_text = target.rpartition(":")
                host = host.strip("[]").rstrip(".").lower()
                port = int(port_text) if port_text.isdigit() else -1
                if (host, port) not in self.allowed:
                    if host not in self.quiet:
                        self._refuse(f"CONNECT {target}")
                    writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                    return
                upstream = await self._connect(host, port)
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await self._pipe(reader, writer, *upstream)
                return
            origin = origin_of(target)
            if origin is None or (origin[1], origin[2]) not in self.allowed:
                # The origin only: a path or query can hold what was typed into a form.
                self._refuse(f"{method} {show(origin) if origin else '(no origin)'}")
                return  # the connection closes with no answer: a network error in the page
            parts = urlsplit(target)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            upstream = await self._connect(origin[1], origin[2])
            upstream[1].write(f"{method} {path} HTTP/1.1\r\n".encode() + _forwarded(rest))
            await self._pipe(reader, writer, *upstream)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # a client or server that went away, or a request that is no request
        except TimeoutError:
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    def _refuse(self, what: str) -> None:
        self.refused.append(what[:300])
        del self.refused[:-100]
        log.info("egress refused: %s", what[:300])

    @staticmethod
    async def _connect(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)

    @staticmethod
    async def _pipe(
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> None:
        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            finally:
                with contextlib.suppress(Exception):
                    dst.close()

        try:
            await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))
        finally:
            with contextlib.suppress(Exception):
                up_writer.close()


def _request_line(head: bytes) -> tuple[str, str, bytes]:
    line, _, rest = head.partition(b"\r\n")
    method, target, _version = line.decode("latin-1").split(" ", 2)
    return method.upper(), target, rest


def _forwarded(headers: bytes) -> bytes:
    """The request's headers for the origin server: no proxy headers, one request per
    connection (so every request of the page passes the allow-list check)."""
    kept = [
        line
        for line in headers.split(b"\r\n")
        if line and not line.lower().startswith((b"proxy-", b"connection:", b"keep-alive:"))
    ]
    return b"\r\n".join([*kept, b"Connection: close", b"", b""])
