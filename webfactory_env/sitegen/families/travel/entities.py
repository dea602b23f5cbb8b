"""What a travel site is made of: airports, airlines, routes, flights, cities, hotels, rooms,
the member account and the member's trips (immutable; the seed draws them)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_family_text

HUB = "SFO"  # every site sells trips from the San Francisco hub


@dataclass(frozen=True, slots=True)
class Airport:
    code: str
    city: str
    name: str
    metro: str
    region: str
    lat: float
    lon: float
    tz: int
    # How the hub reaches it: "hub" (it is the hub), "nonstop", "connecting", "same_metro".
    from_hub: str


@dataclass(frozen=True, slots=True)
class Airline:
    code: str
    name: str
    bag_fee: int
    change_fee: int
    basic: bool  # sells Basic fares


@dataclass(frozen=True, slots=True)
class Route:
    origin: str
    destination: str
    nonstop: bool
    distance_km: int


@dataclass(frozen=True, slots=True)
class Flight:
    """A scheduled service, flown on the weekdays in `days` (ISO numbers, "1234567")."""

    id: str  # e.g. "PC1234"
    airline: str
    origin: str
    destination: str
    depart: int  # minutes after local midnight
    duration: int  # minutes
    stops: int
    via: str
    days: str
    base_fare: int  # dollars, Standard fare before date effects
    aircraft: str


@dataclass(frozen=True, slots=True)
class City:
    name: str
    slug: str
    region: str


@dataclass(frozen=True, slots=True)
class Hotel:
    id: str
    name: str
    city: str
    neighborhood: str
    stars: int
    rating: float
    reviews: int
    amenities: tuple[str, ...]
    sold_out: bool
    description: str


@dataclass(frozen=True, slots=True)
class Room:
    id: str
    hotel_id: str
    name: str
    beds: str
    capacity: int
    price: int  # dollars per night
    refundable: bool
    available: bool


@dataclass(frozen=True, slots=True)
class Member:
    """The site's member account. The task giver knows these; app state never holds the
    password or the codes."""

    first_name: str
    last_name: str
    email: str
    password: str
    phone: str
    sms_code: str  # the first one-time code the site will text
    loyalty_number: str


@dataclass(frozen=True, slots=True)
class MemberTrip:
    """A trip the member booked before: the start of the member area's trip list."""

    reference: str
    destination: str
    depart: str
    return_date: str
    airline: str
    status: str  # "upcoming", "completed", "cancelled"
    total: int
    refundable: bool
    cancellable: bool


@cache
def vocab() -> dict[str, Any]:
    """The family's word lists (airports, airlines, hotel names, rooms, people)."""
    return json.loads(read_family_text("travel", "vocab.json"))


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
