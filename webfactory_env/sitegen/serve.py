"""Serve a generated site over loopback HTTP so a person can browse it (`webfactory serve`).

The same app and runtime as in the env, with the runtime's `fetch` transport: every page
event is POSTed to `/__wf/event` and answered with a patch. Binds to 127.0.0.1 unless told
otherwise; only one app instance, shared by every request, guarded by a lock.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from webfactory_env.sitegen.served import ServedSite
from webfactory_env.sitegen.spec import AppEvent

MAX_EVENT_BYTES = 64 * 1024


def make_server(app: ServedSite, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        server_version = "webfactory"

        def log_message(self, format: str, *args: Any) -> None:  # quiet by default
            pass

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            # The page may only talk to this server.
            self.send_header(
                "Content-Security-Policy",
                "default-src 'self'; script-src 'unsafe-inline'; "
                "style-src 'unsafe-inline'; img-src 'self' data:",
            )
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path or "/"
            if path == "/favicon.ico" or path.startswith("/__wf/"):
                self._send(404, b"", "text/plain")
                return
            with lock:
                status = app.visit(path)
                body = app.document(transport="fetch").encode()
            self._send(status, body, "text/html; charset=utf-8")

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/__wf/event":
                self._send(404, b"", "text/plain")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_EVENT_BYTES:
                self._send(413, b'{"error": "event too large"}', "application/json")
                return
            try:
                event = AppEvent.model_validate_json(self.rfile.read(length))
            except ValidationError as exc:
                body = json.dumps(
                    {"error": "bad event", "details": exc.errors(include_url=False)}, default=str
                )
                self._send(400, body.encode(), "application/json")
                return
            with lock:
                patch = app.dispatch(event)
            self._send(200, json.dumps(patch.to_json()).encode(), "application/json")

    return ThreadingHTTPServer((host, port), Handler)
