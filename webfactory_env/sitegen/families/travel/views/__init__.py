"""The travel site's pages: functions of its context drawn with the widget library, one
module per area (`flights`, `hotels`, `booking`, `member`). Pages only read: every element
that changes something is bound to a transition (`bind=add_flight.bind(offer=...)`).
Imported by the app."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.travel.queries import Travel
from webfactory_env.sitegen.families.travel.transitions.drafts import set_field
from webfactory_env.sitegen.families.travel.transitions.trips import (
    join_newsletter,
    sign_out,
)
from webfactory_env.sitegen.families.travel.views import booking, flights, hotels, member
from webfactory_env.sitegen.families.travel.views.parts import Page, money
from webfactory_env.sitegen.html import Renderer, esc


def header(travel: Travel, r: Renderer) -> str:
    c = travel.copy
    n = len(travel.state.itinerary.flights) + len(travel.state.itinerary.rooms)
    entries = [
        ("/", c("nav.home")),
        ("/flights", c("nav.flights")),
        ("/hotels", c("nav.hotels")),
        ("/itinerary", f"{c('nav.itinerary')} ({n})" if n else c("nav.itinerary")),
        ("/checkout", c("nav.checkout")),
        ("/trips", c("nav.trips")),
    ]
    if not travel.queries.signed_in():
        entries.append(("/login", c("nav.login")))
    nav = w.site_nav(r, entries, label=c("nav.label"))
    who = ""
    if travel.queries.signed_in():
        out = w.button(
            r,
            sid="signout",
            text=c("nav.logout"),
            attrs_={"role": "sign-out"},
            variant="secondary",
            bind=sign_out.bind(),
        )
        hello = c("nav.hello", name=travel.queries.member.first_name)
        who = f'<span class="muted">{esc(hello)}</span>{out}'
    return f'<span class="brand">{esc(travel.spec.brand)}</span>{nav}{who}'


def home(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    title = c("home.title", brand=travel.spec.brand)
    to_flights = w.link(
        r, sid="home:flights", href="/flights", text=c("home.flights"), class_="button"
    )
    to_hotels = w.link(r, sid="home:hotels", href="/hotels", text=c("home.hotels"), class_="button")
    cards = []
    for city in travel.queries.cities:
        here = [h for h in travel.queries.hotels if h.city == city.name and not h.sold_out]
        low = min((travel.queries.hotel_price(h) for h in here), default=0)
        link = w.link(
            r,
            sid=f"home:city:{city.slug}",
            href=f"/hotels/in/{city.slug}",
            text=city.name,
            attrs_={"type": "city", "city": city.name},
        )
        cards.append(
            f'<article class="card">{link}<span class="muted">'
            f"{esc(c('home.from', price=money(low)))}</span></article>"
        )
    newsletter = w.newsletter_promo(
        r,
        c,
        field=set_field.bind(form="newsletter", name="email"),
        submit=join_newsletter.bind(),
    )
    return title, (
        f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
        f'<div class="actions">{to_flights}{to_hotels}</div></section>'
        f'<h2>{esc(c("home.popular"))}</h2><div class="grid">{"".join(cards)}</div>{newsletter}'
    )


PAGES: dict[str, PageFn] = {
    "home": home,
    "flights": flights.search_page,
    "results": flights.results_page,
    "offer": flights.offer_page,
    "hotels": hotels.search_page,
    "city": hotels.city_page,
    "hotel": hotels.hotel_page,
    "itinerary": booking.itinerary_page,
    "checkout": booking.checkout_page,
    "booking": booking.booking_page,
    "login": member.login_page,
    "verify": member.verify_page,
    "trips": member.trips_page,
    "trip": member.trip_page,
}
