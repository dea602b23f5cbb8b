"""What a travel site's seed draws: its brand and calendar, the flight network
(`network.py`), hotel cities with hotels and rooms, the member account and its trips.

`generate` reads as a recipe; each guarantee a task relies on is a named helper or a
commented line ("ratings differ within a city", "a three-star hotel tops every city's
ratings", "room prices differ within a hotel").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from webfactory_env.core.seeding import SeedStream, hash_to_int, short_hash
from webfactory_env.sitegen.families.travel import network
from webfactory_env.sitegen.families.travel.entities import (
    HUB,
    Airline,
    Airport,
    City,
    Hotel,
    Member,
    MemberTrip,
    Room,
    slugify,
    vocab,
)
from webfactory_env.sitegen.registry import generator_version
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "2"
SIZES: dict[str, dict[str, int]] = {
    "easy": {
        "airports": 10,
        "airlines": 3,
        "extra_routes": 2,
        "cities": 5,
        "hotels": 4,
        "trips": 3,
    },
    "medium": {
        "airports": 14,
        "airlines": 4,
        "extra_routes": 4,
        "cities": 6,
        "hotels": 5,
        "trips": 4,
    },
    "hard": {
        "airports": 18,
        "airlines": 5,
        "extra_routes": 6,
        "cities": 8,
        "hotels": 6,
        "trips": 5,
    },
}
# Share of sites whose first booking request fails with a 503 that Retry resolves.
BOOKING_GLITCH = {"easy": 0.1, "medium": 0.3, "hard": 0.5}
REF_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROOM_BASE_PRICE = {2: 89, 3: 139, 4: 219, 5: 359}  # dollars a night, by stars


def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The travel site that `seed` determines: airports, airlines, a route network with
    timetables, hotels with rooms, the member account and its trips, and the variation."""
    root = SeedStream(seed).child("travel")
    size = SIZES[difficulty]
    words = vocab()
    brand_rng = root.child("copy").child("brand")
    brand = f"{brand_rng.choice(words['brand_first'])}{brand_rng.choice(words['brand_second'])}"
    today = _today(root.child("calendar"))
    content = root.child("content")
    pool = network.pick_airports(content.child("airports"), size["airports"])
    routes, from_hub = network.network(content.child("network"), pool, size["extra_routes"])
    airports = tuple(Airport(**a, from_hub=from_hub[a["code"]]) for a in pool)
    airlines = network.airlines(content.child("airlines"), size["airlines"])
    flights = network.timetables(content.child("schedules"), routes, airlines, pool)
    cities = _cities(content.child("cities"), airports, size["cities"])
    hotels, rooms = _hotels(content.child("hotels"), cities, size["hotels"])
    member = _member(content.child("member"), airlines, seed)
    trips = _trips(content.child("trips"), airports, airlines, size["trips"], today, seed)
    behavior = root.child("behavior")
    extra = {
        "hub": HUB,
        "booking_glitch": behavior.child("booking").chance(BOOKING_GLITCH[difficulty]),
        "fare_rules_widget": behavior.child("fare-rules").choice(("tabs", "accordion")),
    }
    static = (
        "/",
        "/flights",
        "/flights/results",
        "/hotels",
        *(f"/hotels/in/{c.slug}" for c in cities),
        *(f"/hotel/{h.id}" for h in hotels),
        "/itinerary",
        "/checkout",
        "/login",
        "/login/verify",
        "/trips",
    )
    return SiteSpec(
        family="travel",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("travel", FAMILY_VERSION),
        brand=brand,
        variation=Variation.draw(seed, difficulty, overrides).to_json(),
        entities={
            "airports": airports,
            "airlines": airlines,
            "routes": routes,
            "flights": flights,
            "cities": cities,
            "hotels": hotels,
            "rooms": rooms,
            "members": (member,),
            "trips": trips,
        },
        routes=static,
        start_route="/",
        today=today,
        extra=extra,
    )


def sms_code(seed: int, n: int) -> str:
    """The `n`-th one-time code the site texts to the member's phone."""
    return f"{hash_to_int(f'travel:{seed}:otp:{n}', 32) % 1_000_000:06d}"


def reference_code(text: str) -> str:
    """A six-character booking reference (no 0/O or 1/I to misread)."""
    x = hash_to_int(text, 60)
    out = []
    for _ in range(6):
        x, k = divmod(x, len(REF_ALPHABET))
        out.append(REF_ALPHABET[k])
    return "".join(out)


def _today(rng: SeedStream) -> str:
    """A Friday, Saturday or Sunday early in 2026. From a weekend, next Monday comes before
    next Friday, so "depart next Monday, return next Friday" is a real trip."""
    first_friday = dt.date(2026, 1, 9)
    return (first_friday + dt.timedelta(days=7 * rng.randint(0, 6) + rng.randint(0, 2))).isoformat()


def _cities(rng: SeedStream, airports: tuple[Airport, ...], n: int) -> tuple[City, ...]:
    """Hotel cities: San Francisco, New York, and other metros the site flies to."""
    metros: dict[str, str] = {}
    for a in sorted(airports, key=lambda a: a.code):
        metros.setdefault(a.metro, a.region)
    others = [m for m in metros if m not in ("San Francisco", "New York")]
    names = ["San Francisco", "New York", *rng.sample(others, min(n - 2, len(others)))]
    region = {"New York": "NY", "San Francisco": "CA", "Washington": "DC", "Chicago": "IL"}
    return tuple(
        City(name, slugify(name), region.get(name, metros[name])) for name in sorted(names)
    )


# ------------------------------------------------------------------------ hotels
def _hotels(
    rng: SeedStream, cities: tuple[City, ...], per_city: int
) -> tuple[tuple[Hotel, ...], tuple[Room, ...]]:
    """Hotels and their rooms, with the guarantees the task library relies on."""
    names = [f"{a} {b}" for a in vocab()["hotel_first"] for b in vocab()["hotel_second"]]
    rng.child("names").shuffle(names)
    name_iter = iter(names)
    drafts: list[dict[str, Any]] = []
    for city in cities:
        here = _city_hotels(rng.child(f"city:{city.slug}"), city, per_city, name_iter)
        _three_star_tops_the_ratings(here)  # "four stars or more" changes the best-rated hotel
        drafts += here
    _one_hotel_fully_booked(rng.child("sold-out"), drafts, cities)  # never a city's best
    hotels = tuple(Hotel(**d) for d in sorted(drafts, key=lambda d: (d["city"], d["id"])))
    rooms = tuple(room for h in hotels for room in _rooms(rng.child(f"rooms:{h.id}"), h))
    return hotels, rooms


def _city_hotels(rng: SeedStream, city: City, n: int, names: Any) -> list[dict[str, Any]]:
    """A city's hotels: a four-star, a five-star, a three-star and random others, whose
    ratings all differ (so "the best-rated hotel" of a city is one hotel)."""
    hoods = vocab()["neighborhoods"].get(city.name, vocab()["generic_neighborhoods"])
    stars = [4, 5, 3] + [rng.randint(2, 5) for _ in range(n - 3)]
    tenths: set[int] = set()
    out = []
    for i in range(n):
        t = rng.randint(62, 97)
        while t in tenths:
            t = t - 1 if t > 62 else 97
        tenths.add(t)
        name = next(names)
        out.append(
            dict(
                id="H-" + short_hash(f"hotel:{city.slug}:{name}", 6),
                name=name,
                city=city.name,
                neighborhood=rng.choice(hoods),
                stars=stars[i],
                rating=t / 10,
                reviews=rng.randint(40, 4200),
                amenities=tuple(sorted(rng.sample(vocab()["amenities"], rng.randint(3, 6)))),
                sold_out=False,
                description=rng.choice(vocab()["hotel_descriptions"]),
            )
        )
    return out


def _three_star_tops_the_ratings(here: list[dict[str, Any]]) -> None:
    """The city's three-star hotel trades ratings with its best-rated hotel: a well-loved
    small hotel is the city's best, so a filter on stars changes which hotel is best."""
    gem = next(d for d in here if d["stars"] == 3)
    best = max(here, key=lambda d: d["rating"])
    gem["rating"], best["rating"] = best["rating"], gem["rating"]


def _one_hotel_fully_booked(
    rng: SeedStream, drafts: list[dict[str, Any]], cities: tuple[City, ...]
) -> None:
    """Exactly one hotel of three stars or fewer is fully booked, never its city's best, and
    every city keeps a four-star hotel."""
    candidates = []
    for city in cities:
        here = [d for d in drafts if d["city"] == city.name]
        best = max(here, key=lambda d: d["rating"])
        candidates += [d for d in here if d["stars"] <= 3 and d is not best]
    candidates.sort(key=lambda d: d["id"])
    if not candidates:  # every low-star hotel is its city's best: demote a spare one
        here = [d for d in drafts if d["city"] == cities[0].name and d["stars"] >= 4]
        fours = [d for d in here if d["stars"] == 4]
        spare = [d for d in here if d["stars"] == 5 or len(fours) > 1]  # keep a four-star
        worst = min(spare, key=lambda d: d["rating"])
        worst["stars"] = 3
        candidates = [worst]
    rng.choice(candidates)["sold_out"] = True


def _rooms(rng: SeedStream, h: Hotel) -> list[Room]:
    """A hotel's rooms, cheapest first. Room prices differ within a hotel (so "the cheapest
    room" is one room), and the cheapest room of a hotel that is not fully booked is free."""
    kinds = sorted(rng.sample(vocab()["rooms"], rng.randint(3, 4)), key=lambda k: k["factor"])
    city_factor = vocab()["city_price"].get(h.city, 1.0)
    priced = [
        (
            round(
                ROOM_BASE_PRICE[h.stars] * city_factor * k["factor"] * (0.9 + 0.2 * rng.random())
            ),
            k,
        )
        for k in kinds
    ]
    priced.sort(key=lambda pk: (pk[0], pk[1]["name"]))
    rooms: list[Room] = []
    for i, (price, k) in enumerate(priced):
        if rooms and price <= rooms[-1].price:
            price = rooms[-1].price + 1
        rooms.append(
            Room(
                id=f"{h.id}-R{i + 1}",
                hotel_id=h.id,
                name=k["name"],
                beds=k["beds"],
                capacity=k["capacity"],
                price=price,
                refundable=rng.chance(0.6),
                available=not h.sold_out and (i == 0 or not rng.chance(0.2)),
            )
        )
    return rooms


# ----------------------------------------------------------------------- members
def _member(rng: SeedStream, airlines: tuple[Airline, ...], seed: int) -> Member:
    words = vocab()
    first = rng.choice(words["first_names"])
    last = rng.choice(words["last_names"])
    password = (
        f"{rng.choice(words['password_words'])}-{rng.randint(1000, 9999)}{rng.choice('!#$%?')}"
    )
    return Member(
        first_name=first,
        last_name=last,
        email=f"{first}.{last}@example.com".lower(),
        password=password,
        phone=f"+1 415 555 {rng.randint(100, 999):04d}",
        sms_code=sms_code(seed, 1),
        loyalty_number=f"{rng.choice(airlines).code}{rng.randint(10_000_000, 99_999_999)}",
    )


def _trips(
    rng: SeedStream,
    airports: tuple[Airport, ...],
    airlines: tuple[Airline, ...],
    n: int,
    today: str,
    seed: int,
) -> tuple[MemberTrip, ...]:
    """The member's trips: distinct destinations; exactly one upcoming refundable trip (the
    one that can be cancelled), one upcoming non-refundable trip and one completed trip."""
    hub_metro = next(a.metro for a in airports if a.code == HUB)
    metros = sorted({a.metro for a in airports if a.metro != hub_metro})
    destinations = rng.sample(metros, min(n, len(metros)))
    start = dt.date.fromisoformat(today)
    out = []
    for i, dest in enumerate(destinations):
        r = rng.child(f"trip:{i}")
        kind = (
            ("upcoming-refundable", "completed", "upcoming-locked")[i]
            if i < 3
            else r.choice(("completed", "upcoming-locked", "cancelled"))
        )
        upcoming = kind.startswith("upcoming")
        depart = start + dt.timedelta(days=r.randint(10, 80) if upcoming else -r.randint(20, 300))
        back = depart + dt.timedelta(days=r.randint(2, 9))
        refundable = kind == "upcoming-refundable" or (not upcoming and r.chance(0.5))
        out.append(
            MemberTrip(
                reference=reference_code(f"travel:{seed}:trip:{i}"),
                destination=dest,
                depart=depart.isoformat(),
                return_date=back.isoformat(),
                airline=r.choice(airlines).name,
                status="upcoming" if upcoming else kind,
                total=r.randint(240, 1900),
                refundable=refundable,
                cancellable=upcoming and refundable,
            )
        )
    out.sort(key=lambda t: t.depart, reverse=True)
    return tuple(out)
