"""Typed values compare by meaning: a phone number by its digits, an e-mail address without
case, a card number without spaces, a date in any format the site accepts; every spelling
the site accepts for the asked value succeeds, and earns what the oracle earns."""

from __future__ import annotations

import dataclasses

import pytest

from webfactory_env.core.predicates import Eq, predicate_from_json
from webfactory_env.core.typed import VALUE_TYPES, meaning
from webfactory_env.groundtruth import check_task, run_mutant, run_oracle
from webfactory_env.groundtruth.formats import check_formats
from webfactory_env.groundtruth.plans import typing_instead
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.families.shop.rules import luhn_ok, validate_shipping
from webfactory_env.sitegen.families.travel.rules import validate_passenger
from webfactory_env.tasks import compile_for_site

LOYALTY = "book_with_loyalty_number"


def _phone_step(task, recorded):
    return next(i for i, r in enumerate(recorded) if r.step.sid == "field:passenger.phone")


def test_the_phone_typed_without_spaces_books_the_trip():
    """The issue's probe: `+14155550188`, which the site accepts and stores, is the phone
    number the goal asks for (`+1 415 555 0188`); another number is not."""
    site = generate_site("travel", 3)
    task = compile_for_site(LOYALTY, site)
    oracle, recorded, problems = run_oracle(site, task)
    assert not problems
    i = _phone_step(task, recorded)
    assert recorded[i].step.value == "+1 415 555 0188"
    d, stopped, _ = run_mutant(site, task, recorded, swap=(i, typing_instead("+14155550188")))
    (trip,) = [t for t in d.app.state_view()["trips"].values() if t["booked_here"]]
    assert trip["traveller"]["phone"] == "+14155550188"  # stored as typed
    assert not stopped and d.success and d.total == pytest.approx(oracle.total)
    other, _, _ = run_mutant(site, task, recorded, swap=(i, typing_instead("+1 415 555 0199")))
    assert not other.success


def test_the_goal_says_how_each_typed_field_compares():
    task = compile_for_site(LOYALTY, generate_site("travel", 0))
    (trip,) = task.goal
    traveller = next(
        p for p in trip.predicate.to_json()["where"]["items"] if p["path"] == "traveller"
    )
    assert traveller["as"] == {"email": "email", "phone": "phone", "loyalty_number": "code"}
    fill_phone = task.subgoal("fill-field-phone").predicate.to_json()
    assert fill_phone["as"] == "phone"  # the shaping subgoal too
    untyped = compile_for_site("buy_red_mug", generate_site("shop", 0))
    assert untyped.subgoal("fill-field-city").predicate.to_json().get("as") is None


def test_an_equality_by_meaning_round_trips_and_compares_by_its_type():
    p = Eq(
        ("t", "traveller"), {"phone": "+1 415 555 0188", "first_name": "Priya"}, {"phone": "phone"}
    )
    same = {"t": {"traveller": {"phone": "1-415-555-0188", "first_name": "Priya"}}}
    assert p.holds(same)
    assert not p.holds({"t": {"traveller": {"phone": "14155550199", "first_name": "Priya"}}})
    assert not p.holds({"t": {"traveller": {"phone": "14155550188", "first_name": "priya"}}})
    assert predicate_from_json(p.to_json()) == p
    email = Eq(("e",), "sam.lee@example.com", "email")
    assert email.holds({"e": "  Sam.Lee@Example.COM "}) and not email.holds({"e": "sam@lee.com"})
    assert Eq(("d",), "2026-02-16", "date").holds({"d": "02/16/2026"})
    assert meaning("phone", "call me") == "call me"  # text that is no phone stays itself


@pytest.mark.parametrize("name", sorted(VALUE_TYPES))
def test_every_other_spelling_means_the_same(name):
    value = {
        "phone": "+1 415 555 0188",
        "email": "priya.raman@example.org",
        "card": "4242 4242 4242 4242",
        "date": "2026-02-16",
        "postal": "sw1a 1aa",
        "code": "BJ93931562",
    }[name]
    kind = VALUE_TYPES[name]
    spellings = kind.respell(value)
    assert spellings and value not in spellings
    assert {kind.canonical(s) for s in spellings} == {kind.canonical(value)}


def test_the_sites_accept_every_spelling_their_goals_accept():
    """One source: the pages validate a typed value as its type reads it."""
    valid = {
        "first_name": "Priya",
        "last_name": "Raman",
        "email": "priya.raman@example.org",
        "phone": "+1 415 555 0188",
        "loyalty_number": "BJ93931562",
    }
    types = {"email": "email", "phone": "phone", "loyalty_number": "code"}
    assert validate_passenger(valid) == {}
    for name, typed_as in types.items():
        for spelling in VALUE_TYPES[typed_as].respell(valid[name]):
            assert validate_passenger({**valid, name: spelling}) == {}, spelling
    shipping = {
        "full_name": "Alice Nguyen",
        "address_line1": "123 Market St",
        "city": "San Francisco",
        "postal_code": "94105",
    }
    for spelling in VALUE_TYPES["postal"].respell("94105"):
        assert validate_shipping({**shipping, "postal_code": spelling}) == {}
    assert all(luhn_ok(s) for s in VALUE_TYPES["card"].respell("4242 4242 4242 4242"))


def test_format_mutants_run_and_succeed_for_every_typed_value():
    report = check_task("travel", LOYALTY, seeds=(0,))
    assert report.formats == 10  # the e-mail address 3 ways, the phone 5, the loyalty number 2
    report = check_task("shop", "shop_pay_by_card", seeds=(0,))
    assert report.formats == 3  # the ZIP code with spaces; the card without or with hyphens


def test_a_typed_value_in_a_field_without_a_type_is_caught():
    """A field that holds an e-mail address but declares no value type would have its goal
    compare the spelling: the format check names it."""
    site = generate_site("kanban", 0)
    task = compile_for_site("kanban_invite_member", site)
    oracle, recorded, _ = run_oracle(site, task)
    spelled = dataclasses.replace(
        task,
        subgoals=tuple(
            dataclasses.replace(g, predicate=Eq(g.predicate.path, g.predicate.value))
            if g.id == "fill-field-email"
            else g
            for g in task.subgoals
        ),
    )
    ran, problems = check_formats(site, spelled, recorded, oracle)
    assert ran == 0
    assert problems == [
        "step 3 types 'jordan.avery@example.org', which looks like an e-mail address, into a "
        "field that declares no value type: its goal compares the spelling"
    ]
