"""Properties of every generated site, over many seeds, every family and every difficulty.

What the per-family tests and `check_family` already check on a few seeds, extended here to
all families (the gallery and shop included) on `SEEDS`, with the variation the seed draws:

- `check_site` (one element per semantic id, same-origin URLs only, no script in
  generated HTML, effects on known state paths, 404 for unknown routes), plus: a semantic
  id means one thing site-wide (same kind and verb on every page);
- referential integrity: entity keys are unique and references resolve (`KEYS`, `REFS`),
  every link on every page leads to a page that renders;
- no external URL anywhere in what is served: the document, its CSS and the runtime;
- hostile text is escaped: in every entity text field and the brand, typed into every
  field, submitted in every form, and in the URL path;
- site, page and task digests are identical in processes with different `PYTHONHASHSEED`;
- in Chromium (marker `browser`): every affordance is exactly one live DOM node, for every
  family and difficulty, in the plain variation, contrasting ones and a drawn one; and
  after every patch the live page is the app's page (nested regions stay filled).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any

import pytest

from webfactory_env.sitegen import AppEvent, Site, generate_site
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.registry import BUILTIN_FAMILIES, DIFFICULTIES
from webfactory_env.testing import check_family_in_browser, check_site

E = AppEvent
FAMILIES = BUILTIN_FAMILIES
SEEDS = (*range(12), 97, 1234, 65_535, 2**31 - 1, 2**40 + 3)
CASES = [(f, d) for f in FAMILIES for d in DIFFICULTIES]

# Entity keys: unique within their table.
KEYS = {
    "shop": {"products": "sku", "coupons": "code", "orders": "id"},
    "travel": {
        "airports": "code",
        "airlines": "code",
        "flights": "id",
        "cities": "slug",
        "hotels": "id",
        "rooms": "id",
        "trips": "reference",
    },
    "kanban": {"members": "id", "boards": "id", "cards": "id", "comments": "id", "files": "name"},
    "account": {
        "users": "username",
        "logins": "id",
        "sessions": "id",
        "api_keys": "id",
        "countries": "name",
        "files": "name",
        "messages": "id",
    },
    "forum": {
        "categories": "slug",
        "tags": "slug",
        "users": "username",
        "threads": "id",
        "posts": "id",
    },
    "gallery": {},
}
# References: (table, field) -> (table, key). Tuple fields refer with every element; empty
# strings mean "none".
REFS = {
    "shop": {},
    "travel": {
        ("flights", "airline"): ("airlines", "code"),
        ("flights", "origin"): ("airports", "code"),
        ("flights", "destination"): ("airports", "code"),
        ("routes", "origin"): ("airports", "code"),
        ("routes", "destination"): ("airports", "code"),
        ("rooms", "hotel_id"): ("hotels", "id"),
        ("hotels", "city"): ("cities", "name"),
    },
    "kanban": {
        ("cards", "board_id"): ("boards", "id"),
        ("cards", "assignee"): ("members", "id"),
        ("comments", "card_id"): ("cards", "id"),
        ("comments", "author"): ("members", "id"),
        ("attachments", "card_id"): ("cards", "id"),
        ("attachments", "file"): ("files", "name"),
    },
    "account": {
        ("logins", "username"): ("users", "username"),
        ("sessions", "username"): ("users", "username"),
        ("api_keys", "username"): ("users", "username"),
        ("users", "country"): ("countries", "name"),
    },
    "forum": {
        ("threads", "category"): ("categories", "slug"),
        ("threads", "author"): ("users", "username"),
        ("threads", "tags"): ("tags", "slug"),
        ("threads", "primary_tag"): ("tags", "slug"),
        ("threads", "accepted"): ("posts", "id"),
        ("posts", "thread_id"): ("threads", "id"),
        ("posts", "author"): ("users", "username"),
    },
    "gallery": {},
}


def _ids(case: tuple[str, str]) -> str:
    return "-".join(case)


def _html(app: SiteApp) -> str:
    return "".join(app.page().regions.values())


# ------------------------------------------------------------------- pages, links
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_pages_links_and_semantic_ids(case):
    family, difficulty = case
    for seed in SEEDS:
        site = generate_site(family, seed, difficulty)
        where = f"{family} seed {seed} ({difficulty})"
        check_site(site)
        app = site.new_app()
        assert len(set(site.spec.routes)) == len(site.spec.routes), f"{where}: repeated routes"
        assert site.spec.start_route in site.spec.routes, where
        meaning: dict[str, tuple[str, str]] = {}
        links: set[str] = set()
        for route in site.spec.routes:
            app.route = route
            page = app.page()
            for a in page.affordances:
                first = meaning.setdefault(a.sid, (a.kind, a.verb))
                assert first == (a.kind, a.verb), f"{where} {route}: {a.sid} is {first} elsewhere"
                if a.href is not None:
                    links.add(a.href)
            links.update(re.findall(r'href="([^"]*)"', "".join(page.regions.values())))
        for href in sorted(links):
            path = href.split("#")[0].split("?")[0]
            assert path.startswith("/"), f"{where}: link {href!r} is not a site path"
            if path not in site.spec.routes:  # static routes render (check_site)
                assert app.render(path).status == 200, f"{where}: link {href!r} leads nowhere"


# ------------------------------------------------------------ referential integrity
def _values(record: Any, field: str) -> Iterable[str]:
    value = getattr(record, field)
    for v in value if isinstance(value, tuple) else (value,):
        if v != "":
            yield str(v)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_entity_keys_are_unique_and_references_resolve(case):
    family, difficulty = case
    for seed in SEEDS:
        entities = generate_site(family, seed, difficulty).spec.entities
        where = f"{family} seed {seed} ({difficulty})"
        assert set(KEYS[family]) <= set(entities), where
        for table, key in KEYS[family].items():
            values = [getattr(e, key) for e in entities[table]]
            dup = sorted({v for v in values if values.count(v) > 1})
            assert not dup, f"{where}: {table}.{key} repeats {dup[:3]}"
        for (table, field), (target, key) in REFS[family].items():
            known = {getattr(e, key) for e in entities[target]}
            for record in entities[table]:
                for value in _values(record, field):
                    assert value in known, f"{where}: {table}.{field}={value!r} not in {target}"


# ------------------------------------------------------------------- no external URL
_URL = re.compile(r"[a-z][a-z0-9+.\-]*://|(?:href|src|action|formaction|srcset)=\"//", re.I)


@pytest.mark.parametrize("family", FAMILIES)
def test_nothing_served_points_outside_the_site(family):
    """The whole document (frame, regions, CSS, runtime) and the patches after events."""
    from webfactory_env.core.resources import runtime_script

    runtime = runtime_script()
    for seed in SEEDS[:2]:
        for difficulty in DIFFICULTIES:
            site = generate_site(family, seed, difficulty)
            for route in site.representative_routes():
                app = site.new_app()
                app.route = route
                doc = app.document()
                assert not _URL.search(doc), f"{family} {seed} {route}: {_URL.search(doc)}"
                assert "url(" not in doc.replace(runtime, ""), f"{family} {route}: CSS url()"
                assert "@import" not in doc, f"{family} {route}: CSS @import"
                for a in app.page().affordances[:12]:  # what the first clicks send back
                    if a.verb == "click":
                        patch = json.dumps(app.dispatch(a.click_event()).to_json())
                        assert not _URL.search(patch), f"{family} {route} after {a.sid}"


# ------------------------------------------------------------------------- escaping
HOSTILE = (
    '<wf-x onerror="1">\'&amp;"</wf-x>',
    "\"><wf-x onerror='1'>",
    "'><wf-x onerror=1>",
    "</textarea></title><wf-x>",
    "<!--<wf-x>-->{x}",
)
# Fields whose values the apps parse or look up: hostile text there is rejected, not shown.
_PARSED = re.compile(
    r"^(id|sku|code|slug|username|email|password|reference|.*_id|date|due|depart|"
    r"return_date|at|created|joined|birthday|member_since|last_active|last_used|"
    r"country|city|category|column|assignee|author|status|result|kind|security|role|"
    r"scope|channel|to|origin|destination|airline|via|days|metro|group|primary_tag|"
    r"accepted|product_type|color|priority|file|phone|sms_code|phone_last4|prefix|"
    r"ip|device|noun|material|.*_visibility|search_indexing|from_hub|region|tracking)$"
)


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("wf-x", "script"):
            self.found.append(f"<{tag}>")
        self.found += [f"{tag}[{name}]" for name, _ in attrs if name == "onerror"]

    def handle_comment(self, data: str) -> None:
        self.found.append(f"<!--{data[:20]}")


def _injected(html: str) -> list[str]:
    """Elements, attributes and comments that only unescaped hostile text can produce."""
    parser = _Markup()
    parser.feed(html)
    parser.close()
    return parser.found


def _hostile_site(site: Site, text: str) -> Site:
    """`site` with `text` appended to every displayed text field of the first records."""
    family = site.spec.family
    keys = {*KEYS[family].items(), *REFS[family].values()}
    entities = {}
    for table, records in site.spec.entities.items():
        changed = []
        for i, record in enumerate(records):
            if i >= 3 or not dataclasses.is_dataclass(record):
                changed.append(record)
                continue
            updates = {
                f.name: getattr(record, f.name) + text
                for f in dataclasses.fields(record)
                if isinstance(getattr(record, f.name), str)
                and not _PARSED.match(f.name)
                and (table, f.name) not in keys
            }
            changed.append(dataclasses.replace(record, **updates))
        entities[table] = tuple(changed)
    spec = dataclasses.replace(site.spec, brand=site.spec.brand + text, entities=entities)
    return dataclasses.replace(site, spec=spec)


@pytest.mark.parametrize("family", FAMILIES)
def test_entity_text_is_escaped(family):
    for seed, text in zip((0, 5, 9), HOSTILE, strict=False):
        for difficulty in ("easy", "hard"):
            site = _hostile_site(generate_site(family, seed, difficulty), text)
            app = site.new_app()
            shown = 0
            for route in site.spec.routes:
                app.route = route
                html = _html(app)
                assert not _injected(html), f"{family} seed {seed} {route}: {_injected(html)}"
                assert not app.errors, app.errors[:1]
                shown += html.count("&lt;wf-x") + (text in app.page().title)
            assert shown, f"{family}: the hostile text is shown nowhere (nothing was tested)"


@pytest.mark.parametrize("family", FAMILIES)
def test_typed_and_submitted_values_are_escaped(family):
    """What a task has an agent type (any string) comes back escaped, on every page."""
    shown = 0
    for seed, text in zip((1, 4), HOSTILE[:2], strict=True):
        site = generate_site(family, seed, "medium")
        for route in site.representative_routes():
            app = site.new_app()
            app.route = route
            fields = [a for a in app.page().affordances if a.verb == "fill" and a.handler]
            for a in fields:
                app.dispatch(E(type="input", handler=a.handler, arg=a.arg, sid=a.sid, value=text))
            assert not _injected(_html(app)), f"{family} {route} while typing"
            for form in [a for a in app.page().affordances if a.kind == "Form"]:
                name = form.attr_map().get("name")
                values = {
                    str(a.attr_map()["name"]): text
                    for a in fields
                    if a.attr_map().get("form") == name and "name" in a.attr_map()
                }
                app.dispatch(E(type="submit", handler=form.handler, arg=form.arg, values=values))
                app.route = route
            for other in site.representative_routes():
                app.route = other
                html = _html(app)
                assert not _injected(html), f"{family}: typed on {route}, shown on {other}"
                shown += html.count("&lt;wf-x")
            assert not [e for e in app.errors if e["kind"] == "app_exception"], app.errors[:1]
    assert shown, f"{family}: typed text is shown nowhere (nothing was tested)"


@pytest.mark.parametrize("family", FAMILIES)
def test_hostile_url_paths_are_escaped(family):
    app = generate_site(family, 2).new_app()
    for text in HOSTILE:
        patch = app.dispatch(E(type="nav", path="/" + text))
        assert not _injected("".join(patch.regions.values())), (family, text)
        assert app.page().status == 404


# --------------------------------------------------------------- across processes
_DIGESTS = """
import hashlib, json
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site, library_tasks

out = {}
for family in %(families)r:
    for difficulty in ("easy", "medium", "hard"):
        for seed in (0, 7):
            site = generate_site(family, seed, difficulty)
            pages = hashlib.sha256()
            for route in site.representative_routes():
                app = site.new_app()
                app.route = route
                page = app.page()
                seen = [dict(page.regions), [a.to_json() for a in page.affordances]]
                pages.update(json.dumps(seen, sort_keys=True).encode())
            out[f"{family}/{seed}/{difficulty}"] = [site.digest, pages.hexdigest()]
tasks = {}
for t in library_tasks():
    tasks.setdefault(t.family, t.name)
for family, name in sorted(tasks.items()):
    out[f"task/{family}/{name}"] = compile_for_site(name, generate_site(family, 3)).digest
print(json.dumps(out, sort_keys=True))
"""


def test_digests_identical_across_hash_seeds():
    """Sites, rendered pages and compiled tasks never depend on Python's hash seed."""
    code = _DIGESTS % {"families": FAMILIES}
    outs = []
    for hashseed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1]
    assert len(outs[0]) >= len(FAMILIES) * 6 + 5
    sites = {v[0] for k, v in outs[0].items() if not k.startswith("task/")}
    assert len(sites) == len(FAMILIES) * 6, "different sites share a digest"


# ------------------------------------------------------------------------- browser
CONTRAST = {
    "theme": "dark",
    "nav": "sidebar",
    "choice_widget": "menu",
    "form_mode": "modal",
    "list_mode": "infinite",
    "date_widget": "inline",
    "distractors": "many",
    "field_order": "shuffled",
    "paraphrase": "alt",
    "tooltips": "on",
    "shortcuts": "on",
}
OTHER = {
    "theme": "high-contrast",
    "choice_widget": "typeahead",
    "date_widget": "text",
    "density": "dense",
    "noise": "typos",
    "errors": "some",
    "drift": "on",
}


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_every_affordance_is_one_live_node_in_chromium(family):
    check_family_in_browser(family, seeds=(3,), variations=({}, CONTRAST))
    # the other difficulties, on one page of each kind: the remaining widget styles, and
    # the variation the seed draws
    check_family_in_browser(family, (5,), (OTHER,), difficulty="easy", every_route=False)
    check_family_in_browser(family, (8,), ({},), difficulty="hard", every_route=False)


# ------------------------------------------------------------------ nested regions
def test_resent_regions_bring_their_nested_regions_parents_first():
    """A renderer records an inner region before the region holding it; a patch that
    re-sends a region re-sends every region nested in it, each after its parent."""
    from webfactory_env.sitegen.html import Renderer
    from webfactory_env.sitegen.spec import with_nested

    r = Renderer()
    inner = r.subregion("err:x", "<span>bad</span>")
    outer = r.subregion("cards", f"<ul><li>card</li></ul>{inner}")
    regions = {"header": "<nav></nav>", "main": f"<h1>Board</h1>{outer}", **r.subregions}
    assert list(regions) == ["header", "main", "err:x", "cards"]  # child before parent
    assert list(with_nested(regions, {"main": regions["main"]})) == ["main", "cards", "err:x"]
    assert list(with_nested(regions, {"cards": regions["cards"]})) == ["cards", "err:x"]
    assert list(with_nested(regions, {"err:x": ""})) == ["err:x"]
    assert list(with_nested(regions, {"header": ""})) == ["header"]


def _live_matches_page(session: Any, app: SiteApp, where: str) -> None:
    audit = session._js("audit", [])
    expected = sorted(a.sid for a in app.page().affordances)
    assert sorted(audit["sids"]) == expected, (
        f"{where}: missing {sorted(set(expected) - set(audit['sids']))[:5]}, "
        f"extra {sorted(set(audit['sids']) - set(expected))[:5]}"
    )


@pytest.mark.browser
def test_patches_keep_nested_regions_filled_in_chromium():
    """After every patch the live page is the app's page: re-sending a region (`main`, say)
    re-fills the regions nested in it (kanban's cards, field errors), and the runtime fills
    a parent before its children whatever order a (merged) patch lists them in."""
    from webfactory_env.executor import ObserveConfig, PageSession
    from webfactory_env.sitegen.spec import Patch
    from webfactory_env.sitegen.variation import Variation

    session = PageSession()
    nested_resent = 0
    try:
        for family in FAMILIES:
            site = generate_site(family, 3, "medium", Variation.plain())
            for route in site.representative_routes()[:8]:
                app = site.new_app()
                app.route = route
                session.load(app, seed=3, observe=ObserveConfig())
                _live_matches_page(session, app, f"{family} {route} mounted")
                page = app.page()
                everything = Patch(regions=dict(reversed(list(page.regions.items()))))
                session._js("step", [{"patch": everything.to_json(), "observe": None}])
                _live_matches_page(session, app, f"{family} {route} children-first patch")
                clicks = [a for a in page.affordances if a.verb == "click" and a.handler]
                for a in clicks[:3]:
                    if app.page().affordance(a.sid) is None:
                        continue
                    patch = app.dispatch(a.click_event())
                    names = list(patch.regions)
                    if "main" in names and len(names) > 1 + ("header" in names):
                        nested_resent += 1
                    session._js("step", [{"patch": patch.to_json(), "observe": None}])
                    _live_matches_page(session, app, f"{family} {route} after {a.sid}")
    finally:
        session.close()
    assert nested_resent, "no patch re-sent main with nested regions: nothing was tested"
