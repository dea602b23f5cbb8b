"""HTML building for site pages: escaping everywhere, instrumentation recorded on the side.

Every generated string reaches HTML through `esc`/`attrs`. Interactive elements get their
semantic metadata as `data-wf-*` attributes, which the browser runtime moves into a side
table before the fragment enters the live document; the same call records an
`Affordance`, so the page's affordance list and its HTML can never disagree.

A renderer can also draw a *sketch* of a page, for a reader that is sent no page (the task
compiler): the same affordances, regions and text, with no attributes but the markers
that place elements (`data-wf-sid`, `data-wf-region`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from webfactory_env.core.predicates import Predicate
from webfactory_env.core.seeding import short_hash
from webfactory_env.sitegen.spec import Affordance, AttrValue, Element, Option, Ui, Verb
from webfactory_env.sitegen.variation import Variation

_ESCAPED: dict[str, str] = {}
_ESCAPED_MAX = 50_000  # short texts only (below): a few MB at most
_ESCAPED_LONGEST = 200


def esc(text: object) -> str:
    """Escape text for HTML content and attribute values (quotes included). Pages escape
    the same labels, ids and handler names again with every render: short texts are
    escaped once per process."""
    if type(text) is not str:
        return html.escape(str(text), quote=True)
    found = _ESCAPED.get(text)
    if found is None:
        found = html.escape(text, quote=True)
        if len(text) <= _ESCAPED_LONGEST:
            if len(_ESCAPED) >= _ESCAPED_MAX:
                _ESCAPED.clear()
            _ESCAPED[text] = found
    return found


_NAMES: dict[str, str] = {}
# Whether this thread is drawing a sketch (`Renderer.drawing`): the task compiler sketches
# on its worker thread while the env draws whole pages on another.
_SKETCHING: ContextVar[bool] = ContextVar("sketching", default=False)


def attrs(**values: object) -> str:
    """` name="value"` pairs, escaped; `class_` → `class`; False/None omitted, True bare.
    Nothing while a sketch is drawn."""
    if _SKETCHING.get():
        return ""
    parts = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = _NAMES.get(key)
        if name is None:
            name = _NAMES[key] = key.rstrip("_").replace("_", "-")
        parts.append(f" {name}" if value is True else f' {name}="{esc(value)}"')
    return "".join(parts)


# Ids derived from a site's salt and a name, by (salt, name): every render asks again.
_TESTIDS: dict[tuple[str, str], str] = {}
_DOM_IDS: dict[tuple[str, str], str] = {}


def _remember(table: dict[tuple[str, str], str], key: tuple[str, str], found: str) -> None:
    if len(table) > 20_000:  # bounded (a few MB): sites come and go
        table.clear()
    table[key] = found


_FRAGMENTS: dict[tuple[Hashable, ...], tuple[str, tuple[Affordance, ...]]] = {}
# The widget style of an element that does not say (`Affordance.ui`).
_UI_OF_ELEMENT = {
    "a": "link",
    "select": "native",
    "input": "input",
    "textarea": "input",
    "editable": "input",
}


class Renderer:
    """Builds one page: collects its affordances and nested regions while HTML is written.

    `variation` and `salt` come from the site: widgets read the variation (which widget to
    use, ARIA labels, tooltips...) and `dom_id` turns stable names into non-semantic DOM ids
    that differ from seed to seed, as real sites' generated ids do. `queries` is the text
    typed into open comboboxes, by semantic id (the app's UI state); `state` the family's
    state the page is drawn from, where a field bound to a transition reads its value.
    `sketch` draws the page as a sketch (see the module's docstring), inside `drawing()`.
    """

    def __init__(
        self,
        variation: Variation | None = None,
        salt: str = "",
        queries: Mapping[str, str] | None = None,
        state: object = None,
        *,
        sketch: bool = False,
    ) -> None:
        self.affordances: list[Affordance] = []
        self.subregions: dict[str, str] = {}
        self.variation = variation or Variation()
        self.salt = salt
        self.queries = queries or {}  # what was typed into each open combobox (UI state)
        self.state = state
        self.sketch = sketch
        self._sids: set[str] = set()

    @contextmanager
    def drawing(self) -> Iterator[None]:
        """Where a page is drawn: a sketch's `attrs` write nothing on this thread (and a
        whole page's write everything, even when drawn while a sketch is)."""
        token = _SKETCHING.set(self.sketch)
        try:
            yield
        finally:
            _SKETCHING.reset(token)

    def fragment(self, key: tuple[Hashable, ...], build: Callable[[], str]) -> str:
        """HTML that depends only on `key` and the site (its salt), with the affordances
        it records: built once, then replayed. A calendar month, say, is drawn again with
        every keystroke in the form around it, and the task compiler walks such forms."""
        full = (self.salt, self.sketch, *key)
        found = _FRAGMENTS.get(full)
        if found is None:
            start = len(self.affordances)
            html_ = build()
            if len(_FRAGMENTS) > 2_000:  # bounded: sites come and go
                _FRAGMENTS.clear()
            _FRAGMENTS[full] = (html_, tuple(self.affordances[start:]))
            return html_
        html_, affordances = found
        for aff in affordances:
            if aff.sid in self._sids:
                raise ValueError(f"semantic id {aff.sid!r} rendered twice on one page")
            self._sids.add(aff.sid)
        self.affordances.extend(affordances)
        return html_

    def dom_id(self, name: str) -> str:
        key = (self.salt, name)
        found = _DOM_IDS.get(key)
        if found is None:
            found = f"{name.split(':')[0][:4]}-{short_hash(self.salt + '|' + name, 6).lower()}"
            _remember(_DOM_IDS, key, found)
        return found

    def instrument(
        self,
        sid: str,
        kind: str,
        verb: Verb,
        attrs_: Mapping[str, AttrValue],
        *,
        label: str,
        handler: str | None = None,
        arg: str | None = None,
        options: Iterable[Option] = (),
        effect: Predicate | None = None,
        sticky: bool = False,
        href: str | None = None,
        element: Element = "button",
        ui: Ui | None = None,
        value: str | None = None,
        opener: str | None = None,
        redact: bool = False,
        event: str | None = None,
        on: str | None = None,
        structural: bool = False,
    ) -> str:
        """Record an affordance and return the instrumentation attributes for its element.

        `event="change"` makes a click report a change of `value` (menu options, days);
        `on="visible"` fires the handler when a scroll brings the element into view.
        """
        if sid in self._sids:
            raise ValueError(f"semantic id {sid!r} rendered twice on one page")
        self._sids.add(sid)
        if ui is None:
            ui = _UI_OF_ELEMENT.get(element, "button")  # type: ignore[assignment]
        self.affordances.append(
            Affordance(
                sid=sid,
                kind=kind,
                verb=verb,
                attrs=tuple(sorted(attrs_.items())),
                options=tuple(options),
                effect=effect,
                sticky=sticky,
                label=label,
                handler=handler,
                arg=arg,
                href=href,
                element=element,
                ui=ui,  # type: ignore[arg-type]
                value=value,
                opener=opener,
                redact=redact,
                structural=structural,
            )
        )
        if self.sketch:  # what places the element: a form's fields, the button sending it
            return f' data-wf-sid="{esc(sid)}"'
        # What `attrs` would write, spelled out: every page writes hundreds of these.
        out = f' data-testid="{esc(self.testid(sid))}" data-wf-sid="{esc(sid)}"'
        if handler is not None:
            out += f' data-wf-h="{esc(handler)}"'
        if arg is not None:
            out += f' data-wf-a="{esc(arg)}"'
        if event:
            out += f' data-wf-ev="{esc(event)}"'
            if value is not None:
                out += f' data-wf-v="{esc(value)}"'
        elif event is not None:
            out += ' data-wf-ev=""'
        if on is not None:
            out += f' data-wf-on="{esc(on)}"'
        return out + (' data-wf-r="1"' if redact else "")

    def testid(self, sid: str) -> str:
        """A `data-testid` as real sites have: readable words plus a build-specific suffix
        (renamed on every drift re-render); never the semantic id itself."""
        key = (self.salt, sid)
        found = _TESTIDS.get(key)
        if found is None:
            base = re.sub(r"[^a-z0-9]+", "-", sid.split("=", 1)[0].lower()).strip("-")[:40]
            found = f"{base}-{short_hash(self.salt + '|t|' + sid, 4).lower()}"
            _remember(_TESTIDS, key, found)
        return found

    def meta(
        self, *, handler: str | None = None, arg: str | None = None, on: str | None = None
    ) -> str:
        """Instrumentation for an element that is not an affordance (a form, a sentinel)."""
        return attrs(data_wf_h=handler, data_wf_a=arg, data_wf_on=on)

    @staticmethod
    def region(name: str) -> str:
        return f' data-wf-region="{esc(name)}"'  # as `attrs` writes it, sketch or not

    def subregion(self, name: str, inner: str, *, tag: str = "div", class_: str = "") -> str:
        """A region nested in the page, patched on its own (so typing elsewhere survives)."""
        if name in self.subregions:
            raise ValueError(f"region {name!r} rendered twice on one page")
        self.subregions[name] = inner
        return f"<{tag}{attrs(class_=class_ or None)}{self.region(name)}></{tag}>"
