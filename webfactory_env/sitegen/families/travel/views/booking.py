"""The booking pages: the itinerary, the checkout, and a booking's confirmation."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.travel.model import SEATS, TravelModel
from webfactory_env.sitegen.families.travel.rules import PASSENGER_FIELDS, nights_between
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


def _rows(app: TravelModel, r: Renderer, *, removable: bool) -> list[str]:
    """The itinerary's flights and rooms, each with its price (and a Remove button)."""
    c = app.copy
    it = app.model.itinerary
    rows = []
    for oid in sorted(it.flights):
        o = app.offer(oid)
        assert o is not None
        brand = it.fares.get(oid, o.cheapest_brand)
        price = o.prices.get(brand, o.price) * it.passengers.get(oid, 1)
        remove = _remove(app, r, "flight", oid, price) if removable else ""
        legs = "".join(leg_line(app, f, d) for f, d in o.legs)
        rows.append(
            f'<li class="item"><div><strong>{esc(app.by_airline[o.airline].name)} · '
            f"{esc(c('fare.' + brand))}</strong>{legs}</div>"
            f"<div>{money(price)} {remove}</div></li>"
        )
    for rid, stay in it.rooms.items():
        room = app.by_room[rid]
        h = app.by_hotel[room.hotel_id]
        nights = nights_between(stay.checkin, stay.checkout)
        price = room.price * nights
        remove = _remove(app, r, "hotel", rid, price) if removable else ""
        rows.append(
            f'<li class="item"><div><strong>{esc(h.name)}</strong> · '
            f'{esc(room.name)}<br><span class="muted">{esc(stay.checkin)} → '
            f"{esc(stay.checkout)} · "
            f"{esc(c('hotel.total', total=money(price), nights=nights))}"
            f"</span></div><div>{money(price)} {remove}</div></li>"
        )
    return rows


def _remove(app: TravelModel, r: Renderer, kind: str, item: str, price: int) -> str:
    """The Remove button of an itinerary entry (a flight offer or a hotel room)."""
    return w.button(
        r,
        sid=f"remove:{item}",
        text=app.copy("itinerary.remove"),
        variant="secondary",
        attrs_={"role": "remove", "type": kind, "item": item, "price": price},
        bind=app.remove_flight.bind(offer=item)
        if kind == "flight"
        else app.remove_room.bind(room=item),
    )


def itinerary_page(app: TravelModel, r: Renderer, route: str) -> Page:
    c = app.copy
    it = app.model.itinerary
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
            f"<h1>{esc(title)}</h1>{booked}{w.toast(app.flash)}"
            f"<p>{esc(c('itinerary.empty'))}</p><p>{links}</p>"
        )
    proceed = w.link(
        r, sid="itinerary:checkout", href="/checkout", text=c("itinerary.checkout"), class_="button"
    )
    return title, (
        f"<h1>{esc(title)}</h1>{w.toast(app.flash)}"
        f'<ul class="itinerary">{"".join(_rows(app, r, removable=True))}</ul>'
        f"<p><strong>{esc(c('itinerary.total'))}: {money(app.itinerary_total())}</strong></p>"
        f"<p>{proceed}</p>"
    )


def checkout_page(app: TravelModel, r: Renderer, route: str) -> Page:
    c = app.copy
    errors = form_errors(app, "passenger")
    helpers = {
        "email": c("checkout.email_help"),
        "phone": c("checkout.phone_help"),
        "loyalty_number": c("checkout.loyalty_help"),
    }
    fields = []
    for name in field_order(app, PASSENGER_FIELDS, "passenger"):
        err = errors.get(name, "")
        fields.append(
            w.text_field(
                r,
                label=c(f"checkout.{name}"),
                error=c(f"errors.{err}") if err else "",
                helper=helpers.get(name, ""),
                autocomplete=AUTOCOMPLETE[name],
                input_type="email" if name == "email" else "tel" if name == "phone" else "text",
                bind=app.set_field.bind(form="passenger", name=name),
            )
        )
    seat = draft_choice(
        app,
        r,
        form="passenger",
        name="seat",
        label=c("checkout.seat"),
        options=[Option(s, c(f"checkout.seat_{s}"), aliases=(s,)) for s in SEATS],
    )
    insurance = (
        extra_toggle(app, r, app.set_insurance.bind()) if app.v.distractors == "many" else ""
    )
    down = ""
    if app.failed is not None and app.failed.handler == app.book_trip.name:
        down = f'<p class="error-summary" role="alert">{esc(c("checkout.service_down"))}</p>'
    form = w.form(
        r,
        name="passenger",
        body="".join(fields) + seat + insurance,
        submit_sid="form:passenger",
        submit_text=c("checkout.book"),
        label=c("checkout.lead"),
        banner=banner(app, "passenger") + down,
        bind=app.book_trip.bind(),
    )
    rows = _rows(app, r, removable=False)
    summary = (
        f'<aside class="summary"><h2>{esc(c("checkout.summary"))}</h2>'
        + (
            f'<ul class="itinerary">{"".join(rows)}</ul><p><strong>'
            f"{money(app.itinerary_total())}</strong></p>"
            if rows
            else f"<p>{esc(c('checkout.empty'))}</p>"
        )
        + "</aside>"
    )
    return c("checkout.title"), (
        f'<h1>{esc(c("checkout.title"))}</h1><div class="checkout"><div>'
        f"<h2>{esc(c('checkout.lead'))}</h2>{form}</div>{summary}</div>"
    )


def booking_page(app: TravelModel, r: Renderer, route: str) -> Page:
    c = app.copy
    trip = app.booking_at(route)
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
