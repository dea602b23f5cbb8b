"""What flights cost: fares by date and fare brand, the offers of a search, and their ids.

Pure functions of the site's content: the app asks them for the offers of a search (a
*market*: one route, one or two dates) and for one offer by its id. Within a market no
two offers cost the same, so "the cheapest" of any search is one offer.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from webfactory_env.core.seeding import hash_to_int
from webfactory_env.sitegen.families.travel.entities import Airline, Flight

BRANDS = ("basic", "standard", "flex")
BRAND_FACTOR = {"basic": 0.8, "standard": 1.0, "flex": 1.5}
WEEKDAY_FACTOR = (1.0, 0.9, 0.92, 1.02, 1.12, 0.95, 1.14)  # Monday .. Sunday
Leg = tuple[Flight, dt.date]
_LEG_ID = re.compile(r"^([A-Z]{2}\d{3,4})-(\d{8})$")


@dataclass(frozen=True)
class Offer:
    """A bookable trip: one flight each way on its date, sold in a fare brand family."""

    id: str
    legs: tuple[Leg, ...]
    prices: Mapping[str, int]  # per traveller, per fare brand the airline sells
    seats: int

    @property
    def airline(self) -> str:
        return self.legs[0][0].airline

    @property
    def price(self) -> int:
        return min(self.prices.values())

    @property
    def cheapest_brand(self) -> str:
        return min(self.prices, key=lambda b: (self.prices[b], BRANDS.index(b)))

    @property
    def duration(self) -> int:
        return sum(f.duration for f, _ in self.legs)

    @property
    def stops(self) -> int:
        return max(f.stops for f, _ in self.legs)

    @property
    def roundtrip(self) -> bool:
        return len(self.legs) == 2


@dataclass(frozen=True)
class FareRules:
    """What a fare brand allows (shown on the offer page)."""

    checked_bag_fee: int
    carry_on: bool
    changes: str  # not_allowed, free, fee
    change_fee: int
    refunds: str  # none, credit, full
    refundable: bool


def fare_on(seed: int, flight: Flight, date: dt.date, today: dt.date, brand: str) -> int:
    """The price of one seat on `flight` on `date`: the schedule's base fare, the weekday,
    how soon the date is, a little seeded noise, and the fare brand."""
    ahead = (date - today).days
    noise = hash_to_int(f"travel:{seed}:fare:{flight.id}:{date.isoformat()}", 16) / 65536
    price = flight.base_fare * WEEKDAY_FACTOR[date.weekday()]
    price *= 1 + 0.025 * max(0, 21 - ahead)
    price *= 0.92 + 0.16 * noise
    return round(price * BRAND_FACTOR[brand])


def seats_left(seed: int, flight: Flight, date: dt.date) -> int:
    return 1 + hash_to_int(f"travel:{seed}:seats:{flight.id}:{date.isoformat()}", 16) % 9


def fare_rules(airline: Airline, brand: str) -> FareRules:
    if brand == "basic":
        return FareRules(airline.bag_fee, False, "not_allowed", 0, "none", False)
    if brand == "standard":
        changes = "free" if airline.change_fee == 0 else "fee"
        return FareRules(airline.bag_fee, True, changes, airline.change_fee, "credit", False)
    return FareRules(0, True, "free", 0, "full", True)


def offer_id(legs: Sequence[Leg]) -> str:
    return "_".join(f"{f.id}-{d.strftime('%Y%m%d')}" for f, d in legs)


def parse_offer_id(oid: str) -> list[tuple[str, dt.date]] | None:
    """(flight id, date) of each leg an offer id names, or None if it names none."""
    parts = oid.split("_")
    if not 1 <= len(parts) <= 2:
        return None
    out = []
    for part in parts:
        m = _LEG_ID.match(part)
        if not m:
            return None
        try:
            out.append((m.group(1), dt.datetime.strptime(m.group(2), "%Y%m%d").date()))
        except ValueError:
            return None
    return out


def flies_on(flight: Flight, day: dt.date) -> bool:
    return str(day.isoweekday()) in flight.days


def market(
    seed: int,
    today: dt.date,
    airlines: Mapping[str, Airline],
    outbound: Sequence[Flight],
    back: Sequence[Flight] | None,
    depart: dt.date,
    ret: dt.date | None,
) -> dict[str, Offer]:
    """Every offer of one search by id: each outbound flight flying on `depart`, paired
    (for a round trip) with each flight of the same airline back on `ret`. Fares that
    would tie are raised a dollar at a time, in the order of price and then id, so no two
    offers of a market cost the same."""
    trips: list[tuple[Leg, ...]] = []
    for f in outbound:
        if not flies_on(f, depart):
            continue
        if back is None or ret is None:
            trips.append(((f, depart),))
            continue
        trips += [
            ((f, depart), (g, ret))
            for g in back
            if g.airline == f.airline and flies_on(g, ret) and ret >= depart
        ]
    priced = []
    for legs in trips:
        airline = airlines[legs[0][0].airline]
        brands = BRANDS if airline.basic else BRANDS[1:]
        prices = {b: sum(fare_on(seed, f, d, today, b) for f, d in legs) for b in brands}
        priced.append((offer_id(legs), legs, prices))
    priced.sort(key=lambda x: (min(x[2].values()), x[0]))
    out: dict[str, Offer] = {}
    floor = -1
    for oid, legs, prices in priced:
        bump = max(0, floor + 1 - min(prices.values()))
        raised = {b: p + bump for b, p in prices.items()}
        floor = min(raised.values())
        seats = min(seats_left(seed, f, d) for f, d in legs)
        out[oid] = Offer(oid, legs, raised, seats)
    return out
