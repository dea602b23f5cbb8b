"""Predicates: evaluation over state, JSON round trips, binding, fuzzy matching."""

from __future__ import annotations

from webfactory_env.core.predicates import (
    All,
    Any_,
    Contains,
    Eq,
    Gt,
    Lt,
    Match,
    Not,
    Ref,
    fuzzy_match,
    predicate_from_json,
)

STATE = {
    "route": "/cart",
    "cart": {"skus": ["A", "B"], "count": 2},
    "order": {"status": "placed", "shipping": {"city": "Paris", "zip": "75001"}},
}


def test_comparisons_read_dotted_paths():
    assert Eq("route", "/cart").holds(STATE)
    assert not Eq("route", "/shop").holds(STATE)
    assert Eq("order.shipping", {"zip": "75001", "city": "Paris"}).holds(STATE)
    assert Contains("cart.skus", "A").holds(STATE)
    assert Contains("cart.skus", ["A", "B"]).holds(STATE)
    assert not Contains("cart.skus", ["A", "C"]).holds(STATE)
    assert Gt("cart.count", 1).holds(STATE) and not Lt("cart.count", 2).holds(STATE)
    assert Match("order.status", "Placed").holds(STATE)


def test_missing_paths_never_hold():
    assert not Eq("order.nope", None).holds(STATE)
    assert not Gt("route", 1).holds(STATE)  # text is not a number
    assert Not(Eq("order.nope", 1)).holds(STATE)


def test_combinators_and_json_round_trip():
    p = All((Eq("route", "/cart"), Any_((Contains("cart.skus", "Z"), Not(Eq("cart.count", 0))))))
    assert p.holds(STATE)
    again = predicate_from_json(p.to_json())
    assert again == p and again.holds(STATE)
    assert p.paths() == {("route",), ("cart", "skus"), ("cart", "count")}


def test_refs_are_bound_by_the_compiler():
    template = All((Eq("listing.sort", Ref("value")), Eq("order.shipping", Ref("state:ship"))))
    bound = template.bind(lambda name: "price-asc" if name == "value" else {"city": "Paris"})
    assert bound.to_json()["items"][0]["value"] == "price-asc"
    assert bound.holds({"listing": {"sort": "price-asc"}, "order": {"shipping": {"city": "Paris"}}})
    assert predicate_from_json(template.to_json()) == template


def test_fuzzy_match_is_word_based():
    assert fuzzy_match("Harbor Stoneware Mug", "mug")
    assert fuzzy_match("Travel Mugs", "Mug")
    assert not fuzzy_match("Mugwort Tea", "mug")
    assert fuzzy_match("Red Glass Vase", "glass vase")
    assert not fuzzy_match("Red Glass Vase", "")


def test_equality_on_a_scalar_answers_as_the_structural_comparison():
    # Eq answers a scalar value without thawing (the reward's common case): it must agree
    # with the comparison it stands for on every kind of value a view holds.
    import itertools

    from webfactory_env.core.predicates import Exists, _thaw

    values = ["2", 2, 2.0, True, 1, 0, None, "", [2], {"a": 2}, (2,), [], {}]
    for want, actual in itertools.product(values[:8], values):
        eq = Eq("x", want)
        assert eq.holds({"x": actual}) == eq.test(actual, _thaw(eq.value)), (want, actual)
    table = {"orders": {"o1": {"sku": "A"}, "o2": "not a record", "o3": {"sku": "B"}}}
    assert Exists("orders", Eq("sku", "B")).holds(table)
    assert not Exists("orders", Eq("sku", "C")).holds(table)
    assert not Exists("route", Eq("sku", "B")).holds({"route": "/x"})  # not a table


def test_a_subclass_of_eq_is_answered_by_its_own_comparison():
    # The scalar shortcut must not skip a subclass's `test` (here: equal ignoring case).
    from dataclasses import dataclass

    @dataclass(frozen=True, slots=True)
    class CaselessEq(Eq):
        def test(self, actual, expected):
            return str(actual).lower() == str(expected).lower()

    assert CaselessEq("route", "/CART").holds(STATE)
    assert not Eq("route", "/CART").holds(STATE)
