"""The web-executor HTTP service (`webfactory executor serve`), on Starlette and uvicorn.

    GET  /healthz       {"status": "ok"}
    GET  /sandbox       browser version, sandbox state, headless, user, open contexts, origins
    POST /execute       a `WebPayload` → a `WebOutcome` (errors: see `service.app`)
    GET  /openapi.json  the OpenAPI description, from the pydantic payload types

It binds to `WEB_EXECUTOR_BIND_ADDR` (default 127.0.0.1:8091) and, started as root, drops to
an unprivileged user first (`service.privileges`). Browser work runs on one worker thread
(`service.worker`) while the event loop answers health checks; the server's timeouts and
limits are in `service.server`, the routes, error bodies and redaction in `service.app`.
"""

from webfactory_env.service.app import ExecutorService, Limits, make_app, openapi_document
from webfactory_env.service.privileges import (
    DEFAULT_BIND,
    _needed_after_drop,
    closed_to,
    drop_privileges,
    parse_bind,
)
from webfactory_env.service.server import serve

__all__ = [
    "DEFAULT_BIND",
    "ExecutorService",
    "Limits",
    "_needed_after_drop",
    "closed_to",
    "drop_privileges",
    "make_app",
    "openapi_document",
    "parse_bind",
    "serve",
]
