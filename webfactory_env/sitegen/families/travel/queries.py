"""The travel site's content indexed, and what the pages and facts read from it: offers of
a search, result and hotel lists as the page shows them, the member's trips (no changes
here: transitions live in `transitions.py`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.families.travel.content import sms_code
from webfactory_env.sitegen.families.travel.entities import (
    Airline,
    Airport,
    City,
    Flight,
    Hotel,
    Member,
    Room,
)
from webfactory_env.sitegen.families.travel.fares import (
    Offer,
    fare_rules,
    flies_on,
    market,
    parse_offer_id,
)
from webfactory_env.sitegen.families.travel.rules import nights_between, parse_date
from webfactory_env.sitegen.families.travel.state import (
    AuthFacts,
    HotelFacts,
    HotelListFacts,
    ItineraryFacts,
    OfferFacts,
    ResultsFacts,
    SearchFacts,
    StayFacts,
    TravelFacts,
    TravelState,
    Trip,
)
from webfactory_env.sitegen.spec import SiteSpec

RESULTS_PAGE = 10
HOTELS_PAGE = 8
MAX_MARKETS = 256  # markets kept in memory (ids come from the page: keep memory bounded)
FLIGHT_ORDER: dict[str, Callable[[Offer], Any]] = {
    "best": lambda o: (o.price + 0.35 * o.duration, o.id),
    "price-asc": lambda o: (o.price, o.duration, o.id),
    "price-desc": lambda o: (-o.price, o.duration, o.id),
    "duration-asc": lambda o: (o.duration, o.price, o.id),
    "departure-asc": lambda o: (o.legs[0][0].depart, o.price, o.id),
}
MarketKey = tuple[str, str, dt.date, dt.date | None]


# Every hotel the family can name: its first word ("Bellamy" House) names it on its own.
HOTELS = Vocabulary("hotels", "text", parts=("vocab.json:hotel_first.*",))


ROUTES = {
    "/": "home",
    "/flights": "flights",
    "/flights/results": "results",
    "/hotels": "hotels",
    "/itinerary": "itinerary",
    "/checkout": "checkout",
    "/login": "login",
    "/login/verify": "verify",
    "/trips": "trips",
}


class TravelQueries(Queries):
    """The travel site's content indexed, and the reads of its state its pages, facts and
    transitions share."""

    state: TravelState

    def __init__(self, state: TravelState, spec: SiteSpec) -> None:
        super().__init__(state, spec)
        e = spec.entities
        self.airports: tuple[Airport, ...] = e["airports"]
        self.by_airport = {a.code: a for a in self.airports}
        self.airlines: tuple[Airline, ...] = e["airlines"]
        self.by_airline = {a.code: a for a in self.airlines}
        self.flights: tuple[Flight, ...] = e["flights"]
        self.by_flight = {f.id: f for f in self.flights}
        self.on_route: dict[tuple[str, str], list[Flight]] = {}
        for f in self.flights:
            self.on_route.setdefault((f.origin, f.destination), []).append(f)
        self.cities: tuple[City, ...] = e["cities"]
        self.by_city = {c.name: c for c in self.cities}
        self.by_slug = {c.slug: c for c in self.cities}
        self.hotels: tuple[Hotel, ...] = e["hotels"]
        self.by_hotel = {h.id: h for h in self.hotels}
        self.rooms: tuple[Room, ...] = e["rooms"]
        self.by_room = {r.id: r for r in self.rooms}
        self.rooms_of: dict[str, list[Room]] = {}
        for room in self.rooms:
            self.rooms_of.setdefault(room.hotel_id, []).append(room)
        for rooms in self.rooms_of.values():
            rooms.sort(key=lambda x: (x.price, x.id))
        self.member: Member = e["members"][0]
        self.strict = spec.difficulty == "hard"
        # Server behaviour, not state: the booking service times out once on some sites.
        self.glitch_pending = bool(spec.extra.get("booking_glitch"))
        self._markets: dict[MarketKey, dict[str, Offer]] = {}
        # What each search and each offer id gave (pages and facts ask again and again).
        self._searches: dict[tuple[str, ...], tuple[Offer, ...]] = {}
        self._offers: dict[str, Offer | None] = {}

    # ----------------------------------------------------------------- flights
    def market(
        self, origin: str, dest: str, depart: dt.date, ret: dt.date | None
    ) -> dict[str, Offer]:
        """Every offer from `origin` to `dest` on these dates (one way when `ret` is None)."""
        key = (origin, dest, depart, ret)
        found = self._markets.get(key)
        if found is None:
            if len(self._markets) >= MAX_MARKETS:
                self._markets.clear()
            back = self.on_route.get((dest, origin), []) if ret is not None else None
            found = self._markets[key] = market(
                self.spec.seed,
                self.today(),
                self.by_airline,
                self.on_route.get((origin, dest), []),
                back,
                depart,
                ret,
            )
        return found

    def offer(self, oid: str) -> Offer | None:
        """The offer an id names, if its flights exist and fly on those dates."""
        if oid not in self._offers:
            _bounded(self._offers)[oid] = self._offer(oid)
        return self._offers[oid]

    def _offer(self, oid: str) -> Offer | None:
        legs = parse_offer_id(oid)
        if legs is None or any(f not in self.by_flight for f, _ in legs):
            return None
        out, depart = self.by_flight[legs[0][0]], legs[0][1]
        if not flies_on(out, depart):
            return None
        ret = legs[1][1] if len(legs) == 2 else None
        return self.market(out.origin, out.destination, depart, ret).get(oid)

    def search_offers(self) -> list[Offer]:
        """Every offer of the search shown, unsorted and unfiltered."""
        s = self.state.search
        key = (s.origin, s.destination, s.depart_date, s.return_date, s.roundtrip)
        if key not in self._searches:
            _bounded(self._searches)[key] = tuple(self._search_offers())
        return list(self._searches[key])

    def _search_offers(self) -> list[Offer]:
        s = self.state.search
        d1 = parse_date(s.depart_date)
        if not s.origin or d1 is None:
            return []
        d2 = parse_date(s.return_date) if s.roundtrip == "true" else None
        if s.roundtrip == "true" and d2 is None:
            return []
        return list(self.market(s.origin, s.destination, d1, d2).values())

    def results(self) -> list[Offer]:
        """The search's offers, filtered and sorted as the page shows them."""
        s, view = self.state.search, self.state.results
        airline, stops = view.filters["airline"], view.filters["stops"]
        search = (s.origin, s.destination, s.depart_date, s.return_date, s.roundtrip)
        key = (*search, airline, stops, view.sort)
        if key not in self._searches:
            items = self.search_offers()
            if airline:
                items = [o for o in items if o.airline == airline]
            if stops:
                items = [o for o in items if o.stops <= int(stops)]
            _bounded(self._searches)[key] = tuple(sorted(items, key=FLIGHT_ORDER[view.sort]))
        return list(self._searches[key])

    def passengers(self) -> int:
        return int(self.state.search.passengers or 1)

    def fare_of(self, o: Offer) -> str:
        """The fare brand an offer's page shows: the one chosen on it, else the cheapest."""
        return self.state.forms.fares.get(o.id, o.cheapest_brand)

    # ------------------------------------------------------------------ hotels
    def hotel_price(self, h: Hotel) -> int:
        """A hotel's price: its cheapest free room a night (its cheapest room if none)."""
        rooms = self.rooms_of.get(h.id, [])
        free = [r.price for r in rooms if r.available]
        return min(free or [r.price for r in rooms] or [0])

    def hotel_listing(self, city: str) -> list[Hotel]:
        items = [h for h in self.hotels if h.city == city]
        f = self.state.hotels.filters
        if f["stars"]:
            items = [h for h in items if h.stars == int(f["stars"])]
        if f["rating"]:
            items = [h for h in items if h.rating >= int(f["rating"])]
        if f["price"]:
            items = [h for h in items if self.hotel_price(h) <= int(f["price"])]
        keys: dict[str, Callable[[Hotel], Any]] = {
            "recommended": lambda h: (
                h.sold_out,
                -(h.rating * 10 + h.stars * 4) + self.hotel_price(h) / 40,
                h.id,
            ),
            "price-asc": lambda h: (self.hotel_price(h), h.id),
            "price-desc": lambda h: (-self.hotel_price(h), h.id),
            "rating-desc": lambda h: (-h.rating, h.id),
            "stars-desc": lambda h: (-h.stars, -h.rating, h.id),
        }
        return sorted(items, key=keys[self.state.hotels.sort])

    def city_at(self, route: str) -> City | None:
        return (
            self.by_slug.get(route[len("/hotels/in/") :])
            if route.startswith("/hotels/in/")
            else None
        )

    def hotel_at(self, route: str) -> Hotel | None:
        return self.by_hotel.get(route[len("/hotel/") :]) if route.startswith("/hotel/") else None

    def nights(self) -> int:
        return nights_between(self.state.stay.checkin_date, self.state.stay.checkout_date)

    def room_bookable(self, room: Room) -> bool:
        guests = int(self.state.stay.guests or 1)
        return room.available and self.nights() > 0 and guests <= room.capacity

    # ---------------------------------------------------------------- the trip
    def itinerary_total(self) -> int:
        it = self.state.itinerary
        total = 0
        for oid in sorted(it.flights):
            o = self.offer(oid)
            if o is not None:
                brand = it.fares.get(oid, o.cheapest_brand)
                total += o.prices.get(brand, o.price) * it.passengers.get(oid, 1)
        for rid, stay in it.rooms.items():
            total += self.by_room[rid].price * nights_between(stay.checkin, stay.checkout)
        return total

    # ------------------------------------------------------------ member area
    def otp_code(self, n: int) -> str:
        return sms_code(self.spec.seed, n)

    def signed_in(self) -> bool:
        return bool(self.state.auth.member)

    def member_trips(self) -> list[Trip]:
        """The signed-in member's trips: bookings made here first (newest first), then the
        trips booked before."""
        me = self.state.auth.member
        trips = [t for t in self.state.trips.values() if me and t.member == me]
        return [t for t in reversed(trips) if t.booked_here] + [
            t for t in trips if not t.booked_here
        ]

    def trip_at(self, route: str) -> Trip | None:
        """The member's trip whose page `route` is (None when signed out)."""
        if not route.startswith("/trips/") or not self.signed_in():
            return None
        found = self.state.trips.get(route[len("/trips/") :])
        return found if found is not None and found.member == self.state.auth.member else None

    def booking_at(self, route: str) -> Trip | None:
        if not route.startswith("/booking/"):
            return None
        found = self.state.trips.get(route[len("/booking/") :])
        return found if found is not None and found.booked_here else None

    def last_booking(self) -> Trip:
        booked = [t for t in self.state.trips.values() if t.booked_here]
        return booked[-1] if booked else Trip()

    def calendar_month(self, picker: str, route: str) -> str | None:
        """The month a calendar opens at: the chosen date's month, else (for the second
        date of a pair) the first date's month, else today's."""
        values = self.picker_values(route)
        pair = {"return_date": "depart_date", "checkout_date": "checkin_date"}
        for name in (picker, pair.get(picker, "")):
            d = parse_date(values.get(name, ""))
            if d is not None:
                return d.isoformat()[:7]
        return self.spec.today[:7]

    def picker_values(self, route: str) -> dict[str, str]:
        """The draft whose dates the calendars of the page at `route` show."""
        forms = self.state.forms
        if route == "/flights":
            return forms.flight_search
        if route == "/hotels":
            return forms.hotel_search
        if self.hotel_at(route) is not None:
            return forms.stay
        return {}

    def entity_page_kind(self, route: str) -> str:
        """The kind of a page that shows one offer, city, hotel, booking or trip, or
        "not_found"."""
        if route.startswith("/flights/offer/") and self.offer(route[15:]) is not None:
            return "offer"
        if self.city_at(route) is not None:
            return "city"
        if self.hotel_at(route) is not None:
            return "hotel"
        if self.booking_at(route) is not None:
            return "booking"
        trip = self.state.trips.get(route[7:]) if route.startswith("/trips/") else None
        if trip is not None and trip.member:
            return "trip"  # behind the login wall when signed out
        return "not_found"


Travel = Context[TravelState, TravelQueries]  # what the travel site's transitions and pages read


def _bounded(table: dict[Any, Any]) -> dict[Any, Any]:
    """`table`, emptied when full (ids and searches come from the page: memory stays bounded)."""
    if len(table) >= MAX_MARKETS:
        table.clear()
    return table


def facts(travel: Travel) -> TravelFacts:
    listed = travel.queries.results()
    if travel.v.list_mode == "infinite":
        shown = min(len(listed), travel.ui.more.get("results", 1) * RESULTS_PAGE)
    else:
        shown = min(len(listed), RESULTS_PAGE)
    city = travel.queries.city_at(travel.route)
    it = travel.state.itinerary
    auth = travel.state.auth
    stage = "signed_in" if auth.member else "otp" if auth.pending else "signed_out"
    return TravelFacts(
        offer=_offer_facts(travel),
        hotel=_hotel_facts(travel),
        trip=travel.queries.trip_at(travel.route) or Trip(),
        booking=travel.queries.last_booking(),
        results=ResultsFacts(
            count=len(listed),
            total=len(travel.queries.search_offers()),
            pages=max(1, -(-len(listed) // RESULTS_PAGE)),
            shown=shown,
        ),
        hotels=HotelListFacts(
            city=city.name if city else "",
            count=len(travel.queries.hotel_listing(city.name)) if city else 0,
            page=travel.state.hotels.pages.get(city.slug, 1) if city else 1,
        ),
        itinerary=ItineraryFacts(
            status="draft" if it.flights or it.rooms else "empty",
            count=len(it.flights) + len(it.rooms),
            flights_count=len(it.flights),
            rooms_count=len(it.rooms),
            total=travel.queries.itinerary_total(),
            hotels=sorted({travel.queries.by_room[r].hotel_id for r in it.rooms}),
        ),
        search=SearchFacts(done=bool(travel.state.search.origin)),
        stay=StayFacts(done=bool(travel.state.stay.city), nights=travel.queries.nights()),
        auth=AuthFacts(signed_in=travel.queries.signed_in(), stage=stage),
    )


def _offer_facts(travel: Travel) -> OfferFacts:
    o = (
        travel.queries.offer(travel.route[len("/flights/offer/") :])
        if travel.route.startswith("/flights/offer/")
        else None
    )
    if o is None:
        return OfferFacts()
    brand = travel.queries.fare_of(o)
    rules = fare_rules(travel.queries.by_airline[o.airline], brand)
    return OfferFacts(
        id=o.id,
        trip="roundtrip" if o.roundtrip else "oneway",
        airline=travel.queries.by_airline[o.airline].name,
        fare=brand,
        price=o.prices[brand],
        total=o.prices[brand] * travel.queries.passengers(),
        checked_bag_fee=rules.checked_bag_fee,
        carry_on=rules.carry_on,
        changes=rules.changes,
        change_fee=rules.change_fee,
        refunds=rules.refunds,
        refundable=rules.refundable,
        seats_left=o.seats,
        stops=o.stops,
        duration=o.duration,
        in_itinerary=o.id in travel.state.itinerary.flights,
    )


def _hotel_facts(travel: Travel) -> HotelFacts:
    h = travel.queries.hotel_at(travel.route)
    if h is None:
        return HotelFacts()
    free = [r for r in travel.queries.rooms_of.get(h.id, []) if r.available]
    return HotelFacts(
        id=h.id,
        name=h.name,
        city=h.city,
        stars=h.stars,
        rating=h.rating,
        available=bool(free),
        rooms_available=len(free),
        price=travel.queries.hotel_price(h),
    )
