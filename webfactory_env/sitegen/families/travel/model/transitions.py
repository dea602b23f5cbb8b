"""The transitions page events cause on a travel site: the only place its business rules
live (form drafts and their validation are in `drafts.py`). Every event is one method,
named like the event, its effect declared once in its decorator."""

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
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.travel.content import reference_code
from webfactory_env.sitegen.families.travel.model.drafts import TravelDrafts
from webfactory_env.sitegen.families.travel.model.queries import HOTELS_PAGE, RESULTS_PAGE
from webfactory_env.sitegen.families.travel.model.state import (
    DEFAULT_FLIGHT_FILTERS,
    DEFAULT_HOTEL_FILTERS,
    Stay,
    Trip,
)
from webfactory_env.sitegen.families.travel.rules import PASSENGER_FIELDS, normalize_date
from webfactory_env.sitegen.spec import AppEvent

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


class TravelModel(TravelDrafts):
    """The travel site's transitions (no HTML here)."""

    # ----------------------------------------------------------------- flights
    @transition(
        effect=lambda: All(
            (Eq(("search", "done"), True), *_copied("search", "flight_search", SEARCH_FIELDS))
        ),
    )
    def search_flights(self, ev: AppEvent) -> str | None:
        f = self.model.forms.flight_search
        values = ev.values or {}
        for side in ("origin", "destination"):
            if side in values and not f[side]:
                f[f"{side}_text"] = values[side][:60]
        for name in ("depart_date", "return_date"):
            if values.get(name):
                f[name] = normalize_date(values[name][:40])
        if not self.strict:  # an exact code typed without picking it still counts
            for side in ("origin", "destination"):
                typed = f[f"{side}_text"].strip().upper()
                if not f[side] and typed in self.by_airport:
                    f[side] = typed
        if self._submit("flight_search"):
            return None
        search = self.model.search
        for name in SEARCH_FIELDS:
            setattr(search, name, f[name])
        search.return_date = f["return_date"] if f["roundtrip"] == "true" else ""
        results = self.model.results
        results.sort, results.filters, results.page = "best", dict(DEFAULT_FLIGHT_FILTERS), 1
        self.ui.more.pop("results", None)
        return "/flights/results"

    @transition(effect=lambda: Eq(("results", "sort"), Ref("value")))
    def sort_flights(self, ev: AppEvent) -> str | None:
        if ev.value in FLIGHT_SORTS:
            self.model.results.sort = ev.value or "best"
            self._first_results_page()
        return None

    @transition(effect=lambda name: Eq(("results", "filters", name), Ref("value")))
    def filter_flights(self, ev: AppEvent, *, name: Literal["airline", "stops"]) -> str | None:
        value = ev.value or ""
        allowed = {"airline": ("", *self.by_airline), "stops": STOP_OPTIONS}
        if value in allowed[name]:
            self.model.results.filters[name] = value
            self._first_results_page()
        return None

    def _first_results_page(self) -> None:
        self.model.results.page = 1
        self.ui.more.pop("results", None)

    @transition(effect=lambda page: Eq(("results", "page"), page))
    def turn_results_page(self, ev: AppEvent, *, page: int) -> str | None:
        pages = max(1, -(-len(self.results()) // RESULTS_PAGE))
        if 1 <= page <= pages:
            self.model.results.page = page
        return None

    @transition(effect=lambda offer: Eq(("forms", "fares", offer), Ref("value")))
    def choose_fare(self, ev: AppEvent, *, offer: str) -> str | None:
        o = self.offer(offer)
        if o is not None and ev.value in o.prices:
            self.model.forms.fares[o.id] = ev.value or ""
        return None

    @transition(mutating=True, effect=lambda offer: Contains(("itinerary", "flights"), offer))
    def add_flight(self, ev: AppEvent, *, offer: str) -> str | None:
        o = self.offer(offer)
        if o is None or o.seats < self.passengers():
            return None
        it = self.model.itinerary
        it.flights.add(o.id)
        it.fares[o.id] = self.fare_of(o)
        it.passengers[o.id] = self.passengers()
        self.flash = self.copy("offer.added")
        return None

    @transition(mutating=True, effect=lambda offer: Not(Contains(("itinerary", "flights"), offer)))
    def remove_flight(self, ev: AppEvent, *, offer: str) -> str | None:
        it = self.model.itinerary
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
    def search_hotels(self, ev: AppEvent) -> str | None:
        f = self.model.forms.hotel_search
        values = ev.values or {}
        if "city" in values and not f["city"]:
            f["city_text"] = values["city"][:60]
        for name in ("checkin_date", "checkout_date"):
            if values.get(name):
                f[name] = normalize_date(values[name][:40])
        if not self.strict and not f["city"]:
            typed = f["city_text"].strip().lower()
            f["city"] = next((c.name for c in self.cities if c.name.lower() == typed), "")
        if self._submit("hotel_search"):
            return None
        self._look_at_stay(f["city"], f)
        self.model.forms.stay = {k: f[k] for k in STAY_FIELDS}
        hotels = self.model.hotels
        hotels.filters, hotels.sort = dict(DEFAULT_HOTEL_FILTERS), "recommended"
        slug = self.by_city[f["city"]].slug
        hotels.pages.pop(slug, None)
        self.ui.more.pop(f"hotels:{slug}", None)
        return f"/hotels/in/{slug}"

    def _look_at_stay(self, city: str, values: dict[str, str]) -> None:
        stay = self.model.stay
        stay.city = city
        stay.checkin_date, stay.checkout_date = values["checkin_date"], values["checkout_date"]
        stay.guests = values["guests"]

    @transition(effect=lambda: All(_copied("stay", "stay", STAY_FIELDS)))
    def update_stay(self, ev: AppEvent) -> str | None:
        f = self.model.forms.stay
        for name in ("checkin_date", "checkout_date"):
            if (ev.values or {}).get(name):
                f[name] = normalize_date((ev.values or {})[name][:40])
        if self._submit("stay"):
            return None
        h = self.hotel_at(self.route)
        self._look_at_stay(h.city if h else self.model.stay.city, f)
        self.ui.modal = None
        return None

    @transition(effect=lambda: Eq(("hotels", "sort"), Ref("value")))
    def sort_hotels(self, ev: AppEvent) -> str | None:
        if ev.value in HOTEL_SORTS:
            self.model.hotels.sort = ev.value or "recommended"
            self.model.hotels.pages.clear()
        return None

    @transition(effect=lambda name: Eq(("hotels", "filters", name), Ref("value")))
    def filter_hotels(
        self, ev: AppEvent, *, name: Literal["stars", "rating", "price"]
    ) -> str | None:
        value = ev.value or ""
        allowed = {"stars": STAR_OPTIONS, "rating": RATING_OPTIONS, "price": PRICE_OPTIONS}
        if value in allowed[name]:
            self.model.hotels.filters[name] = value
            self.model.hotels.pages.clear()
        return None

    @transition(effect=lambda page: Eq(("hotels", "page"), page))
    def turn_hotels_page(self, ev: AppEvent, *, page: int) -> str | None:
        """Page the hotels of the city whose page this is."""
        city = self.city_at(self.route)
        if city is None:
            return None
        pages = max(1, -(-len(self.hotel_listing(city.name)) // HOTELS_PAGE))
        if 1 <= page <= pages:
            self.model.hotels.pages[city.slug] = page
        return None

    @transition(mutating=True, effect=lambda room: Contains(("itinerary", "rooms"), room))
    def select_room(self, ev: AppEvent, *, room: str) -> str | None:
        found = self.by_room.get(room)
        if found is None or not self.room_bookable(found):
            return None
        stay = self.model.stay
        it = self.model.itinerary
        it.rooms[found.id] = Stay(stay.checkin_date, stay.checkout_date)
        it.guests[found.id] = int(stay.guests)
        self.flash = self.copy("hotel.added")
        return None

    @transition(mutating=True, effect=lambda room: Not(Contains(("itinerary", "rooms"), room)))
    def remove_room(self, ev: AppEvent, *, room: str) -> str | None:
        self.model.itinerary.rooms.pop(room, None)
        self.model.itinerary.guests.pop(room, None)
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
    def book_trip(self, ev: AppEvent) -> str | None:
        p = self.model.forms.passenger
        for name in PASSENGER_FIELDS:
            if ev.values is not None and name in ev.values:
                setattr(p, name, ev.values[name][:200])
        errors = self._submit("passenger")
        it = self.model.itinerary
        if not it.flights and not it.rooms:
            errors["_itinerary"] = "itinerary_empty"
            self.model.feedback.passenger_errors = errors
        if errors:
            return None
        if self.glitch_pending:  # the booking service times out once: Retry books
            self.glitch_pending = False
            self.failed = ev
            return None
        trip = self._trip_of_itinerary()
        self.model.trips[trip.id] = trip
        self.model.itinerary = type(it)(last_booked=trip.id)
        self.model.feedback.submitted.discard("passenger")
        return f"/booking/{trip.id}"

    def _trip_of_itinerary(self) -> Trip:
        """The itinerary as a booked trip: where and when it goes is the first flight's
        destination and date, else the first room's city and check-in."""
        it = self.model.itinerary
        n = sum(t.booked_here for t in self.model.trips.values())
        offers = [o for o in map(self.offer, sorted(it.flights)) if o is not None]
        if offers:
            first = offers[0].legs
            destination = self.by_airport[first[0][0].destination].metro
            depart = first[0][1].isoformat()
            back = first[1][1].isoformat() if len(first) == 2 else ""
            airline = self.by_airline[offers[0].airline].name
        else:
            rid, stay = next(iter(it.rooms.items()))
            destination = self.by_hotel[self.by_room[rid].hotel_id].city
            depart, back, airline = stay.checkin, stay.checkout, ""
        p = self.model.forms.passenger
        return Trip(
            id=reference_code(f"travel:{self.spec.seed}:booking:{n}"),
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
            total=self.itinerary_total(),
            member=self.model.auth.member,
            booked_here=True,
        )

    # ------------------------------------------------------------- member area
    @transition(
        mutating=True,
        effect=lambda: Any_((Eq(("auth", "stage"), "otp"), Eq(("auth", "signed_in"), True))),
    )
    def sign_in(self, ev: AppEvent) -> str | None:
        login, auth = self.model.forms.login, self.model.auth
        values = ev.values or {}
        if "email" in values:
            login.email = values["email"][:200]
        if values.get("password"):
            login.password, login.password_given = values["password"][:200], True
        if login.password:
            self._check_password()
        email = login.email.strip().lower()
        feedback = self.model.feedback
        feedback.submitted.add("login")
        if not email or not login.password:
            feedback.login_errors = {"email" if not email else "password": "required"}
            return None
        if email != self.member.email or login.password != self.member.password:
            feedback.login_errors = {"_login": "credentials"}
            return None
        feedback.login_errors = {}
        login.password = ""  # the secret goes; that one was given stays
        if not auth.pending:  # signing in again keeps the code already sent
            auth.pending, auth.codes_sent = self.member.email, max(1, auth.codes_sent)
        return "/login/verify"

    @transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), True))
    def verify_code(self, ev: AppEvent) -> str | None:
        auth, otp = self.model.auth, self.model.forms.otp
        if not auth.pending:
            return None
        code = (ev.values or {}).get("code", "")
        if code:
            otp.code = code[:12]
        if self._code_digits() != self.otp_code(auth.codes_sent):
            self.model.feedback.otp_errors = {"code": "code"}
            return None
        self.model.feedback.otp_errors = {}
        otp.code = ""  # the secret goes; that one was entered stays
        auth.member, auth.pending = auth.pending, ""
        return "/trips"

    @transition(
        mutating=True, effect=lambda: Gt(("auth", "codes_sent"), Ref("state:auth.codes_sent"))
    )
    def resend_code(self, ev: AppEvent) -> str | None:
        """Text another code (at most five in all)."""
        auth = self.model.auth
        if auth.pending and auth.codes_sent < 5:
            auth.codes_sent += 1
            self.flash = self.copy("verify.resent")
        return None

    @transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), False))
    def sign_out(self, ev: AppEvent) -> str | None:
        self.model.auth = type(self.model.auth)()
        return "/"

    @transition(mutating=True, effect=lambda trip: Eq(("trips", trip, "status"), "cancelled"))
    def cancel_trip(self, ev: AppEvent, *, trip: str) -> str | None:
        """The form cancels the trip whose page it is on, for the reason chosen."""
        here = self.trip_at(self.route)
        if here is None or here.id != trip or not here.cancellable:
            return None
        here.status, here.cancellable = "cancelled", False
        here.cancel_reason = self.model.forms.cancel_trip["reason"]
        self.ui.modal = None
        self.flash = self.copy("trip.cancelled")
        return None

    # -------------------------------------------------------------- distractors
    @transition(mutating=True, effect=lambda key: Contains(("saved",), key))
    def save_for_later(self, ev: AppEvent, *, key: str) -> str | None:
        """Save a hotel or a flight offer (`key` is its id) for later."""
        if key in self.by_hotel or self.offer(key) is not None:
            self.model.saved.add(key)
        return None

    @transition(
        effect=lambda: Eq(("extras", "price_alert"), Ref("value|bool")),
        field=lambda: FormField("extras", "price_alert", ("extras", "price_alert")),
    )
    def set_price_alert(self, ev: AppEvent) -> str | None:
        if ev.value in ("true", "false"):
            self.model.extras.price_alert = ev.value == "true"
        return None

    @transition(
        effect=lambda: Eq(("extras", "insurance"), Ref("value|bool")),
        field=lambda: FormField("extras", "insurance", ("extras", "insurance")),
    )
    def set_insurance(self, ev: AppEvent) -> str | None:
        if ev.value in ("true", "false"):
            self.model.extras.insurance = ev.value == "true"
        return None

    @transition(
        mutating=True,
        effect=lambda: Contains(("newsletter",), Ref("state:forms.newsletter.email|lower")),
    )
    def join_newsletter(self, ev: AppEvent) -> str | None:
        email = (ev.values or {}).get("email", "")[:200]
        self.model.forms.newsletter["email"] = email
        if "@" in email:
            self.model.newsletter.add(email.strip().lower())
        return None
