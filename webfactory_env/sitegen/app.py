"""The running site: authoritative state, event dispatch, and the documents that serve it.

A `SiteApp` owns one site's mutable state: an instance of its family's declared state
model (`State`, see `sitegen.state`), with the family's queries over it (`Queries`). The
browser sends it `AppEvent`s, each handled by one *transition* of the family's table (a
function over a `Context` declared with `@transition`, whose keyword parameters are the
typed arguments `dispatch` decodes from the event, see `sitegen.binding`); it answers with
a `Patch` of re-rendered regions, only those whose HTML changed since they were last sent.
Pages are functions of the same context. Rewards and the task compiler read `state_view()`
directly, with no browser, and learn from `take_fired()` which transitions an action set
off (provenance).

The base class also owns what every family shares: UI state (open menus and pickers,
active tabs, the open dialog, how much of an infinite list is loaded, the one-navigation
message), the server behaviour axes (logical latency, injected errors with a Retry
button), theme CSS, and the page frame (top bar or sidebar navigation). A family's app
derives from it directly and only declares its state, queries, transitions, pages and
routes.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import traceback
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from webfactory_env.core.domains import Vocabulary, declare
from webfactory_env.core.resources import read_family_text, read_text, runtime_script
from webfactory_env.core.seeding import hash_to_int
from webfactory_env.sitegen import ui
from webfactory_env.sitegen.binding import (
    BadArgument,
    Binding,
    EventType,
    Transition,
    Unavailable,
    transition,
    transitions_in,
)
from webfactory_env.sitegen.context import Context, UiState
from webfactory_env.sitegen.context import Queries as FamilyQueries
from webfactory_env.sitegen.copy import Copy
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.served import Transport
from webfactory_env.sitegen.spec import AppEvent, PageView, Patch, SiteSpec, with_nested
from webfactory_env.sitegen.start import StartRenders
from webfactory_env.sitegen.state import (
    CHECK_VIEWS,
    AppState,
    Schema,
    TableViews,
    schema_of,
    view_of,
)
from webfactory_env.sitegen.theme import theme_css
from webfactory_env.sitegen.variation import Variation

T = TypeVar("T")
PageFn = Callable[[Any, Renderer, str], tuple[str, str]]  # (ctx, renderer, route) -> title, main

ERROR_RATE = 0.2  # share of changes that fail when the `errors` axis is "some"
DEBOUNCE_MS = 300


@transition("retry", neutral=True)
def retry(ctx: Context[Any, Any]) -> str | None:
    """The Retry button: send again the change an injected server error refused. Only the
    app keeps that change, so `SiteApp.dispatch` does it; this declares the transition."""
    return None


class SiteApp:
    """Base class of every family's app.

    A family sets `State` (its state dataclass, started by `State.start(spec)`), `Queries`
    (its queries class, `Queries(state, spec)`), `TRANSITIONS` (its transition table,
    `transitions_in(...)`), `PAGES` (page kind -> a function of the context), optionally
    `Facts` (computed, read-only values merged into the view) and `OPEN` (page objects
    that describe one entity: the open card is `cards[card.id]`), `ROUTES` (its fixed
    routes), and implements `facts`, `_entity_page_kind` (or `_page_kind`) and `header`.
    """

    family: ClassVar[str] = ""
    State: ClassVar[type[AppState] | None] = None
    Queries: ClassVar[type[FamilyQueries]] = FamilyQueries
    # The family's transitions by event name (`transitions_in` its modules).
    TRANSITIONS: ClassVar[Mapping[str, Transition]] = {}
    # Fixed routes and the kind of page each shows ("/cart": "cart").
    ROUTES: ClassVar[Mapping[str, str]] = {}
    Facts: ClassVar[type | None] = None
    # page object -> the entity table it shows: `card.column` is `cards[card.id].column`
    OPEN: ClassVar[Mapping[str, str]] = {}
    # answer path -> `table.field` whose values are the other answers an agent could give
    DOMAINS: ClassVar[Mapping[str, str]] = {}
    # answerable field ("login.city": an item's attribute, or a state path) -> the kind of
    # value it holds ("money"), or the `Vocabulary` of every value the family can produce
    ANSWERS: ClassVar[Mapping[str, str | Vocabulary]] = {}
    # page kind -> the function that draws it, `(ctx, r, route) -> (title, main)`
    PAGES: ClassVar[Mapping[str, PageFn]] = {}
    _transitions: ClassVar[dict[str, Transition]] = {}
    model: AppState  # the family's state, an instance of `State`
    queries: FamilyQueries  # the family's reads over it, an instance of `Queries`

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._transitions = {
            **transitions_in(ui),
            "retry": retry,
            **cls.TRANSITIONS,
        }
        if cls.family:
            declare(cls.family, (v for v in cls.ANSWERS.values() if isinstance(v, Vocabulary)))

    @classmethod
    def transitions(cls) -> Mapping[str, Transition]:
        """The family's transition table: every transition its pages can cause, by name
        (what the compiler and the rewards read flags such as `neutral` from)."""
        return cls._transitions

    @classmethod
    def mutating(cls, name: str | None) -> bool:
        """Whether the transition `name` changes server-side data (declared `mutating`)."""
        found = cls._transitions.get(name or "")
        return found is not None and found.mutating

    @classmethod
    def back_doors(cls) -> tuple[str, ...]:
        """The transitions declared `back_door`, sorted."""
        return tuple(sorted(n for n, t in cls._transitions.items() if t.back_door))

    @classmethod
    def context_of(
        cls, spec: SiteSpec, state: AppState | None = None, *, route: str | None = None
    ) -> Context[Any, Any]:
        """A context over `state` (by default the site's start state) with a fresh UI, on
        `route` (by default the start route): what a test gives a transition or a page,
        with no app."""
        assert cls.State is not None, f"{cls.__name__} declares no State"
        state = cls.State.start(spec) if state is None else state
        v = Variation(**spec.variation)
        return Context(
            state,
            cls.Queries(state, spec),
            spec,
            v,
            Copy(cls.family, v, spec.seed),
            UiState(),
            route or spec.start_route,
        )

    def __init__(self, spec: SiteSpec) -> None:
        self.spec = spec
        self.v = Variation(**self.spec.variation)
        self.copy = Copy(self.family, self.v, self.spec.seed)
        self.route = self.spec.start_route
        self.ui = UiState()
        self.errors: list[dict[str, Any]] = []
        self.failed: AppEvent | None = None  # the change an injected error refused
        self.requests = 0  # mutating requests so far: seeds error injection
        self.epoch = 0  # re-renders forced by the `drift` axis (they rename DOM and test ids)
        self._sent: dict[str, str] = {}
        self._version = 0  # bumped by every change of state: the page memo's clock
        self.tables = TableViews()  # the entity tables' views, kept until server data changes
        self._page_memo: tuple[tuple[Any, ...], PageView] | None = None
        self._view_memo: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self.fired: list[str] = []  # transitions run since `take_fired` (provenance)
        self.start: StartRenders | None = None  # shared with the site's other fresh apps
        # Whether `dispatch` renders the patch a page needs. The task compiler walks a fresh
        # app and reads a page only when it looks: it renders nothing it never reads.
        self.patches = True
        # Whether pages no one is sent (`patches` off) are drawn as sketches (`sitegen.html`).
        self.sketches = False
        if self.State is not None:
            self.model = self.State.start(spec)
            self.queries = self.Queries(self.model, spec)

    def context(self) -> Context[Any, Any]:
        """What the family's transitions and pages work on now."""
        return Context(
            self.model,
            self.queries,
            self.spec,
            self.v,
            self.copy,
            self.ui,
            self.route,
            self.failed,
        )

    # ------------------------------------------------------------ for subclasses
    def render(self, route: str) -> PageView:
        """The page at `route`: by default the page of the kind `_page_kind` names."""
        return self.render_kind(route, self._page_kind(route))

    def state(self) -> dict[str, Any]:
        """The family's own state, as JSON-like data (rewards read it): by default the
        view of `self.state_model` with `facts()` merged in."""
        view = view_of(self.model, self.facts(), converted=self.tables.views(self.model))
        if CHECK_VIEWS:
            self.tables.check(self.model, self.fired)
        return {"route": self.route, "page": self._page_kind(self.route), **view}

    def facts(self) -> Any:
        """Computed, read-only values of the page (a `Facts` instance), or None."""
        return None

    @classmethod
    def schema(cls) -> Schema:
        """Every path of this family's state view, with its part (see `sitegen.state`)."""
        if cls.State is None:
            raise NotImplementedError(f"{cls.__name__} declares no State")
        return _schema(cls)

    def take_fired(self) -> tuple[str, ...]:
        """The transitions run since the last call (how the last action changed state)."""
        fired, self.fired = tuple(self.fired), []
        return fired

    def checkpoint(self) -> tuple[Any, ...]:
        """The UI state now, with the page and view drawn for it (see `restore`)."""
        memos = (self._page_memo, self._view_memo)
        return (copy.deepcopy(self.ui), self.fired, len(self.fired), self._version, *memos)

    def restore(self, checkpoint: tuple[Any, ...]) -> None:
        """Back to `checkpoint`'s UI state. When nothing but UI transitions ran since (the
        compiler opens menus and tabs to look behind them, then closes them again), the
        page and view drawn for it still hold: nothing is drawn again."""
        self.ui, fired, n, version, page, view = checkpoint
        if fired is self.fired and all(name.startswith("ui.") for name in fired[n:]):
            self._version, self._page_memo, self._view_memo = version, page, view
        else:
            self.touch()

    def known_route(self, path: str) -> bool:
        return self._page_kind(path) != "not_found"

    def _page_kind(self, route: str) -> str:
        """The kind of page `route` shows ("not_found" for none); `PAGES[kind]` draws it.
        By default a fixed route's kind from `ROUTES`, else `_entity_page_kind`."""
        return self.ROUTES.get(route) or self._entity_page_kind(route)

    def _entity_page_kind(self, route: str) -> str:
        """The kind of a page that shows one entity (a product, a card), or "not_found"."""
        return "not_found"

    def header(self, r: Renderer) -> str:
        """The navigation region (a top bar or a sidebar, depending on the `nav` axis)."""
        raise NotImplementedError

    # --------------------------------------------------------------- composition
    def state_view(self) -> dict[str, Any]:
        """What predicates read: the family's state, the UI state and the server's. Built
        once per state (callers must not change it)."""
        key = self._memo_key()
        if self._view_memo is None or self._view_memo[0] != key:
            self._view_memo = (key, self._from_start("view", key, self._state_view))
        return self._view_memo[1]

    def _state_view(self) -> dict[str, Any]:
        return {
            **self.state(),
            "ui": self.ui.view(),
            "server": {"error": self.failed is not None},
        }

    def _from_start(self, what: str, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """`make()`, or what another fresh app of the site made for the same start state."""
        if self.start is None or self._version:
            return make()
        return self.start.get(what, key, make)

    def renderer(self) -> Renderer:
        salt = f"{self.spec.family}:{self.spec.seed}:{self.epoch}"
        # The start page is drawn whole all the same when the site's other apps share it.
        sketch = self.sketches and not self.patches and (self.start is None or self._version > 0)
        return Renderer(self.v, salt=salt, queries=self.ui.queries, state=self.model, sketch=sketch)

    def drift_patch(self) -> Patch:
        """Re-render every region with renamed DOM and test ids (the `drift` axis): the
        page looks the same, but every element of the last observation is replaced."""
        self.epoch += 1
        page = self.page()
        self._sent.update(page.regions)
        return Patch(regions=with_nested(page.regions, page.regions))

    def page_view(
        self, r: Renderer, *, route: str, title: str, main: str, status: int = 200
    ) -> PageView:
        """Assemble a page: header, main (with any retry banner), nested regions."""
        if self.failed is not None:
            from webfactory_env.sitegen.widgets import retry_banner

            message = self.copy(
                "errors.rolled_back" if self.v.optimistic == "on" else "errors.server"
            )
            main = retry_banner(r, message=message, retry_text=self.copy("errors.retry")) + main
        header = self.header(r)
        regions = {"header": header, "main": main, **r.subregions}
        return PageView(
            route=route,
            title=f"{title} · {self.spec.brand}",
            regions=regions,
            affordances=tuple(r.affordances),
            status=status,
        )

    def render_kind(self, route: str, kind: str) -> PageView:
        """The page of `kind` at `route`: `PAGES[kind](ctx, r, route)` gives its title and
        main region; a "not_found" page answers 404."""
        r = self.renderer()
        with r.drawing():
            title, main = self.PAGES.get(kind, not_found)(self.context(), r, route)
            status = 404 if kind == "not_found" else 200
            return self.page_view(r, route=route, title=title, main=main, status=status)

    def frame(self, r: Renderer) -> str:
        """The page layout with its regions."""
        layout = "layout-sidebar" if self.v.nav == "sidebar" else "layout-top"
        return (
            f'<div class="wf-app {layout} theme-{self.v.theme}">'
            f'<header class="site-header"{r.region("header")}></header>'
            f'<main class="site-main"{r.region("main")}></main>'
            f'<footer class="site-footer">&copy; {esc(self.spec.brand)}</footer>'
            "</div>"
        )

    def css(self) -> str:
        return (
            read_text("sites", "common", "base.css")
            + theme_css(self.v)
            + read_family_text(self.family, "theme.css")
        )

    def today(self) -> dt.date:
        return dt.date.fromisoformat(self.spec.today)

    # ------------------------------------------------------------------ runtime
    def touch(self, *, tables: bool = True) -> None:
        """Say the app's state changed. `dispatch` does it; call it after changing state
        anywhere else, or `page()` keeps showing the earlier rendering. `tables=False`:
        no entity table changed (only the session, drafts, view or UI state)."""
        self._version += 1
        if tables:
            self.tables.changed()

    def page(self) -> PageView:
        """The current page, rendered once per state: the runtime, the compiler and the
        conformance checks ask for the same page many times between two events. State
        changes go through `dispatch` (or `touch`); the route, the UI state and the drift
        epoch may also be set from outside, so they are part of the key."""
        key = self._memo_key()
        if self._page_memo is None or self._page_memo[0] != key:
            self._page_memo = (key, self._from_start("page", key, lambda: self.render(self.route)))
        return self._page_memo[1]

    def _memo_key(self) -> tuple[Any, ...]:
        ui = self.ui
        return (
            self._version,
            self.epoch,
            self.route,
            ui.flash,
            self.failed is not None,
            ui.modal,
            tuple(sorted(ui.open)),
            tuple(sorted(ui.tabs.items())),
            tuple(sorted(ui.months.items())),
            tuple(sorted(ui.more.items())),
            tuple(sorted(ui.queries.items())),
        )

    def dispatch(self, event: AppEvent) -> Patch:
        """Apply one page event and return the patch that brings the page up to date."""
        before = self.route
        latency = 0
        name = "nav" if event.type == "nav" else event.handler or ""
        fn = self._transitions.get(name)
        # Only a change of server data (a mutating transition, or the retry of one) may
        # change an entity table: after any other, the tables' views still hold.
        tables = fn is None or fn.mutating or fn is retry
        self.touch(tables=tables)
        if fn is None:
            self.errors.append({"kind": "unknown_handler", "handler": name})
            return Patch()
        try:
            args = fn.decode(event.arg)
        except BadArgument as exc:  # the page never sends it: refused, like an unknown one
            self.errors.append({"kind": "bad_argument", "handler": name, "message": str(exc)})
            return Patch()
        try:
            if fn is not retry:  # a retry counts as the change it retries
                self.fired.append(name)
            if event.type == "change" and not fn.neutral:
                self.ui.open.clear()  # choosing closes menus and pickers
                self.ui.queries.clear()
            if fn.mutating:
                latency += self.v.latency_ms
                if self._inject_error():
                    self.failed = event
                    self.ui.modal = None  # so the Retry button is not behind a dialog
                    return self._patch(event, before, latency, tables)
                self.failed = None
            if event.type == "input" and self.v.debounce == "on":
                latency += DEBOUNCE_MS
            target = self._retry() if fn is retry else self._run(fn, event, args)
            if fn is ui.navigate:
                self.failed = None  # a page left behind forgets the change it refused
            if target is not None:
                self.route = target
        except Exception as exc:  # the site's bug must not crash the env: show a 500 page
            self.record_exception(exc)
            return self.error_patch()
        return self._patch(event, before, latency, tables)

    def fire(
        self,
        bound: Binding | Transition,
        *,
        type: EventType | None = None,
        value: str | None = None,
        values: dict[str, str] | None = None,
        sid: str | None = None,
        **args: Any,
    ) -> Patch:
        """Dispatch the event a page element bound to `bound` (with `args`) sends: a
        `submit` with `values`, a `change` with `value`, else a `click` (or `type`)."""
        binding = bound.bind(**args) if isinstance(bound, Transition) else bound.with_args(**args)
        kind = type or (
            "submit" if values is not None else "change" if value is not None else "click"
        )
        return self.dispatch(binding.event(kind, value=value, values=values, sid=sid))

    def _patch(self, event: AppEvent, before: str, latency: int, tables: bool) -> Patch:
        self.touch(tables=tables)  # the handler changed state: render afresh
        if not self.patches:
            return Patch()
        navigated = self.route != before or event.type == "nav"
        page = self.page()
        changed = {k: v for k, v in page.regions.items() if self._sent.get(k) != v}
        self._sent.update(changed)
        if event.type == "input" and event.sid and not navigated:
            # Never replace the region the user is typing into: only its sub-regions
            # (suggestions, field errors) change while typing.
            marker = f'data-wf-sid="{event.sid}"'
            changed = {k: v for k, v in changed.items() if marker not in v}
        changed = with_nested(page.regions, changed)
        self._sent.update(changed)
        if not navigated:
            return Patch(regions=changed, latency_ms=latency)
        return Patch(
            regions=changed,
            title=page.title,
            route=self.route,
            history="back" if event.back else "push",
            scroll="top",
            latency_ms=latency,
        )

    def _inject_error(self) -> bool:
        self.requests += 1
        if self.v.errors != "some" or self.failed is not None:
            return False  # never fail a retry: one error, one Retry, then it goes through
        x = hash_to_int(f"{self.spec.family}:{self.spec.seed}:error:{self.requests}", 32)
        return x < ERROR_RATE * 2**32

    def error_patch(self) -> Patch:
        self.touch()
        html = (
            f"<h1>{esc(self.copy('server_error.title'))}</h1>"
            f'<p class="error-summary">{esc(self.copy("server_error.body"))}</p>'
        )
        self._sent["main"] = html
        return Patch(regions={"main": html}, title=self.copy("server_error.title"))

    def _run(self, fn: Transition, event: AppEvent, args: Mapping[str, Any]) -> str | None:
        """Run `fn` for `event`. A service that fails this time (`Unavailable`) leaves the
        event waiting for Retry, as an injected error does."""
        try:
            return fn.run(self.context(), event, args)
        except Unavailable:
            self.failed = event
            return None

    def _retry(self) -> str | None:
        """Send again the change an injected server error refused (the Retry button)."""
        failed, self.failed = self.failed, None
        if failed is None:
            return None
        fn = self._transitions[failed.handler or ""]
        self.fired.append(fn.name)
        self.requests += 1
        return self._run(fn, failed, fn.decode(failed.arg))

    # ------------------------- the served site: `sitegen.served.ServedSite` says what each does
    @property
    def drifts(self) -> bool:
        return self.v.drift == "on"

    def visit(self, route: str) -> int:
        self.route = route
        return self.page().status

    def record_error(self, kind: str, message: str) -> None:
        self.errors.append({"kind": kind, "message": message})

    def record_exception(self, exc: BaseException) -> None:
        failure = {"kind": "app_exception", "message": f"{type(exc).__name__}: {exc}"}
        self.errors.append({**failure, "traceback": traceback.format_exc(limit=5)})

    def take_errors(self) -> list[dict[str, Any]]:
        taken, self.errors = self.errors, []
        return taken

    # ---------------------------------------------------------------- documents
    def mount_payload(self, transport: Transport = "queue") -> dict[str, Any]:
        """Everything the runtime needs to show the current page from scratch."""
        r = self.renderer()
        frame = self.frame(r)
        page = self.page()
        self._sent = dict(page.regions)
        return {
            "transport": transport,
            "title": page.title,
            "css": self.css(),
            "frame": frame,
            "regions": with_nested(page.regions, page.regions),  # parents first
            "route": self.route,
        }

    def document(self, transport: Transport = "fetch") -> str:
        """A complete HTML document that boots the runtime on the current page."""
        boot = json.dumps(self.mount_payload(transport), ensure_ascii=False)
        boot = boot.replace("</", "<\\/").replace("<!--", "<\\!--")
        return bootstrap_document(boot_json=boot)


def not_found(ctx: Context[Any, Any], r: Renderer, route: str) -> tuple[str, str]:
    """The page of a route the site does not have (404)."""
    from webfactory_env.sitegen.widgets import link

    c = ctx.copy
    home = link(r, sid="notfound:/", href="/", text=c("not_found.home"))
    return c("not_found.title"), (
        f"<h1>{esc(c('not_found.title'))}</h1><p>{esc(c('not_found.body'))}</p><p>{home}</p>"
    )


_SCHEMAS: dict[type, Schema] = {}


def _schema(cls: type[SiteApp]) -> Schema:
    found = _SCHEMAS.get(cls)
    if found is None:
        assert cls.State is not None
        found = _SCHEMAS[cls] = schema_of(cls.State, cls.Facts)
    return found


def bootstrap_document(boot_json: str | None = None) -> str:
    """The HTML shell: base CSS, an empty root, optionally a boot payload, the runtime."""
    boot = f'<script type="application/json" id="wf-boot">{boot_json}</script>' if boot_json else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title></title><style>{read_text('sites', 'common', 'base.css')}</style></head>"
        f'<body><div id="wf-root"></div>{boot}'
        f"<script>{runtime_script()}</script></body></html>"
    )
