"""Typed bindings: a transition's signature is the schema of its argument, encoded one way."""

from __future__ import annotations

from typing import Literal

import pytest

from webfactory_env.core.predicates import Eq, Ref
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.binding import BadArgument, FormField, transition
from webfactory_env.sitegen.families.shop import transitions as shop_t
from webfactory_env.sitegen.registry import families


def _edit(app: object, ev: object, *, card: str, field: Literal["title", "due"]) -> None:
    return None


def _assign(app: object, ev: object, *, card: str, member: str | None = None) -> None:
    return None


def _page(app: object, ev: object, *, page: int, exact: bool = False) -> None:
    return None


EDIT = transition(
    "set_card_field",
    effect=lambda card, field: Eq(("forms", "cards", card, field), Ref("value")),
    field=lambda card, field: FormField("card", field, ("forms", "cards", card, field)),
)(_edit)
ASSIGN = transition("assign_card")(_assign)
PAGE = transition("turn_page")(_page)


def test_arguments_round_trip_through_one_canonical_string():
    cases = [
        (EDIT, {"card": "C-1", "field": "title"}, "card=C-1&field=title"),
        (EDIT, {"card": "a&b=c%d", "field": "due"}, "card=a%26b%3Dc%25d&field=due"),
        (ASSIGN, {"card": "C-1"}, "card=C-1"),  # at its default: left out
        (ASSIGN, {"card": "C-1", "member": "m-2"}, "card=C-1&member=m-2"),
        (PAGE, {"page": -1, "exact": True}, "page=-1&exact=true"),
    ]
    for t, args, text in cases:
        assert t.encode(args) == text
        assert t.decode(text) == t.arguments(args)


@pytest.mark.parametrize(
    "arg",
    [
        None,  # missing
        "card=C-1",  # missing field
        "card=C-1&field=colour",  # not one of the Literal
        "field=title&card=C-1",  # not in signature order
        "card=C-1&field=title&x=1",  # unknown
        "card=C-1&card=C-2&field=title",  # repeated
        "card&field=title",  # not a pair
        "C-1:title",  # a per-family spelling
    ],
)
def test_malformed_arguments_are_refused(arg):
    with pytest.raises(BadArgument):
        EDIT.decode(arg)


def test_ints_and_bools_parse_strictly():
    assert PAGE.decode("page=3") == {"page": 3, "exact": False}
    for bad in ("page=three", "page=+3", "page=1.5", "page=2&exact=yes", "page=2&exact=false"):
        with pytest.raises(BadArgument):
            PAGE.decode(bad)  # (a default spelled out is not canonical either)


def test_a_page_that_binds_wrong_arguments_fails_loudly():
    for wrong in (EDIT.bind(card="C-1"), EDIT.bind(card="C-1", field="colour")):
        with pytest.raises(TypeError):
            assert wrong.arg
    with pytest.raises(TypeError):
        assert PAGE.bind(page="2").arg
    with pytest.raises(TypeError):  # an effect that takes other arguments than the transition
        transition("x", effect=lambda card: Eq(("a",), card))(_edit)


def test_a_binding_gives_a_field_its_sid_name_form_value_and_effect():
    site = generate_site("shop", 0)
    app = site.new_app()
    app.model.forms.shipping["city"] = "Rome"
    b = shop_t.set_field.bind(form="shipping", name="city")
    assert (b.sid("field"), b.field.name, b.field.form, b.value_in(app.model)) == (
        "field:shipping.city",
        "city",
        "shipping",
        "Rome",
    )
    assert (b.handler, b.arg) == ("set_field", "form=shipping&name=city")
    assert b.effect == Eq(("forms", "shipping", "city"), Ref("value"))
    assert b.event("input", value="Oslo").arg == b.arg


def test_neutral_is_a_flag_every_family_reads_from_its_transition_table():
    for family in families().values():
        table = family.app_class.transitions()
        neutral = {name for name, t in table.items() if t.neutral}
        assert {"nav", "retry", "ui.toggle", "ui.tab", "ui.modal"} <= neutral, family.name
        assert not any(t.mutating for t in table.values() if t.neutral), family.name


def test_conformance_checks_declared_effects_and_pages_that_change_state(monkeypatch):
    from webfactory_env.core.predicates import Contains
    from webfactory_env.sitegen.families.shop.app import ShopApp
    from webfactory_env.testing import check_site, check_transitions

    check_transitions("shop")
    wrong = lambda sku: Contains(("carts", "items"), sku)  # noqa: E731
    monkeypatch.setattr(shop_t.add_to_cart, "effect", wrong)
    with pytest.raises(AssertionError, match=r"add_to_cart.*carts\.items"):
        check_transitions("shop")
    monkeypatch.undo()

    page = ShopApp.PAGES["cart"]

    def greedy_cart(shop, r, route):  # a page that saves what it shows
        shop.state.wishlist.add("SKU-PEEKED")
        return page(shop, r, route)

    monkeypatch.setitem(ShopApp.PAGES, "cart", greedy_cart)
    with pytest.raises(AssertionError, match="/cart: rendering the page changed state"):
        check_site(generate_site("shop", 0))
