"""The web-executor contract: navigate, fill fields (with redaction), submit, snapshot — with
selector-drift retries.

    executor = WebExecutor(generate_site("shop", 42))
    outcome = executor.execute({
        "url": "https://site.webfactory.test/checkout",
        "fields": [{"selector": "[name=full_name]", "value": "Alice Nguyen"},
                   {"selector": "#card", "value": "4242 4242 4242 4242", "redact": True}],
        "submit": {"selector": "button[type=submit]", "kind": "click"},
        "snapshot_selector": "main",
    })

When a selector matches nothing, alternatives are derived from the page's elements by
normalising their `data-testid`, `name`, `aria-label`, id, label, placeholder and visible
text against the words of the requested selector, and tried in order with exponential
backoff (200 → 400 → 800 ms of logical time, three attempts). Each attempt emits an
`executor_web.retry` event (attempt number, selector, remaining candidates) to the log and
to `on_event`; when all fail, `SelectorsExhausted` carries the attempt count and every
selector tried. Values marked `redact` never appear in outcomes, events or logs, and
emails, card and account numbers in selectors, summaries and excerpts become pseudonyms
(`core.pii`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webfactory_env.core.errors import ConfigError
from webfactory_env.core.pii import scrub_patterns, scrub_selector
from webfactory_env.core.resources import read_text
from webfactory_env.executor.drift import (
    BACKOFF_MS,
    RETRY_EVENT,
    LogicalClock,
    RetryEvent,
    SelectorsExhausted,
    derive_candidates,
    retry_candidates,
    selector_words,
    words,
)
from webfactory_env.executor.session import ORIGIN, PageSession, SessionConfig

log = logging.getLogger("webfactory.executor_web")

__all__ = [
    "BACKOFF_MS",
    "LogicalClock",
    "PayloadError",
    "RetryEvent",
    "SelectorsExhausted",
    "WebExecutor",
    "WebOutcome",
    "WebPayload",
    "derive_candidates",
    "selector_words",
    "words",
]


# ------------------------------------------------------------------------- contract
class WebField(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    selector: str = Field(min_length=1, max_length=500)
    value: str = Field(max_length=10_000)
    redact: bool = False


class WebSubmit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    selector: str = Field(min_length=1, max_length=500)
    kind: Literal["click", "submit"] = "click"
    wait_after_ms: int = Field(default=0, ge=0, le=60_000)


class WebPayload(BaseModel):
    """What a planner asks the executor to do on one page."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(min_length=1, max_length=2048)
    fields: list[WebField] = Field(default_factory=list, max_length=100)
    submit: WebSubmit | None = None
    snapshot_selector: str | None = Field(default=None, max_length=500)


class FieldResult(BaseModel):
    requested: str
    selector: str
    value: str
    redacted: bool
    attempts: int


class WebOutcome(BaseModel):
    """What happened: where the page ended up, what it shows, and what was filled."""

    final_url: str
    title: str
    excerpt: str
    fields: list[FieldResult]
    submitted: bool
    retries: list[RetryEvent]
    logical_ms: int


class PayloadError(ConfigError):
    """The payload does not follow the contract; `errors` are pydantic's field errors."""

    def __init__(self, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.errors = errors


# ------------------------------------------------------------------------ executor
class WebExecutor:
    """Runs `WebPayload`s in a browser context, on a generated site or allowed origins."""

    def __init__(
        self,
        site: Any | None = None,
        *,
        allowed_origins: Sequence[str] = (),
        session: PageSession | None = None,
        clock: LogicalClock | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        excerpt_chars: int = 4000,
        timeout_ms: int = 5000,
    ) -> None:
        extra = tuple(o.rstrip("/") for o in allowed_origins)
        self.allowed_origins = (ORIGIN, *extra)
        self.session = session or PageSession(
            SessionConfig(allowed_origins=extra, timeout_ms=timeout_ms), transport="fetch"
        )
        if site is not None:
            self.session.app = site.new_app()
        self.clock = clock or LogicalClock()
        self.on_event = on_event
        self.excerpt_chars = excerpt_chars
        self.timeout_ms = timeout_ms

    def close(self) -> None:
        self.session.close()

    # -------------------------------------------------------------------- public
    def execute(self, payload: WebPayload | dict[str, Any]) -> WebOutcome:
        p = self._validate(payload)
        self._check_url(p.url)
        page = self.session.page
        secrets = [f.value for f in p.fields if f.redact and f.value]
        retries: list[RetryEvent] = []
        page.goto(p.url, wait_until="domcontentloaded", timeout=self.timeout_ms)
        self._settle()
        results = []
        for f in p.fields:
            selector, attempts = self._locate(f.selector, retries)
            page.locator(selector).first.fill(f.value, timeout=self.timeout_ms)
            self._settle()
            # Selectors in an outcome may be persisted as capability memory, and summaries are
            # logged: neither carries literal personal data (emails, card, account numbers).
            results.append(
                FieldResult(
                    requested=scrub_selector(f.selector),
                    selector=scrub_selector(selector),
                    attempts=attempts,
                    value="REDACTED" if f.redact else scrub_patterns(f.value),
                    redacted=f.redact,
                )
            )
        submitted = False
        if p.submit is not None:
            selector, _ = self._locate(p.submit.selector, retries)
            target = page.locator(selector).first
            if p.submit.kind == "click":
                target.click(timeout=self.timeout_ms)
            else:
                target.evaluate(
                    "el => { const f = el.form || el.closest('form') || el;"
                    " f.requestSubmit ? f.requestSubmit() : f.submit(); }"
                )
            self._settle()
            self.clock.advance(p.submit.wait_after_ms)
            submitted = True
        excerpt = self._inspect(
            {
                "op": "excerpt",
                "selector": p.snapshot_selector or "body",
                "redact": secrets,
                "max": self.excerpt_chars,
            }
        )
        title = page.title()
        for secret in secrets:
            title = title.replace(secret, "REDACTED")
        return WebOutcome(
            final_url=scrub_patterns(page.url),
            title=scrub_patterns(title),
            excerpt=scrub_patterns(str(excerpt)),
            fields=results,
            submitted=submitted,
            retries=retries,
            logical_ms=self.clock.now_ms,
        )

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _validate(payload: WebPayload | dict[str, Any]) -> WebPayload:
        if isinstance(payload, WebPayload):
            return payload
        try:
            return WebPayload.model_validate(payload)
        except ValidationError as exc:
            errors = [
                {"field": ".".join(str(x) for x in e["loc"]), "message": e["msg"]}
                for e in exc.errors(include_url=False, include_input=False)
            ]
            detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
            raise PayloadError(f"invalid executor payload: {detail}", errors) from None

    def _check_url(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"url {url!r} must be an absolute http(s) URL")
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.allowed_origins:
            raise ConfigError(
                f"url {url!r} is not on an allowed origin; allowed: "
                f"{', '.join(self.allowed_origins)}"
            )

    def _settle(self) -> None:
        """Wait until the page's pending requests to the site's app are answered."""
        self.session.page.evaluate(
            "() => window.__wf && window.__wf.settled ? window.__wf.settled() : true"
        )

    def _inspect(self, arg: dict[str, Any]) -> Any:
        return self.session.page.evaluate(read_text("sites", "runtime", "inspect.js"), arg)

    def _count(self, selector: str) -> int:
        try:
            return self.session.page.locator(selector).count()
        except Exception:  # a selector Playwright cannot parse matches nothing
            return 0

    def _locate(self, requested: str, retries: list[RetryEvent]) -> tuple[str, int]:
        if self._count(requested) > 0:
            return requested, 0
        candidates = derive_candidates(requested, self._inspect({"op": "candidates"}))

        def emit(event: RetryEvent) -> None:
            event = event.model_copy(
                update={
                    "requested": scrub_selector(event.requested),
                    "selector": scrub_selector(event.selector),
                    "remaining": [scrub_selector(c) for c in event.remaining],
                }
            )
            retries.append(event)
            log.info(RETRY_EVENT, extra={"executor_web": event.model_dump()})
            if self.on_event is not None:
                self.on_event(event.model_dump())

        try:
            return retry_candidates(
                requested, candidates, lambda s: self._count(s) > 0, self.clock, emit
            )
        except SelectorsExhausted as exc:
            raise SelectorsExhausted(
                scrub_selector(exc.requested), exc.attempts, [scrub_selector(t) for t in exc.tried]
            ) from None
