"""The running site: authoritative state, event dispatch, and the documents that serve it.

A `SiteApp` owns one site's mutable state. The browser sends it `AppEvent`s; it answers
with a `Patch` of re-rendered regions, only those whose HTML changed since they were last
sent. Rewards and the task compiler read `state_view()` directly, with no browser.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from webfactory_env.core.resources import read_text
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AppEvent, PageView, Patch

if TYPE_CHECKING:
    from webfactory_env.sitegen.registry import Site

Handler = Callable[[Any, AppEvent], str | None]
Transport = Literal["queue", "fetch"]


def handler(name: str) -> Callable[[Handler], Handler]:
    """Mark an app method as the handler of the page events named `name`."""

    def mark(fn: Handler) -> Handler:
        fn.__wf_handler__ = name  # type: ignore[attr-defined]
        return fn

    return mark


class SiteApp:
    """Base class of every family's app. Subclasses implement `render` and `state_view`."""

    family: ClassVar[str] = ""
    _handlers: ClassVar[dict[str, Handler]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Handler] = {}
        for klass in reversed(cls.__mro__):
            for attr in vars(klass).values():
                name = getattr(attr, "__wf_handler__", None)
                if name:
                    found[name] = attr
        cls._handlers = found

    def __init__(self, site: Site) -> None:
        self.site = site
        self.spec = site.spec
        self.route = self.spec.start_route
        self.errors: list[dict[str, Any]] = []
        self._sent: dict[str, str] = {}

    # ------------------------------------------------------------ for subclasses
    def render(self, route: str) -> PageView:
        raise NotImplementedError

    def state_view(self) -> dict[str, Any]:
        raise NotImplementedError

    def frame(self, r: Renderer) -> str:
        """The page layout with its regions; families may override (sidebar layouts...)."""
        return (
            '<div class="wf-app">'
            f'<header class="site-header"{r.region("header")}></header>'
            f'<main class="site-main"{r.region("main")}></main>'
            f'<footer class="site-footer">&copy; {esc(self.spec.brand)}</footer>'
            "</div>"
        )

    def css(self) -> str:
        return read_text("sites", "common", "base.css") + read_text(
            "sites", self.family, "theme.css"
        )

    def known_route(self, path: str) -> bool:
        raise NotImplementedError

    # ------------------------------------------------------------------ runtime
    def page(self) -> PageView:
        return self.render(self.route)

    def dispatch(self, event: AppEvent) -> Patch:
        """Apply one page event and return the patch that brings the page up to date."""
        before = self.route
        target: str | None
        try:
            if event.type == "nav":
                target = event.path or "/"
            else:
                fn = self._handlers.get(event.handler or "")
                if fn is None:
                    self.errors.append({"kind": "unknown_handler", "handler": event.handler})
                    return Patch()
                target = fn(self, event)
            if target is not None:
                self.route = target
        except Exception as exc:  # the site's bug must not crash the env: show a 500 page
            self.errors.append(
                {
                    "kind": "app_exception",
                    "message": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=5),
                }
            )
            return self._error_patch()
        navigated = self.route != before or event.type == "nav"
        page = self.page()
        changed = {k: v for k, v in page.regions.items() if self._sent.get(k) != v}
        self._sent.update(changed)
        if not navigated:
            return Patch(regions=changed)
        return Patch(
            regions=changed,
            title=page.title,
            route=self.route,
            history="back" if event.back else "push",
            scroll="top",
        )

    def _error_patch(self) -> Patch:
        copy = json.loads(read_text("sites", self.family, "copy.json")).get("server_error", {})
        html = (
            f"<h1>{esc(copy.get('title', 'Server error'))}</h1>"
            f'<p class="error-summary">{esc(copy.get("body", ""))}</p>'
        )
        self._sent["main"] = html
        return Patch(regions={"main": html}, title=copy.get("title", "Server error"))

    def mount_payload(self, transport: Transport = "queue") -> dict[str, Any]:
        """Everything the runtime needs to show the current page from scratch."""
        r = Renderer()
        frame = self.frame(r)
        page = self.page()
        self._sent = dict(page.regions)
        return {
            "transport": transport,
            "title": page.title,
            "css": self.css(),
            "frame": frame,
            "regions": dict(page.regions),
            "route": self.route,
        }

    def document(self, transport: Transport = "fetch") -> str:
        """A complete HTML document that boots the runtime on the current page."""
        boot = json.dumps(self.mount_payload(transport), ensure_ascii=False)
        boot = boot.replace("</", "<\\/").replace("<!--", "<\\!--")
        return bootstrap_document(boot_json=boot)


def bootstrap_document(boot_json: str | None = None) -> str:
    """The HTML shell: base CSS, an empty root, optionally a boot payload, the runtime."""
    boot = f'<script type="application/json" id="wf-boot">{boot_json}</script>' if boot_json else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title></title><style>{read_text('sites', 'common', 'base.css')}</style></head>"
        f'<body><div id="wf-root"></div>{boot}'
        f"<script>{read_text('sites', 'runtime', 'runtime.js')}</script></body></html>"
    )
