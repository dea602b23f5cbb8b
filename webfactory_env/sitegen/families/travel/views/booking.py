"""The booking pages: the itinerary, the checkout, and a booking's confirmation."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.travel.queries import Travel
from webfactory_env.sitegen.families.travel.rules import PASSENGER_FIELDS, nights_between
from webfactory_env.sitegen.families.travel.transitions.drafts import SEATS, set_field
from webfactory_env.sitegen.families.travel.transitions.trips import (
    book_trip,
    remove_flight,
    remove_room,
    set_insurance,
)
from webfactory_env.sitegen.families.travel.views.flights import leg_line
from webfactory_env.sitegen.families.travel.views.parts import (
    Page,
    banner,
    draft_choice,
    extra_toggle,
    field_order,
    form_errors,
    money,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

AUTOCOMPLETE = {
    "first_name": "given-name",
    "last_name": "family-name",
    "email": "email",
    "phone": "tel",
    "loyalty_number": None,
}


def _rows(travel: Travel, r: Renderer, *, removable: bool) -> list[str]:
    """The itinerary's flights and rooms, each with its price (and a Remove button)."""
    c = travel.copy
    it = travel.state.itinerary
    rows = []
    for oid in sorted(it.flights):
        o = travel.queries.offer(oid)
        assert o is not None
        brand = it.fares.get(oid, o.cheapest_brand)
        price = o.prices.get(brand, o.price) * it.passengers.get(oid, 1)
        remove = _remove(travel, r, "flight", oid, price) if removable else ""
        legs = "".join(leg_line(travel, f, d) for f, d in o.legs)
        rows.append(
            f'<li class="item"><div><strong>{esc(travel.queries.by_airline[o.airline].name)} · '
            f"{esc(c('fare.' + brand))}</strong>{legs}</div>"
            f"<div>{money(price)} {remove}</div></li>"
        )
    for rid, stay in it.rooms.items():
        room = travel.queries.by_room[rid]
        h = travel.queries.by_hotel[room.hotel_id]
        nights = nights_between(stay.checkin, stay.checkout)
        price = room.price * nights
        remove = _remove(travel, r, "hotel", rid, price) if removable else ""
        rows.append(
            f'<li class="item"><div><strong>{esc(h.name)}</strong> · '
            f'{esc(room.name)}<br><span class="muted">{esc(stay.checkin)} → '
            f"{esc(stay.checkout)} · "
            f"{esc(c('hotel.total', total=money(price), nights=nights))}"
            f"</span></div><div>{money(price)} {remove}</div></li>"
        )
    return rows


def _remove(travel: Travel, r: Renderer, kind: str, item: str, price: int) -> str:
    """The Remove button of an itinerary entry (a flight offer or a hotel room)."""
    return w.button(
        r,
        sid=f"remove:{item}",
        text=travel.copy("itinerary.remove"),
        variant="secondary",
        attrs_={"role": "remove", "type": kind, "item": item, "price": price},
        bind=remove_flight.bind(offer=item) if kind == "flight" else remove_room.bind(room=item),
    )


def itinerary_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    it = travel.state.itinerary
    title = c("itinerary.title")
    booked = ""
    if it.last_booked:  # the itinerary just became this booking
        text = c("itinerary.booked", ref=it.last_booked)
        booked = f'<p class="notice" role="status">{esc(text)}</p>'
    if not it.flights and not it.rooms:
        links = (
            w.link(r, sid="itinerary:flights", href="/flights", text=c("home.flights"))
            + " · "
            + w.link(r, sid="itinerary:hotels", href="/hotels", text=c("home.hotels"))
        )
        return title, (
            f"<h1>{esc(title)}</h1>{booked}{w.toast(travel.ui.flash)}"
            f"<p>{esc(c('itinerary.empty'))}</p><p>{links}</p>"
        )
    proceed = w.link(
        r, sid="itinerary:checkout", href="/checkout", text=c("itinerary.checkout"), class_="button"
    )
    total = travel.queries.itinerary_total()
    return title, (
        f"<h1>{esc(title)}</h1>{w.toast(travel.ui.flash)}"
        f'<ul class="itinerary">{"".join(_rows(travel, r, removable=True))}</ul>'
        f"<p><strong>{esc(c('itinerary.total'))}: {money(total)}</strong></p>"
        f"<p>{proceed}</p>"
    )


def checkout_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    errors = form_errors(travel, "passenger")
    helpers = {
        "email": c("checkout.email_help"),
        "phone": c("checkout.phone_help"),
        "loyalty_number": c("checkout.loyalty_help"),
    }
    fields = []
    for name in field_order(travel, PASSENGER_FIELDS, "passenger"):
        err = errors.get(name, "")
        fields.append(
            w.text_field(
                r,
                label=c(f"checkout.{name}"),
                error=c(f"errors.{err}") if err else "",
                helper=helpers.get(name, ""),
                autocomplete=AUTOCOMPLETE[name],
                input_type="email" if name == "email" else "tel" if name == "phone" else "text",
                bind=set_field.bind(form="passenger", name=name),
            )
        )
    seat = draft_choice(
        travel,
        r,
        form="passenger",
        name="seat",
        label=c("checkout.seat"),
        options=[Option(s, c(f"checkout.seat_{s}"), aliases=(s,)) for s in SEATS],
    )
    insurance = (
        extra_toggle(travel, r, set_insurance.bind()) if travel.v.distractors == "many" else ""
    )
    down = ""
    if travel.failed is not None and travel.failed.handler == book_trip.name:
        down = f'<p class="error-summary" role="alert">{esc(c("checkout.service_down"))}</p>'
    form = w.form(
        r,
        name="passenger",
        body="".join(fields) + seat + insurance,
        submit_sid="form:passenger",
        submit_text=c("checkout.book"),
        label=c("checkout.lead"),
        banner=banner(travel, "passenger") + down,
        bind=book_trip.bind(),
    )
    rows = _rows(travel, r, removable=False)
    summary = (
        f'<aside class="summary"><h2>{esc(c("checkout.summary"))}</h2>'
        + (
            f'<ul class="itinerary">{"".join(rows)}</ul><p><strong>'
            f"{money(travel.queries.itinerary_total())}</strong></p>"
            if rows
            else f"<p>{esc(c('checkout.empty'))}</p>"
        )
        + "</aside>"
    )
    return c("checkout.title"), (
        f'<h1>{esc(c("checkout.title"))}</h1><div class="checkout"><div>'
        f"<h2>{esc(c('checkout.lead'))}</h2>{form}</div>{summary}</div>"
    )


def booking_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    trip = travel.queries.booking_at(route)
    assert trip is not None
    who = trip.traveller
    details = w.detail_view(
        [
            (c("booking.reference"), trip.id),
            (c("booking.traveller"), f"{who['first_name']} {who['last_name']}"),
            (c("booking.email"), who["email"]),
            (c("booking.total"), money(trip.total)),
        ]
    )
    more = w.link(r, sid="booking:home", href="/", text=c("booking.continue"))
    body = c("booking.body", ref=trip.id, email=who["email"])
    return c("booking.title"), (
        f'<h1>{esc(c("booking.title"))}</h1><p class="notice" role="status">{esc(body)}</p>'
        f"{details}<p>{more}</p>"
    )
