"""Every variation axis changes what it claims, and nothing a task could notice.

For each family and each axis value, the site (seed `SEED`, medium) is generated with
`Variation.plain()` and with only that axis changed. Everything runs in-process on rendered
pages (`site.new_app()`, `app.page()`), no browser. The pages looked at ("views") are one
static route per page kind, plus a few pages in a family-specific state that shows more of
the site (signed in, an item in the cart, flight results): see `_enter`.

- Meaning (`test_axis_keeps_the_meaning`): `testing.semantic_graph` is identical, the app
  state is identical, and so is every affordance of every view, revealed ones included
  (kind, verb, non-copy attributes, options, effect, element, ui, handler, label) — except
  exactly what the axis is documented to add, remove or restyle (`ALLOWED`):

  - `paraphrase`, `noise`: labels, copy attributes and option labels only;
  - `choice_widget`: a native `<select>` becomes a radio group, a menu or a typeahead
    combobox (element, ui, handler, opener), plus one structural `Option` element per
    option and, for the combobox, the structural button that lists its options;
  - `date_widget`: a calendar popover becomes an inline calendar or a text input, plus or
    minus the structural day and month-paging buttons;
  - `list_mode`: structural pager buttons become a structural "more" sentinel;
  - `form_mode`: structural dialog open/close buttons;
  - `distractors`: added affordances, each marked as a distractor;
  - every other axis: no difference at all.

- Effect (`test_axis_does_what_it_claims`): the axis visibly does what its description
  says, e.g. theme changes the theme's CSS custom properties and nothing in the pages,
  choice_widget changes the element kind of choices, list_mode turns pagers into "more"
  sentinels that load more items, latency and debounce change the logical latency of a
  patch, errors inject refusals with a Retry, drift renames test ids between epochs. An
  axis a family does not offer (`NOT_OFFERED`) must leave its pages byte-identical.
"""

from __future__ import annotations

import copy
import datetime as dt
import html
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from webfactory_env.sitegen import AppEvent, Patch, Site, generate_site
from webfactory_env.sitegen.app import DEBOUNCE_MS, SiteApp, retry
from webfactory_env.sitegen.registry import BUILTIN_FAMILIES
from webfactory_env.sitegen.spec import Affordance, PageView
from webfactory_env.sitegen.theme import theme_css
from webfactory_env.sitegen.variation import AXES, AXIS_BY_NAME, Variation
from webfactory_env.sitegen.widgets import UI_QUERY, UI_TOGGLE
from webfactory_env.testing import COPY_ATTRS, page_affordances, semantic_graph

E = AppEvent
SEED = 0
DIFFICULTY = "medium"
FAMILIES = BUILTIN_FAMILIES
AXIS_VALUES = [(a.name, v) for a in AXES for v in a.values[1:]]

# Axes a family has nothing for: they must change none of its pages. The gallery is one
# page of widgets with fixed English text and no forms to submit, lists or promotions.
NOT_OFFERED: dict[str, frozenset[str]] = {
    "shop": frozenset({"date_widget"}),
    "travel": frozenset(),
    "kanban": frozenset(),
    "account": frozenset(),
    "forum": frozenset(),
    "gallery": frozenset(
        {
            "field_order",
            "paraphrase",
            "helper_text",
            "noise",
            "form_mode",
            "list_mode",
            "validation",
            "shortcuts",
            "distractors",
        }
    ),
}
CSS_AXES = {  # axis -> the theme custom properties it may change (nothing else)
    "theme": {
        "bg",
        "fg",
        "muted",
        "card",
        "line",
        "danger",
        "ok",
        "overlay",
        "accent",
        "accent-fg",
    },
    "palette": {"accent"},
    "typography": {"font"},
    "density": {"gap", "pad", "size"},
}


# ---------------------------------------------------------------------------- views
@dataclass(frozen=True)
class View:
    """One page as first shown, and everything reachable on it by opening UI."""

    html: str
    shown: tuple[Affordance, ...]
    revealed: Mapping[str, Affordance]


@dataclass(frozen=True)
class Snapshot:
    site: Site
    css: str
    frame: str
    views: Mapping[tuple[str, str], View]  # (state, route) -> view
    state: str  # the app state after entering, as canonical JSON (no UI state)


def _site(family: str, **axes: str) -> Site:
    return generate_site(family, SEED, DIFFICULTY, Variation.plain(**axes))


def _send(app: SiteApp, event: AppEvent) -> Patch:
    return _settled(app, app.dispatch(event))


def _fire(app: SiteApp, handler: str, /, **args: Any) -> Patch:
    """Fire the family's transition `handler` as a page element bound to it would."""
    return _settled(app, app.fire(app.transitions()[handler], **args))


def _settled(app: SiteApp, patch: Patch) -> Patch:
    """Like a person: when an injected error refuses the change, press Retry."""
    if app.failed is not None:
        patch = app.fire(retry)
    assert not app.errors, app.errors
    return patch


def _enter(family: str, site: Site, app: SiteApp) -> tuple[str, ...]:
    """Bring `app` into a state that shows more of the site; returns the routes to view."""
    ent = site.spec.entities
    if family == "shop":
        sku = next(p.sku for p in ent["products"] if p.stock > 0)
        _fire(app, "add_to_cart", sku=sku, type="click")
        return ("/cart", "/checkout")
    if family == "travel":
        (origin, dest), _ = Counter((f.origin, f.destination) for f in ent["flights"]).most_common(
            1
        )[0]
        _send(app, E(type="nav", path="/flights"))
        for side, code in (("origin", origin), ("destination", dest)):
            place = {"form": "flight_search", "name": side, "value": code}
            _fire(app, "type_place", **place, type="input")
            _fire(app, "pick_place", **place)
        day = (dt.date.fromisoformat(site.spec.today) + dt.timedelta(days=10)).isoformat()
        _fire(app, "set_field", form="flight_search", name="depart_date", value=day)
        _fire(app, "search_flights", values={})
        return ("/flights/results",)
    if family == "account":
        user = next(u for u in ent["users"] if u.security == "password")
        login = {"form": "login", "type": "input"}
        _fire(app, "set_field", name="username", value=user.username, **login)
        _fire(app, "set_secret", name="password", value=user.password, **login)
        values = {"username": user.username, "password": user.password}
        _fire(app, "sign_in", values=values)
        return ("/account", "/profile", "/settings", "/history")
    if family == "forum":
        post = ent["posts"][0]
        user = next(u for u in ent["users"] if u.username == post.author)
        _send(app, E(type="nav", path="/signin"))
        values = {"username": user.username, "password": user.password}
        _fire(app, "sign_in", values=values)
        return (f"/t/{post.thread_id}", "/new")
    return ()


def _view(app: SiteApp, route: str) -> View:
    app.route = route
    page = app.page()
    revealed = {a.sid: a for a in page_affordances(app, route, depth=3)}
    app.route = route
    return View("".join(page.regions.values()), page.affordances, revealed)


@cache
def _snapshot(family: str, axes: tuple[tuple[str, str], ...] = ()) -> Snapshot:
    site = _site(family, **dict(axes))
    routes = _site(family).representative_routes()
    views = {("start", r): _view(site.new_app(), r) for r in routes}
    app = site.new_app()
    for route in _enter(family, site, app):
        views["entered", route] = _view(app, route)
    state = {k: v for k, v in app.state_view().items() if k not in ("ui", "server")}
    return Snapshot(
        site=site,
        css=app.css(),
        frame=app.frame(app.renderer()),
        views=views,
        state=json.dumps(state, sort_keys=True, default=str),
    )


def snap(family: str, **axes: str) -> Snapshot:
    return _snapshot(family, tuple(sorted(axes.items())))


# -------------------------------------------------------------------------- meaning
def _record(a: Affordance) -> dict[str, Any]:
    """Everything about an affordance, in named parts that an axis may be allowed to change."""
    attrs = a.attr_map()
    return {
        "kind": a.kind,
        "verb": a.verb,
        "attrs": sorted((k, v) for k, v in attrs.items() if k not in COPY_ATTRS),
        "copy": (a.label, sorted((k, v) for k, v in attrs.items() if k in COPY_ATTRS)),
        "options": [(o.value, sorted(o.attrs)) for o in a.options],
        "option_labels": [o.label for o in a.options],
        "option_sids": [o.sid for o in a.options],
        "effect": json.dumps(a.effect.to_json(), sort_keys=True) if a.effect else None,
        "sticky": a.sticky,
        "element": a.element,
        "ui": a.ui,
        "handler": a.handler,
        "arg": a.arg,
        "href": a.href,
        "opener": a.opener,
        "value": a.value,
        "redact": a.redact,
        "structural": a.structural,
    }


@dataclass(frozen=True)
class Difference:
    where: tuple[str, str]
    sid: str
    before: Affordance | None
    after: Affordance | None
    fields: frozenset[str]

    def __str__(self) -> str:
        b = _record(self.before) if self.before else None
        a = _record(self.after) if self.after else None
        if b and a:
            return f"{self.where} {self.sid}: " + ", ".join(
                f"{f} {b[f]!r} -> {a[f]!r}" for f in sorted(self.fields)
            )
        return f"{self.where} {self.sid}: {'added' if a else 'removed'} {a or b}"


def _differences(base: Snapshot, varied: Snapshot) -> list[Difference]:
    out = []
    for where, view in base.views.items():
        other = varied.views[where].revealed
        for sid in sorted(set(view.revealed) | set(other)):
            b, a = view.revealed.get(sid), other.get(sid)
            if b is None or a is None:
                out.append(Difference(where, sid, b, a, frozenset()))
                continue
            rb, ra = _record(b), _record(a)
            changed = frozenset(f for f in rb if rb[f] != ra[f])
            if changed:
                out.append(Difference(where, sid, b, a, changed))
    return out


def _copy_only(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    return d.fields <= {"copy", "option_labels"} and bool(d.before and d.after)


def _choice_restyled(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    style = varied.site.spec.variation["choice_widget"]
    if d.before and d.after:  # the choice itself: same meaning, another element
        a = d.after
        if style == "radio":
            restyled = (a.ui, a.element) == ("choice", "group")
        elif style == "menu":  # a menu button opens the options; each reports the change
            restyled = (a.ui, a.element, a.handler, a.arg, a.opener) == (
                "menu",
                "button",
                "ui.toggle",
                UI_TOGGLE.bind(key=d.sid).arg,
                d.sid,
            )
        else:  # a combobox: typing filters the options, its list button shows them all
            restyled = (a.ui, a.element, a.handler, a.arg, a.opener) == (
                "typeahead",
                "input",
                "ui.query",
                UI_QUERY.bind(key=d.sid).arg,
                f"{d.sid}:list",
            )
        return (
            restyled
            and d.fields <= {"element", "ui", "handler", "arg", "opener", "option_sids"}
            and (d.before.ui, d.before.element) == ("native", "select")
            and [o.sid for o in a.options] == [f"{d.sid}={o.value}" for o in a.options]
        )
    return _option_of_a_choice(d, varied) or (style == "typeahead" and _list_button(d, varied))


def _list_button(d: Difference, varied: Snapshot) -> bool:
    """An added button that lists the options of a typeahead choice on the same page."""
    a = d.after
    if d.before is not None or a is None or not a.structural or not d.sid.endswith(":list"):
        return False
    owner = varied.views[d.where].revealed.get(d.sid.removesuffix(":list"))
    return (
        owner is not None
        and owner.ui == "typeahead"
        and owner.opener == d.sid
        and (a.kind, a.handler, a.arg) == ("Button", "ui.toggle", UI_TOGGLE.bind(key=owner.sid).arg)
    )


def _option_of_a_choice(d: Difference, varied: Snapshot) -> bool:
    """An added element that is one option of a choice on the same page."""
    if d.after is None or not d.after.structural or d.after.kind != "Option":
        return False
    parent, _, value = d.sid.rpartition("=")
    owner = varied.views[d.where].revealed.get(parent)
    return owner is not None and value in [o.value for o in owner.options]


def _date_restyled(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    if d.before and d.after:
        # a popover opens on click; an inline calendar or a text input takes the date itself
        return d.before.kind == "DatePicker" and d.fields <= {
            "element",
            "ui",
            "handler",
            "arg",
            "opener",
            "value",
        }
    gone = d.after or d.before
    assert gone is not None
    return (
        gone.structural
        and re.fullmatch(r"(day:[^=]+=\d{4}-\d\d-\d\d|cal:.+:(prev|next)-month)", d.sid) is not None
    )


def _pager_or_more(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    gone = d.after or d.before
    assert gone is not None
    return (
        (d.before is None or d.after is None)
        and gone.structural
        and d.sid.startswith(("pager:", "more:"))
    )


def _form_toggle(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    """A structural button that shows or hides a secondary form: a dialog's open and close
    buttons, or the inline form's own edit/cancel toggles."""
    gone = d.after or d.before
    assert gone is not None
    return (
        (d.before is None or d.after is None)
        and gone.structural
        and gone.handler in ("ui.modal", "ui.toggle")
    )


def _distractor(d: Difference, base: Snapshot, varied: Snapshot) -> bool:
    return d.before is None and d.after is not None and d.after.attr_map().get("distractor") is True


Allowed = Callable[[Difference, Snapshot, Snapshot], bool]
ALLOWED: dict[str, Allowed] = {
    "paraphrase": _copy_only,
    "noise": _copy_only,
    "choice_widget": _choice_restyled,
    "date_widget": _date_restyled,
    "list_mode": _pager_or_more,
    "form_mode": _form_toggle,
    "distractors": _distractor,
}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("axis", "value"), AXIS_VALUES, ids=[f"{a}={v}" for a, v in AXIS_VALUES])
def test_axis_keeps_the_meaning(family, axis, value):
    base, varied = snap(family), snap(family, **{axis: value})
    routes = _site(family).representative_routes()
    assert semantic_graph(varied.site, routes) == semantic_graph(base.site, routes)
    assert varied.state == base.state, "the same events leave a different app state"
    allowed = ALLOWED.get(axis, lambda d, b, v: False)
    bad = [str(d) for d in _differences(base, varied) if not allowed(d, base, varied)]
    assert not bad, f"{family} {axis}={value} changes more than it claims:\n  " + "\n  ".join(
        bad[:8]
    )


# --------------------------------------------------------------------------- effect
def _pages(s: Snapshot) -> dict[Any, str]:
    return {**{w: v.html for w, v in s.views.items()}, "css": s.css, "frame": s.frame}


def _app_at(family: str, s: Snapshot, where: tuple[str, str]) -> SiteApp:
    """A fresh app of `s`'s site in the state and on the route of the view `where`."""
    app = s.site.new_app()
    if where[0] == "entered":
        _enter(family, s.site, app)
    app.route = where[1]
    app.mount_payload()
    return app


def _state(app: SiteApp) -> dict[str, Any]:
    return {k: v for k, v in app.state_view().items() if k not in ("ui", "server")}


def _strip(html: str, pattern: str) -> str:
    return re.sub(pattern, "", html)


def _labels(s: Snapshot) -> dict[tuple[Any, ...], str]:
    return {(*w, sid): a.label for w, v in s.views.items() for sid, a in v.revealed.items()}


def _css_vars(v: Variation) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*([^;]+);", theme_css(v)))


def _luminance(hex_color: str) -> float:
    r, g, b = (int(hex_color.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def claim_css(family: str, axis: str) -> None:
    """Theme, palette, typography and density: the theme's custom properties change (only
    those the axis owns), the page really uses them, and the pages' HTML does not change."""
    base = snap(family)
    plain = _css_vars(Variation.plain())
    for value in AXIS_BY_NAME[axis].values[1:]:
        varied = snap(family, **{axis: value})
        props = _css_vars(Variation.plain(**{axis: value}))
        changed = {k for k in plain if props[k] != plain[k]}
        assert changed and changed <= CSS_AXES[axis], (axis, value, changed)
        assert theme_css(Variation.plain(**{axis: value})) in varied.css
        assert {w: v.html for w, v in varied.views.items()} == {
            w: v.html for w, v in base.views.items()
        }, f"{axis}={value} changes page HTML, not just style"
        if axis == "theme":
            assert f"theme-{value}" in varied.frame and "theme-light" in base.frame
            assert _luminance(props["bg"]) < _luminance(plain["bg"])  # dark backgrounds
            assert _luminance(props["fg"]) > _luminance(plain["fg"])  # light text
        else:
            assert varied.frame == base.frame
        if axis == "typography":
            assert f"Liberation {value.title()}" in props["font"]
        if axis == "density":
            order = {"dense": -1, "spacious": 1}[value]
            assert (int(props["gap"][:-2]) - int(plain["gap"][:-2])) * order > 0


def claim_nav(family: str) -> None:
    """The navigation moves into a sidebar: the layout class and its CSS, same HTML."""
    base, varied = snap(family), snap(family, nav="sidebar")
    assert "layout-top" in base.frame and "layout-sidebar" in varied.frame
    assert re.search(r"\.layout-sidebar \.site-header\s*\{[^}]*flex-direction: column", varied.css)
    assert {w: v.html for w, v in varied.views.items()} == {
        w: v.html for w, v in base.views.items()
    }


def _sids_in_page_order(html: str) -> list[str]:
    return re.findall(r'data-wf-sid="([^"]+)"', html)


def claim_field_order(family: str) -> None:
    """Some form shows the same fields in another order."""
    base, varied = snap(family), snap(family, field_order="shuffled")
    reordered = []
    for where, view in base.views.items():
        fields = {a.sid for a in view.shown if a.attr_map().get("form")}
        before = [s for s in _sids_in_page_order(view.html) if s in fields]
        after = [s for s in _sids_in_page_order(varied.views[where].html) if s in fields]
        assert sorted(before) == sorted(after), where
        if before != after:
            reordered.append(where)
    assert reordered, f"{family}: field_order=shuffled reorders no form"


def claim_paraphrase(family: str) -> None:
    """Labels are worded differently; what they label is the same (see the meaning test)."""
    base, alt = _labels(snap(family)), _labels(snap(family, paraphrase="alt"))
    changed = [k for k in base if base[k] != alt[k]]
    assert len(changed) >= 3, f"{family}: paraphrase=alt rewords {len(changed)} labels"


def claim_helper_text(family: str) -> None:
    """Hint text under fields is there (on) or not (off), and nothing else changes."""
    base, varied = snap(family), snap(family, helper_text="off")
    hint = r'<(small|p) class="hint">[^<]*</\1>'
    assert sum(len(re.findall(hint, v.html)) for v in base.views.values()) > 0
    for where, view in base.views.items():
        assert varied.views[where].html == _strip(view.html, hint), where


def _abbreviations() -> dict[str, str]:
    from webfactory_env.core.resources import read_text

    table = json.loads(read_text("sites", "common", "abbreviations.json"))
    return {str(k).lower(): str(v).lower() for k, v in table.items()}


def _is_swap(a: str, b: str) -> bool:
    diff = [i for i in range(len(a)) if a[i] != b[i]] if len(a) == len(b) else []
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]


def _texts(s: Snapshot) -> list[str]:
    """Every text node and label of the views, in order."""
    nodes = [html.unescape(t) for v in s.views.values() for t in re.split(r"<[^>]+>", v.html)]
    return nodes + list(_labels(s).values())


def claim_noise(family: str) -> None:
    """Some interface text gets a typo (two adjacent letters swapped), an abbreviation
    from the shared table, or odd capitalisation; nothing else changes."""
    base = _texts(snap(family))
    table = _abbreviations()
    for mode in ("typos", "abbreviations", "case"):
        noised = _texts(snap(family, noise=mode))
        assert len(noised) == len(base), mode
        changed = [(b, n) for b, n in zip(base, noised, strict=True) if b != n]
        assert len(changed) >= 2, f"{family}: noise={mode} changes {len(changed)} texts"
        for before, after in changed:
            b, a = before.split(" "), after.split(" ")
            assert len(a) == len(b), (mode, before, after)
            for wb, wa in zip(b, a, strict=True):
                if wb == wa:
                    continue
                if mode == "typos":
                    assert _is_swap(wb, wa), (before, after)
                elif mode == "abbreviations":
                    assert wa.lower() == table.get(wb.lower()), (before, after)
                else:
                    assert wb.lower() == wa.lower(), (before, after)


def claim_choice_widget(family: str) -> None:
    """Choices are native selects, radio groups (every option shown) or menus (options
    shown once the menu is opened); every style reports the same change to the app."""
    base = snap(family)
    natives = {
        (*w, sid): a
        for w, v in base.views.items()
        for sid, a in v.revealed.items()
        if a.ui == "native"
    }
    assert natives and any("<select" in v.html for v in base.views.values())
    for style, ui in (("radio", "choice"), ("menu", "menu"), ("typeahead", "typeahead")):
        varied = snap(family, choice_widget=style)
        restyled = 0
        for (state, route, sid), native in natives.items():
            view = varied.views[state, route]
            a = view.revealed[sid]
            if a.ui == "native":
                continue  # a choice that is always a native select (none is, today)
            restyled += 1
            assert a.ui == ui, (style, sid, a.ui)
            shown = {x.sid for x in view.shown}
            for o in a.options:
                option = view.revealed[f"{sid}={o.value}"]
                event = option.click_event()
                assert (event.type, event.handler, event.arg, event.value) == (
                    "change",
                    native.handler,
                    native.arg,
                    o.value,
                )
                if sid in shown:  # radio options are on the page; menu options behind it
                    assert (option.sid in shown) == (style == "radio"), (style, option.sid)
        assert restyled == len(natives), f"{family}: some choices ignore choice_widget"
        if style == "radio":
            assert any('type="radio"' in v.html for v in varied.views.values())
        if style == "typeahead":
            assert any('role="combobox"' in v.html for v in varied.views.values())
            _claim_typing_filters(family, varied, natives)
        assert all("<select" not in v.html for v in varied.views.values())


def _claim_typing_filters(family: str, varied: Snapshot, natives: Mapping[Any, Any]) -> None:
    """Typing part of an option's label into a typeahead choice lists that option (and
    only options that match), ready to be picked."""
    for (state, route, sid), native in natives.items():
        app = _app_at(family, varied, (state, route))
        a = app.page().affordance(sid)
        if a is None:
            continue  # behind a tab or a dialog: the widget test covers typing there
        option = next((o for o in a.options if len(o.label) >= 3), None)
        if option is None:
            continue
        typed = option.label[1:3]
        app.dispatch(E(type="input", handler=a.handler, arg=a.arg, sid=sid, value=typed))
        listed = [x for x in app.page().affordances if x.sid.startswith(f"{sid}=")]
        assert option.sid in {x.sid for x in listed}, (route, sid, typed)
        assert all(typed.lower() in x.label.lower() or x.value == typed for x in listed)
        pick = next(x for x in listed if x.sid == option.sid).click_event()
        assert (pick.handler, pick.arg, pick.value) == (native.handler, native.arg, option.value)
        return
    raise AssertionError(f"{family}: no typeahead choice to type into")


def _reach(app: SiteApp, sid: str, depth: int = 2) -> Affordance | None:
    """Open tabs, menus and dialogs (up to `depth` clicks) until `sid` is on the page."""
    page = app.page()
    found = page.affordance(sid)
    if found is not None or depth == 0:
        return found
    for a in page.affordances:
        if a.handler in ("ui.tab", "ui.toggle", "ui.modal") and a.arg:
            saved = copy.deepcopy(app.ui)
            app.dispatch(a.click_event())
            found = _reach(app, sid, depth - 1)
            if found is not None:
                return found
            app.ui = saved
    return None


def claim_form_mode(family: str) -> None:
    """Secondary forms move into dialogs: a button opens a dialog that holds the form's
    fields, which the inline site shows without any dialog."""
    base, varied = snap(family), snap(family, form_mode="modal")
    dialogs = 0
    for where, view in varied.views.items():
        inline = base.views[where].revealed
        for opener in view.revealed.values():
            if not re.fullmatch(r"modal:.+:open", opener.sid):
                continue
            name = opener.sid[len("modal:") : -len(":open")]
            if f"modal:{name}:open" in inline:
                continue  # a dialog in both modes (a confirmation, say)
            app = _app_at(family, varied, where)
            assert _reach(app, opener.sid) is not None, (where, opener.sid)
            before = {a.sid for a in app.page().affordances}
            app.dispatch(opener.click_event())
            page = app.page()
            assert 'role="dialog"' in "".join(page.regions.values()), (where, name)
            fields = {
                a.sid
                for a in page.affordances
                if a.attr_map().get("form") and a.sid not in before and a.verb != "submit"
            }
            assert fields, f"{where}: dialog {name} holds no form field"
            assert fields <= set(inline), (where, name, fields - set(inline))
            dialogs += 1
    assert dialogs, f"{family}: form_mode=modal moves no form into a dialog"


def _content(page: PageView) -> set[str]:
    return {a.sid for a in page.affordances if not a.structural}


def claim_list_mode(family: str) -> None:
    """Long lists: pager buttons, or a "more" sentinel that loads the next batch when it
    scrolls into view; the first screen holds the same items either way."""
    base, varied = snap(family), snap(family, list_mode="infinite")
    lists = 0
    for where, view in base.views.items():
        pagers = sorted({a.sid.split(":")[1] for a in view.shown if a.sid.startswith("pager:")})
        mores = sorted(a.sid[len("more:") :] for a in varied.views[where].shown if a.kind == "More")
        assert len(pagers) == len(mores), (where, pagers, mores)
        for key, more_key in zip(pagers, mores, strict=True):
            lists += 1
            paged, scrolled = _app_at(family, base, where), _app_at(family, varied, where)
            first = _content(paged.page())
            assert _content(scrolled.page()) == first, where
            nxt = next(a for a in paged.page().affordances if a.sid == f"pager:{key}:next")
            paged.dispatch(nxt.click_event())
            second = _content(paged.page()) - first
            more = next(a for a in scrolled.page().affordances if a.sid == f"more:{more_key}")
            assert more.attr_map() == {"list": more_key} and more.handler == "ui.more"
            scrolled.dispatch(more.click_event())
            assert second and second <= _content(scrolled.page()), where
    assert lists, f"{family}: no paginated list to turn into an infinite one"


def claim_date_widget(family: str) -> None:
    """Dates are picked in a calendar popover (days appear once it is opened), an inline
    calendar (days always there) or typed into a text input (no calendar)."""
    base = snap(family)
    pickers = [
        (w, a) for w, v in base.views.items() for a in v.revealed.values() if a.kind == "DatePicker"
    ]
    assert pickers, f"{family}: no date picker"

    def days(sids: Any, a: Affordance) -> list[str]:
        return [s for s in sids if s.startswith(f"day:{a.attr_map()['name']}=")]

    for where, a in pickers:
        assert (a.ui, a.element, a.opener) == ("calendar", "button", a.sid)
        if a.sid in {x.sid for x in base.views[where].shown}:
            assert not days((x.sid for x in base.views[where].shown), a), (where, a.sid)
        assert days(base.views[where].revealed, a), (where, a.sid)
    inline, typed = snap(family, date_widget="inline"), snap(family, date_widget="text")
    for where, a in pickers:
        i = inline.views[where]
        assert (i.revealed[a.sid].ui, i.revealed[a.sid].element) == ("calendar", "group")
        if a.sid in {x.sid for x in i.shown}:
            assert days((x.sid for x in i.shown), a), (where, a.sid)
        t = typed.views[where]
        assert (t.revealed[a.sid].ui, t.revealed[a.sid].element) == ("input", "input")
        assert not days(t.revealed, a), (where, a.sid)


def _mutating_click(family: str, s: Snapshot) -> tuple[tuple[str, str], Affordance]:
    """A button on some view whose click changes server-side data."""
    table = s.site.family.app_class.transitions()
    for where, view in s.views.items():
        for a in view.shown:
            fn = table.get(a.handler or "")
            if a.verb == "click" and fn is not None and fn.mutating:
                return where, a
    raise AssertionError(f"{family}: no mutating button on the views")


def claim_latency(family: str) -> None:
    """A change costs 0, 150 or 900 logical ms (recorded in the patch); navigation and UI
    events cost nothing; the state reached is the same."""
    base = snap(family)
    where, button = _mutating_click(family, base)
    reference = _app_at(family, base, where)
    assert reference.dispatch(button.click_event()).latency_ms == 0
    for value, ms in (("low", 150), ("high", 900)):
        varied = snap(family, latency=value)
        app = _app_at(family, varied, where)
        assert app.v.latency_ms == ms
        assert app.dispatch(button.click_event()).latency_ms == ms
        assert _state(app) == _state(reference)
        assert app.dispatch(E(type="nav", path="/")).latency_ms == 0


def _fail_and_retry(family: str, s: Snapshot, where: Any, button: Affordance) -> list[str]:
    """Click `button` until an injected error refuses it; check the refusal; retry.
    Returns the banner texts seen."""
    app = _app_at(family, s, where)
    reference = _app_at(family, snap(family), where)
    banners = []
    for _ in range(40):
        before = _state(app)
        app.dispatch(button.click_event())
        reference.dispatch(button.click_event())
        assert reference.failed is None
        if app.failed is None:
            continue
        assert _state(app) == before, "a refused change changed the state"
        page = app.page()
        retry = page.affordance("retry")
        assert retry is not None and retry.attr_map() == {"role": "retry"}
        banners.append(re.sub(r"<[^>]+>", "", page.regions["main"].split("</div>")[0]))
        app.dispatch(retry.click_event())
        assert app.failed is None and _state(app) == _state(reference), "retry differs"
    assert banners, f"{family}: errors=some refused none of 40 changes"
    return banners


def claim_errors(family: str) -> None:
    """Some changes are refused with a server error and a Retry button; the refused change
    changes nothing, and retrying it reaches the state an error-free server reaches."""
    base = snap(family)
    where, button = _mutating_click(family, base)
    banners = _fail_and_retry(family, snap(family, errors="some"), where, button)
    message = base.site.new_app().copy("errors.server")
    assert all(b.startswith(message) for b in banners), banners[:1]


def claim_optimistic(family: str) -> None:
    """Optimistic changes are shown before the server answers; all time being logical, a
    step shows the settled page, so what remains visible is the message after an injected
    error: the change was rolled back, rather than it failed. Without errors, no change."""
    base = snap(family)
    assert _pages(snap(family, optimistic="on")) == _pages(base)
    where, button = _mutating_click(family, base)
    on = _fail_and_retry(family, snap(family, errors="some", optimistic="on"), where, button)
    off = _fail_and_retry(family, snap(family, errors="some"), where, button)
    app = base.site.new_app()
    assert all(b.startswith(app.copy("errors.rolled_back")) for b in on)
    assert all(b.startswith(app.copy("errors.server")) for b in off)
    assert app.copy("errors.rolled_back") != app.copy("errors.server")


def claim_validation(family: str) -> None:
    """sync: a field's error shows while typing; async: only after the form is submitted."""
    sync, later = snap(family), snap(family, validation="async")
    shown_while_typing = 0
    for where, view in sync.views.items():
        fields = [a for a in view.shown if a.verb == "fill" and a.attr_map().get("form")]
        for field in fields:
            typing = E(type="input", handler=field.handler, arg=field.arg, sid=field.sid, value="x")
            now, after = _app_at(family, sync, where), _app_at(family, later, where)
            now.dispatch(typing)
            after.dispatch(typing)
            region = f"err:{field.sid}"
            assert 'role="alert"' not in after.page().regions.get(region, ""), (where, field.sid)
            if 'role="alert"' not in now.page().regions.get(region, ""):
                continue
            shown_while_typing += 1
            form = str(field.attr_map()["form"])
            submit = next(
                a
                for a in after.page().affordances
                if a.kind == "Form" and a.attr_map().get("name") == form
            )
            values = {
                str(a.attr_map()["name"]): a.value or ""
                for a in after.page().affordances
                if a.attr_map().get("form") == form and a.element in ("input", "textarea", "select")
            }
            after.dispatch(E(type="submit", handler=submit.handler, arg=submit.arg, values=values))
            assert 'role="alert"' in after.page().regions.get(region, ""), (where, field.sid)
    assert shown_while_typing, f"{family}: validation=sync shows no error while typing"


def claim_debounce(family: str) -> None:
    """Typing (and so suggestions) waits 300 logical ms; the state reached is the same."""
    base, varied = snap(family), snap(family, debounce="on")
    where, field = next(
        (w, a) for w, v in base.views.items() for a in v.shown if a.verb == "fill" and a.handler
    )
    typing = E(type="input", handler=field.handler, arg=field.arg, sid=field.sid, value="ab")
    plain, slow = _app_at(family, base, where), _app_at(family, varied, where)
    assert plain.dispatch(typing).latency_ms == 0
    assert slow.dispatch(typing).latency_ms == DEBOUNCE_MS == 300
    assert _state(slow) == _state(plain)
    assert slow.dispatch(E(type="nav", path="/")).latency_ms == 0


def claim_drift(family: str) -> None:
    """A drift re-render replaces every element: test ids and DOM ids are renamed, the
    page is otherwise the same; each epoch renames again. With drift off the env never
    asks for one, and the first render is the same either way."""
    base, varied = snap(family), snap(family, drift="on")
    assert _pages(varied) == _pages(base)
    ids = r' (?:data-testid|id|for|aria-labelledby|aria-describedby|aria-controls)="[^"]*"'
    for where in base.views:
        app = _app_at(family, varied, where)
        assert app.v.drift == "on"
        pages = ["".join(app.page().regions.values())]
        for _ in range(2):
            pages.append("".join(app.drift_patch().regions.values()))
        testids = [re.findall(r'data-testid="([^"]+)"', h) for h in pages]
        for old, new in itertools.pairwise(testids):
            assert len(old) == len(new) and not set(old) & set(new), where
        assert len({_strip(h, ids) for h in pages}) == 1, where


def _claim_markup(family: str, axis: str, value: str, pattern: str, more: bool) -> None:
    """Only markup matching `pattern` changes, and there is more (or less) of it."""
    base, varied = snap(family), snap(family, **{axis: value})
    count = sum(len(re.findall(pattern, v.html)) for v in base.views.values())
    other = sum(len(re.findall(pattern, v.html)) for v in varied.views.values())
    assert (other > count) if more else (other < count), (axis, value, count, other)
    for where, view in base.views.items():
        assert _strip(varied.views[where].html, pattern) == _strip(view.html, pattern), where


def claim_aria(family: str) -> None:
    _claim_markup(family, "aria", "off", r' aria-label="[^"]*"', more=False)


def claim_tooltips(family: str) -> None:
    _claim_markup(family, "tooltips", "on", r' title="[^"]*"', more=True)


def claim_shortcuts(family: str) -> None:
    legend = r'<small class="shortcuts muted">[^<]*</small>'
    _claim_markup(family, "shortcuts", "on", rf' accesskey="[^"]*"|{legend}', more=True)
    varied = snap(family, shortcuts="on")
    assert any(re.search(legend, v.html) for v in varied.views.values())


def claim_distractors(family: str) -> None:
    """Distractors add elements (all marked as such in the side table), more with "many"."""
    base = snap(family)
    counts = []
    for value in ("some", "many"):
        varied = snap(family, distractors=value)
        added = {
            (*w, sid)
            for w, v in varied.views.items()
            for sid in v.revealed
            if sid not in base.views[w].revealed
        }
        counts.append(len(added))
    assert 0 < counts[0] <= counts[1], counts


CLAIMS: dict[str, Callable[[str], None]] = {
    **{axis: (lambda family, axis=axis: claim_css(family, axis)) for axis in CSS_AXES},
    "nav": claim_nav,
    "field_order": claim_field_order,
    "paraphrase": claim_paraphrase,
    "helper_text": claim_helper_text,
    "noise": claim_noise,
    "choice_widget": claim_choice_widget,
    "form_mode": claim_form_mode,
    "list_mode": claim_list_mode,
    "date_widget": claim_date_widget,
    "latency": claim_latency,
    "errors": claim_errors,
    "optimistic": claim_optimistic,
    "validation": claim_validation,
    "debounce": claim_debounce,
    "drift": claim_drift,
    "aria": claim_aria,
    "tooltips": claim_tooltips,
    "shortcuts": claim_shortcuts,
    "distractors": claim_distractors,
}


def test_every_axis_has_a_claim():
    assert set(CLAIMS) == {a.name for a in AXES}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("axis", [a.name for a in AXES])
def test_axis_does_what_it_claims(family, axis):
    if axis in NOT_OFFERED[family]:
        for value in AXIS_BY_NAME[axis].values[1:]:
            assert _pages(snap(family, **{axis: value})) == _pages(snap(family)), (
                f"{family} does not offer {axis}, yet {axis}={value} changes its pages"
            )
        return
    CLAIMS[axis](family)


def test_every_axis_and_value_is_documented():
    """docs/variation.md (the variation vector reference) has a row for every axis, with
    its values in order, and `webfactory axes` prints the same axes."""
    from pathlib import Path

    from webfactory_env.sitegen.variation import describe_axes

    doc = (Path(__file__).resolve().parent.parent / "docs" / "variation.md").read_text()
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| `([a-z_]+)` \| [a-z0-9]+ \| ([^|]+) \|", doc, re.M)
    }
    assert set(rows) == {a.name for a in AXES}
    for a in AXES:
        assert re.findall(r"`([^`]+)`", rows[a.name]) == list(a.values), a.name
    assert [d["name"] for d in describe_axes()] == [a.name for a in AXES]
