"""HTML building for site pages: escaping everywhere, instrumentation recorded on the side.

Every generated string reaches HTML through `esc`/`attrs`. Interactive elements get their
semantic metadata as `data-wf-*` attributes, which the browser runtime moves into a side
table before the fragment enters the live document; the same call records an
`Affordance`, so the page's affordance list and its HTML can never disagree.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping

from webfactory_env.core.predicates import Predicate
from webfactory_env.sitegen.spec import Affordance, AttrValue, Option, Verb


def esc(text: object) -> str:
    """Escape text for HTML content and attribute values (quotes included)."""
    return html.escape(str(text), quote=True)


def attrs(**values: object) -> str:
    """` name="value"` pairs, escaped; `class_` → `class`; False/None omitted, True bare."""
    parts = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        parts.append(f" {name}" if value is True else f' {name}="{esc(value)}"')
    return "".join(parts)


class Renderer:
    """Collects the affordances of one page while its HTML is being built."""

    def __init__(self) -> None:
        self.affordances: list[Affordance] = []
        self._sids: set[str] = set()

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
    ) -> str:
        """Record an affordance and return the instrumentation attributes for its element."""
        if sid in self._sids:
            raise ValueError(f"semantic id {sid!r} rendered twice on one page")
        self._sids.add(sid)
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
            )
        )
        return attrs(data_wf_sid=sid, data_wf_h=handler, data_wf_a=arg)

    @staticmethod
    def region(name: str) -> str:
        return attrs(data_wf_region=name)
