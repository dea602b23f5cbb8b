"""The transitions page events cause on a travel site besides typing into its forms
(`drafts.py`): searches, the itinerary, booking, signing in, the member's trips. Every
event is one function over the site's context, named like the event, its effect declared
once in its decorator."""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import (
    All,
    Any_,
    Contains,
    Eq,
    Exists,
    Gt,
    Not,
    Predicate,
    Ref,
)
from webfactory_env.sitegen.binding import FormField, Unavailable, transition
from webfactory_env.sitegen.families.travel.content import reference_code
from webfactory_env.sitegen.families.travel.queries import HOTELS_PAGE, RESULTS_PAGE, Travel
from webfactory_env.sitegen.families.travel.rules import PASSENGER_FIELDS, normalize_date
from webfactory_env.sitegen.families.travel.state import (
    DEFAULT_FLIGHT_FILTERS,
    DEFAULT_HOTEL_FILTERS,
    Stay,
    Trip,
)
from webfactory_env.sitegen.families.travel.transitions.drafts import (
    check_password,
    code_digits,
    submit,
)

FLIGHT_SORTS = ("best", "price-asc", "price-desc", "duration-asc", "departure-asc")
HOTEL_SORTS = ("recommended", "price-asc", "price-desc", "rating-desc", "stars-desc")
STOP_OPTIONS = ("", "0", "1")  # at most this many stops
STAR_OPTIONS = ("", "2", "3", "4", "5")  # exactly this many stars
RATING_OPTIONS = ("", "7", "8", "9")  # rated this or better
PRICE_OPTIONS = ("", "150", "250", "400")  # at most this a night
SEARCH_FIELDS = ("origin", "destination", "roundtrip", "depart_date", "return_date", "passengers")
STAY_FIELDS = ("checkin_date", "checkout_date", "guests")


def _copied(obj: str, form: str, names: tuple[str, ...]) -> tuple[Predicate, ...]:
    return tuple(Eq((obj, n), Ref(f"state:forms.{form}.{n}")) for n in names)


# ----------------------------------------------------------------- flights
@transition(
    effect=lambda: All(
        (Eq(("search", "done"), True), *_copied("search", "flight_search", SEARCH_FIELDS))
    ),
)
def search_flights(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    f = travel.state.forms.flight_search
    values = values or {}
    for side in ("origin", "destination"):
        if side in values and not f[side]:
            f[f"{side}_text"] = values[side][:60]
    for name in ("depart_date", "return_date"):
        if values.get(name):
            f[name] = normalize_date(values[name][:40])
    if not travel.queries.strict:  # an exact code typed without picking it still counts
        for side in ("origin", "destination"):
            typed = f[f"{side}_text"].strip().upper()
            if not f[side] and typed in travel.queries.by_airport:
                f[side] = typed
    if submit(travel, "flight_search"):
        return None
    search = travel.state.search
    for name in SEARCH_FIELDS:
        setattr(search, name, f[name])
    search.return_date = f["return_date"] if f["roundtrip"] == "true" else ""
    results = travel.state.results
    results.sort, results.filters, results.page = "best", dict(DEFAULT_FLIGHT_FILTERS), 1
    travel.ui.more.pop("results", None)
    return "/flights/results"


@transition(effect=lambda: Eq(("results", "sort"), Ref("value")))
def sort_flights(travel: Travel, *, value: str | None = None) -> str | None:
    if value in FLIGHT_SORTS:
        travel.state.results.sort = value or "best"
        _first_results_page(travel)
    return None


@transition(effect=lambda name: Eq(("results", "filters", name), Ref("value")))
def filter_flights(
    travel: Travel, *, name: Literal["airline", "stops"], value: str | None = None
) -> str | None:
    value = value or ""
    allowed = {"airline": ("", *travel.queries.by_airline), "stops": STOP_OPTIONS}
    if value in allowed[name]:
        travel.state.results.filters[name] = value
        _first_results_page(travel)
    return None


def _first_results_page(travel: Travel) -> None:
    travel.state.results.page = 1
    travel.ui.more.pop("results", None)


@transition(effect=lambda page: Eq(("results", "page"), page))
def turn_results_page(travel: Travel, *, page: int) -> str | None:
    pages = max(1, -(-len(travel.queries.results()) // RESULTS_PAGE))
    if 1 <= page <= pages:
        travel.state.results.page = page
    return None


@transition(effect=lambda offer: Eq(("forms", "fares", offer), Ref("value")))
def choose_fare(travel: Travel, *, offer: str, value: str | None = None) -> str | None:
    o = travel.queries.offer(offer)
    if o is not None and value in o.prices:
        travel.state.forms.fares[o.id] = value or ""
    return None


@transition(mutating=True, effect=lambda offer: Contains(("itinerary", "flights"), offer))
def add_flight(travel: Travel, *, offer: str) -> str | None:
    o = travel.queries.offer(offer)
    if o is None or o.seats < travel.queries.passengers():
        return None
    it = travel.state.itinerary
    it.flights.add(o.id)
    it.fares[o.id] = travel.queries.fare_of(o)
    it.passengers[o.id] = travel.queries.passengers()
    travel.ui.flash = travel.copy("offer.added")
    return None


@transition(mutating=True, effect=lambda offer: Not(Contains(("itinerary", "flights"), offer)))
def remove_flight(travel: Travel, *, offer: str) -> str | None:
    it = travel.state.itinerary
    it.flights.discard(offer)
    it.fares.pop(offer, None)
    it.passengers.pop(offer, None)
    return None


# ------------------------------------------------------------------ hotels
@transition(
    effect=lambda: All(
        (
            Eq(("stay", "done"), True),
            *_copied("stay", "hotel_search", ("city", *STAY_FIELDS)),
        )
    ),
)
def search_hotels(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    f = travel.state.forms.hotel_search
    values = values or {}
    if "city" in values and not f["city"]:
        f["city_text"] = values["city"][:60]
    for name in ("checkin_date", "checkout_date"):
        if values.get(name):
            f[name] = normalize_date(values[name][:40])
    if not travel.queries.strict and not f["city"]:
        typed = f["city_text"].strip().lower()
        f["city"] = next((c.name for c in travel.queries.cities if c.name.lower() == typed), "")
    if submit(travel, "hotel_search"):
        return None
    _look_at_stay(travel, f["city"], f)
    travel.state.forms.stay = {k: f[k] for k in STAY_FIELDS}
    hotels = travel.state.hotels
    hotels.filters, hotels.sort = dict(DEFAULT_HOTEL_FILTERS), "recommended"
    slug = travel.queries.by_city[f["city"]].slug
    hotels.pages.pop(slug, None)
    travel.ui.more.pop(f"hotels:{slug}", None)
    return f"/hotels/in/{slug}"


def _look_at_stay(travel: Travel, city: str, values: dict[str, str]) -> None:
    stay = travel.state.stay
    stay.city = city
    stay.checkin_date, stay.checkout_date = values["checkin_date"], values["checkout_date"]
    stay.guests = values["guests"]


@transition(effect=lambda: All(_copied("stay", "stay", STAY_FIELDS)))
def update_stay(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    f = travel.state.forms.stay
    for name in ("checkin_date", "checkout_date"):
        if (values or {}).get(name):
            f[name] = normalize_date((values or {})[name][:40])
    if submit(travel, "stay"):
        return None
    h = travel.queries.hotel_at(travel.route)
    _look_at_stay(travel, h.city if h else travel.state.stay.city, f)
    travel.ui.modal = None
    return None


@transition(effect=lambda: Eq(("hotels", "sort"), Ref("value")))
def sort_hotels(travel: Travel, *, value: str | None = None) -> str | None:
    if value in HOTEL_SORTS:
        travel.state.hotels.sort = value or "recommended"
        travel.state.hotels.pages.clear()
    return None


@transition(effect=lambda name: Eq(("hotels", "filters", name), Ref("value")))
def filter_hotels(
    travel: Travel, *, name: Literal["stars", "rating", "price"], value: str | None = None
) -> str | None:
    value = value or ""
    allowed = {"stars": STAR_OPTIONS, "rating": RATING_OPTIONS, "price": PRICE_OPTIONS}
    if value in allowed[name]:
        travel.state.hotels.filters[name] = value
        travel.state.hotels.pages.clear()
    return None


@transition(effect=lambda page: Eq(("hotels", "page"), page))
def turn_hotels_page(travel: Travel, *, page: int) -> str | None:
    """Page the hotels of the city whose page this is."""
    city = travel.queries.city_at(travel.route)
    if city is None:
        return None
    pages = max(1, -(-len(travel.queries.hotel_listing(city.name)) // HOTELS_PAGE))
    if 1 <= page <= pages:
        travel.state.hotels.pages[city.slug] = page
    return None


@transition(mutating=True, effect=lambda room: Contains(("itinerary", "rooms"), room))
def select_room(travel: Travel, *, room: str) -> str | None:
    found = travel.queries.by_room.get(room)
    if found is None or not travel.queries.room_bookable(found):
        return None
    stay = travel.state.stay
    it = travel.state.itinerary
    it.rooms[found.id] = Stay(stay.checkin_date, stay.checkout_date)
    it.guests[found.id] = int(stay.guests)
    travel.ui.flash = travel.copy("hotel.added")
    return None


@transition(mutating=True, effect=lambda room: Not(Contains(("itinerary", "rooms"), room)))
def remove_room(travel: Travel, *, room: str) -> str | None:
    travel.state.itinerary.rooms.pop(room, None)
    travel.state.itinerary.guests.pop(room, None)
    return None


# ----------------------------------------------------------------- booking
@transition(
    mutating=True,
    effect=lambda: Exists(
        ("trips",),
        All(
            (
                Eq(("booked_here",), True),
                Eq(("flights",), Ref("state:itinerary.flights")),
                Eq(("rooms",), Ref("state:itinerary.rooms")),
            )
        ),
    ),
)
def book_trip(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    p = travel.state.forms.passenger
    for name in PASSENGER_FIELDS:
        if values is not None and name in values:
            setattr(p, name, values[name][:200])
    errors = submit(travel, "passenger")
    it = travel.state.itinerary
    if not it.flights and not it.rooms:
        errors["_itinerary"] = "itinerary_empty"
        travel.state.feedback.passenger_errors = errors
    if errors:
        return None
    if travel.queries.glitch_pending:  # the booking service times out once: Retry books
        travel.queries.glitch_pending = False
        raise Unavailable
    trip = _trip_of_itinerary(travel)
    travel.state.trips[trip.id] = trip
    travel.state.itinerary = type(it)(last_booked=trip.id)
    travel.state.feedback.submitted.discard("passenger")
    return f"/booking/{trip.id}"


def _trip_of_itinerary(travel: Travel) -> Trip:
    """The itinerary as a booked trip: where and when it goes is the first flight's
    destination and date, else the first room's city and check-in."""
    it = travel.state.itinerary
    n = sum(t.booked_here for t in travel.state.trips.values())
    offers = [o for o in map(travel.queries.offer, sorted(it.flights)) if o is not None]
    if offers:
        first = offers[0].legs
        destination = travel.queries.by_airport[first[0][0].destination].metro
        depart = first[0][1].isoformat()
        back = first[1][1].isoformat() if len(first) == 2 else ""
        airline = travel.queries.by_airline[offers[0].airline].name
    else:
        rid, stay = next(iter(it.rooms.items()))
        destination = travel.queries.by_hotel[travel.queries.by_room[rid].hotel_id].city
        depart, back, airline = stay.checkin, stay.checkout, ""
    p = travel.state.forms.passenger
    return Trip(
        id=reference_code(f"travel:{travel.spec.seed}:booking:{n}"),
        status="upcoming",
        flights=set(it.flights),
        passengers=max(it.passengers.values(), default=0),
        rooms={rid: Stay(s.checkin, s.checkout) for rid, s in it.rooms.items()},
        guests=max(it.guests.values(), default=0),
        fares=dict(it.fares),
        traveller=p.details(),
        seat=p.seat,
        destination=destination,
        depart=depart,
        return_date=back,
        airline=airline,
        total=travel.queries.itinerary_total(),
        member=travel.state.auth.member,
        booked_here=True,
    )


# ------------------------------------------------------------- member area
@transition(
    mutating=True,
    effect=lambda: Any_((Eq(("auth", "stage"), "otp"), Eq(("auth", "signed_in"), True))),
)
def sign_in(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    login, auth = travel.state.forms.login, travel.state.auth
    values = values or {}
    if "email" in values:
        login.email = values["email"][:200]
    if values.get("password"):
        login.password, login.password_given = values["password"][:200], True
    if login.password:
        check_password(travel)
    email = login.email.strip().lower()
    feedback = travel.state.feedback
    feedback.submitted.add("login")
    if not email or not login.password:
        feedback.login_errors = {"email" if not email else "password": "required"}
        return None
    if email != travel.queries.member.email or login.password != travel.queries.member.password:
        feedback.login_errors = {"_login": "credentials"}
        return None
    feedback.login_errors = {}
    login.password = ""  # the secret goes; that one was given stays
    if not auth.pending:  # signing in again keeps the code already sent
        auth.pending, auth.codes_sent = travel.queries.member.email, max(1, auth.codes_sent)
    return "/login/verify"


@transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), True))
def verify_code(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    auth, otp = travel.state.auth, travel.state.forms.otp
    if not auth.pending:
        return None
    code = (values or {}).get("code", "")
    if code:
        otp.code = code[:12]
    if code_digits(travel) != travel.queries.otp_code(auth.codes_sent):
        travel.state.feedback.otp_errors = {"code": "code"}
        return None
    travel.state.feedback.otp_errors = {}
    otp.code = ""  # the secret goes; that one was entered stays
    auth.member, auth.pending = auth.pending, ""
    return "/trips"


@transition(mutating=True, effect=lambda: Gt(("auth", "codes_sent"), Ref("state:auth.codes_sent")))
def resend_code(travel: Travel) -> str | None:
    """Text another code (at most five in all)."""
    auth = travel.state.auth
    if auth.pending and auth.codes_sent < 5:
        auth.codes_sent += 1
        travel.ui.flash = travel.copy("verify.resent")
    return None


@transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), False))
def sign_out(travel: Travel) -> str | None:
    travel.state.auth = type(travel.state.auth)()
    return "/"


@transition(mutating=True, effect=lambda trip: Eq(("trips", trip, "status"), "cancelled"))
def cancel_trip(travel: Travel, *, trip: str) -> str | None:
    """The form cancels the trip whose page it is on, for the reason chosen."""
    here = travel.queries.trip_at(travel.route)
    if here is None or here.id != trip or not here.cancellable:
        return None
    here.status, here.cancellable = "cancelled", False
    here.cancel_reason = travel.state.forms.cancel_trip["reason"]
    travel.ui.modal = None
    travel.ui.flash = travel.copy("trip.cancelled")
    return None


# -------------------------------------------------------------- distractors
@transition(mutating=True, effect=lambda key: Contains(("saved",), key))
def save_for_later(travel: Travel, *, key: str) -> str | None:
    """Save a hotel or a flight offer (`key` is its id) for later."""
    if key in travel.queries.by_hotel or travel.queries.offer(key) is not None:
        travel.state.saved.add(key)
    return None


@transition(
    effect=lambda: Eq(("extras", "price_alert"), Ref("value|bool")),
    field=lambda: FormField("extras", "price_alert", ("extras", "price_alert")),
)
def set_price_alert(travel: Travel, *, value: str | None = None) -> str | None:
    if value in ("true", "false"):
        travel.state.extras.price_alert = value == "true"
    return None


@transition(
    effect=lambda: Eq(("extras", "insurance"), Ref("value|bool")),
    field=lambda: FormField("extras", "insurance", ("extras", "insurance")),
)
def set_insurance(travel: Travel, *, value: str | None = None) -> str | None:
    if value in ("true", "false"):
        travel.state.extras.insurance = value == "true"
    return None


@transition(
    mutating=True,
    effect=lambda: Contains(("newsletter",), Ref("state:forms.newsletter.email|lower")),
)
def join_newsletter(travel: Travel, *, values: dict[str, str] | None = None) -> str | None:
    email = (values or {}).get("email", "")[:200]
    travel.state.forms.newsletter["email"] = email
    if "@" in email:
        travel.state.newsletter.add(email.strip().lower())
    return None
