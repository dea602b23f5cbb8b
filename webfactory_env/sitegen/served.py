"""The served site: all that the stages after site generation may ask of a running site.

The executor serves a site's pages and events to a browser (`executor.session`, and
`sitegen.serve` over HTTP for people); the episode reads its state, which transitions an
action set off, and what went wrong. They do it through `ServedSite` alone, never by
setting a site's attributes or calling its private methods (`tests/test_layout.py` checks),
so the app's insides can change without the loop noticing. `SiteApp` implements it.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from webfactory_env.sitegen.spec import AppEvent, Patch

# How the page's runtime reaches the app: the env drains a queue of page events each step;
# a page served over HTTP (or by the web executor) POSTs each event to `/__wf/event`.
Transport = Literal["queue", "fetch"]


class ServedSite(Protocol):
    """A running site, as the browser and the episode see it."""

    # ------------------------------------------------------------ for the executor
    def mount_payload(self, transport: Transport = "queue") -> dict[str, Any]:
        """Everything the page's runtime needs to show the current page from scratch."""
        ...

    def visit(self, route: str) -> int:
        """A request for `route`: that page is now the current one; its HTTP status."""
        ...

    def document(self, transport: Transport = "fetch") -> str:
        """A complete HTML document that boots the runtime on the current page."""
        ...

    def dispatch(self, event: AppEvent) -> Patch:
        """Apply one page event; the patch that brings the page up to date."""
        ...

    @property
    def drifts(self) -> bool:
        """Whether the page re-renders between an observation and the next action."""
        ...

    def drift_patch(self) -> Patch:
        """The page re-rendered with every element replaced (the `drift` axis)."""
        ...

    def error_patch(self) -> Patch:
        """The server-error page, for a failure outside the site's transitions."""
        ...

    def record_error(self, kind: str, message: str) -> None:
        """Note a failure in serving the site (a malformed page event, say)."""
        ...

    def record_exception(self, exc: BaseException) -> None:
        """Note the site's own bug, with its traceback (call it while handling `exc`)."""
        ...

    # ------------------------------------------------------------- for the episode
    def state_view(self) -> dict[str, Any]:
        """The state rewards read (callers must not change it)."""
        ...

    def take_fired(self) -> tuple[str, ...]:
        """The transitions run since the last call (how the last action changed state)."""
        ...

    def take_errors(self) -> list[dict[str, Any]]:
        """The failures noted since the last call."""
        ...
