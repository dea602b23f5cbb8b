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
selector tried. Values marked `redact` never appear in outcomes, errors, events or logs, in
any spelling a page or URL gives them back in (`core.secrets`: form-encoded in `final_url`,
HTML- or JSON-escaped, cased, cut to a `maxlength`), and emails, card and account numbers
in selectors, summaries and excerpts become pseudonyms (`core.pii`).

A read of the page (settling, the snapshot, the candidates a selector is looked for among)
reads a document that has arrived: a click that navigates returns once the next document
is committed, before it has a body, so settling waits for its DOMContentLoaded, and so do
the page's reads (`calls.INSPECT_SCRIPT`) when a navigation committed after that. It waits
through navigations the page makes on its own (a `<meta http-equiv=refresh>`, a script
setting `location`), up to `NAVIGATIONS` documents, then fails `navigating` (409). A page
that ends up off the allowed origins (a script or form that left them: Chromium shows its
error page) fails `refused` (502).

A browser call that fails is `ExecutionError`: our own message (the stage, the selector
tried, the kind of failure — `timeout`, `navigation` with Chromium's `net::ERR_…` code,
`not_editable`, `hung`, `crashed`), never Playwright's text, whose call log echoes the
values typed. The page is then replaced, so the next payload starts on a clean one.
Origins compare as browsers do (`egress.origin_of`: case-insensitive hosts, default ports).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from webfactory_env.core.errors import BrowserCrashedError, ConfigError, WebfactoryError
from webfactory_env.core.pii import scrub_patterns, scrub_selector
from webfactory_env.core.secrets import REDACTED, SecretPattern
from webfactory_env.executor.browser import StepTimeoutError
from webfactory_env.executor.calls import INSPECT_SCRIPT
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
from webfactory_env.executor.egress import origin_of, parse_origins, show
from webfactory_env.executor.session import ORIGIN, PageSession, SessionConfig

log = logging.getLogger("webfactory.executor_web")

__all__ = [
    "BACKOFF_MS",
    "ExecutionError",
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
    # A JSON boolean only: "true", 1 or "yes" are refused rather than read as a wish.
    redact: StrictBool = False


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


class ExecutionError(WebfactoryError):
    """A browser call of a payload failed. Our own words only: `stage` (navigate, fill,
    submit, snapshot), `kind` (see the module docstring), the selector tried (personal data
    pseudonymised) and, for navigations, Chromium's `net::ERR_…` code."""

    STATUS = {
        "navigation": 502,
        "refused": 502,
        "timeout": 504,
        "hung": 504,
        "crashed": 503,
        "not_editable": 422,
        "failed": 422,
        "navigating": 409,
    }

    def __init__(
        self, stage: str, kind: str, reason: str, selector: str | None = None, code: str = ""
    ) -> None:
        self.stage, self.kind, self.reason = stage, kind, reason
        self.selector, self.code = selector, code
        target = f" {selector!r}" if selector else ""
        super().__init__(f"{stage}{target}: {reason}")

    @property
    def status(self) -> int:
        return self.STATUS.get(self.kind, 500)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": str(self), "kind": self.kind, "stage": self.stage}
        if self.selector:
            body["selector"] = self.selector
        if self.code:
            body["code"] = self.code
        return body


_NET_ERROR = re.compile(r"net::ERR_[A-Z0-9_]+")
# Documents in a row a read waits through before answering 409 `navigating`.
NAVIGATIONS = 5


def explain(stage: str, selector: str | None, exc: BrowserCrashedError, ms: int) -> ExecutionError:
    """What went wrong, in our words, from the failure of a bounded call (`exc`, whose cause
    is Playwright's error: only its class and a `net::ERR_` code are read from it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    cause = exc.__cause__
    text = str(getattr(cause, "message", "") or "")
    shown = scrub_selector(selector) if selector else None
    if isinstance(exc, StepTimeoutError):
        return ExecutionError(stage, "hung", "the page stopped answering; it was closed", shown)
    if isinstance(cause, PlaywrightTimeout):
        what = "the element was not ready (visible, enabled, editable)" if shown else "it"
        return ExecutionError(stage, "timeout", f"{what} did not finish within {ms} ms", shown)
    code = m.group(0) if (m := _NET_ERROR.search(text)) else ""
    if code:
        return ExecutionError(stage, "navigation", f"the page could not load ({code})", shown, code)
    if "Execution context was destroyed" in text or "because of a navigation" in text:
        return ExecutionError(stage, "navigating", "the page navigated while it was read", shown)
    if "Element is not an <input>" in text:
        reason = "the element is not an editable field (input, textarea, select, contenteditable)"
        return ExecutionError(stage, "not_editable", reason, shown)
    if any(w in text for w in ("has been closed", "crash", "Connection closed", "disconnected")):
        return ExecutionError(stage, "crashed", "the browser page closed or crashed", shown)
    if "Download is starting" in text:
        return ExecutionError(stage, "navigation", "the URL is a download, not a page", shown)
    return ExecutionError(stage, "failed", "the browser could not do it", shown)


class PayloadError(ConfigError):
    """The payload does not follow the contract; `errors` are pydantic's field errors."""

    def __init__(self, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.errors = errors


# ------------------------------------------------------------------------ executor
class WebExecutor:
    """Runs `WebPayload`s in a browser context, on a generated site or allowed origins."""

    _secrets = SecretPattern(())  # those of the payload running (see `execute`)

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
        extra = tuple(show(o) for o in parse_origins(allowed_origins))
        self.allowed_origins = (ORIGIN, *extra)
        self.session = session or PageSession(
            SessionConfig(allowed_origins=extra, timeout_ms=timeout_ms, step_timeout_ms=timeout_ms),
            transport="fetch",
        )
        if site is not None:
            self.session.app = site.new_app()
        self.clock = clock or LogicalClock()
        self.on_event = on_event
        self.excerpt_chars = excerpt_chars
        self.timeout_ms = timeout_ms
        self._foreign = False  # the page shows an allowed origin's page, not the site's

    def close(self) -> None:
        self.session.close()

    # -------------------------------------------------------------------- public
    def execute(self, payload: WebPayload | dict[str, Any]) -> WebOutcome:
        p = self._validate(payload)
        self._check_url(p.url)
        # The payload's secrets, found in any spelling (`core.secrets`) in everything it
        # returns, raises or emits.
        self._secrets = SecretPattern(f.value for f in p.fields if f.redact)
        try:
            return self._execute(p)
        finally:
            self._secrets = SecretPattern(())

    def scrub(self, text: str) -> str:
        """`text` fit to return or log: the running payload's secrets `REDACTED` in any
        spelling, emails, card and account numbers pseudonymised."""
        return scrub_patterns(self._secrets.sub(REDACTED, text))

    def _execute(self, p: WebPayload) -> WebOutcome:
        if self._foreign:
            # The last payload ended on a page we did not make: whatever it still runs
            # (a timer that navigates away, say) must not touch this payload.
            self._foreign = False
            self._recover()
        refused_before = len(self._refused())
        try:
            outcome = self._run(p)
            self._foreign = origin_of(outcome.final_url) != origin_of(ORIGIN)
            return outcome
        except ExecutionError as exc:
            if exc.stage == "navigate" and len(self._refused()) > refused_before:
                exc = ExecutionError(
                    "navigate",
                    "refused",
                    "a request of the navigation (a redirect, say) went"
                    " outside the allowed origins and was refused",
                    code=exc.code,
                )
            self._recover()
            if exc.selector:
                exc = ExecutionError(
                    exc.stage, exc.kind, exc.reason, self.scrub(exc.selector), exc.code
                )
            raise exc from None
        except SelectorsExhausted:
            self._recover()
            raise

    def _refused(self) -> list[str]:
        egress = getattr(self.session, "_egress", None)
        return egress.refused if egress is not None else []

    def _recover(self) -> None:
        """A fresh page for the next payload (a failed navigation can leave the old one
        mid-navigation); a browser that died is relaunched here too."""
        try:
            self.session.reopen()
        except WebfactoryError as exc:  # the next payload tries again
            log.warning("could not open a fresh page: %s", type(exc).__name__)

    def _do(self, stage: str, fn: Callable[[], Any], selector: str | None = None) -> Any:
        """One bounded browser call of a payload; a failure is `ExecutionError`. Calls with
        Playwright's own timeout get a little longer from the watchdog, so theirs says."""
        try:
            return self.session.call(fn, self.timeout_ms + 2_000, what=stage)
        except BrowserCrashedError as exc:
            raise explain(stage, selector, exc, self.timeout_ms) from None

    def _run(self, p: WebPayload) -> WebOutcome:
        page = self.session.page
        secrets = [f.value for f in p.fields if f.redact and f.value]
        retries: list[RetryEvent] = []
        ms = self.timeout_ms
        refused_before = len(self._refused())
        self._do("navigate", lambda: page.goto(p.url, wait_until="domcontentloaded", timeout=ms))
        self._settle()
        self._check_where("navigate", refused_before)
        results = []
        for f in p.fields:
            selector, attempts = self._locate(f.selector, retries)
            fill = functools.partial(page.locator(selector).first.fill, f.value, timeout=ms)
            self._do("fill", fill, selector)
            self._settle()
            # Selectors in an outcome may be persisted as capability memory, and summaries are
            # logged: neither carries literal personal data (emails, card, account numbers).
            results.append(
                FieldResult(
                    requested=scrub_selector(self.scrub(f.selector)),
                    selector=scrub_selector(self.scrub(selector)),
                    attempts=attempts,
                    value=REDACTED if f.redact else self.scrub(f.value),
                    redacted=f.redact,
                )
            )
        submitted = False
        if p.submit is not None:
            selector, _ = self._locate(p.submit.selector, retries)
            target = page.locator(selector).first
            if p.submit.kind == "click":
                self._do("submit", lambda: target.click(timeout=ms), selector)
            else:
                self._do(
                    "submit",
                    lambda: target.evaluate(
                        "el => { const f = el.form || el.closest('form') || el;"
                        " f.requestSubmit ? f.requestSubmit() : f.submit(); }"
                    ),
                    selector,
                )
            self._settle()
            self.clock.advance(p.submit.wait_after_ms)
            submitted = True
            self._check_where("submit", refused_before)
        excerpt = self._inspect(
            {
                "op": "excerpt",
                "selector": p.snapshot_selector or "body",
                "redact": secrets,
                "max": self.excerpt_chars,
            }
        )
        title = self._reading("snapshot", page.title)
        self._check_where("submit" if submitted else "navigate", refused_before)
        return WebOutcome(
            final_url=self.scrub(page.url),
            title=self.scrub(title),
            excerpt=self.scrub(str(excerpt)),
            fields=results,
            submitted=submitted,
            retries=retries,
            logical_ms=self.clock.now_ms,
        )

    def _check_where(self, stage: str, refused_before: int) -> None:
        """The page is still on an allowed origin, or the payload fails 502 `refused`: a
        page whose script, redirect or form left the allow-list shows an error page, which
        is no outcome."""
        url = self.session.page.url
        origin = origin_of(url)
        if origin in {origin_of(o) for o in self.allowed_origins}:
            return
        refused = self._refused()[refused_before:]
        target = refused[-1].split(" ", 1)[-1] if refused else show(origin) if origin else ""
        where = f" (to {target})" if target else ""
        raise ExecutionError(
            stage,
            "refused",
            f"the page navigated away from the allowed origins{where}; the navigation was refused",
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
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"url {url!r} must be an absolute http(s) URL")
        if parts.username is not None or parts.password is not None:
            raise ConfigError(f"url {url!r} must not carry a user name or password")
        if origin_of(url) not in {origin_of(o) for o in self.allowed_origins}:
            raise ConfigError(
                f"url {url!r} is not on an allowed origin; allowed: "
                f"{', '.join(self.allowed_origins)}"
            )

    def _settle(self) -> None:
        """Wait until the page's document has arrived (a click that navigates returns once
        the next document is committed, which may have no body yet) and its pending requests
        to the site's app are answered."""
        page = self.session.page
        ms = self.timeout_ms
        self._reading("settle", lambda: page.wait_for_load_state("domcontentloaded", timeout=ms))
        self._reading(
            "settle",
            lambda: page.evaluate(
                "() => window.__wf && window.__wf.settled ? window.__wf.settled() : true"
            ),
        )

    def _inspect(self, arg: dict[str, Any]) -> Any:
        page = self.session.page
        return self._reading("snapshot", lambda: page.evaluate(INSPECT_SCRIPT, arg))

    def _reading(self, stage: str, fn: Callable[[], Any]) -> Any:
        """`_do` for a call that only reads the page: when the page navigates under it (a
        `<meta http-equiv=refresh>`, a script setting `location`), wait for the next
        document and read that one, up to `NAVIGATIONS` times; then 409 `navigating`."""
        page = self.session.page
        for _ in range(NAVIGATIONS):
            try:
                return self._do(stage, fn)
            except ExecutionError as exc:
                if exc.kind != "navigating":
                    raise
            self.session.crashed = False  # the page is fine: it only moved on
            wait = functools.partial(
                page.wait_for_load_state, "domcontentloaded", timeout=self.timeout_ms
            )
            self._do(stage, wait)
        raise ExecutionError(
            stage,
            "navigating",
            f"the page kept navigating ({NAVIGATIONS} navigations while it was read);"
            " point the payload at the page it ends on",
        )

    def _count(self, selector: str) -> int:
        try:
            return int(self.session.call(self.session.page.locator(selector).count, what="count"))
        except BrowserCrashedError as exc:
            from playwright.sync_api import Error as PlaywrightError

            if (
                isinstance(exc.__cause__, PlaywrightError)
                and not isinstance(exc, StepTimeoutError)
                and self.session._alive()
            ):
                self.session.crashed = False  # a selector Playwright cannot parse: no match
                return 0
            raise explain("locate", selector, exc, self.timeout_ms) from None

    def _locate(self, requested: str, retries: list[RetryEvent]) -> tuple[str, int]:
        if self._count(requested) > 0:
            return requested, 0
        candidates = derive_candidates(requested, self._inspect({"op": "candidates"}))

        def emit(event: RetryEvent) -> None:
            event = event.model_copy(
                update={
                    "requested": scrub_selector(self.scrub(event.requested)),
                    "selector": scrub_selector(self.scrub(event.selector)),
                    "remaining": [scrub_selector(self.scrub(c)) for c in event.remaining],
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
                scrub_selector(self.scrub(exc.requested)),
                exc.attempts,
                [scrub_selector(self.scrub(t)) for t in exc.tried],
            ) from None
