"""A scripted chat-completions server for offline tests of model clients and LLM agents.

It listens on a free port of 127.0.0.1 and answers each `POST .../chat/completions` with
the next entry of its script: a reply (text, finish reason, token counts), an HTTP error,
a body that is no completion, a reply that never comes (it waits until the server stops),
or a body sent a byte at a time. It records every request it got, headers included.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    text: str | None = "done(false)"
    finish: str = "stop"
    usage: tuple[int, int] | None = (100, 10)
    status: int = 200
    body: bytes | None = None  # sent as is instead of a completion
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False  # never answer (until the server stops)
    trickle: bool = False  # send the body one byte every 50 ms
    tool_calls: tuple[tuple[str, str], ...] = ()  # (function name, JSON arguments)


def ok(text: str | None, prompt: int = 100, completion: int = 10, finish: str = "stop") -> Reply:
    return Reply(text=text, usage=(prompt, completion), finish=finish)


def error(status: int, message: str = "busy", retry_after: str | None = "0") -> Reply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
    return Reply(status=status, body=body, headers=headers)


def tool(arguments: dict[str, Any] | str, name: str = "computer") -> Reply:
    """A reply that calls function `name` (arguments as a JSON object, or a raw text)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Reply(text=None, finish="tool_calls", tool_calls=((name, raw),))


HANG = Reply(hang=True)


def completion_body(reply: Reply) -> bytes:
    data: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text, **_calls(reply)},
                "finish_reason": reply.finish,
            }
        ],
    }
    if reply.usage is not None:
        p, c = reply.usage
        data["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return json.dumps(data).encode()


def _calls(reply: Reply) -> dict[str, Any]:
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(reply.tool_calls)
    ]
    return {"tool_calls": calls} if calls else {}


class ScriptedChatServer:
    """`with ScriptedChatServer([ok("click(1)"), error(503), ...]) as server:` then point a
    client at `server.base_url`. After the script: `fallback(request)` or `done(false)`."""

    def __init__(
        self,
        script: Iterable[Reply],
        fallback: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        self.script = list(script)
        self.fallback = fallback
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                request = json.loads(raw or b"{}")
                with outer._lock:
                    outer.requests.append(request)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                    if outer.script:
                        reply = outer.script.pop(0)
                    elif outer.fallback is not None:
                        reply = outer.fallback(request)
                    else:
                        reply = Reply()
                if not self.path.endswith("/chat/completions"):
                    reply = error(404, f"no route {self.path}", None)
                if reply.hang:
                    outer._stop.wait(60)  # far longer than any client timeout in the tests
                    return
                body = reply.body if reply.body is not None else completion_body(reply)
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    if reply.trickle:
                        for i in range(len(body)):
                            if outer._stop.is_set():
                                return
                            self.wfile.write(body[i : i + 1])
                            self.wfile.flush()
                            time.sleep(0.05)
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on us, as it should

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()

    def user_turns(self) -> list[str]:
        """The user message of every request, in order."""
        return [str(r["messages"][-1]["content"]) for r in self.requests]


def oracle_script(seed: int, options: dict[str, Any] | None = None, **env_kwargs: Any) -> list[Any]:
    """The oracle's actions on one solved episode of `WebTask-v0(**env_kwargs)` on level
    `seed` (a scripted model's replies, in the env's action mode)."""
    import gymnasium as gym

    from webfactory_env.agents import OracleAgent

    env = gym.make("WebTask-v0", **env_kwargs)
    try:
        obs, info = env.reset(seed=seed, options=options)
        oracle = OracleAgent(env)
        actions: list[Any] = []
        while True:
            actions.append(oracle.act(obs, info))
            obs, _, terminated, truncated, info = env.step(actions[-1])
            if terminated or truncated:
                assert info["success"], info["outcome"]
                return actions
    finally:
        env.close()
