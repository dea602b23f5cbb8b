"""The travel site's declared state: what a goal can pin (trips by reference, the itinerary,
who is signed in) next to what it never pins (form drafts, searches, sorts and filters),
and the computed facts of the page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from webfactory_env.sitegen.families.travel.entities import MemberTrip
from webfactory_env.sitegen.families.travel.rules import PASSENGER_FIELDS
from webfactory_env.sitegen.renamed import RenamedPath
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.state import (
    AppState,
    Record,
    copied,
    derived,
    drafts,
    entities,
    secret,
    session,
    transient,
    typed,
    typed_keys,
    view,
)

# A filter's value "" filters nothing.
DEFAULT_FLIGHT_FILTERS = {"airline": "", "stops": ""}
DEFAULT_HOTEL_FILTERS = {"stars": "", "rating": "", "price": ""}


@dataclass
class Stay:
    """The nights a room is booked for."""

    checkin: str = ""
    checkout: str = ""


# ------------------------------------------------------------------------- entities
@dataclass(kw_only=True)
class Trip(Record):
    """A trip, keyed by its booking reference: one of the member's from the seed, or one
    booked on the site. What was booked (flights with their dates, rooms with their nights,
    who travels) is pinned; what follows from it (totals, where and when) is derived."""

    status: str = "upcoming"  # upcoming, completed, cancelled
    flights: set[str] = field(default_factory=set)  # offer ids: the flights and their dates
    passengers: int = 0  # travellers on those flights
    rooms: dict[str, Stay] = field(default_factory=dict)  # room id -> its nights
    guests: int = copied("forms.stay.guests", 0)
    fares: dict[str, str] = copied("forms.fares", default_factory=dict)  # offer -> brand
    traveller: dict[str, str] = copied("forms.passenger", default_factory=dict)
    seat: str = copied("forms.passenger.seat", "")
    cancel_reason: str = copied("forms.cancel_trip.reason", "")
    destination: str = derived("")
    depart: str = derived("")
    return_date: str = derived("")
    airline: str = derived("")
    total: int = derived(0)
    refundable: bool = derived(False)
    cancellable: bool = derived(False)
    member: str = derived("")  # the member account it is in ("" for a guest booking)
    booked_here: bool = derived(False)


# -------------------------------------------------------------------------- session
@dataclass
class Itinerary:
    """What the visitor is about to book. Booking it empties it."""

    flights: set[str] = field(default_factory=set)  # offer ids
    rooms: dict[str, Stay] = field(default_factory=dict)  # room id -> its nights
    fares: dict[str, str] = derived(default_factory=dict)  # offer -> brand it was added in
    passengers: dict[str, int] = derived(default_factory=dict)  # offer -> travellers
    guests: dict[str, int] = derived(default_factory=dict)  # room -> guests
    last_booked: str = derived("")  # the reference of the booking it last became


@dataclass
class Auth:
    """Who is signed in. Signing in takes a password, then a code texted to the member."""

    member: str = ""  # e-mail of the member signed in ("" when nobody is)
    pending: str = derived("")  # e-mail whose one-time code is awaited
    codes_sent: int = derived(0)


@dataclass
class Extras:
    """The distractor switches (price alert on results, insurance at checkout)."""

    insurance: bool = transient(False)  # ticked at a checkout: the trip, once booked, keeps none
    price_alert: bool = False


# --------------------------------------------------------------------------- drafts
def _flight_search() -> dict[str, str]:
    return {
        "origin": "",
        "origin_text": "",
        "destination": "",
        "destination_text": "",
        "roundtrip": "false",
        "depart_date": "",
        "return_date": "",
        "passengers": "1",
    }


@dataclass
class PassengerDraft:
    first_name: str = ""
    last_name: str = ""
    email: str = typed("email")
    phone: str = typed("phone")
    loyalty_number: str = typed("code")
    seat: str = "none"

    def details(self) -> dict[str, str]:
        """The traveller's details as a booking keeps them (trimmed, no seat)."""
        return {name: getattr(self, name).strip() for name in PASSENGER_FIELDS}


@dataclass
class LoginDraft:
    email: str = typed("email")
    password_given: bool = False
    password_ok: bool = False  # it is the member's (all the view says of it)
    password: str = secret()  # never in the view


@dataclass
class CodeDraft:
    code_entered: bool = False
    code_ok: bool = False  # it is the code last texted
    code: str = secret()


@dataclass
class TravelForms:
    flight_search: dict[str, str] = typed_keys(
        _flight_search, depart_date="date", return_date="date"
    )
    hotel_search: dict[str, str] = typed_keys(
        lambda: {"city": "", "city_text": "", "checkin_date": "",
                 "checkout_date": "", "guests": "2"},
        checkin_date="date", checkout_date="date",
    )  # fmt: skip
    stay: dict[str, str] = typed_keys(
        lambda: {"checkin_date": "", "checkout_date": "", "guests": "2"},
        checkin_date="date",
        checkout_date="date",
    )
    passenger: PassengerDraft = field(default_factory=PassengerDraft)
    fares: dict[str, str] = field(default_factory=dict)  # offer -> fare brand chosen on it
    login: LoginDraft = field(default_factory=LoginDraft)
    otp: CodeDraft = field(default_factory=CodeDraft)
    cancel_trip: dict[str, str] = field(default_factory=lambda: {"reason": "plans_changed"})
    newsletter: dict[str, str] = typed_keys(lambda: {"email": ""}, email="email")


# ----------------------------------------------------------------------------- view
@dataclass
class FlightSearch:
    """The flight search whose results are shown (empty before the first search)."""

    origin: str = ""
    destination: str = ""
    roundtrip: str = ""
    depart_date: str = ""
    return_date: str = ""
    passengers: str = ""


@dataclass
class ResultsView:
    sort: str = "best"
    filters: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_FLIGHT_FILTERS))
    page: int = 1


@dataclass
class StaySearch:
    """The hotel stay being looked at: the last hotel search, or changed dates."""

    city: str = ""
    checkin_date: str = ""
    checkout_date: str = ""
    guests: str = ""


@dataclass
class HotelListView:
    sort: str = "recommended"
    filters: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HOTEL_FILTERS))
    pages: dict[str, int] = field(default_factory=dict)  # city slug -> page shown


@dataclass
class Feedback:
    """What the last submissions said back: each form's errors."""

    flight_search_errors: dict[str, str] = field(default_factory=dict)
    hotel_search_errors: dict[str, str] = field(default_factory=dict)
    stay_errors: dict[str, str] = field(default_factory=dict)
    passenger_errors: dict[str, str] = field(default_factory=dict)
    login_errors: dict[str, str] = field(default_factory=dict)
    otp_errors: dict[str, str] = field(default_factory=dict)
    submitted: set[str] = field(default_factory=set)  # forms submitted at least once


@dataclass
class TravelState(AppState):
    trips: dict[str, Trip] = entities()
    itinerary: Itinerary = session(Itinerary, persists=False)  # the trip keeps it
    auth: Auth = session(Auth, persists=False)
    saved: set[str] = session(set, persists=True)  # offers and hotels saved for later
    extras: Extras = session(Extras, persists=True)
    newsletter: set[str] = session(set, persists=True)  # e-mail addresses signed up
    forms: TravelForms = drafts(TravelForms)
    search: FlightSearch = view(FlightSearch)
    results: ResultsView = view(ResultsView)
    stay: StaySearch = view(StaySearch)
    hotels: HotelListView = view(HotelListView)
    feedback: Feedback = view(Feedback)

    @classmethod
    def start(cls, spec: SiteSpec) -> Self:
        """The member's past trips (by booking reference); an empty itinerary."""
        e = spec.entities
        email = e["members"][0].email
        return cls(trips={t.reference: _member_trip(t, email) for t in e["trips"]})


# ---------------------------------------------------------------------------- facts
@dataclass
class OfferFacts:
    """The flight offer whose page is open, in the fare brand shown."""

    id: str = ""
    trip: str = ""  # oneway, roundtrip
    airline: str = ""
    fare: str = ""
    price: int = 0
    total: int = 0
    checked_bag_fee: int = 0
    carry_on: bool = False
    changes: str = ""
    change_fee: int = 0
    refunds: str = ""
    refundable: bool = False
    seats_left: int = 0
    stops: int = 0
    duration: int = 0
    in_itinerary: bool = False


@dataclass
class HotelFacts:
    """The hotel whose page is open."""

    id: str = ""
    name: str = ""
    city: str = ""
    stars: int = 0
    rating: float = 0.0
    available: bool = False
    rooms_available: int = 0
    price: int = 0


@dataclass
class ResultsFacts:
    count: int = 0  # offers shown after filters
    total: int = 0  # offers of the search
    pages: int = 1
    shown: int = 0


@dataclass
class HotelListFacts:
    city: str = ""  # of the city page open
    count: int = 0
    page: int = 1


@dataclass
class ItineraryFacts:
    status: str = "empty"  # empty, draft
    count: int = 0
    flights_count: int = 0
    rooms_count: int = 0
    total: int = 0
    hotels: list[str] = field(default_factory=list)


@dataclass
class SearchFacts:
    done: bool = False  # a flight search has results to show


@dataclass
class StayFacts:
    done: bool = False  # a hotel stay is being looked at
    nights: int = 0


@dataclass
class AuthFacts:
    signed_in: bool = False
    stage: str = "signed_out"  # signed_out, code (waiting for the texted code), signed_in


@dataclass
class TravelFacts:
    """Computed, read-only values of the page and of the site's state."""

    offer: OfferFacts
    hotel: HotelFacts
    trip: Trip  # the member's trip whose page is open
    booking: Trip  # the last trip booked on the site
    results: ResultsFacts
    hotels: HotelListFacts
    itinerary: ItineraryFacts
    search: SearchFacts
    stay: StayFacts
    auth: AuthFacts


# ------------------------------------------------------------------ older paths
# What tasks written for earlier versions of this state say, and what it is now.
RENAMED = (
    RenamedPath(
        "itinerary.status",
        "booking.status",
        since="travel 2",
        why="a booking is a trip of its own now, and booking empties the itinerary",
        value="booked",
        new_value="upcoming",
    ),
    RenamedPath(
        "itinerary.lead",
        "booking.traveller",
        since="travel 2",
        why="the traveller's details are kept with the trip booked",
    ),
)


def _member_trip(t: MemberTrip, member: str) -> Trip:
    return Trip(
        id=t.reference,
        status=t.status,
        destination=t.destination,
        depart=t.depart,
        return_date=t.return_date,
        airline=t.airline,
        total=t.total,
        refundable=t.refundable,
        cancellable=t.cancellable,
        member=member,
    )
