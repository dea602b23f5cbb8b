"""Answers: one value of the kind asked for. Hedges, lists, ranges and second values fail,
whatever the page shows; right answers in another format pass. Pure: no browser."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from webfactory_env.core import domains
from webfactory_env.core.answer_values import (
    date_spans,
    hedged,
    normalise,
    number_spans,
    time_spans,
    without,
)
from webfactory_env.core.answers import AnswerKey, grade
from webfactory_env.core.domains import Vocabulary, declare, domain, select
from webfactory_env.groundtruth.answers import answer_key
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site, library_tasks

STATUS = AnswerKey(("delivered",), "status", ("delivered",), "shop.statuses")
CITY = AnswerKey(("Lisbon",), "place", ("Lisbon", "Seoul"), "account.cities")


def key(accepted: str, kind: str, domain_name: str = "", *candidates: str) -> AnswerKey:
    return AnswerKey((accepted,), kind, candidates, domain_name)  # type: ignore[arg-type]


# ------------------------------------------------------- the probes
@pytest.mark.parametrize(
    ("answer", "answer_key_"),
    [
        ("processing, shipped or delivered", STATUS),
        ("$4.99 or $5.49", key("4.99", "money", "", "4.99", "5.49")),
        ("$320 or $321", key("320", "money", "", "320", "335")),  # no fare of $321 exists
        ("2 or 3", key("2", "count")),
        ("2992 or 3000", key("2992", "number")),
        ("Priya Garcia or Elena Rossi", key("Priya Garcia", "person", "kanban.members")),
        ("Lisbon or Porto", CITY),  # Porto is on no page of this site
        ("Kwame Khan, or maybe Lars", key("Kwame Khan", "person", "forum.members")),
        ("Kwame Khan, Lars", key("Kwame Khan", "person", "forum.members")),
        # on most easy shops every order has one status: the page rejects nothing else
        ("processing, shipped, delivered, cancelled, placed", STATUS),
        ("2-3", key("2", "count")),
        ("between 2 and 3", key("3", "count")),
        ("2 to 3", key("2", "count")),
        ("maybe delivered", STATUS),
        ("probably Lisbon", CITY),
        ("Lisbon/Porto", CITY),
        ("Lisbon and/or Porto", CITY),
        ("either Lisbon or Lisbon", CITY),
        ("Lisbon, Germany", CITY),  # another country: another place
        ("about $320", key("320", "money")),
        ("$4.99 or $5.00", key("4.99", "money")),  # a near miss of a cent
        ("two or three", key("2", "count")),
        ("CMGZQH or TNKP8G", key("CMGZQH", "reference", "", "CMGZQH")),
        ("CMGZQH, CMGZQJ", key("CMGZQH", "reference")),
        ("Bellamy House, Kingsley Inn", key("Bellamy House", "text", "travel.hotels")),
        ("Safari on iPhone, Chrome on Windows", key("Safari on iPhone", "text", "account.devices")),
        ("7:40 or 7:45", key("7:40", "time")),
        ("2026-02-23 or 2026-02-24", key("2026-02-23", "date")),
        ("Feb 23 or 24, 2026", key("2026-02-23", "date")),
        ("yes or no", key("yes", "bool")),
        ("not delivered", STATUS),
        ("Not Lisbon", CITY),
    ],
)
def test_a_hedged_answer_fails(answer, answer_key_):
    assert not grade(answer, answer_key_), answer


@pytest.mark.parametrize(
    ("answer", "answer_key_"),
    [
        ("The answer is $1,299.00.", key("1299", "money")),
        ("1,299 USD", key("1299", "money")),
        ("USD 1299", key("1299", "money")),
        ("1 299", key("1299", "number")),
        ("Lisbon, Portugal", CITY),
        ("lisbon (PORTUGAL)", CITY),
        ("kwame khan", key("Kwame Khan", "person", "forum.members")),
        ("KWAME KHAN", key("Kwame Khan", "person", "forum.members")),
        ("The longest member is Kwame Khan (Kwame).", key("Kwame Khan", "person", "forum.members")),
        ("07:40", key("7:40", "time")),
        ("7:40 am", key("7:40", "time")),
        ("7:40 pm", key("19:40", "time")),
        ("Feb 23, 2026", key("2026-02-23", "date")),
        ("Monday, 23 February 2026", key("2026-02-23", "date")),
        ("Yes.", key("yes", "bool")),
        ("no", key("no", "bool")),
        ("Three", key("3", "count")),
        ("3 cards are overdue.", key("3", "count")),
        ("The order has been delivered.", STATUS),
        ("Your booking reference is cmgzqh.", key("CMGZQH", "reference")),
        ("Run A/B test on subject lines", key("Run A/B test on subject lines", "text")),
        ("The best-rated hotel is Bellamy House.", key("Bellamy House", "text", "travel.hotels")),
    ],
)
def test_a_right_answer_in_another_format_passes(answer, answer_key_):
    assert grade(answer, answer_key_), answer


def test_every_tie_is_accepted_but_not_two_at_once():
    tied = AnswerKey(("Bellamy House", "Kingsley Inn"), "text", (), "travel.hotels")
    assert grade("Bellamy House", tied) and grade("kingsley inn", tied)
    assert not grade("Bellamy House, Kingsley Inn", tied)


# ------------------------------------------------------------- the kind parser
def test_numbers_are_read_with_their_separators_and_places():
    text = normalise("Between $1,299.00 and 1 300, not 12a or 3")
    found = number_spans(text)
    assert [f.value for f in found] == [1299.0, 1300.0, 3.0]
    assert text[found[0].start : found[0].end] == "1,299.00"
    assert [f.value for f in number_spans("two or three", counting=True)] == [2.0, 3.0]
    assert [f.value for f in number_spans("2-3")] == [2.0, 3.0]  # a range is two values


def test_times_and_dates_are_read_in_every_common_form():
    assert [f.value for f in time_spans("7 pm, 07:40, 19:40 and 7.40 am")] == [
        1140,
        460,
        1180,
        460,
    ]
    days = date_spans(normalise("23 Feb, 2026-02-24 or march 1"), year=2026)
    assert [f.value for f in days] == [
        dt.date(2026, 2, 23),
        dt.date(2026, 2, 24),
        dt.date(2026, 3, 1),
    ]


def test_hedge_words_are_found_only_around_the_value():
    assert hedged("maybe |") and hedged("| and/or |") and hedged("| / |")
    assert not hedged("the answer is |") and not hedged("23/02/2026")
    assert hedged("about |", approximate=True) and not hedged("about |")
    text = normalise("It is 7:40, I think")
    assert without(text, time_spans(text)) == "it is  | , i think"


# ----------------------------------------------------------------------- domains
def test_a_domain_is_read_from_the_family_data_files():
    cities = domain("account.cities")
    assert {"lisbon", "porto", "portugal"} <= cities.phrases
    assert cities.qualifiers["lisbon"] == {"portugal"}
    members = domain("forum.members")
    assert {"kwame", "khan", "lars"} <= members.parts
    statuses = domain("shop.statuses")
    assert statuses.phrases == {"processing", "shipped", "delivered", "cancelled", "placed"}
    assert len(select("kanban", "vocab.json:boards.*.titles.*")) >= 100


def test_a_bad_declaration_says_what_is_wrong(monkeypatch):
    monkeypatch.setattr(domains, "_DECLARED", dict(domains._DECLARED))
    declare("forum", [Vocabulary("whole_lists", "person", parts=("vocab.json:first_names",))])
    with pytest.raises(TypeError, match="selects a list"):
        domain("forum.whole_lists")
    with pytest.raises(KeyError, match=r"no answer domain 'forum\.nobody'"):
        domain("forum.nobody")


ANSWER_TASKS = sorted(
    (t.family, t.name)
    for t in library_tasks()
    if t.family != "gallery" and re.search(r"^\s*answer\b", Path(t.path).read_text(), re.M)
)


def test_every_library_question_asks_for_a_declared_kind():
    """The kind comes from the family's declaration of the field, and a domain travels by
    name: a compiled key stays small however many names the family can produce."""
    kinds = {}
    for family, name in ANSWER_TASKS:
        compiled = compile_for_site(name, generate_site(family, 0))
        found = answer_key(compiled)
        if found is None:
            continue
        kinds[name] = (found.kind, found.domain)
        assert len(json.dumps(found.to_json())) < 1000, name
    assert kinds["shop_order_status"] == ("status", "shop.statuses")
    assert kinds["account_oldest_failed_sign_in"] == ("place", "account.cities")
    assert kinds["forum_longest_member"] == ("person", "forum.members")
    assert kinds["kanban_overdue_count"] == ("count", "")
    assert kinds["shop_cheapest_in_category"] == ("money", "")
    assert kinds["trip_reference_after_2fa"] == ("reference", "")
    assert all(kind != "text" or dom for kind, dom in kinds.values()), kinds
