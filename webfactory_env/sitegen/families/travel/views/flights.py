"""The flight pages: the search form, the results, and one offer with its fares and rules."""

from __future__ import annotations

import datetime as dt

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.travel.entities import Flight
from webfactory_env.sitegen.families.travel.fares import BRANDS, Offer, fare_rules
from webfactory_env.sitegen.families.travel.queries import RESULTS_PAGE, Travel
from webfactory_env.sitegen.families.travel.rules import parse_date
from webfactory_env.sitegen.families.travel.transitions.drafts import set_round_trip
from webfactory_env.sitegen.families.travel.transitions.trips import (
    FLIGHT_SORTS,
    add_flight,
    choose_fare,
    filter_flights,
    save_for_later,
    search_flights,
    set_price_alert,
    sort_flights,
    turn_results_page,
)
from webfactory_env.sitegen.families.travel.views.parts import (
    Page,
    banner,
    clock,
    date_field,
    draft_choice,
    extra_toggle,
    listing,
    money,
    notice,
    place_field,
    sort_choice,
    span,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

SORT_ATTRS = {
    "best": {"key": "best", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "duration-asc": {"key": "duration", "order": "asc"},
    "departure-asc": {"key": "depart", "order": "asc"},
}
SORT_ALIASES = {
    "best": ("best", "recommended", "default"),
    "price-asc": ("asc", "ascending", "cheapest", "low to high"),
    "price-desc": ("desc", "descending", "high to low"),
    "duration-asc": ("asc", "ascending", "shortest", "fastest"),
    "departure-asc": ("asc", "ascending", "earliest"),
}
STOP_ALIASES = {  # "" filters nothing
    "": ("any", "all"),
    "0": ("nonstop", "non-stop", "direct"),
    "1": ("1 stop", "one stop"),
}


def search_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    f = travel.state.forms.flight_search
    roundtrip = f["roundtrip"] == "true"
    trip = w.toggle(
        r,
        sid="toggle:roundtrip",
        kind="Toggle",
        label=c("search.roundtrip"),
        attrs_={"form": "flight_search"},
        switch=True,
        bind=set_round_trip.bind(),
    )
    places = place_field(
        travel,
        r,
        "flight_search",
        "origin",
        c("search.origin"),
        c("search.origin_placeholder"),
        c("search.place_help"),
    ) + place_field(
        travel,
        r,
        "flight_search",
        "destination",
        c("search.destination"),
        c("search.destination_placeholder"),
        "",
    )
    dates = date_field(travel, r, "flight_search", "depart_date", c("search.depart"))
    if roundtrip:
        dates += date_field(travel, r, "flight_search", "return_date", c("search.return"))
    pax = draft_choice(
        travel,
        r,
        form="flight_search",
        name="passengers",
        label=c("search.pax"),
        options=[Option(str(n), _adults(travel, n), aliases=(str(n),)) for n in range(1, 7)],
    )
    body = (
        f'<div class="trip-type">{trip}</div><div class="row">{places}</div>'
        f'<div class="row">{dates}</div>{pax}'
    )
    form = w.form(
        r,
        name="flight_search",
        body=body,
        submit_sid="form:flight_search",
        submit_text=c("search.submit"),
        label=c("search.title"),
        banner=banner(travel, "flight_search"),
        bind=search_flights.bind(),
    )
    return c("search.title"), (
        f'<h1>{esc(c("search.title"))}</h1><div class="search-panel">{form}</div>'
    )


def _adults(travel: Travel, n: int) -> str:
    return travel.copy("search.adults_one") if n == 1 else travel.copy("search.adults", n=n)


def _summary(travel: Travel) -> str:
    c, s = travel.copy, travel.state.search
    d1 = parse_date(s.depart_date)
    dates = d1.strftime("%a %d %b") if d1 else ""
    if s.roundtrip == "true":
        d2 = parse_date(s.return_date)
        dates += f" – {d2.strftime('%a %d %b')}" if d2 else ""
    kind = c("search.roundtrip_short") if s.roundtrip == "true" else c("search.oneway")
    adults = _adults(travel, travel.queries.passengers())
    return f"{s.origin} → {s.destination} · {kind} · {dates} · {adults}"


def results_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    if not travel.state.search.origin:
        link = w.link(r, sid="results:search", href="/flights", text=c("results.start"))
        return c("results.title"), (
            f"<h1>{esc(c('results.title'))}</h1><p>{esc(c('results.none_yet'))}</p><p>{link}</p>"
        )
    view = travel.state.results
    airline = w.choice(
        r,
        sid="filter:airline",
        kind="Filter",
        name="airline",
        label=c("results.airline"),
        options=[
            Option("", c("results.all_airlines"), aliases=("all", "any")),
            *(Option(a.code, a.name, aliases=(a.code,)) for a in travel.queries.airlines),
        ],
        selected=view.filters["airline"],
        is_open="filter:airline" in travel.ui.open,
        bind=filter_flights.bind(name="airline"),
    )
    stops = w.choice(
        r,
        sid="filter:stops",
        kind="Filter",
        name="stops",
        label=c("results.stops"),
        options=[
            Option(v, c(f"results.stops_{v or 'any'}"), aliases=al)
            for v, al in STOP_ALIASES.items()
        ],
        selected=view.filters["stops"],
        is_open="filter:stops" in travel.ui.open,
        bind=filter_flights.bind(name="stops"),
    )
    sort = sort_choice(
        travel,
        r,
        results="flights",
        label=c("results.sort"),
        prefix="sort",
        sorts=FLIGHT_SORTS,
        attrs_of=SORT_ATTRS,
        aliases=SORT_ALIASES,
        selected=view.sort,
        bind=sort_flights.bind(),
    )
    alert = (
        extra_toggle(travel, r, set_price_alert.bind()) if travel.v.distractors == "many" else ""
    )
    items = travel.queries.results()
    cards, more = listing(
        travel,
        r,
        key="results",
        items=items,
        page=view.page,
        page_size=RESULTS_PAGE,
        turn=turn_results_page.bind(),
        render_item=lambda o, rank: _flight_card(travel, r, o, rank),
    )
    if items:
        body = f'<div class="results">{_sponsored(travel, r)}{cards}</div>{more}'
    elif travel.queries.search_offers():
        body = f"<p>{esc(c('results.none_filtered'))}</p>"
    else:
        body = f"<p>{esc(c('results.none_route'))}</p>"
    count = c("results.count_one") if len(items) == 1 else c("results.count_many", n=len(items))
    change = w.link(r, sid="results:change", href="/flights", text=c("results.change"))
    return c("results.title"), (
        f"<h1>{esc(c('results.title'))}</h1>"
        f'<p class="search-summary">{esc(_summary(travel))} · {change}</p>'
        f'<div class="toolbar">{airline}{stops}{sort}{alert}'
        f'<p class="muted" role="status">{esc(count)}</p></div>{body}'
    )


def _sponsored(travel: Travel, r: Renderer) -> str:
    if travel.v.distractors == "none":
        return ""
    c = travel.copy
    ad = w.link(
        r,
        sid="sponsored:results",
        href="/hotels",
        text=c("distractors.ad_link"),
        attrs_={"distractor": True, "type": "ad"},
    )
    return (
        f'<article class="flight-card sponsored"><span class="muted">'
        f"{esc(c('distractors.sponsored'))}</span>"
        f"<strong>{esc(c('distractors.ad'))}</strong>{ad}</article>"
    )


def _arrival(travel: Travel, f: Flight) -> int:
    """Local arrival time, in minutes after the departure day's midnight."""
    o, d = travel.queries.by_airport[f.origin], travel.queries.by_airport[f.destination]
    return f.depart + f.duration + (d.tz - o.tz) * 60


def leg_line(travel: Travel, f: Flight, day: dt.date) -> str:
    c = travel.copy
    arrive = _arrival(travel, f)
    plus = arrive // 1440
    stops = c("results.nonstop") if not f.stops else c("results.via", code=f.via)
    return (
        f'<div class="leg"><span class="times">{clock(f.depart)} {esc(f.origin)} → '
        f"{clock(arrive)}{f'<sup>+{plus}</sup>' if plus > 0 else ''} {esc(f.destination)}"
        f'</span> <span class="muted">{esc(day.strftime("%a %d %b"))} · {span(f.duration)}'
        f" · {esc(stops)} · {esc(f.id[:2])} {esc(f.id[2:])}</span></div>"
    )


def _flight_card(travel: Travel, r: Renderer, o: Offer, rank: int) -> str:
    c = travel.copy
    airline = travel.queries.by_airline[o.airline]
    out = o.legs[0][0]
    text = f"{airline.name} {clock(out.depart)}–{clock(_arrival(travel, out))}"
    if o.roundtrip:
        text += f" / {clock(o.legs[1][0].depart)}"
    link = w.link(
        r,
        sid=f"flight:{o.id}",
        href=f"/flights/offer/{o.id}",
        text=text,
        kind="Result",
        class_="title",
        attrs_={
            "type": "flight",
            "id": o.id,
            "rank": rank,
            "price": o.price,
            "total": o.price * travel.queries.passengers(),
            "duration": o.duration,
            "stops": o.stops,
            "nonstop": o.stops == 0,
            "airline": airline.name,
            "airline_code": airline.code,
            "origin": out.origin,
            "destination": out.destination,
            "depart": clock(out.depart),
            "trip": "roundtrip" if o.roundtrip else "oneway",
            "flight": " / ".join(f.id for f, _ in o.legs),
        },
    )
    legs = "".join(leg_line(travel, f, d) for f, d in o.legs)
    per = c("results.per_roundtrip") if o.roundtrip else c("results.per_oneway")
    seats = (
        f'<span class="seats">{esc(c("results.seats", n=o.seats))}</span>' if o.seats <= 4 else ""
    )
    return (
        f'<article class="flight-card"><div class="flight-main">{link}{legs}</div>'
        f'<div class="flight-price"><strong>{money(o.price)}</strong>'
        f'<span class="muted">{esc(per)}</span>{seats}</div></article>'
    )


def offer_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    o = travel.queries.offer(route[len("/flights/offer/") :])
    assert o is not None
    airline = travel.queries.by_airline[o.airline]
    brand = travel.queries.fare_of(o)
    pax = travel.queries.passengers()
    back = w.link(r, sid="offer:results", href="/flights/results", text=c("offer.back"))
    outbound = o.legs[0][0]
    title = f"{outbound.origin} → {outbound.destination}"
    legs = "".join(
        f'<section class="leg-detail"><h2>{esc(c("offer.outbound" if i == 0 else "offer.return"))}'
        f"</h2>{leg_line(travel, f, d)}"
        f'<p class="muted">{esc(airline.name)} · {esc(f.aircraft)}</p></section>'
        for i, (f, d) in enumerate(o.legs)
    )
    fare = w.choice(
        r,
        sid="choice:fare",
        kind="Choice",
        name="fare",
        label=c("offer.fare"),
        options=[
            Option(
                b,
                f"{c(f'fare.{b}')} ({money(o.prices[b])})",  # ASCII: text actions quote as JSON
                (("price", o.prices[b]),),
                aliases=(c(f"fare.{b}"),),
            )
            for b in BRANDS
            if b in o.prices
        ],
        selected=brand,
        is_open="choice:fare" in travel.ui.open,
        bind=choose_fare.bind(offer=o.id),
    )
    add = w.button(
        r,
        sid=f"add:{o.id}",
        text=c("offer.add"),
        disabled=o.seats < pax,
        attrs_={
            "role": "add-to-itinerary",
            "id": o.id,
            "price": o.prices[brand],
            "airline": airline.name,
        },
        bind=add_flight.bind(offer=o.id),
    )
    save = ""
    if travel.v.distractors != "none":
        save = w.button(
            r,
            sid=f"save:{o.id}",
            text=c("distractors.save"),
            variant="secondary",
            attrs_={"role": "save", "id": o.id, "distractor": True},
            bind=save_for_later.bind(key=o.id),
        )
    seats = f'<p class="seats">{esc(c("results.seats", n=o.seats))}</p>' if o.seats <= 4 else ""
    price = (
        f'<p class="price"><strong>{money(o.prices[brand])}</strong> '
        f"{esc(c('offer.per_traveller'))} · "
        f"{esc(c('offer.total', total=money(o.prices[brand] * pax), n=pax))}</p>"
    )
    added = notice(
        travel,
        r,
        (("/itinerary", c("offer.view_itinerary")), ("/checkout", c("offer.to_checkout"))),
    )
    kind = c("search.roundtrip_short") if o.roundtrip else c("search.oneway")
    return title, (
        f'<p>{back}</p><h1>{esc(title)} <small class="muted">{esc(kind)}</small></h1>{legs}'
        f'<div class="offer-box">{fare}{price}{seats}<div class="actions">{add}{save}</div>'
        f"{added}</div><h2>{esc(c('rules.title'))}</h2>{_rules(travel, r, o, brand)}"
    )


def _rules(travel: Travel, r: Renderer, o: Offer, brand: str) -> str:
    """The fare rules of the brand shown, in tabs or an accordion (the site's choice)."""
    c = travel.copy
    rules = fare_rules(travel.queries.by_airline[o.airline], brand)
    bag = (
        c("rules.bag_free")
        if rules.checked_bag_fee == 0
        else c("rules.bag_fee", fee=money(rules.checked_bag_fee))
    )
    carry = c("rules.carry_yes") if rules.carry_on else c("rules.carry_no")
    changes = {
        "not_allowed": c("rules.change_no"),
        "free": c("rules.change_free"),
        "fee": c("rules.change_fee", fee=money(rules.change_fee)),
    }[rules.changes]
    refunds = {
        "none": c("rules.refund_none"),
        "credit": c("rules.refund_credit"),
        "full": c("rules.refund_full"),
    }[rules.refunds]
    sections = [
        ("baggage", c("rules.baggage"), f"<p>{esc(bag)}</p><p>{esc(carry)}</p>"),
        ("changes", c("rules.changes"), f"<p>{esc(changes)}</p>"),
        ("refunds", c("rules.refunds"), f"<p>{esc(refunds)}</p>"),
    ]
    if travel.spec.extra.get("fare_rules_widget") == "accordion":
        return w.accordion(r, group="fare", sections=sections, open_keys=travel.ui.open)
    active = travel.ui.tabs.get("fare", "baggage")
    return w.tabs(
        r,
        group="fare",
        items=[(n, t) for n, t, _ in sections],
        active=active,
        panel=next(body for name, _, body in sections if name == active),
        label=c("rules.title"),
    )
