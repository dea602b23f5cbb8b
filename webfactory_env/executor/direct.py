"""A Playwright connection to a `BrowserServer`'s Chromium straight over its Unix socket.

Playwright's own `connect` sends every message through this process's Playwright driver
(Node.js), which relays it to the server's WebSocket and the answer back: each call into a
page is parsed and written twice more, and with envs in worker processes that relay cost
more CPU per step than our Python did. Here the env's process speaks the WebSocket protocol
(RFC 6455: an HTTP upgrade, then framed messages) to the server itself and hands each
message to a Playwright `Connection`, as the driver's pipe would. Only `ws+unix://` servers
(ours) are reached this way; the driver stays for everything else.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import struct
from collections.abc import Callable
from typing import Any

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


def split_endpoint(endpoint: str) -> tuple[str, str]:
    """(socket path, request path) of `ws+unix:///dir/s:/token`."""
    socket_path, _, path = endpoint.removeprefix("ws+unix://").rpartition(":")
    return socket_path, path or "/"


class UnixWebSocket(asyncio.Protocol):
    """A WebSocket client over a Unix socket: text messages out, whole messages in.

    Frames are read as the bytes arrive (an asyncio protocol, no reader task): a reply is
    handed on in the loop turn that reads it, one turn sooner than a task awaiting a
    stream could, and each call into a page waits for one such reply."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._parts: list[bytes] = []
        self._head: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._ended: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._on_message: Callable[[Any], None] | None = None
        self._closed = False

    @classmethod
    async def open(cls, endpoint: str, headers: dict[str, str]) -> UnixWebSocket:
        """Connect and upgrade; `OSError` when nothing listens, `ConnectionError` when what
        answers refuses the upgrade."""
        socket_path, path = split_endpoint(endpoint)
        _, socket = await asyncio.get_running_loop().create_unix_connection(cls, socket_path)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            "Host: localhost",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        assert socket._transport is not None
        socket._transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            head = (await socket._head).decode("latin-1").split("\r\n")
        except ConnectionError:
            head = ["(no answer)"]
        for line in head[1:]:
            name, sep, value = line.partition(":")
            if sep:
                socket.headers.append({"name": name.strip().lower(), "value": value.strip()})
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        answered = {h["name"]: h["value"] for h in socket.headers}
        if " 101 " not in head[0] + " " or answered.get("sec-websocket-accept") != accept:
            socket.close()
            raise ConnectionError(f"the browser server refused the connection: {head[0]}")
        return socket

    def send(self, message: Any) -> None:
        """One JSON message as a text frame (masked, as a client's must be)."""
        if not self._closed:
            self._write(TEXT, json.dumps(message, allow_nan=False).encode())

    def _write(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        mask = os.urandom(4)
        # XOR with the repeated key as one big integer: a loop in C, not in Python.
        repeated = (mask * (n // 4 + 1))[:n]
        body = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")
        assert self._transport is not None
        self._transport.write(head + mask + body)

    async def serve(
        self, on_message: Callable[[Any], None], on_close: Callable[[str | None], None]
    ) -> None:
        """Hand every message to `on_message` until the connection ends, then `on_close`."""
        self._on_message = on_message
        reason: str | None = None
        try:
            self._read_frames()  # what came before anyone listened
            reason = await asyncio.shield(self._ended)
        finally:
            self.close()
            on_close(reason)

    # ------------------------------------------------------------ asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._head.done():
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            self._head.set_result(bytes(self._buffer[: end + 4]))
            del self._buffer[: end + 4]
        if self._on_message is not None:
            self._read_frames()

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        if not self._head.done():
            self._head.set_exception(ConnectionError("the connection ended"))
        # Ended without a closing frame: mid-message, or between two (as a stream read
        # of the next frame would have found it).
        name = type(exc).__name__ if exc is not None else "IncompleteReadError"
        self._end(f"the browser server's connection ended ({name})")

    def _end(self, reason: str | None) -> None:
        if not self._ended.done():
            self._ended.set_result(reason)

    def _read_frames(self) -> None:
        """Hand on every whole message the buffer holds; answer pings; end at a close."""
        buffer = self._buffer
        while len(buffer) >= 2 and not self._ended.done():
            first, n, start = buffer[0], buffer[1] & 0x7F, 2
            # A server's frames are not masked (RFC 6455, section 5.1).
            if n == 126:
                if len(buffer) < 4:
                    return
                (n,) = struct.unpack_from("!H", buffer, 2)
                start = 4
            elif n == 127:
                if len(buffer) < 10:
                    return
                (n,) = struct.unpack_from("!Q", buffer, 2)
                start = 10
            if len(buffer) < start + n:
                return
            data = bytes(buffer[start : start + n])
            del buffer[: start + n]
            opcode = first & 0x0F
            if opcode == CLOSE:
                self._end(None)
                self.close()
            elif opcode == PING:
                self._write(PONG, data)
            elif opcode != PONG:
                self._parts.append(data)
                if first & 0x80:
                    text, self._parts = b"".join(self._parts), []
                    try:
                        message = json.loads(text)
                    except ValueError:
                        self._end("the browser server sent a message that is not JSON")
                        self.close()
                        return
                    assert self._on_message is not None
                    self._on_message(message)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._transport is not None:
                self._transport.close()


async def connect_browser(browser_type: Any, endpoint: str, timeout_ms: float) -> Any:
    """Playwright's (async) `Browser` of the `BrowserServer` at `endpoint`, connected over
    its socket by this process (see the module docstring); `browser_type` is Playwright's
    async `BrowserType` whose connection the new one shares its loop with."""
    from playwright._impl.browser import Browser
    from playwright._impl.connection import Connection
    from playwright._impl.errors import Error

    parent = browser_type._connection
    deadline = asyncio.get_running_loop().time() + timeout_ms / 1000
    headers = {"x-playwright-browser": browser_type.name}
    socket = await asyncio.wait_for(UnixWebSocket.open(endpoint, headers), timeout_ms / 1000)
    connection = Connection(
        parent._loop,
        parent.local_utils(),
        parent._instrumentation,
        socket.headers,
        parent._dispatcher_fiber,
    )
    connection.mark_as_remote()
    connection.onmessage = socket.send
    connection.on("close", socket.close)
    browser: Any = None

    def dispatch(message: Any) -> None:
        try:
            connection.dispatch(message)
        except Exception as exc:  # a message Playwright cannot take: the connection ends
            connection.close(f"{type(exc).__name__}: {exc}")

    def on_close() -> None:
        # As Playwright's connect does: everything of a lost browser reads as closed.
        for context in browser.contexts if browser else []:
            for page in context.pages:
                page._on_close()
            context._on_close()
        if browser is not None:
            asyncio.get_running_loop().call_soon(browser._did_close)

    connection.on("close", on_close)
    serving = asyncio.ensure_future(socket.serve(dispatch, connection.close))
    serving.add_done_callback(lambda task: task.cancelled() or task.exception())
    try:
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        playwright = await asyncio.wait_for(connection.initialize_playwright(), remaining)
    except BaseException:
        connection.close()
        raise
    launched = playwright._initializer.get("preLaunchedBrowser")
    if not launched:
        connection.close()
        raise Error("the endpoint serves no browser: is it a BrowserServer?")
    browser = Browser.from_(launched)
    browser._should_close_connection_on_close = True
    browser.on("disconnected", lambda _: connection.close())
    browser._connect_to_browser_type(browser_type, {}, None)
    return browser


def connect(chromium: Any, endpoint: str, timeout_ms: float) -> Any:
    """`connect_browser` for Playwright's sync API: `chromium` is its sync `BrowserType`, and
    the sync `Browser` comes back."""
    from playwright._impl._sync_base import mapping

    impl = chromium._sync(connect_browser(chromium._impl_obj, endpoint, timeout_ms))
    return mapping.from_impl(impl)
