"""The executor service's HTTP interface: routes, limits, error bodies, redaction, OpenAPI.

    GET  /healthz       {"status": "ok"}, answered by the event loop (never waits on the browser)
    GET  /sandbox       browser version, sandbox state, user, open contexts, origins, counters
    POST /execute       a `WebPayload` → a `WebOutcome`
    GET  /openapi.json  the OpenAPI 3.1 description, from the pydantic payload types

Every answer is JSON, errors included: 400 for a body that is not JSON (or nested deeper
than `MAX_DEPTH`) or not a payload (field errors), or a URL outside the allowed origins;
404 and 405 (with `Allow`); 408 when the body does not arrive within `body_timeout_s`;
413 past `max_body` bytes; 409 for a page that kept navigating while it was read; 422 for
exhausted selectors or an element that cannot take the action; 502 when the page could not
load, or it (a redirect, its script, a form) left the allowed origins; 503 when the browser
failed or the queue is full; 504 when the page did not answer in time. An error says what
we know in our own words (stage, kind, selector), never Playwright's text. A client that
goes away mid-body is one log line.

Values marked `redact` (a JSON boolean: anything else is a 400 naming the field) are taken
from the raw body before anything else and scrubbed, in any spelling a page or URL gives
them back in (`core.secrets`), from every response, whatever its status, and from every
log line while the request runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field
from pydantic.json_schema import models_json_schema
from pydantic_core import from_json
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import BrowserCrashedError, ConfigError
from webfactory_env.core.pii import scrub_selector
from webfactory_env.core.secrets import REDACTED, SecretPattern
from webfactory_env.executor.drift import SelectorsExhausted
from webfactory_env.executor.web import (
    ExecutionError,
    PayloadError,
    WebExecutor,
    WebOutcome,
    WebPayload,
)
from webfactory_env.service.worker import BrowserWorker, WorkerBusyError

log = logging.getLogger("webfactory.executor_web")

MAX_DEPTH = 64  # JSON nesting; a payload needs 4


@dataclass(frozen=True)
class Limits:
    """What one request may take. Header read time and header size are the server's."""

    max_body: int = 256 * 1024
    body_timeout_s: float = 20.0
    request_timeout_s: float = 120.0  # browser work of one payload, queue wait included
    max_pending: int = 16


# ----------------------------------------------------------------- response types
class FieldProblem(BaseModel):
    field: str
    message: str


class ErrorBody(BaseModel):
    """Every error answer: `error` in words; the rest where it applies."""

    error: str
    kind: str | None = Field(None, description="timeout, hung, navigation, refused, ...")
    stage: str | None = Field(None, description="navigate, fill, submit, snapshot")
    selector: str | None = None
    code: str | None = Field(None, description="Chromium's net::ERR_ code of a navigation")
    fields: list[FieldProblem] | None = None
    attempts: int | None = None
    selectors: list[str] | None = None


class Health(BaseModel):
    status: str


class Sandbox(BaseModel):
    browser_version: str | None
    headless: bool
    sandbox: str
    user: str | None
    uid: int
    privileges_dropped: bool
    cache_dir: str | None
    open_contexts: int
    allowed_origins: list[str]
    requests_served: int
    requests_failed: int
    browser_jobs_waiting: int


# ---------------------------------------------------------------------- redaction
class Secrets:
    """Values marked `redact` in requests now running; a log filter and the responses
    replace them with REDACTED."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, list[str]] = {}
        self._next = 0

    def add(self, values: list[str]) -> int:
        with self._lock:
            self._next += 1
            self._live[self._next] = values
            return self._next

    def remove(self, token: int) -> None:
        with self._lock:
            self._live.pop(token, None)

    def all(self) -> list[str]:
        with self._lock:
            return sorted({v for vs in self._live.values() for v in vs}, key=len, reverse=True)


def scrub(obj: Any, secrets: list[str] | SecretPattern) -> Any:
    """`obj` (JSON-like) with every secret, in any spelling (`core.secrets`: encoded,
    escaped, cased, cut short), replaced by REDACTED, in keys and values."""
    pattern = secrets if isinstance(secrets, SecretPattern) else SecretPattern(secrets)
    if not pattern:
        return obj
    if isinstance(obj, str):
        return pattern.sub(REDACTED, obj)
    if isinstance(obj, dict):
        return {scrub(k, pattern): scrub(v, pattern) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [scrub(v, pattern) for v in obj]
    return obj


class RedactingFilter(logging.Filter):
    """Scrubs the secrets of running requests from every record a handler writes."""

    def __init__(self, secrets: Secrets) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        live = SecretPattern(self.secrets.all())
        if live:
            text = record.getMessage()
            record.msg, record.args = scrub(text, live), ()
            if record.exc_info and not record.exc_text:  # formatted here, to be scrubbed
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = scrub(record.exc_text, live)
            record.exc_info = None
        return True


def redacted_values(raw: Any) -> list[str]:
    """The values a raw (not yet validated) payload marks `redact`: known before anything
    can fail, so even an error about the payload itself cannot echo them. Any mark but
    `false` counts here (`"true"`, `1`: refused by validation, but hidden meanwhile)."""
    found: list[str] = []
    fields = raw.get("fields") if isinstance(raw, dict) else None
    for item in fields if isinstance(fields, list) else []:
        if isinstance(item, dict) and item.get("redact", False) not in (False, None):
            value = item.get("value")
            if isinstance(value, str) and value:
                found.append(value)
    return found


# ----------------------------------------------------------------------- the service
@dataclass
class ExecutorService:
    """The executor on its worker thread, and the facts `/sandbox` reports."""

    worker: BrowserWorker
    executor: WebExecutor
    identity: dict[str, Any]
    limits: Limits = field(default_factory=Limits)
    secrets: Secrets = field(default_factory=Secrets)
    served: int = 0
    failed: int = 0
    facts: dict[str, Any] = field(default_factory=dict)

    def refresh_facts(self) -> None:
        """Read the browser's facts (on the worker thread: they are Playwright calls)."""
        from webfactory_env.executor.browser import shared_browser

        session = self.executor.session
        shared = shared_browser()
        try:
            browser = session._context.browser
            version = browser.version if browser else None
            contexts = len(browser.contexts) if browser else 0
        except Exception:  # the browser is gone: the next payload relaunches it
            version, contexts = self.facts.get("browser_version"), 0
        self.facts = {
            "browser_version": version,
            "open_contexts": contexts,
            "headless": session.config.browser.headless,
            "sandbox": "chromium sandbox"
            if shared.sandboxed
            else f"disabled {shared.sandbox_note or '(--no-sandbox: running as root)'}",
        }

    def sandbox(self) -> dict[str, Any]:
        return Sandbox(
            browser_version=self.facts.get("browser_version"),
            headless=bool(self.facts.get("headless", True)),
            sandbox=str(self.facts.get("sandbox", "")),
            user=self.identity.get("user"),
            uid=os.geteuid(),
            privileges_dropped=bool(self.identity.get("dropped", False)),
            cache_dir=os.environ.get("XDG_CACHE_HOME"),
            open_contexts=int(self.facts.get("open_contexts", 0)),
            allowed_origins=list(self.executor.allowed_origins),
            requests_served=self.served,
            requests_failed=self.failed,
            browser_jobs_waiting=self.worker.pending,
        ).model_dump()

    def run_payload(self, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """On the worker thread: execute, and turn every failure into (status, body)."""
        try:
            outcome = self.executor.execute(payload)
            return 200, outcome.model_dump()
        except PayloadError as exc:
            return 400, {"error": "invalid payload", "fields": exc.errors}
        except ConfigError as exc:  # the URL: not absolute, or not an allowed origin
            return 400, {"error": str(exc), "fields": [{"field": "url", "message": str(exc)}]}
        except SelectorsExhausted as exc:
            return 422, {
                "error": "SelectorsExhausted",
                "kind": "selectors_exhausted",
                "attempts": exc.attempts,
                "selectors": [scrub_selector(s) for s in exc.tried],
            }
        except ExecutionError as exc:
            return exc.status, exc.to_json()
        except BrowserCrashedError:  # opening a fresh page failed: the next payload retries
            return 503, {"error": "the browser failed; try again", "kind": "crashed"}
        except Exception as exc:  # our bug: say so, without any text that may hold a value
            log.error("execute failed unexpectedly: %s", type(exc).__name__)
            return 500, {"error": f"internal error ({type(exc).__name__})", "kind": "internal"}
        finally:
            self.refresh_facts()


# ------------------------------------------------------------------------ the app
def make_app(service: ExecutorService) -> Starlette:
    limits = service.limits

    def answer(status: int, body: dict[str, Any], secrets: list[str] | None = None) -> Response:
        headers = {"Cache-Control": "no-store"}
        return JSONResponse(scrub(body, secrets or []), status_code=status, headers=headers)

    async def healthz(_request: Request) -> Response:
        return answer(200, {"status": "ok"})

    async def sandbox(_request: Request) -> Response:
        return answer(200, service.sandbox())

    async def openapi(_request: Request) -> Response:
        return answer(200, openapi_document())

    async def execute(request: Request) -> Response:
        body = await read_body(request, limits)
        if isinstance(body, Response):
            return body
        try:
            raw = from_json(body, allow_inf_nan=False)
        except ValueError as exc:
            detail = "nested too deeply" if "recursion" in str(exc) else "not valid JSON"
            return answer(400, {"error": f"the body is not JSON ({detail})"})
        if _depth(raw) > MAX_DEPTH:
            return answer(400, {"error": f"the body is not JSON nested at most {MAX_DEPTH} deep"})
        secrets = redacted_values(raw)
        token = service.secrets.add(secrets)
        try:
            if not isinstance(raw, dict):
                return answer(400, {"error": "the body must be a JSON object (a WebPayload)"})
            try:
                job = service.worker.run(lambda: service.run_payload(raw))
                status, out = await asyncio.wait_for(job, limits.request_timeout_s)
            except WorkerBusyError:
                status, out = 503, {"error": "the browser is busy; try again", "kind": "busy"}
            except TimeoutError:
                status, out = (
                    504,
                    {"error": "the payload did not finish in time", "kind": "timeout"},
                )
            if status == 200:
                service.served += 1
            else:
                service.failed += 1
                log.info("execute: %s %s", status, out.get("kind") or out.get("error"))
            return answer(status, out, service.secrets.all())
        finally:
            service.secrets.remove(token)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        body: dict[str, Any] = {"error": exc.detail or "error"}
        if exc.status_code == 404:
            body = {"error": "not found", "endpoints": ["/healthz", "/sandbox", "/execute"]}
        elif exc.status_code == 405:
            body = {"error": f"method {request.method} not allowed here"}
        response = answer(exc.status_code, body)
        response.headers.update(exc.headers or {})
        return response

    async def internal_error(_request: Request, exc: Exception) -> Response:
        log.error("request failed unexpectedly: %s", type(exc).__name__)
        return answer(500, {"error": f"internal error ({type(exc).__name__})"})

    return Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/sandbox", sandbox, methods=["GET"]),
            Route("/openapi.json", openapi, methods=["GET"]),
            Route("/execute", execute, methods=["POST"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: internal_error},
    )


async def read_body(request: Request, limits: Limits) -> bytes | Response:
    """The request body, or the error answer: 413 past `max_body` (said by Content-Length,
    or counted while reading a chunked body), 408 when it does not arrive in time."""

    def error(status: int, message: str) -> Response:
        return JSONResponse({"error": message}, status_code=status, headers={"Connection": "close"})

    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_body:  # refused before it is read
        return error(413, f"send a JSON payload of at most {limits.max_body} bytes")
    chunks: list[bytes] = []
    size = 0

    async def gather() -> Response | None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_body:
                return error(413, f"send a JSON payload of at most {limits.max_body} bytes")
            chunks.append(chunk)
        return None

    try:
        refused = await asyncio.wait_for(gather(), limits.body_timeout_s)
    except TimeoutError:
        return error(408, f"the body did not arrive within {limits.body_timeout_s:g} s")
    except ClientDisconnect:  # nobody to answer: one line in the log, and nothing else
        log.info("execute: the client went away after %d of %s body bytes", size, declared or "?")
        return error(400, "the client went away mid-body")
    if refused is not None:
        return refused
    if not size:
        return error(400, f"send a JSON payload of 1..{limits.max_body} bytes")
    return b"".join(chunks)


def _depth(obj: Any, limit: int = MAX_DEPTH + 1) -> int:
    """Nesting depth of parsed JSON, counted no further than `limit`."""
    depth, level = 0, [obj]
    while level and depth < limit:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                nxt.extend(item.values())
            elif isinstance(item, list):
                nxt.extend(item)
        level = [x for x in nxt if isinstance(x, dict | list)]
    return depth + (1 if level else 0)


# ------------------------------------------------------------------------- OpenAPI
def openapi_document() -> dict[str, Any]:
    """OpenAPI 3.1 for the service, its schemas generated from the pydantic types."""
    _, defs = models_json_schema(
        [
            (WebPayload, "validation"),
            (WebOutcome, "serialization"),
            (ErrorBody, "serialization"),
            (Health, "serialization"),
            (Sandbox, "serialization"),
        ],
        ref_template="#/components/schemas/{model}",
    )

    def ref(name: str) -> dict[str, Any]:
        return {
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}
        }

    def error(description: str) -> dict[str, Any]:
        return {"description": description, **ref("ErrorBody")}

    return {
        "openapi": "3.1.0",
        "info": {"title": "webfactory web executor", "version": __version__},
        "paths": {
            "/healthz": {
                "get": {
                    "summary": "liveness",
                    "responses": {"200": {"description": "ok", **ref("Health")}},
                }
            },
            "/sandbox": {
                "get": {
                    "summary": "the browser and its sandbox",
                    "responses": {"200": {"description": "facts", **ref("Sandbox")}},
                }
            },
            "/execute": {
                "post": {
                    "summary": "navigate, fill, submit and snapshot one page",
                    "requestBody": {"required": True, **ref("WebPayload")},
                    "responses": {
                        "200": {"description": "what happened", **ref("WebOutcome")},
                        "400": error(
                            "not JSON, not a payload, or a URL outside the allowed origins"
                        ),
                        "408": error("the body did not arrive in time"),
                        "413": error("the body is too large"),
                        "409": error("the page kept navigating while it was read"),
                        "422": error("selectors exhausted, or the element cannot take the action"),
                        "502": error("the page could not load, or left the allowed origins"),
                        "503": error("the browser failed or is busy"),
                        "504": error("the page did not answer in time"),
                    },
                }
            },
        },
        "components": {"schemas": defs.get("$defs", {})},
    }
