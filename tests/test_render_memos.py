"""What a reset's Python remembers between pages and levels gives exactly what computing it
afresh gives: escaped text, a transition's arguments, encoding, effect and field (keyed once
per binding), the site navigation replayed on every page, the state view's converted
records, and the draft fields a step wrote (equal drafts skipped)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from webfactory_env.core.predicates import Eq, Ref
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen import html as sitegen_html
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.shop import transitions as shop_t
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.registry import BUILTIN_FAMILIES
from webfactory_env.sitegen.state import _LEAVES, _shown, derived, leaf_changes, plain
from webfactory_env.sitegen.variation import Variation

TEXTS = ['Add to "cart"', "Tom & Jerry's <b>", "plain", "", "x" * 500, "<" * 300]


def test_escaping_remembered_text_gives_what_escaping_afresh_gives(monkeypatch):
    monkeypatch.setattr(sitegen_html, "_ESCAPED_MAX", 3)  # forgets while it goes
    for _ in range(3):
        for text in TEXTS:
            assert esc(text) == html.escape(text, quote=True)
    assert esc(42) == "42" and esc(None) == "None"
    assert len(sitegen_html._ESCAPED) <= 3
    assert "x" * 500 not in sitegen_html._ESCAPED  # long texts are not kept


def _count(app: object, *, n: int, flag: bool = False) -> None:
    return None


def test_a_transition_remembers_its_arguments_but_tells_one_from_true():
    counted = transition(effect=lambda n, flag: Eq(("n",), n))(_count)
    assert counted.encode({"n": 1}) == "n=1"
    assert counted.effect_for({"n": 1}) == Eq(("n",), 1)
    with pytest.raises(TypeError):  # `True` is no int here, remembered `1` or not
        counted.encode({"n": True})
    args = counted.arguments({"n": 2})
    args["n"] = 99  # a caller's copy: the next caller gets its own
    assert counted.arguments({"n": 2}) == {"n": 2, "flag": False}


def test_a_binding_keys_its_arguments_once_and_still_tells_one_from_true():
    counted = transition(effect=lambda n, flag: Eq(("n",), n))(_count)
    one, true = counted.bind(n=1), counted.bind(n=True)
    for _ in range(2):  # asked again: from what the binding and the transition remember
        assert one.arg == "n=1" == counted.encode({"n": 1})
        assert one.effect == Eq(("n",), 1)
        with pytest.raises(TypeError):
            true.arg  # noqa: B018
        with pytest.raises(TypeError):
            true.effect  # noqa: B018


def test_a_redeclared_effect_or_field_is_what_the_binding_gives(monkeypatch):
    bind = shop_t.set_field.bind(form="shipping", name="city")
    assert bind.effect == Eq(("forms", "shipping", "city"), Ref("value"))
    assert bind.field == FormField("shipping", "city", ("forms", "shipping", "city"))
    other = Eq(("elsewhere",), Ref("value"))
    monkeypatch.setattr(shop_t.set_field, "effect", lambda form, name: other)
    monkeypatch.setattr(shop_t.set_field, "field", lambda form, name: FormField("f", "n"))
    assert bind.effect == other
    assert bind.field == FormField("f", "n")


def test_the_site_navigation_replayed_is_the_one_drawn_for_that_variation():
    entries = [("/", "Home"), ("/shop", "Shop"), ("/cart", "Cart")]
    for shortcuts in ("on", "off", "on"):  # one site (salt), two variations, in turn
        variation = Variation.plain(shortcuts=shortcuts)
        drawn = Renderer(variation, salt="nav-test")
        first = w.site_nav(drawn, entries, label="Main")
        replayed = Renderer(variation, salt="nav-test")
        assert w.site_nav(replayed, entries, label="Main") == first
        assert replayed.affordances == drawn.affordances
        assert [a.sid for a in replayed.affordances] == ["nav:/", "nav:/shop", "nav:/cart"]
        assert ("accesskey" in first) == (shortcuts == "on")
        with pytest.raises(ValueError, match="rendered twice"):  # still one nav per page
            w.site_nav(replayed, entries, label="Main")


def _walked(value: Any) -> Any:
    """`plain` as a loop over fields, the way it was written before records got their own
    converters: the reference the converters must match."""
    if type(value) in _LEAVES:
        return value
    names = _shown(type(value))
    if names is not None:
        return {name: _walked(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {str(k): _walked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walked(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_walked(v) for v in value)
    return value


@pytest.mark.parametrize("family", BUILTIN_FAMILIES)
def test_every_familys_state_view_is_its_fields_walked_one_by_one(family):
    model = generate_site(family, 3).new_app().model
    assert json.dumps(plain(model)) == json.dumps(_walked(model))


@dataclass
class _Inner:
    tags: set[str] = field(default_factory=set)
    kept: int = derived(0)
    hidden_one: str = field(default="x", metadata={"wf_hidden": True})


@dataclass
class _Outer:
    inner: _Inner = field(default_factory=_Inner)
    rows: dict[int, _Inner] = field(default_factory=dict)
    pair: tuple[int, float] = (1, -0.0)


def test_a_records_converter_leaves_out_hidden_fields_and_sorts_sets():
    outer = _Outer(rows={2: _Inner({"b", "a"}, 5)})
    assert plain(outer) == {
        "inner": {"tags": [], "kept": 0},
        "rows": {"2": {"tags": ["a", "b"], "kept": 5}},
        "pair": [1, -0.0],
    }
    outer.rows[2].tags.add("c")  # converted afresh each time: nothing is remembered
    assert plain(outer)["rows"]["2"]["tags"] == ["a", "b", "c"]


def _every_leaf_that_differs(before: Any, after: Any, prefix: tuple[str, ...] = ()) -> list:
    """`leaf_changes` as it was written before it skipped equal drafts: every leaf walked."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list = []
        for key in sorted(set(before) | set(after), key=str):
            out += _every_leaf_that_differs(before.get(key), after.get(key), (*prefix, str(key)))
        return out
    return [prefix] if before != after else []


def test_the_draft_fields_a_step_wrote_are_every_leaf_that_differs():
    before = {
        "shipping": {"city": "Oslo", "zip": "0150", "gift": False},
        "search": {"q": "", "filters": {"color": "", "size": "M"}},
        "login": {"user": "sam"},
    }
    afters = [
        before,  # nothing written
        {**before, "shipping": {**before["shipping"], "city": "Bergen"}},
        {**before, "search": {"q": "mug", "filters": {"color": "red", "size": "M"}}},
        {**before, "login": {}},  # a field gone
        {**before, "extra": {"note": "hi"}},  # a draft new
        {**before, "shipping": {**before["shipping"], "gift": 0}},  # 0 == False: unchanged
    ]
    for after in afters:
        assert leaf_changes(before, after) == _every_leaf_that_differs(before, after)
        assert leaf_changes(after, before) == _every_leaf_that_differs(after, before)
    assert leaf_changes(before, afters[1], ("drafts",)) == [("drafts", "shipping", "city")]


def test_fresh_apps_of_a_site_share_the_start_page_and_view_until_they_dispatch():
    site = generate_site("shop", 4)
    first, second = site.new_app(shared_start=True), site.new_app(shared_start=True)
    alone = site.new_app()
    assert second.page() is first.page()  # drawn once
    assert second.state_view() is first.state_view()
    assert alone.page() is not first.page()
    assert alone.page().regions == first.page().regions
    assert alone.page().affordances == first.page().affordances
    assert alone.state_view() == first.state_view()
    link = next(a for a in first.page().affordances if a.href and a.href != first.route)
    first.dispatch(link.click_event())  # its own state from now on
    assert first.page().route == link.href != second.page().route
    assert first.state_view()["route"] == link.href
    assert second.state_view()["route"] == site.spec.start_route


def test_dom_ids_and_test_ids_remembered_are_the_ones_derived():
    from webfactory_env.core.seeding import short_hash

    names = ["fld:field:shipping.city", "nav:/shop", "x"]
    for salt in ("shop:1:0", "shop:1:1", "travel:1:0"):
        r = Renderer(Variation.plain(), salt=salt)
        for _ in range(2):
            for name in names:
                derived_id = f"{name.split(':')[0][:4]}-{short_hash(salt + '|' + name, 6).lower()}"
                assert r.dom_id(name) == derived_id
                assert r.testid(name).endswith(short_hash(salt + "|t|" + name, 4).lower())
    assert Renderer(salt="a").dom_id("n") != Renderer(salt="b").dom_id("n")
