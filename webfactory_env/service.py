"""The web-executor HTTP service (`webfactory executor serve`).

    GET  /healthz   {"status": "ok"}
    GET  /sandbox   browser version, sandbox state, headless, user, open contexts, origins
    POST /execute   a `WebPayload` → a `WebOutcome`; 400 with field errors for a bad
                    payload or a URL outside the allowed origins; 422 when selectors are
                    exhausted; 503 when the browser failed.

It binds to `WEB_EXECUTOR_BIND_ADDR` (default 127.0.0.1:8091). Started as root, it first
drops to an unprivileged user (`WEB_EXECUTOR_USER`, default `nobody`), whose own cache
directory becomes the browser's home, so nothing the browser writes is root's. Requests
are served one at a time by the thread that owns the browser (Playwright's sync API is
thread-bound); the socket's backlog queues the rest.
"""

from __future__ import annotations

import getpass
import grp
import json
import logging
import os
import pwd
import tempfile
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from webfactory_env.core.errors import BrowserCrashedError, ConfigError
from webfactory_env.core.pii import scrub_selector
from webfactory_env.executor.drift import SelectorsExhausted
from webfactory_env.executor.web import PayloadError, WebExecutor

log = logging.getLogger("webfactory.executor_web")

DEFAULT_BIND = "127.0.0.1:8091"
MAX_BODY = 256 * 1024


def parse_bind(value: str | None) -> tuple[str, int]:
    text = value or DEFAULT_BIND
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(f"WEB_EXECUTOR_BIND_ADDR must look like host:port, got {text!r}")
    return host.strip("[]"), int(port)


def closed_to(entry: pwd.struct_passwd, path: Path, mode: int = os.R_OK) -> Path | None:
    """The first part of `path` that user `entry` cannot get through (a directory it may
    not search) or use (`path` itself, for `mode`), judged from permission bits; else None."""
    groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if entry.pw_name in g.gr_mem}

    def allowed(p: Path, bits: int) -> bool:
        st = p.stat()
        shift = 6 if st.st_uid == entry.pw_uid else 3 if st.st_gid in groups else 0
        return all(st.st_mode & (bit << shift) for bit in (4, 2, 1) if bits & bit)

    path = path.resolve()
    for parent in reversed(path.parents):
        if not allowed(parent, os.X_OK):
            return parent
    return None if allowed(path, mode) else path


def _needed_after_drop() -> list[tuple[Path, int]]:
    """What the process opens after dropping root: Playwright's driver (a Node.js program
    the browser is launched through) and this package's own files."""
    from playwright._impl._driver import compute_driver_executable

    node, cli = compute_driver_executable()
    package = Path(__file__).resolve().parent
    return [(Path(node), os.R_OK | os.X_OK), (Path(cli), os.R_OK), (package, os.R_OK | os.X_OK)]


def drop_privileges(user: str) -> dict[str, Any]:
    """Become `user` (when running as root) with a private cache directory as HOME.
    `user="root"` keeps root: an explicit choice, for installs no other user can read."""
    if os.geteuid() != 0:
        return {"dropped": False, "user": getpass.getuser()}
    if user == "root":
        log.warning("running as root: privileges are not dropped (--user root)")
        return {"dropped": False, "user": "root"}
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise ConfigError(
            f"cannot drop privileges: no user {user!r}; create it or set WEB_EXECUTOR_USER"
        ) from None
    for needed, mode in _needed_after_drop():
        blocked = closed_to(entry, needed, mode)
        if blocked is not None:
            raise ConfigError(
                f"cannot drop privileges to {user!r}: it cannot read {needed} because"
                f" {blocked} is closed to it (mode {blocked.stat().st_mode & 0o777:o})."
                f" Install webfactory_env where {user!r} can read it (or open that"
                " directory to it), choose another user with --user/WEB_EXECUTOR_USER,"
                " or keep root with --user root"
            )
    home = Path(tempfile.gettempdir()) / f"webfactory-executor-{entry.pw_name}"
    cache = home / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    for path in (home, cache):
        os.chown(path, entry.pw_uid, entry.pw_gid)
        path.chmod(0o700)
    os.setgroups([])
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)
    if os.geteuid() == 0:  # pragma: no cover - setuid failing silently would be a disaster
        raise RuntimeError("still root after dropping privileges")
    os.environ.update(HOME=str(home), XDG_CACHE_HOME=str(cache), USER=entry.pw_name)
    return {"dropped": True, "user": entry.pw_name, "cache_dir": str(cache)}


class ExecutorService:
    """The executor and the facts `/sandbox` reports, behind an HTTP server."""

    def __init__(self, executor: WebExecutor, identity: dict[str, Any]) -> None:
        self.executor = executor
        self.identity = identity
        self.served = 0

    def sandbox(self) -> dict[str, Any]:
        from webfactory_env.executor.browser import shared_browser

        session = self.executor.session
        browser = session._context.browser
        shared = shared_browser()
        return {
            "browser_version": browser.version if browser else None,
            "headless": session.config.browser.headless,
            "sandbox": "chromium sandbox"
            if shared.sandboxed
            else f"disabled {shared.sandbox_note or '(--no-sandbox: running as root)'}",
            "user": self.identity.get("user"),
            "uid": os.geteuid(),
            "privileges_dropped": self.identity.get("dropped", False),
            "cache_dir": os.environ.get("XDG_CACHE_HOME"),
            "open_contexts": len(browser.contexts) if browser else 0,
            "allowed_origins": list(self.executor.allowed_origins),
            "requests_served": self.served,
        }

    def execute(self, body: bytes) -> tuple[int, dict[str, Any]]:
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return 400, {"error": "the body is not JSON", "detail": str(exc)[:200]}
        try:
            outcome = self.executor.execute(payload)
        except PayloadError as exc:
            return 400, {"error": "invalid payload", "fields": exc.errors}
        except ConfigError as exc:
            return 400, {"error": str(exc), "fields": [{"field": "url", "message": str(exc)}]}
        except SelectorsExhausted as exc:
            return 422, {
                "error": "SelectorsExhausted",
                "attempts": exc.attempts,
                "selectors": [scrub_selector(s) for s in exc.tried],
            }
        except BrowserCrashedError as exc:
            self.executor.session.reopen()
            return 503, {"error": "the browser failed", "detail": str(exc)[:300]}
        except Exception as exc:  # Playwright timeouts and the like: report, keep serving
            log.warning("execute failed: %s", type(exc).__name__)
            return 500, {"error": type(exc).__name__, "detail": str(exc)[:300]}
        self.served += 1
        return 200, outcome.model_dump()


def make_handler(service: ExecutorService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "webfactory-executor"

        def log_message(self, format: str, *args: Any) -> None:  # requests are not logged:
            pass  # their bodies may hold secrets

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/healthz":
                self._send(200, {"status": "ok"})
            elif self.path == "/sandbox":
                self._send(200, service.sandbox())
            else:
                self._send(
                    404, {"error": "not found", "endpoints": ["/healthz", "/sandbox", "/execute"]}
                )

        def do_POST(self) -> None:
            if self.path != "/execute":
                self._send(404, {"error": "not found"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                self._send(
                    413 if length > MAX_BODY else 400,
                    {"error": f"send a JSON payload of 1..{MAX_BODY} bytes"},
                )
                return
            status, body = service.execute(self.rfile.read(length))
            self._send(status, body)

    return Handler


def serve(
    *,
    bind: str | None = None,
    user: str | None = None,
    family: str = "shop",
    seed: int = 0,
    allowed_origins: tuple[str, ...] = (),
    ready: Any = None,
) -> None:
    """Run the service until interrupted. `ready(host, port)` is called once listening."""
    from webfactory_env.sitegen import generate_site

    host, port = parse_bind(bind or os.environ.get("WEB_EXECUTOR_BIND_ADDR"))
    server = HTTPServer((host, port), BaseHTTPRequestHandler)  # bind before dropping root
    # Load every module first: the interpreter's own files may be readable by root only.
    import playwright.sync_api  # noqa: F401

    site = generate_site(family, seed)
    identity = drop_privileges(user or os.environ.get("WEB_EXECUTOR_USER", "nobody"))
    executor = WebExecutor(site, allowed_origins=allowed_origins)
    service = ExecutorService(executor, identity)
    server.RequestHandlerClass = make_handler(service)
    bound_host, bound_port = server.server_address[:2]
    if ready is not None:
        ready(str(bound_host), int(bound_port))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        executor.close()
