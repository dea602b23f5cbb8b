"""The WebSocket an env speaks to a BrowserServer itself (executor/direct.py): whole JSON
messages both ways, of any size, through fragments and pings; a refused upgrade and a
server that goes away are errors, never a hang."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from webfactory_env.executor.direct import WS_GUID, UnixWebSocket, split_endpoint


def _run(coro: Any) -> Any:
    """`asyncio.run(coro)` on a thread of its own: Playwright's sync API (a browser test
    earlier in the process) leaves this thread's loop marked as running."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as exc:
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_an_endpoint_names_its_socket_and_its_path():
    assert split_endpoint("ws+unix:///tmp/wf-browser-x/s:/ab12") == ("/tmp/wf-browser-x/s", "/ab12")


async def _read_client_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    first, second = await reader.readexactly(2)
    assert second & 0x80, "a client's frames are masked"
    n = second & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", await reader.readexactly(2))
    elif n == 127:
        (n,) = struct.unpack("!Q", await reader.readexactly(8))
    mask = await reader.readexactly(4)
    data = await reader.readexactly(n)
    return first & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _server_frame(opcode: int, data: bytes, final: bool = True) -> bytes:
    head = (0x80 if final else 0) | opcode
    n = len(data)
    if n < 126:
        return struct.pack("!BB", head, n) + data
    if n < 1 << 16:
        return struct.pack("!BBH", head, 126, n) + data
    return struct.pack("!BBQ", head, 127, n) + data


async def _echo_server(path: str, accept: bool, seen: list) -> asyncio.AbstractServer:
    """A server that upgrades (or refuses), answers every text message with itself, the
    first one in two fragments after a ping, and closes after the message "bye"."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        seen.append(head)
        key = next(ln.split(":", 1)[1].strip() for ln in head.split("\r\n") if "Key" in ln)
        digest = hashlib.sha1((key + WS_GUID).encode()).digest()
        status = "101 Switching Protocols" if accept else "401 Unauthorized"
        writer.write(
            f"HTTP/1.1 {status}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {base64.b64encode(digest).decode()}\r\n\r\n".encode()
        )
        first = True
        while accept:
            opcode, data = await _read_client_frame(reader)
            if opcode == 0xA:  # the client's pong
                seen.append(("pong", data))
                continue
            if data == b'"bye"':
                writer.write(_server_frame(0x8, b""))
                break
            if first:
                writer.write(_server_frame(0x9, b"hi"))
                half = len(data) // 2
                writer.write(_server_frame(0x1, data[:half], final=False))
                writer.write(_server_frame(0x0, data[half:]))
                first = False
            else:
                writer.write(_server_frame(0x1, data))
        await writer.drain()
        writer.close()

    return await asyncio.start_unix_server(serve, path)


def test_messages_of_every_size_cross_whole_and_the_end_is_reported(tmp_path: Path):
    socket_path = str(tmp_path / "s")
    seen: list = []
    got: list = []
    ended: list = []

    async def run() -> None:
        server = await _echo_server(socket_path, True, seen)
        ws = await UnixWebSocket.open(f"ws+unix://{socket_path}:/tok", {"x-test": "1"})
        serving = asyncio.ensure_future(ws.serve(got.append, ended.append))
        messages = [{"a": "x" * 10}, {"b": 'é"<' * 100}, {"c": "y" * 70_000}]
        for message in messages:
            ws.send(message)
        while len(got) < len(messages):
            await asyncio.sleep(0.01)
        ws.send("bye")
        await asyncio.wait_for(serving, 5)
        assert got == messages
        server.close()

    _run(run())
    assert seen[0].startswith("GET /tok HTTP/1.1") and "x-test: 1" in seen[0]
    assert ("pong", b"hi") in seen
    assert ended == [None]


def test_a_refused_upgrade_and_a_missing_server_are_errors(tmp_path: Path):
    socket_path = str(tmp_path / "s")

    async def refused() -> None:
        server = await _echo_server(socket_path, False, [])
        with pytest.raises(ConnectionError, match=r"refused the connection: HTTP/1\.1 401"):
            await UnixWebSocket.open(f"ws+unix://{socket_path}:/tok", {})
        server.close()

    _run(refused())
    with pytest.raises(OSError):
        _run(UnixWebSocket.open(f"ws+unix://{tmp_path / 'none'}:/tok", {}))


async def _upgrade(reader: asyncio.StreamReader) -> bytes:
    """The answer that accepts the upgrade request `reader` brings."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    key = next(ln.split(":", 1)[1].strip() for ln in head.split("\r\n") if "Key" in ln)
    accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
    return f"HTTP/1.1 101 OK\r\nSec-WebSocket-Accept: {accept}\r\n\r\n".encode()


def test_a_server_that_goes_away_mid_message_ends_the_connection_with_a_reason(tmp_path: Path):
    socket_path = str(tmp_path / "s")
    ended: list = []

    async def run() -> None:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(await _upgrade(reader))
            writer.write(_server_frame(0x1, json.dumps({"half": 1}).encode())[:6])
            await writer.drain()
            writer.close()

        server = await asyncio.start_unix_server(serve, socket_path)
        ws = await UnixWebSocket.open(f"ws+unix://{socket_path}:/", {})
        await asyncio.wait_for(ws.serve(lambda m: None, ended.append), 5)
        server.close()

    _run(run())
    assert len(ended) == 1 and "IncompleteReadError" in (ended[0] or "")


def test_what_arrives_before_anyone_listens_is_kept_and_a_message_that_is_not_json_ends_it(
    tmp_path: Path,
):
    socket_path = str(tmp_path / "s")
    got: list = []
    ended: list = []

    async def run() -> None:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            # the upgrade and the first frames in one write: they arrive together
            writer.write(
                await _upgrade(reader)
                + _server_frame(0x1, b'{"early": 1}')
                + _server_frame(0x1, b"not json")
                + _server_frame(0x1, b'{"late": 1}')
            )
            await writer.drain()
            await asyncio.sleep(5)
            writer.close()

        server = await asyncio.start_unix_server(serve, socket_path)
        ws = await UnixWebSocket.open(f"ws+unix://{socket_path}:/", {})
        await asyncio.sleep(0.05)  # the frames are here before anyone serves them
        await asyncio.wait_for(ws.serve(got.append, ended.append), 5)
        server.close()

    _run(run())
    assert got == [{"early": 1}]
    assert ended == ["the browser server sent a message that is not JSON"]


@pytest.mark.browser
def test_an_env_on_a_browser_server_steps_without_its_driver_relaying(make_env):
    """The env's own Playwright driver sits idle while it steps on a shared Chromium: the
    messages go straight to the server (with Playwright's connect, the driver relayed
    every one, about a millisecond of its CPU per step), and the observations arrive."""
    import os

    import numpy as np

    from webfactory_env.agents.random_agent import sample_masked
    from webfactory_env.executor.browser import shared_browser
    from webfactory_env.executor.browser_server import BrowserServer

    with BrowserServer() as server:
        env = make_env(obs_mode="tokens", browser=server.config, max_steps=200)
        obs, info = env.reset(seed=2)
        driver = shared_browser().processes.driver
        assert driver is not None

        def cpu_s() -> float:
            fields = Path(f"/proc/{driver}/stat").read_text().rsplit(")", 1)[1].split()
            return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")

        before = cpu_s()
        rng, u = np.random.default_rng(0), env.unwrapped
        for _ in range(60):
            action = sample_masked(u.action_masks(), np.asarray(u.action_space.nvec), rng)[0]
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        assert cpu_s() - before <= 0.02
        assert env.observation_space.contains(obs) and obs["mask"].any()
        env.close()
