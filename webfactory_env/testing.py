"""Conformance checks for site families, public so that a new family is checked in one call.

    from webfactory_env.testing import check_family, check_family_in_browser
    check_family("shop")                 # pure: generation, rendering, effects, variation
    check_family_in_browser("shop")      # the live DOM: one node per affordance, no leaks

Each check raises `AssertionError` with a message naming the seed, page and element.
"""

from __future__ import annotations

import copy
import json
import pickle
import re
from collections.abc import Iterable, Sequence
from typing import Any

from webfactory_env.core.predicates import (
    All,
    Any_,
    Exists,
    Not,
    Predicate,
    Ref,
    parse_path,
)
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import sample_arguments
from webfactory_env.sitegen.registry import Site, generate_site, get_family
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.sitegen.state import Node, Schema
from webfactory_env.sitegen.variation import AXES, Variation

COPY_ATTRS = frozenset({"text", "label", "region"})
UI_HANDLERS = ("ui.modal", "ui.tab", "ui.toggle")
# What every app's view adds to its family's own state (`SiteApp.state_view`).
FRAME_ROOTS = frozenset({"route", "page", "ui", "server"})


def static_routes(site: Site) -> tuple[str, ...]:
    return site.spec.routes


def page_affordances(
    app: SiteApp, route: str, *, reveal: bool = True, depth: int = 2
) -> list[Affordance]:
    """Affordances of `route`, including those behind dialogs, tabs, accordions and menus
    (opened up to `depth` deep: a date popover in a dialog in a tab is 3 deep)."""
    app.visit(route)
    found: dict[str, Affordance] = {}
    seen_ui: set[str] = set()

    def walk(depth: int) -> None:
        page = app.page()
        for a in page.affordances:
            found.setdefault(a.sid, a)
        if not reveal or depth == 0:
            return
        # Claim this level's openers before descending, so that a sibling reached from
        # inside another (a tab seen from a tab) is still opened here, with depth to spare
        # for what it reveals (a dialog inside that tab).
        todo = [a for a in page.affordances if a.handler in UI_HANDLERS and a.arg]
        todo = [a for a in todo if a.sid not in seen_ui]
        seen_ui.update(a.sid for a in todo)
        for a in todo:
            saved = copy.deepcopy(app.ui)
            app.dispatch(a.click_event())
            walk(depth - 1)
            app.ui = saved

    walk(depth)
    return list(found.values())


def _semantic(a: Affordance) -> tuple[Any, ...] | None:
    attrs = a.attr_map()
    if a.structural or attrs.get("distractor"):
        return None
    kept = tuple(sorted((k, v) for k, v in attrs.items() if k not in COPY_ATTRS))
    options = tuple(o.value for o in a.options)
    effect = json.dumps(a.effect.to_json(), sort_keys=True) if a.effect else None
    return (a.sid, a.kind, a.verb, kept, options, effect)


def semantic_graph(site: Site, routes: Sequence[str] | None = None) -> frozenset[tuple[Any, ...]]:
    """What a site *means*: its non-structural, non-distractor affordances on every static
    page (with their kind, attributes, options and effect), its entities and its state.
    Variation axes must leave this unchanged. `routes` restricts the pages looked at."""
    app = site.new_app()
    out: set[tuple[Any, ...]] = set()
    for route in static_routes(site) if routes is None else routes:
        for a in page_affordances(site.new_app(), route):
            sem = _semantic(a)
            if sem is not None:
                out.add((route, *sem))
    state = {k: v for k, v in app.state_view().items() if k not in ("ui",)}
    out.add(("state", repr(sorted(_flatten(state)))))
    out.add(("entities", repr(site.spec.to_json()["entities"])))
    return frozenset(out)


def _flatten(d: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _flatten(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), repr(d)


def check_site(site: Site) -> None:
    """Rendering invariants of one site (pure): every static page renders, once per
    semantic id, with no foreign URL or script, its effects on state paths the family
    declares, and without changing the app's state."""
    app = site.new_app()
    where = f"{site.spec.family} seed {site.spec.seed} ({site.spec.difficulty})"
    schema = site.family.schema
    for route in static_routes(site):
        before = _snapshot(app)
        app.visit(route)
        assert _snapshot(app) == before, f"{where} {route}: rendering the page changed state"
        page = app.page()
        assert page.status == 200, f"{where}: static route {route} renders status {page.status}"
        sids = [a.sid for a in page.affordances]
        dup = {s for s in sids if sids.count(s) > 1}
        assert not dup, f"{where} {route}: semantic ids rendered twice: {sorted(dup)}"
        html = "".join(page.regions.values())
        for sid in sids:
            n = html.count(f'data-wf-sid="{sid}"')
            assert n == 1, f"{where} {route}: {sid!r} is {n} elements, not one"
        assert "://" not in html, f"{where} {route}: an absolute URL is in the page"
        bad = re.findall(r'(?:href|src|action)="(?!/(?!/))[^"]*"', html)
        assert not bad, f"{where} {route}: non-local URLs {bad[:3]}"
        assert "<script" not in html.lower(), f"{where} {route}: a script in generated HTML"
        for a in page.affordances:
            for path in effect_paths(a.effect) if a.effect is not None else ():
                assert in_schema(schema, path), (
                    f"{where} {route}: {a.sid} affects unknown state path {'.'.join(path)}"
                )
    assert app.render("/__no_such_page__").status == 404, f"{where}: unknown routes are not 404"


def _snapshot(app: SiteApp) -> bytes:
    """Everything a page could change by being drawn: the family's state (secrets too) and
    the UI state with its one-navigation message (pickled: many times cheaper than a copy)."""
    return pickle.dumps((app.model, app.ui))


def check_transitions(family: str) -> None:
    """Every transition of the family declares its effect (unless it is neutral), and every
    state path a declared effect names or reads (`Ref("state:...")`) is in the family's
    schema, for each value of its `Literal` arguments (a placeholder for the others)."""
    fam = get_family(family)
    schema = fam.schema
    for name, t in sorted(fam.app_class.transitions().items()):
        if t.effect is None:
            assert t.neutral, f"{family}: transition {name!r} declares no effect"
            continue
        for args in sample_arguments(t):
            effect = t.effect_for(args)
            for path in effect_paths(effect) if effect is not None else ():
                assert in_schema(schema, path), (
                    f"{family}: {name}({args}) declares an effect on {'.'.join(path)}, "
                    "which its state does not have"
                )


def effect_paths(p: Predicate, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The state paths a predicate template names (a record's fields under `<table>.*`)
    and those its `Ref("state:...")` values read."""
    if isinstance(p, (All, Any_)):
        return [x for item in p.items for x in effect_paths(item, prefix)]
    if isinstance(p, Not):
        return effect_paths(p.item, prefix)
    if isinstance(p, Exists):
        return [(*prefix, *p.path), *effect_paths(p.where, (*prefix, *p.path, "*"))]
    own: tuple[str, ...] | None = getattr(p, "path", None)  # a comparison, `Has`
    paths = [(*prefix, *own)] if own is not None else []
    value = getattr(p, "value", None)
    if isinstance(value, Ref) and value.name.startswith("state:"):
        paths.append(parse_path(value.name[6:].partition("|")[0]))
    return paths


def in_schema(schema: Schema, path: tuple[str, ...]) -> bool:
    """Whether `path` can hold something in the family's view; `*` stands for any key
    (of a table, or a field of a record)."""
    if path and path[0] in FRAME_ROOTS:
        return True
    node = schema.root.get(path[0]) if path else None
    return node is not None and _reaches(node, path[1:])


def _reaches(node: Node, rest: tuple[str, ...]) -> bool:
    for i, name in enumerate(rest):
        if node.kind == "leaf":
            return node.part is None  # inside a free-form value (a map's entries)
        if name == "*" and node.kind == "object":
            return any(_reaches(child, rest[i + 1 :]) for child in node.fields.values())
        child = node.child(name)
        if child is None:
            return False
        node = child
    return True


def check_family(
    family: str, seeds: Sequence[int] = tuple(range(12)), difficulties: Sequence[str] | None = None
) -> None:
    """Generation, rendering and variation invariants over many seeds (no browser)."""
    fam = get_family(family)
    check_transitions(family)
    for difficulty in difficulties or fam.difficulties:
        for seed in seeds:
            site = generate_site(family, seed, difficulty)
            again = fam.generate(seed, difficulty, None)
            assert again.digest == site.digest, f"{family} seed {seed}: generation is not stable"
            check_site(site)
    # Every axis value leaves the meaning of the site unchanged.
    for seed in seeds[:2]:
        base = Variation.plain()
        reference = semantic_graph(generate_site(family, seed, "medium", base))
        for axis in AXES:
            for value in axis.values[1:]:
                varied = generate_site(
                    family, seed, "medium", Variation.plain(**{axis.name: value})
                )
                graph = semantic_graph(varied)
                if graph != reference:
                    lost = sorted(reference - graph)[:3]
                    gained = sorted(graph - reference)[:3]
                    raise AssertionError(
                        f"{family} seed {seed}: axis {axis.name}={value} changes meaning:\n"
                        f"  lost {lost}\n  gained {gained}"
                    )


def check_family_in_browser(
    family: str,
    seeds: Sequence[int] = (0, 1),
    variations: Sequence[dict[str, str]] = ({},),
    *,
    difficulty: str = "medium",
    every_route: bool = True,
) -> None:
    """In Chromium: each affordance of each static page (or, without `every_route`, of one
    page of each kind) is exactly one live node, no instrumentation attribute is left in
    the DOM, and every URL stays on the site."""
    from webfactory_env.executor import ObserveConfig, PageSession

    session = PageSession()
    try:
        for seed in seeds:
            for variation in variations:
                site = generate_site(family, seed, difficulty, variation or None)
                routes = static_routes(site) if every_route else site.representative_routes()
                for route in routes:
                    app = site.new_app()
                    app.visit(route)
                    expected = sorted(a.sid for a in app.page().affordances)
                    session.load(app, seed=seed, observe=ObserveConfig())
                    audit = session._js("audit", [])
                    where = f"{family} seed {seed} {variation} {route}"
                    assert sorted(audit["sids"]) == expected, (
                        f"{where}: live semantic ids differ from the page's affordances: "
                        f"missing {sorted(set(expected) - set(audit['sids']))[:5]}, "
                        f"extra {sorted(set(audit['sids']) - set(expected))[:5]}"
                    )
                    assert audit["dataAttrs"] == 0, f"{where}: data-wf attributes in the DOM"
                    for url in audit["urls"]:
                        assert "://" not in url and not url.startswith("//"), (
                            f"{where}: external URL {url[:80]!r}"
                        )
    finally:
        session.close()
