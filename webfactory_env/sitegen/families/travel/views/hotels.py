"""The hotel pages: the search form, a city's hotels, and one hotel with its rooms."""

from __future__ import annotations

from typing import Literal

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.travel.entities import Hotel
from webfactory_env.sitegen.families.travel.queries import HOTELS_PAGE, Travel
from webfactory_env.sitegen.families.travel.rules import parse_date
from webfactory_env.sitegen.families.travel.transitions.trips import (
    HOTEL_SORTS,
    filter_hotels,
    save_for_later,
    search_hotels,
    select_room,
    sort_hotels,
    turn_hotels_page,
    update_stay,
)
from webfactory_env.sitegen.families.travel.views.parts import (
    Page,
    banner,
    date_field,
    draft_choice,
    guest_options,
    listing,
    money,
    notice,
    place_field,
    secondary,
    sort_choice,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

SORT_ATTRS = {
    "recommended": {"key": "recommended", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "rating-desc": {"key": "rating", "order": "desc"},
    "stars-desc": {"key": "stars", "order": "desc"},
}
SORT_ALIASES = {
    "recommended": ("recommended", "default"),
    "price-asc": ("asc", "ascending", "cheapest", "low to high"),
    "price-desc": ("desc", "descending", "high to low"),
    "rating-desc": ("desc", "descending", "best rated", "top rated"),
    "stars-desc": ("desc", "descending", "most stars"),
}
FILTERS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    # filter -> (option value, aliases); "" filters nothing
    "stars": (("", ("any", "all")), *((n, (f"{n} stars",)) for n in "2345")),
    "rating": (("", ("any", "all")), *((n, (f"{n}+",)) for n in "789")),
    "price": (("", ("any", "all")), *((n, (f"under {n}",)) for n in ("150", "250", "400"))),
}


def search_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    city = place_field(
        travel,
        r,
        "hotel_search",
        "city",
        c("hotels.city"),
        c("hotels.city_placeholder"),
        c("hotels.city_help"),
    )
    form = w.form(
        r,
        name="hotel_search",
        body=city + _stay_fields(travel, r, "hotel_search"),
        submit_sid="form:hotel_search",
        submit_text=c("hotels.submit"),
        label=c("hotels.title"),
        banner=banner(travel, "hotel_search"),
        bind=search_hotels.bind(),
    )
    links = "".join(
        "<li>"
        + w.link(
            r,
            sid=f"city:{x.slug}",
            href=f"/hotels/in/{x.slug}",
            text=x.name,
            attrs_={"type": "city", "city": x.name},
        )
        + "</li>"
        for x in travel.queries.cities
    )
    return c("hotels.title"), (
        f'<h1>{esc(c("hotels.title"))}</h1><div class="search-panel">{form}</div>'
        f'<h2>{esc(c("hotels.browse"))}</h2><ul class="cities">{links}</ul>'
    )


def _stay_summary(travel: Travel) -> str:
    c = travel.copy
    if not travel.queries.nights():
        return c("hotels.no_dates")
    stay = travel.state.stay
    a, b = parse_date(stay.checkin_date), parse_date(stay.checkout_date)
    assert a and b
    return c(
        "hotels.stay",
        checkin=a.strftime("%a %d %b"),
        checkout=b.strftime("%a %d %b"),
        nights=travel.queries.nights(),
        guests=stay.guests,
    )


def city_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    city = travel.queries.city_at(route)
    assert city is not None
    view = travel.state.hotels
    filters = "".join(
        w.choice(
            r,
            sid=f"filter:{name}",
            kind="Filter",
            name=name,
            label=c(f"hotels.filter_{name}"),
            options=[Option(v, c(f"hotels.{name}_{v or 'any'}"), aliases=al) for v, al in opts],
            selected=view.filters[name],
            is_open=f"filter:{name}" in travel.ui.open,
            bind=filter_hotels.bind(name=name),
        )
        for name, opts in FILTERS.items()
    )
    sort = sort_choice(
        travel,
        r,
        results="hotels",
        label=c("hotels.sort"),
        prefix="hotel_sort",
        sorts=HOTEL_SORTS,
        attrs_of=SORT_ATTRS,
        aliases=SORT_ALIASES,
        selected=view.sort,
        bind=sort_hotels.bind(),
    )
    items = travel.queries.hotel_listing(city.name)
    cards, more = listing(
        travel,
        r,
        key=f"hotels:{city.slug}",
        items=items,
        page=view.pages.get(city.slug, 1),
        page_size=HOTELS_PAGE,
        turn=turn_hotels_page.bind(),
        render_item=lambda h, rank: _hotel_card(travel, r, h, rank),
    )
    body = (
        f'<div class="results">{cards}</div>{more}' if items else f"<p>{esc(c('hotels.none'))}</p>"
    )
    crumbs = w.breadcrumbs(
        r, [(c("nav.hotels"), "/hotels"), (city.name, None)], label=c("hotels.crumbs")
    )
    title = c("hotels.in", city=city.name)
    return title, (
        f'{crumbs}<h1>{esc(title)}</h1><p class="search-summary">{esc(_stay_summary(travel))}</p>'
        f'<div class="toolbar">{filters}{sort}</div>{body}'
    )


def _hotel_card(travel: Travel, r: Renderer, h: Hotel, rank: int) -> str:
    c = travel.copy
    price = travel.queries.hotel_price(h)
    link = w.link(
        r,
        sid=f"hotel:{h.id}",
        href=f"/hotel/{h.id}",
        text=h.name,
        kind="Result",
        class_="title",
        attrs_={
            "type": "hotel",
            "id": h.id,
            "rank": rank,
            "name": h.name,
            "city": h.city,
            "neighborhood": h.neighborhood,
            "stars": h.stars,
            "rating": h.rating,
            "reviews": h.reviews,
            "price": price,
            "available": not h.sold_out,
        },
    )
    status = (
        f'<span class="stock-out">{esc(c("hotel.sold_out"))}</span>'
        if h.sold_out
        else f'<strong>{money(price)}</strong> <span class="muted">'
        f"{esc(c('hotel.per_night'))}</span>"
    )
    return (
        f'<article class="hotel-card"><div>{link}'
        f'<div class="stars" aria-label="{h.stars} stars">{"★" * h.stars}</div>'
        f'<span class="muted">{esc(h.neighborhood)} · '
        f"{esc(c('hotel.rating', rating=f'{h.rating:.1f}', n=h.reviews))}</span></div>"
        f'<div class="hotel-price">{status}</div></article>'
    )


def hotel_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    h = travel.queries.hotel_at(route)
    assert h is not None
    crumbs = w.breadcrumbs(
        r,
        [
            (c("nav.hotels"), "/hotels"),
            (h.city, f"/hotels/in/{travel.queries.by_city[h.city].slug}"),
            (h.name, None),
        ],
        label=c("hotels.crumbs"),
    )
    sold = (
        f'<p class="error-summary" role="alert">{esc(c("hotel.fully_booked"))}</p>'
        if h.sold_out
        else ""
    )
    stay = secondary(
        travel,
        r,
        name="stay",
        title=c("hotel.change_dates"),
        body=lambda: _stay_form(travel, r),
        opener_attrs={"form": "stay"},
    )
    save = ""
    if travel.v.distractors != "none":
        save = w.button(
            r,
            sid=f"save:{h.id}",
            text=c("distractors.save_hotel"),
            variant="secondary",
            attrs_={"role": "save", "id": h.id, "distractor": True},
            bind=save_for_later.bind(key=h.id),
        )
    added = notice(
        travel,
        r,
        (("/itinerary", c("offer.view_itinerary")), ("/checkout", c("offer.to_checkout"))),
    )
    amenities = "".join(f"<li>{esc(a)}</li>" for a in h.amenities)
    return h.name, (
        f'{crumbs}<h1>{esc(h.name)} <span class="stars">{"★" * h.stars}</span></h1>'
        f'<p class="muted">{esc(h.neighborhood)}, {esc(h.city)} · '
        f"{esc(c('hotel.rating', rating=f'{h.rating:.1f}', n=h.reviews))}</p>"
        f'<p>{esc(h.description)}</p><ul class="amenities">{amenities}</ul>{save}'
        f'<p class="search-summary">{esc(_stay_summary(travel))}</p>{stay}{sold}{added}'
        f"<h2>{esc(c('hotel.rooms'))}</h2>{_rooms_table(travel, r, h)}"
    )


def _rooms_table(travel: Travel, r: Renderer, h: Hotel) -> str:
    c = travel.copy
    rows = []
    for room in travel.queries.rooms_of.get(h.id, []):
        button = w.button(
            r,
            sid=f"room:{room.id}",
            text=c("hotel.select"),
            disabled=not travel.queries.room_bookable(room),
            attrs_={
                "role": "select-room",
                "room": room.id,
                "hotel": h.id,
                "name": room.name,
                "price": room.price,
                "capacity": room.capacity,
                "refundable": room.refundable,
                "available": room.available,
            },
            bind=select_room.bind(room=room.id),
        )
        policy = c("hotel.refundable") if room.refundable else c("hotel.nonrefundable")
        state = (
            money(room.price)
            if room.available
            else f'<span class="stock-out">{esc(c("hotel.room_gone"))}</span>'
        )
        total = ""
        if travel.queries.nights() and room.available:
            text = c(
                "hotel.total",
                total=money(room.price * travel.queries.nights()),
                nights=travel.queries.nights(),
            )
            total = f'<br><span class="muted">{esc(text)}</span>'
        rows.append(
            f"<tr><td><strong>{esc(room.name)}</strong><br>"
            f'<span class="muted">{esc(room.beds)} · '
            f"{esc(c('hotel.sleeps', n=room.capacity))}</span></td>"
            f"<td>{esc(policy)}</td><td>{state}{total}</td><td>{button}</td></tr>"
        )
    return (
        f'<table class="rooms"><thead><tr><th>{esc(c("hotel.room"))}</th>'
        f"<th>{esc(c('hotel.policy'))}</th><th>{esc(c('hotel.price'))}</th><th></th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _stay_fields(travel: Travel, r: Renderer, form: Literal["hotel_search", "stay"]) -> str:
    """Check-in and check-out calendars and the guests menu of a stay form."""
    c = travel.copy
    dates = date_field(travel, r, form, "checkin_date", c("hotels.checkin")) + date_field(
        travel, r, form, "checkout_date", c("hotels.checkout")
    )
    guests = draft_choice(
        travel,
        r,
        form=form,
        name="guests",
        label=c("hotels.guests"),
        options=guest_options(travel),
    )
    return f'<div class="row">{dates}</div>{guests}'


def _stay_form(travel: Travel, r: Renderer) -> str:
    c = travel.copy
    return w.form(
        r,
        name="stay",
        body=_stay_fields(travel, r, "stay"),
        submit_sid="form:stay",
        submit_text=c("hotel.update"),
        label=c("hotel.your_stay"),
        banner=banner(travel, "stay"),
        bind=update_stay.bind(),
    )
