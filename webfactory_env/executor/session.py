"""One env's browser context: serving the site on a fake origin, acting, observing, screenshots.

This module and `browser.py` are the only places that touch Playwright. A `PageSession`
owns a context and page in the shared browser. The site is served by request interception
on `ORIGIN`; every other request is aborted and counted. Pages are mounted in place, so a
reset to a new site costs one `evaluate`, not a document load.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import numpy as np
from PIL import Image
from pydantic import ValidationError

from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import BrowserCrashedError, ConfigError
from webfactory_env.executor import calls
from webfactory_env.executor.browser import (
    BrowserConfig,
    SharedBrowser,
    StepTimeoutError,
    shared_browser,
)
from webfactory_env.executor.drift import (
    LogicalClock,
    RetryEvent,
    SelectorsExhausted,
    derive_candidates,
    describe_selector,
    retry_candidates,
)
from webfactory_env.executor.egress import EgressProxy, origin_of, parse_origins
from webfactory_env.executor.input import INPUT_VERBS, input_parts, park_pointer, send_input
from webfactory_env.sitegen.app import bootstrap_document
from webfactory_env.sitegen.served import ServedSite, Transport
from webfactory_env.sitegen.spec import AppEvent, Patch, merge_patches

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, Route

log = logging.getLogger(__name__)

ORIGIN = "https://site.webfactory.test"
# The proxy of contexts that may reach nothing but the fake origin. Requests Playwright can
# route never get to it (they are fulfilled or aborted first); the rest — WebSockets, WebRTC
# over TCP — must go through it, and it does not exist (and its name does not resolve), so
# they fail inside the browser. "<-loopback>" sends loopback through it too.
NO_PROXY = {"server": "http://no-egress.invalid:9", "bypass": "<-loopback>"}
EPOCH_MS = 1767607200000  # 2026-01-05T10:00:00Z, the sites' "today"

BrowserVerb = Literal[
    "click", "type", "select", "submit", "press", "scroll", "back",
    # coordinate actions, sent as input events (`executor.input`)
    "mouse_click", "mouse_double_click", "mouse_move", "mouse_drag", "mouse_wheel",
    "keyboard_type", "keyboard_press",
]  # fmt: skip


@dataclass(frozen=True)
class SessionConfig:
    """Browser context settings that affect what a page looks like."""

    viewport: tuple[int, int] = (1280, 800)
    locale: str = "en-US"
    timezone: str = "UTC"
    browser: BrowserConfig = field(default_factory=BrowserConfig)
    timeout_ms: int = 15_000
    # How long one browser call of a step may take before the page counts as hung (a page
    # script in an endless loop, say): the page is then closed, the call fails with
    # `StepTimeoutError`, and the next `load` opens a fresh page. 0 turns the watchdog off.
    step_timeout_ms: int = 5_000
    # Origins (scheme://host:port) whose requests go to the network, through a proxy that
    # reaches nothing else (`egress.EgressProxy`); everything that is neither the fake
    # origin nor one of these is aborted. Empty in the env.
    allowed_origins: tuple[str, ...] = ()
    # A fresh context and page every this many loads (resets): a renderer that mounts
    # site after site keeps some of each in its heap; a new one starts empty. 0: never.
    recycle_every: int = 100
    # Move the mouse to the viewport's corner before each load: where an agent's mouse
    # input left it in one episode must not hover anything in the next.
    park_pointer: bool = False


@dataclass(frozen=True)
class ObserveConfig:
    """What to observe of the page after a step: up to `max_elements` elements (their texts
    whole up to `max_text` characters, a longer one cut with "…") and, with a `screenshot`
    size (height, width), a downscaled screenshot (`perform` takes it, so one call gives
    all a step's observation needs)."""

    max_elements: int = 128
    max_text: int = 8000
    screenshot: tuple[int, int] | None = None

    def to_json(self) -> dict[str, int]:
        return {"maxElements": self.max_elements, "maxText": self.max_text}


@dataclass(frozen=True)
class BrowserOp:
    """A concrete browser action on an element of the last observation."""

    verb: BrowserVerb
    index: int = -1
    value: str = ""
    point: tuple[float, float] | None = None
    label: str = ""  # the element's observed name: a clue if it must be found again
    to: tuple[float, float] | None = None  # a drag's end point; a wheel's (dx, dy)


@dataclass
class StepResult:
    dom: DomSnapshot
    events: list[dict[str, Any]]
    ok: bool = True
    error: str | None = None
    retries: list[RetryEvent] = field(default_factory=list)
    backoff_ms: int = 0
    latency_ms: int = 0
    screenshot: np.ndarray | None = None  # when `ObserveConfig.screenshot` asks for one


class PageSession:
    """A browser context + page showing one site app at a time."""

    def __init__(
        self,
        config: SessionConfig | None = None,
        shared: SharedBrowser | None = None,
        transport: Transport = "queue",
    ):
        """`transport="queue"`: the env drives each step and drains page events itself;
        `"fetch"`: pages post their events to `/__wf/event` like in `webfactory serve`, so
        plain Playwright actions (the web executor) work unaided."""
        self.config = config or SessionConfig()
        self.transport: Transport = transport
        self._shared = shared or shared_browser()
        self.app: ServedSite | None = None
        self.blocked: list[str] = []
        self.crashed = False
        self.timed_out = False
        self.closed = False
        self.loads = 0  # loads since this context was opened (see `recycle_every`)
        self.changes = 0  # loads, actions, scripts and closes so far (`deferred_screenshot`)
        self._booted = False
        self._allowed = parse_origins(self.config.allowed_origins)
        self._egress: EgressProxy | None = None
        self._shared.join()
        try:
            self._open_retrying()
        except BaseException:
            self._shared.leave()
            raise

    def _open_retrying(self) -> None:
        """`_open`, once more if the page or context died or hung while being opened (a
        renderer that crashed at birth; a browser that stopped answering, which the watchdog
        then killed, so the second try launches a fresh one): opening is where a session
        recovers, as a reset is where an env does. A second failure is raised."""
        try:
            self._open()
        except BrowserCrashedError as exc:
            log.warning("opening a page failed (%s); opening a fresh one", exc)
            context = getattr(self, "_context", None)
            if context is not None:
                self._shared.close_context(context, self.config.step_timeout_ms or 5_000)
            self._open()

    # ---------------------------------------------------------------- lifecycle
    def _open(self) -> None:
        browser = self._shared.acquire(self.config.browser)
        w, h = self.config.viewport
        # Opening a context and a page is not a step: on a busy machine (two trainers and
        # their browsers on two cores) it can take longer than a click may. It is bounded
        # by the navigation timeout, or not at all when the watchdog is off.
        limit = self.config.timeout_ms if self.config.step_timeout_ms else 0

        def bounded(fn: Callable[[], Any], what: str) -> Any:
            return self._shared.bounded(fn, limit, what=what, setting="timeout_ms")

        def new_context(browser: Browser) -> BrowserContext:
            return bounded(
                lambda: browser.new_context(
                    viewport={"width": w, "height": h},
                    device_scale_factor=1,
                    locale=self.config.locale,
                    timezone_id=self.config.timezone,
                    reduced_motion="reduce",
                    color_scheme="light",
                    service_workers="block",
                    accept_downloads=False,
                    proxy=self._proxy(),  # type: ignore[arg-type]
                ),
                "opening a browser context",
            )

        try:
            self._context: BrowserContext = new_context(browser)
        except BrowserCrashedError:
            if not self._shared.remote:
                raise
            # A shared Chromium that was restarted: the old connection may not know yet
            # that it is gone. Connect afresh, once.
            self._context = new_context(self._shared.reconnect(self.config.browser))
        self._context.set_default_timeout(self.config.timeout_ms)
        bounded(
            lambda: self._context.add_init_script(calls.INIT_SCRIPT), "installing the page shims"
        )
        bounded(lambda: self._context.route("**/*", self._on_route), "routing requests")
        self._page: Page = bounded(self._context.new_page, "opening a page")
        self._page.on("crash", self._on_crash)
        self._cdp: CDPSession = bounded(
            lambda: self._context.new_cdp_session(self._page), "opening a CDP session"
        )
        self._booted = False
        self.crashed = False
        self.timed_out = False
        self.loads = 0

    def _proxy(self) -> dict[str, str]:
        """The proxy every request the route lets through must use: none that exists
        (`NO_PROXY`), or, with allowed origins, one that reaches only them (`egress`)."""
        if not self._allowed:
            return NO_PROXY
        if self._egress is None:
            self._egress = EgressProxy(self._allowed, quiet=[urlsplit(ORIGIN).hostname or ""])
        return {"server": self._egress.server, "bypass": "<-loopback>"}

    def _on_crash(self, _page: Any) -> None:
        self.crashed = True

    def reopen(self) -> None:
        """Replace the page and context (relaunching the browser or driver if they died)."""
        self._drop_context()
        self._open_retrying()

    def _drop_context(self) -> None:
        self.changes += 1
        self._shared.close_context(self._context, self.config.step_timeout_ms or 5_000)

    def close(self) -> None:
        """Close the context; the last session to close also closes the shared browser."""
        if self.closed:
            return
        self.closed = True
        self._drop_context()
        self._shared.leave()
        if self._egress is not None:
            self._egress.close()

    def release(self) -> None:
        """`close`, from a finaliser: right away where Playwright may be called (its own
        thread, outside its dispatcher), otherwise on the shared browser's next `acquire`."""
        if self.closed:
            return
        self.closed = True
        self._shared.close_context(self._context)
        self._shared.leave()

    # ------------------------------------------------------------------ serving
    def _on_route(self, route: Route) -> None:
        url = route.request.url
        if not (url == ORIGIN or url.startswith(ORIGIN + "/")):
            if self._allowed and origin_of(url) in self._allowed:
                route.continue_()  # to the egress proxy, which checks every later hop too
                return
            self.blocked.append(url[:200])
            route.abort("blockedbyclient")
            return
        path = url[len(ORIGIN) :] or "/"
        if path == "/__wf/event" and route.request.method == "POST" and self.app is not None:
            self._serve_event(route)
            return
        if path.startswith("/__wf/") or path == "/favicon.ico":
            route.fulfill(status=404, body="")
            return
        if self.app is None:
            body = bootstrap_document()
            status = 200
        else:
            try:
                status = self.app.visit(path.split("#", 1)[0])
                body = self.app.document(transport=self.transport)
            except Exception as exc:  # the site's bug: a 500 page, not a request left hanging
                self.app.record_exception(exc)
                status, body = 500, bootstrap_document()
        route.fulfill(status=status, content_type="text/html; charset=utf-8", body=body)

    def _serve_event(self, route: Route) -> None:
        assert self.app is not None
        try:
            event = AppEvent.model_validate_json(route.request.post_data or "")
        except ValidationError as exc:
            self.app.record_error("bad_event", str(exc)[:500])
            route.fulfill(status=400, content_type="application/json", body='{"error":"bad event"}')
            return
        patch = self._dispatch_one(event)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(patch.to_json()))

    # --------------------------------------------------------------- operations
    def call(self, fn: Callable[[], Any], timeout_ms: int | None = None, what: str = "") -> Any:
        """Run a Playwright call on this page, bounded by `timeout_ms` (by default the step
        timeout; see `SharedBrowser.bounded`): a failure or a hang is `BrowserCrashedError`
        (`StepTimeoutError`), and the page counts as crashed until the next `load`."""
        limit = self.config.step_timeout_ms if timeout_ms is None else timeout_ms
        try:
            return self._shared.bounded(
                fn, limit, self._close_hung_page, what or "a call into the page"
            )
        except BrowserCrashedError as exc:
            self.crashed = True
            self.timed_out = isinstance(exc, StepTimeoutError)
            raise

    def _close_hung_page(self) -> None:
        """Runs inside Playwright's event loop: close the hung page from the browser side
        (a renderer stuck in a script cannot answer), which fails the pending call."""
        log.warning("a browser call hung; closing the page")
        close = self._page._impl_obj.close(run_before_unload=False, reason="step timed out")
        self._page._loop.create_task(close)

    def load(
        self, app: ServedSite, *, seed: int, observe: ObserveConfig, clock_ms: int = EPOCH_MS
    ) -> DomSnapshot:
        """Show `app`'s current page from scratch, with clock and random shims reset (and
        the mouse parked first, when `SessionConfig.park_pointer` says so)."""
        self._shared.close_orphans()  # contexts of envs collected since the last reset
        self.changes += 1
        every = self.config.recycle_every
        stale = (
            self.crashed
            or not self._alive()
            or self._shared.retired(self._context, self.config.browser)
        )
        if stale or (every and self.loads >= every):
            self.reopen()
        self.loads += 1
        try:
            if self.config.park_pointer:
                self.park_pointer()
            return self._mount(app, seed=seed, observe=observe, clock_ms=clock_ms)
        except BrowserCrashedError:
            # The page died between steps without saying so (its browser was relaunched by
            # another env, say): a reset is where envs recover, so open a fresh page once.
            log.warning("the page failed while loading a site; reopening it and trying again")
            self.reopen()
            return self._mount(app, seed=seed, observe=observe, clock_ms=clock_ms)

    def _alive(self) -> bool:
        if self._shared.dead or not self._shared.processes.driver_alive():
            return False
        try:
            browser = self._context.browser
            return not self._page.is_closed() and (browser is None or browser.is_connected())
        except Exception:  # Playwright's objects are gone with their connection
            return False

    def _mount(
        self, app: ServedSite, *, seed: int, observe: ObserveConfig, clock_ms: int
    ) -> DomSnapshot:
        if not self._booted:
            self.app = None  # the first document is the bare runtime shell
            self.call(
                lambda: self._page.goto(ORIGIN + "/", wait_until="domcontentloaded"),
                what="loading the site's shell",
            )
            # No history behind the shell: input that goes back (a sideways wheel's
            # overscroll, Alt+ArrowLeft) would leave the runtime for about:blank.
            self.call(lambda: self._cdp.send("Page.resetNavigationHistory"))
            self._booted = True
        self.app = app
        args = [app.mount_payload("queue"), clock_ms, seed & 0x7FFFFFFF, observe.to_json()]
        return DomSnapshot.from_json(self._js("mount", args))

    def _js(self, fn: str, args: list[Any]) -> Any:
        """Call the runtime's entry point `fn` with JSON text in and out (`calls`)."""
        return json.loads(self._runtime_evaluate(calls.runtime_call(fn, args)))

    def _step_js(self, fn: str, *args: Any, wait: bool = False) -> Any:
        """A step's call `fn` of `step.js`, arguments as a JSON literal (`calls`)."""
        return json.loads(self._runtime_evaluate(calls.step_call(fn, *args), wait=wait))

    def _runtime_evaluate(self, expression: str, *, wait: bool = False) -> Any:
        """`expression`'s value, evaluated in the page's main world over its CDP session
        (with `wait`, once the promise it gives has settled)."""
        return self.call(lambda: calls.evaluate(self._cdp, expression, wait=wait))

    def perform(self, op: BrowserOp, *, observe: ObserveConfig, clock_ms: int) -> StepResult:
        """Run one action, let the app handle what the page reported, patch, observe.

        The call that ends the action also observes the page when the action caused no
        event (`then`: nothing to patch), so such a step is one call into the page fewer."""
        self.changes += 1
        page = self._page
        ok, error = True, None
        clock = LogicalClock()
        retries: list[RetryEvent] = []
        then = {"clock": clock_ms, "observe": observe.to_json()}
        assert self.app is not None
        if self.app.drifts and op.index >= 0:
            # The `drift` axis: the page re-renders between the agent's observation and its
            # action, so the observed element is gone and must be found again.
            drift = {
                "clock": clock_ms,
                "patch": self.app.drift_patch().to_json(),
                "rerender": True,
                "observe": None,
            }
            self._step_js("step", drift)
        if op.verb == "click":
            assert op.point is not None
            x, y = op.point
            self.call(lambda: calls.click(page, x, y))
            res = self._step_js("after", then)
        elif op.verb in INPUT_VERBS:
            wheel = op.verb == "mouse_wheel"
            if wheel:  # the step ends when the scroll it makes has reached the page
                assert op.point is not None and op.to is not None
                self._runtime_evaluate(calls.step_call("expectScroll", *op.point, *op.to))
            for part in input_parts(op):
                self.call(functools.partial(send_input, page, part), what=f"input ({op.verb})")
            # and what the input scrolled into view set off
            res = self._step_js("input", then, wait=wheel)
        elif op.verb == "press":
            if op.index >= 0:
                focused = self._act_with_drift(op, "focus", "", clock, retries, None)
                ok, error = bool(focused["ok"]), focused.get("error")
            if ok:
                self.call(lambda: calls.press(page, op.value or "Enter"))
            res = self._step_js("after", then)
        else:
            res = self._act_with_drift(op, op.verb, op.value, clock, retries, then)
            ok, error = bool(res["ok"]), res.get("error")
        events: list[dict[str, Any]] = res["events"]
        patch = None
        if "dom" in res:  # no event: the page was observed as the action ended
            dom = DomSnapshot.from_json(res["dom"])
        else:
            patch = self._dispatch(events)
            payload = {**then, "patch": patch.to_json() if patch else None}
            dom = DomSnapshot.from_json(self._step_js("step", payload))
        latency = patch.latency_ms if patch else 0
        shot = self.screenshot_for(observe)
        return StepResult(dom, events, ok, error, retries, clock.now_ms, latency, shot)

    def _act_with_drift(
        self,
        op: BrowserOp,
        verb: str,
        value: str,
        clock: LogicalClock,
        retries: list[RetryEvent],
        then: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """`act` (observing the page after it if it caused no event and `then` says how),
        and if the element was replaced, find its successor the way the web executor
        re-finds a drifted selector (derived alternatives, backoff, retry events)."""
        res: dict[str, Any] = self._step_js("act", verb, op.index, value, then)
        if not res.get("stale") or not res.get("descriptor"):
            return res
        old = {**res["descriptor"], "label": op.label}
        requested = describe_selector(old)
        elements = self.call(
            lambda: self._page.evaluate(calls.INSPECT_SCRIPT, {"op": "candidates"})
        )
        candidates = derive_candidates(requested, elements, like=old)
        try:
            retry_candidates(
                requested,
                candidates,
                lambda s: self._js("retarget", [op.index, s, verb]) is not None,
                clock,
                retries.append,
            )
        except SelectorsExhausted as exc:
            return {"ok": False, "error": str(exc), "events": res["events"]}
        # Events of the refused try (none, as a rule) go to the app before any observation.
        then = None if res["events"] else then
        again: dict[str, Any] = self._step_js("act", verb, op.index, value, then)
        again["events"] = res["events"] + again["events"]
        return again

    def _dispatch(self, raw_events: list[dict[str, Any]]) -> Patch | None:
        assert self.app is not None
        patches = []
        for raw in raw_events:
            try:
                event = AppEvent.model_validate(raw)
            except ValidationError as exc:
                self.app.record_error("bad_event", str(exc)[:500])
                continue
            patches.append(self._dispatch_one(event))
        return merge_patches(patches) if patches else None

    def _dispatch_one(self, event: AppEvent) -> Patch:
        """`app.dispatch`, where a failure outside its handlers (rendering the page after
        the change, say) also becomes an error page and an app error, never an exception."""
        assert self.app is not None
        try:
            return self.app.dispatch(event)
        except Exception as exc:
            self.app.record_exception(exc)
            return self.app.error_patch()

    def park_pointer(self) -> None:
        """Move the mouse to the viewport's corner (`input.park_pointer`)."""
        self.changes += 1
        self.call(lambda: park_pointer(self._page), what="parking the mouse")

    def observe(self, observe: ObserveConfig) -> DomSnapshot:
        return DomSnapshot.from_json(self._js("observe", [observe.to_json()]))

    def round_trip(self) -> None:
        """One empty call through the channel `_js` uses: the cost floor of any call into
        the page (benchmarks show it)."""
        self._runtime_evaluate("0")

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Run JavaScript in the page (tests and tools; agents never get this), with the
        context's `timeout_ms` rather than the step timeout."""
        self.changes += 1
        return self.call(lambda: self._page.evaluate(expression, arg), self.config.timeout_ms)

    # -------------------------------------------------------------- screenshots
    @property
    def draws(self) -> bool:
        """Whether this session may take screenshots (`BrowserConfig.pixels` not False)."""
        return self.config.browser.draws

    def _need_frames(self) -> None:
        if not self.draws:
            raise ConfigError(
                "this browser draws no frames, so it takes no screenshots (a tokens or text"
                " env gets such a browser unless it is made with"
                " browser=BrowserConfig(pixels=True))"
            )

    def screenshot_png(self) -> bytes:
        """Full-size PNG of the viewport."""
        self._need_frames()
        return self.call(lambda: self._page.screenshot(type="png"))

    def deferred_screenshot(self) -> Callable[[], bytes | None]:
        """A function that takes `screenshot_png` later, of the page as it is now: None once
        anything has changed it (a load, an action, a script, a close)."""
        at = self.changes

        def take() -> bytes | None:
            return self.screenshot_png() if self.changes == at and not self.closed else None

        return take

    def screenshot_for(self, observe: ObserveConfig) -> np.ndarray | None:
        """The screenshot `observe` asks for (see `screenshot_array`), or None."""
        return None if observe.screenshot is None else self.screenshot_array(observe.screenshot)

    def screenshot_array(self, size: tuple[int, int] | None = None) -> np.ndarray:
        """RGB uint8 array of the viewport, downscaled by the browser to (height, width)."""
        self._need_frames()
        w, h = self.config.viewport
        if size is None:
            png = self.screenshot_png()
            return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        out_h, out_w = size
        scale = max(out_w / w, out_h / h)
        shot = self.call(
            lambda: self._cdp.send(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": scale},
                    "captureBeyondViewport": False,
                },
            )
        )
        img = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
        if img.size != (out_w, out_h):
            img = img.resize((out_w, out_h), Image.Resampling.BILINEAR)
        return np.asarray(img)

    @property
    def page(self) -> Page:
        return self._page
