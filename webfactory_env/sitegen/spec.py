"""What a generated site is: affordances, rendered pages, the SiteSpec, events and patches."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webfactory_env.core.predicates import Predicate
from webfactory_env.core.seeding import stable_digest

AttrValue = str | int | float | bool
Verb = Literal["click", "fill", "select", "submit"]


@dataclass(frozen=True, slots=True)
class Option:
    """One choice of a select-like affordance; `attrs` refine the affordance's own attrs.

    `sid` is set when the option is an element of its own (a radio button, an item of a
    custom dropdown) rather than an entry of a native `<select>`.
    """

    value: str
    label: str
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    aliases: tuple[str, ...] = ()
    sid: str | None = None

    def matches(self, term: str) -> bool:
        """Whether the DSL value `term` names this option (value, label or alias, any case)."""
        t = term.strip().lower()
        return t in {self.value.lower(), self.label.lower(), *(a.lower() for a in self.aliases)}


# "option": a clickable element that reports a choice (menu item, calendar day, suggestion).
Element = Literal[
    "a", "button", "select", "input", "textarea", "radio", "checkbox", "editable", "group", "option"
]
Ui = Literal["link", "button", "native", "choice", "menu", "input", "typeahead", "calendar"]


@dataclass(frozen=True, slots=True)
class Affordance:
    """A typed, semantically identified interactive element of a rendered page.

    `sid` is derived from entity identity (e.g. `item:SKU-1A2B3C4D`), unique within a page
    and stable across every variation of the site. `effect` is the predicate template the
    compiler binds when a task acts on this affordance; `sticky` effects (navigation) stay
    achieved once reached, the others can be undone.

    How the element is operated: `element` is what the page holds (a link, a button, a
    radio, a text input, ...) and `ui` how a choice is made: `native` (a `<select>`),
    `choice` (every option is its own element), `menu` (click `opener`, then an option),
    `typeahead` (type, then pick a suggestion), `calendar` (open, page months, pick a day).
    """

    sid: str
    kind: str
    verb: Verb
    attrs: tuple[tuple[str, AttrValue], ...]
    options: tuple[Option, ...] = ()
    effect: Predicate | None = None
    sticky: bool = False
    label: str = ""
    handler: str | None = None
    arg: str | None = None
    href: str | None = None
    element: Element = "button"
    ui: Ui = "button"
    value: str | None = None
    opener: str | None = None
    redact: bool = False
    # Part of how a widget works (a pager button, a menu option, a dialog's close button),
    # not something a site means: such affordances may come and go with the variation.
    structural: bool = False

    def attr_map(self) -> dict[str, AttrValue]:
        return dict(self.attrs)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sid": self.sid,
            "kind": self.kind,
            "verb": self.verb,
            "attrs": dict(self.attrs),
            "label": self.label,
            "element": self.element,
            "ui": self.ui,
        }
        if self.options:
            out["options"] = [
                {"value": o.value, "label": o.label, "attrs": dict(o.attrs), "sid": o.sid}
                for o in self.options
            ]
        if self.effect is not None:
            out["effect"] = self.effect.to_json()
            out["sticky"] = self.sticky
        if self.opener:
            out["opener"] = self.opener
        if self.structural:
            out["structural"] = True
        if self.redact:
            out["redact"] = True
        elif self.value is not None:
            out["value"] = self.value
        return out

    def click_event(self) -> AppEvent:
        """The event the runtime sends when a person clicks this element."""
        if self.element in ("radio", "checkbox", "option"):
            value = self.value or ""
            if self.element == "checkbox":
                value = "false" if self.attr_map().get("checked") else "true"
            return AppEvent(
                type="change", handler=self.handler, arg=self.arg, sid=self.sid, value=value
            )
        if self.handler:
            return AppEvent(type="click", handler=self.handler, arg=self.arg, sid=self.sid)
        return AppEvent(type="nav", path=self.href or "/", sid=self.sid)


@dataclass(frozen=True, slots=True)
class PageView:
    """One page as the app renders it now: title, HTML per region, and its affordances."""

    route: str
    title: str
    regions: Mapping[str, str]
    affordances: tuple[Affordance, ...]
    status: int = 200

    def affordance(self, sid: str) -> Affordance | None:
        return next((a for a in self.affordances if a.sid == sid), None)

    def form_values(self, submit_sid: str) -> dict[str, str]:
        """What the browser's `FormData` holds when the form whose submit button is
        `submit_sid` is sent: the named native controls physically inside that `<form>`
        (a field elsewhere on the page is not sent, whatever it is about)."""
        html = _inlined(self.regions)
        at = html.find(f'data-wf-sid="{submit_sid}"')
        start, end = html.rfind("<form", 0, at), html.find("</form>", at)
        if at < 0 or start < 0 or end < 0:
            return {}
        inside = set(_CONTROL.findall(html[start:end]))
        return {
            str(a.attr_map()["name"]): a.value or ""
            for a in self.affordances
            if a.sid in inside and "name" in a.attr_map()
        }

    def texts(self) -> list[str]:
        """Each text the page shows, on its own (unescaped and stripped): what the task
        compiler looks for an answer in."""
        page = _HIDDEN.sub(" ", " ".join(self.regions.values()))
        return [t for t in (html.unescape(x).strip() for x in _TAG.split(page)) if t]


_CONTROL = re.compile(r'<(?:input|textarea|select)\b[^>]*?data-wf-sid="([^"]+)"')
_HIDDEN = re.compile(r"<(style|script|template)\b.*?</\1>", flags=re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_PLACEHOLDER = re.compile(r'data-wf-region="([^"]+)"')
_REGION = re.compile(r'(<[a-z]+[^>]*data-wf-region="([^"]+)"[^>]*>)')


def _inlined(regions: Mapping[str, str]) -> str:
    """The page's HTML with every nested region's content put in its placeholder."""

    def fill(html: str, depth: int) -> str:
        if depth > 8:
            return html
        return _REGION.sub(
            lambda m: m.group(1) + fill(regions.get(m.group(2), ""), depth + 1), html
        )

    return fill("".join(regions.get(k, "") for k in ("header", "main")), 0)


def with_nested(regions: Mapping[str, str], changed: Mapping[str, str]) -> dict[str, str]:
    """`changed` plus every region nested (at any depth) in one of them, parents first.

    A re-sent region arrives with empty placeholders for the regions nested in it, so those
    must be re-sent even when their own HTML did not change, and after their parent: a
    child filled first would be wiped by its parent. Page order is no guide, because a
    renderer records an inner region before the region that contains it.
    """
    parent: dict[str, str] = {}
    for name, region in regions.items():
        if 'data-wf-region="' in region:
            for child in _PLACEHOLDER.findall(region):
                if child in regions and child != name:
                    parent[child] = name

    def depth(name: str) -> int:
        d, seen = 0, {name}
        while name in parent and parent[name] not in seen:
            name = parent[name]
            seen.add(name)
            d += 1
        return d

    def resent(name: str) -> bool:
        seen = {name}
        while name not in changed:
            name = parent.get(name, "")
            if not name or name in seen:
                return False
            seen.add(name)
        return True

    order = {name: i for i, name in enumerate(regions)}
    names = [n for n in regions if resent(n)]
    names.sort(key=lambda n: (depth(n), order[n]))
    return {n: regions[n] for n in names}


@dataclass(frozen=True)
class SiteSpec:
    """Everything a seed decided about one site. Immutable; its digest names the site.

    `entities` holds the family's tables (products, flights, ...) as tuples of frozen
    records; `variation` is the variation vector (theme, layout, copy, widgets, ...).
    """

    family: str
    seed: int
    difficulty: str
    generator_version: str
    brand: str
    variation: Mapping[str, str]
    entities: Mapping[str, tuple[Any, ...]]
    routes: tuple[str, ...]
    start_route: str
    today: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self._document(lambda rows: [_plain(e) for e in rows])

    @property
    def digest(self) -> str:
        """`stable_digest(self.to_json())`, with the entities' records turned into JSON by
        the encoder as it meets them (every reset to a new level asks for it)."""
        return stable_digest(self._document(list), default=_record_fields)

    def _document(self, rows: Any) -> dict[str, Any]:
        """The spec as a JSON document, each table's records given by `rows(records)`."""
        return {
            "family": self.family,
            "seed": self.seed,
            "difficulty": self.difficulty,
            "generator_version": self.generator_version,
            "brand": self.brand,
            "variation": dict(self.variation),
            "entities": {k: rows(v) for k, v in sorted(self.entities.items())},
            "routes": list(self.routes),
            "start_route": self.start_route,
            "today": self.today,
            "extra": dict(self.extra),
        }


def _record_fields(x: Any) -> dict[str, Any]:
    """A record's fields, for the JSON encoder (which converts what they hold)."""
    names = _field_names(type(x))
    if names is None:
        raise TypeError(f"Object of type {type(x).__name__} is not JSON serializable")
    return {name: getattr(x, name) for name in names}


def _plain(x: Any) -> Any:
    """JSON-like data of an entity: what `dataclasses.asdict` gives for the JSON encoder
    (tuples as lists), several times faster (a site digest reads every entity)."""
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    names = _field_names(type(x))
    if names is not None:
        return {name: _plain(getattr(x, name)) for name in names}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """A dataclass's field names (None for any other type), looked up once per type."""
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls)) if is_dataclass(cls) else None
    return _FIELD_NAMES[cls]


class AppEvent(BaseModel):
    """An event the page sends to the app. Validated: it crosses from the browser."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["nav", "click", "input", "change", "submit"]
    handler: str | None = Field(default=None, max_length=64)
    arg: str | None = Field(default=None, max_length=256)
    sid: str | None = Field(default=None, max_length=256)
    value: str | None = Field(default=None, max_length=10_000)
    values: dict[str, str] | None = None
    path: str | None = Field(default=None, max_length=2048)
    back: bool = False


@dataclass(frozen=True, slots=True)
class Patch:
    """What the page must change after an event: regions to replace, title, route, scroll."""

    regions: Mapping[str, str] = field(default_factory=dict)
    title: str | None = None
    route: str | None = None
    history: Literal["push", "replace", "back"] | None = None
    scroll: Literal["top"] | None = None
    latency_ms: int = 0  # logical time the server took (the `latency` axis)

    def to_json(self) -> dict[str, Any]:
        return {
            "regions": dict(self.regions),
            "title": self.title,
            "route": self.route,
            "history": self.history,
            "scroll": self.scroll,
        }

    @property
    def empty(self) -> bool:
        return not self.regions and self.title is None and self.route is None


def merge_patches(patches: list[Patch]) -> Patch:
    """Patches of several events in one step, applied in order, as one."""
    if len(patches) == 1:
        return patches[0]
    regions: dict[str, str] = {}
    title = route = history = scroll = None
    latency = sum(p.latency_ms for p in patches)
    for p in patches:
        regions.update(p.regions)
        title = p.title if p.title is not None else title
        if p.route is not None:
            route, history = p.route, p.history
        scroll = p.scroll or scroll
    return Patch(
        regions=regions,
        title=title,
        route=route,
        history=history,
        scroll=scroll,
        latency_ms=latency,
    )
