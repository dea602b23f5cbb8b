"""The `travel` family: flight search (typeahead airports, calendar dates, one-way or round
trip), sortable and filterable results, fare rules, an itinerary, checkout with an occasional
booking-service failure, hotels by city with rooms, and a member area behind sign-in with an
SMS one-time code."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from webfactory_env.core.predicates import All, Any_, Contains, Eq, Not, Ref
from webfactory_env.core.resources import read_text
from webfactory_env.core.seeding import SeedStream, hash_to_int, short_hash
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp, handler
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.registry import Family, generator_version, register_family
from webfactory_env.sitegen.spec import AppEvent, AttrValue, Option, SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "1"
HUB = "SFO"  # every site sells trips from the San Francisco hub
REQUIRED_AIRPORTS = ("SFO", "JFK", "LGA", "EWR")  # incl. the New York metro ambiguity
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
BOOKING_GLITCH = {"easy": 0.1, "medium": 0.3, "hard": 0.5}  # share of sites whose first
# booking request fails with a 503 that Retry resolves
LGA_PERIMETER_KM = 2400  # LaGuardia has no nonstop flights beyond this distance
BOOKING_WINDOW_DAYS = 330
MAX_NIGHTS = 30
RESULTS_PAGE = 10
HOTELS_PAGE = 8
BRANDS = ("basic", "standard", "flex")
BRAND_FACTOR = {"basic": 0.8, "standard": 1.0, "flex": 1.5}
WEEKDAY_FACTOR = (1.0, 0.9, 0.92, 1.02, 1.12, 0.95, 1.14)  # Monday .. Sunday
FLIGHT_SORTS = ("best", "price-asc", "price-desc", "duration-asc", "departure-asc")
FLIGHT_SORT_ATTRS = {
    "best": {"key": "best", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "duration-asc": {"key": "duration", "order": "asc"},
    "departure-asc": {"key": "departure", "order": "asc"},
}
FLIGHT_SORT_ALIASES = {
    "best": ("best", "recommended", "default"),
    "price-asc": ("asc", "ascending", "cheapest", "low to high"),
    "price-desc": ("desc", "descending", "high to low"),
    "duration-asc": ("asc", "ascending", "shortest", "fastest"),
    "departure-asc": ("asc", "ascending", "earliest"),
}
HOTEL_SORTS = ("recommended", "price-asc", "price-desc", "rating-desc", "stars-desc")
HOTEL_SORT_ATTRS = {
    "recommended": {"key": "recommended", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "rating-desc": {"key": "rating", "order": "desc"},
    "stars-desc": {"key": "stars", "order": "desc"},
}
HOTEL_SORT_ALIASES = {
    "recommended": ("recommended", "default"),
    "price-asc": ("asc", "ascending", "cheapest", "low to high"),
    "price-desc": ("desc", "descending", "high to low"),
    "rating-desc": ("desc", "descending", "best rated", "top rated"),
    "stars-desc": ("desc", "descending", "most stars"),
}
STOP_OPTIONS = (
    ("any", ("any", "all")),
    ("0", ("nonstop", "non-stop", "direct")),
    ("1", ("1 stop", "one stop")),
)
STAR_OPTIONS = (
    ("any", ("any", "all")),
    ("3", ("3+", "3 stars")),
    ("4", ("4+", "4 stars")),
    ("5", ("5 stars",)),
)
RATING_OPTIONS = (("any", ("any", "all")), ("7", ("7+",)), ("8", ("8+",)), ("9", ("9+",)))
PRICE_OPTIONS = (
    ("any", ("any", "all")),
    ("150", ("under 150",)),
    ("250", ("under 250",)),
    ("400", ("under 400",)),
)
SEATS = ("none", "aisle", "window")
CANCEL_REASONS = ("plans_changed", "found_better", "other")
PASSENGER_FIELDS = ("first_name", "last_name", "email", "phone", "loyalty_number")
REQUIRED_PASSENGER = ("first_name", "last_name", "email")
REF_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


# ------------------------------------------------------------------------ entities
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
    """The site's member account. The task giver knows these; app state never holds them."""

    first_name: str
    last_name: str
    email: str
    password: str
    phone: str
    sms_code: str  # the first one-time code the site will text
    loyalty_number: str


@dataclass(frozen=True, slots=True)
class Trip:
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
def _vocab() -> dict[str, Any]:
    return json.loads(read_text("sites", "travel", "vocab.json"))


# ------------------------------------------------------------------------ helpers
def money(dollars: int | float) -> str:
    return f"${dollars:,.0f}"


def clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def span(minutes: int) -> str:
    return f"{minutes // 60}h {minutes % 60:02d}m"


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _round5(x: float) -> int:
    return int(5 * round(x / 5))


def distance_km(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    """Great-circle distance, rounded to 10 km (stable against last-digit float noise)."""
    la1, lo1, la2, lo2 = (math.radians(v) for v in (a["lat"], a["lon"], b["lat"], b["lon"]))
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return int(round(2 * 6371 * math.asin(math.sqrt(h)), -1))


def block_minutes(km: int, eastbound: bool) -> int:
    """Gate-to-gate time of one leg: taxi and climb, then cruise with or against the jet
    stream."""
    return _round5(35 + km / 13.0 * (0.92 if eastbound else 1.08))


def _code_digits(seed: int, n: int) -> str:
    return f"{hash_to_int(f'travel:{seed}:otp:{n}', 32) % 1_000_000:06d}"


def _reference(text: str) -> str:
    x = hash_to_int(text, 60)
    out = []
    for _ in range(6):
        x, k = divmod(x, len(REF_ALPHABET))
        out.append(REF_ALPHABET[k])
    return "".join(out)


@lru_cache(maxsize=4096)
def parse_date(text: str) -> dt.date | None:
    """ISO dates, and the US and slashed forms people type."""
    text = text.strip()
    if len(text) == 10 and text[4] == "-" and text[7] == "-":
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            return None
    for fmt in ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _norm_date(text: str) -> str:
    d = parse_date(text)
    return d.isoformat() if d else text.strip()[:20]


# ---------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The travel site that `seed` determines: airports, airlines, a route network with
    schedules, hotels with rooms, the member account and its trips, and the variation."""
    root = SeedStream(seed).child("travel")
    size = SIZES[difficulty]
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    brand = f"{brand_rng.choice(vocab['brand_first'])}{brand_rng.choice(vocab['brand_second'])}"
    today = _today(root.child("calendar"))
    content = root.child("content")
    pool = _pick_airports(content.child("airports"), size["airports"])
    routes, from_hub = _network(content.child("network"), pool, size["extra_routes"])
    airports = tuple(Airport(**a, from_hub=from_hub[a["code"]]) for a in pool)
    airlines = _airlines(content.child("airlines"), size["airlines"])
    flights = _schedules(content.child("schedules"), routes, airlines, pool)
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
    variation = Variation.draw(seed, difficulty, overrides)
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
        variation=variation.to_json(),
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


def _today(rng: SeedStream) -> str:
    """A Friday, Saturday or Sunday early in 2026. From a weekend, next Monday comes before
    next Friday, so "depart next Monday, return next Friday" is a real trip."""
    first_friday = dt.date(2026, 1, 9)
    return (first_friday + dt.timedelta(days=7 * rng.randint(0, 6) + rng.randint(0, 2))).isoformat()


def _pick_airports(rng: SeedStream, n: int) -> list[dict[str, Any]]:
    pool = {a["code"]: a for a in _vocab()["airports"]}
    others = [c for c in sorted(pool) if c not in REQUIRED_AIRPORTS]
    chosen = [*REQUIRED_AIRPORTS, *rng.sample(others, n - len(REQUIRED_AIRPORTS))]
    return [dict(pool[c]) for c in sorted(chosen)]


def _network(
    rng: SeedStream, airports: list[dict[str, Any]], extra: int
) -> tuple[tuple[Route, ...], dict[str, str]]:
    """Routes: the hub to every airport outside its metro (nonstop or connecting only), plus
    a few point-to-point routes. JFK and EWR always have nonstops from the hub; LaGuardia's
    perimeter rule makes it connecting-only from far away."""
    by_code = {a["code"]: a for a in airports}
    hub = by_code[HUB]
    from_hub: dict[str, str] = {HUB: "hub"}
    pairs: dict[tuple[str, str], bool] = {}
    for a in airports:
        code = a["code"]
        if code == HUB:
            continue
        if a["metro"] == hub["metro"]:
            from_hub[code] = "same_metro"
            continue
        km = distance_km(hub, a)
        if code == "LGA" and km > LGA_PERIMETER_KM:
            nonstop = False
        elif code in ("JFK", "EWR"):
            nonstop = True
        else:
            nonstop = rng.child(f"hub:{code}").chance(0.7)
        from_hub[code] = "nonstop" if nonstop else "connecting"
        pairs[(HUB, code)] = nonstop
    candidates = [
        (a["code"], b["code"])
        for a in airports
        for b in airports
        if a["code"] < b["code"]
        and HUB not in (a["code"], b["code"])
        and a["metro"] != b["metro"]
        and distance_km(a, b) >= 400
    ]
    for x, y in rng.child("extra").sample(candidates, min(extra, len(candidates))):
        perimeter = "LGA" in (x, y) and distance_km(by_code[x], by_code[y]) > LGA_PERIMETER_KM
        pairs[(x, y)] = not perimeter
    routes = []
    for (x, y), nonstop in sorted(pairs.items()):
        km = distance_km(by_code[x], by_code[y])
        routes.append(Route(x, y, nonstop, km))
        routes.append(Route(y, x, nonstop, km))
    routes.sort(key=lambda r: (r.origin, r.destination))
    return tuple(routes), from_hub


def _airlines(rng: SeedStream, n: int) -> tuple[Airline, ...]:
    pool = _vocab()["airlines"]
    chosen = sorted(rng.sample(pool, n), key=lambda a: a["code"])
    return tuple(
        Airline(a["code"], a["name"], a["bag_fee"], a["change_fee"], a["basic"]) for a in chosen
    )


def _schedules(
    rng: SeedStream,
    routes: tuple[Route, ...],
    airlines: tuple[Airline, ...],
    airports: list[dict[str, Any]],
) -> tuple[Flight, ...]:
    """Flights per route. Each airline on a route flies it both ways, so round trips pair
    up; every route has a daily flight, and a daily nonstop when it has nonstop service.
    Every airline of the site flies the hub to JFK daily, nonstop."""
    vocab = _vocab()
    factor = {a["code"]: a["factor"] for a in vocab["airlines"]}
    by_code = {a["code"]: a for a in airports}
    all_airports = {a["code"]: a for a in vocab["airports"]}
    used_numbers: set[str] = set()
    flights: list[Flight] = []
    undirected = sorted({tuple(sorted((r.origin, r.destination))) for r in routes})
    nonstop_route = {(r.origin, r.destination): r.nonstop for r in routes}
    codes = [a.code for a in airlines]
    for x, y in undirected:
        r = rng.child(f"{x}-{y}")
        flagship = {x, y} == {HUB, "JFK"}
        carriers = codes if flagship else sorted(r.sample(codes, r.randint(1, min(3, len(codes)))))
        for origin, dest in ((x, y), (y, x)):
            leg_rng = r.child(f"{origin}>{dest}")
            nonstop_ok = nonstop_route[(origin, dest)]
            km = distance_km(by_code[origin], by_code[dest])
            east = by_code[dest]["lon"] > by_code[origin]["lon"]
            made_daily_nonstop = False
            for i, airline in enumerate(carriers):
                count = leg_rng.randint(2, 3) if flagship else leg_rng.randint(1, 2)
                for j in range(count):
                    # The first flight of the first carrier (of every carrier on the flagship
                    # route) is daily, and nonstop when the route allows.
                    anchor = j == 0 and (flagship or i == 0)
                    nonstop = nonstop_ok and (anchor or leg_rng.chance(0.6))
                    made_daily_nonstop |= anchor and nonstop
                    depart = 6 * 60 + 5 * leg_rng.randint(0, 191)
                    if nonstop:
                        duration = block_minutes(km, east) + 5 * leg_rng.randint(-2, 2)
                        via, stops = "", 0
                    else:
                        via = _via(leg_rng, by_code[origin], by_code[dest], all_airports)
                        leg1 = distance_km(by_code[origin], all_airports[via])
                        leg2 = distance_km(all_airports[via], by_code[dest])
                        east1 = all_airports[via]["lon"] > by_code[origin]["lon"]
                        east2 = by_code[dest]["lon"] > all_airports[via]["lon"]
                        layover = 5 * leg_rng.randint(9, 30)
                        duration = block_minutes(leg1, east1) + layover + block_minutes(leg2, east2)
                        stops = 1
                    days = "1234567"
                    if not anchor and leg_rng.chance(0.25):
                        dropped = leg_rng.sample("1234567", leg_rng.randint(1, 2))
                        days = "".join(d for d in "1234567" if d not in dropped)
                    fare = (49 + 0.072 * km) * factor[airline]
                    fare *= 0.86 if stops else 1.0
                    fare *= 0.9 if depart < 7 * 60 or depart >= 21 * 60 else 1.0
                    fare *= 0.95 + 0.1 * leg_rng.random()
                    number = f"{airline}{leg_rng.randint(100, 2999)}"
                    while number in used_numbers:
                        number = f"{airline}{int(number[2:]) % 2999 + 100}"
                    used_numbers.add(number)
                    size = "short" if km < 1200 else "medium" if km < 3600 else "long"
                    flights.append(
                        Flight(
                            id=number,
                            airline=airline,
                            origin=origin,
                            destination=dest,
                            depart=depart,
                            duration=duration,
                            stops=stops,
                            via=via,
                            days=days,
                            base_fare=round(fare),
                            aircraft=leg_rng.choice(vocab["aircraft"][size]),
                        )
                    )
            assert made_daily_nonstop or not nonstop_ok
    flights.sort(key=lambda f: (f.origin, f.destination, f.depart, f.id))
    return tuple(flights)


def _via(
    rng: SeedStream,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    pool: Mapping[str, Mapping[str, Any]],
) -> str:
    """A connection airport: the least detour among three candidate hubs."""
    hubs = [
        c for c in _vocab()["connection_hubs"] if pool[c]["metro"] not in (a["metro"], b["metro"])
    ]
    options = rng.sample(hubs, min(3, len(hubs)))
    return min(options, key=lambda c: (distance_km(a, pool[c]) + distance_km(pool[c], b), c))


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


def _hotels(
    rng: SeedStream, cities: tuple[City, ...], per_city: int
) -> tuple[tuple[Hotel, ...], tuple[Room, ...]]:
    """Hotels and rooms. In every city the best-rated hotel of four stars or more has
    rooms; exactly one three-star-or-less hotel on the site is fully booked."""
    vocab = _vocab()
    names = [f"{a} {b}" for a in vocab["hotel_first"] for b in vocab["hotel_second"]]
    rng.child("names").shuffle(names)
    name_iter = iter(names)
    drafts: list[dict[str, Any]] = []
    for city in cities:
        c = rng.child(f"city:{city.slug}")
        hoods = vocab["neighborhoods"].get(city.name, vocab["generic_neighborhoods"])
        stars = [4, 5, 3] + [c.randint(2, 5) for _ in range(per_city - 3)]
        tenths: set[int] = set()
        for i in range(per_city):
            t = c.randint(62, 97)
            while t in tenths:  # ratings differ within a city: "the best rated" is one hotel
                t = t - 1 if t > 62 else 97
            tenths.add(t)
            rating = t / 10
            name = next(name_iter)
            drafts.append(
                dict(
                    id="H-" + short_hash(f"hotel:{city.slug}:{name}", 6),
                    name=name,
                    city=city.name,
                    neighborhood=c.choice(hoods),
                    stars=stars[i],
                    rating=rating,
                    reviews=c.randint(40, 4200),
                    amenities=tuple(sorted(c.sample(vocab["amenities"], c.randint(3, 6)))),
                    sold_out=False,
                    description=c.choice(vocab["hotel_descriptions"]),
                )
            )
    # Exactly one fully booked hotel: never a city's only low-star hotel nor its best.
    candidates = []
    for city in cities:
        here = [d for d in drafts if d["city"] == city.name]
        best = max(here, key=lambda d: d["rating"])
        candidates += [d for d in here if d["stars"] <= 3 and d is not best]
    candidates.sort(key=lambda d: d["id"])
    if not candidates:  # every low-star hotel is its city's best: demote a city's worst
        worst = min((d for d in drafts if d["city"] == cities[0].name), key=lambda d: d["rating"])
        worst["stars"] = 3
        candidates = [worst]
    rng.child("sold-out").choice(candidates)["sold_out"] = True
    hotels = tuple(Hotel(**d) for d in sorted(drafts, key=lambda d: (d["city"], d["id"])))
    rooms: list[Room] = []
    base = {2: 89, 3: 139, 4: 219, 5: 359}
    for h in hotels:
        r = rng.child(f"rooms:{h.id}")
        kinds = sorted(r.sample(vocab["rooms"], r.randint(3, 4)), key=lambda k: k["factor"])
        city_factor = vocab["city_price"].get(h.city, 1.0)
        priced = [
            (round(base[h.stars] * city_factor * k["factor"] * (0.9 + 0.2 * r.random())), k)
            for k in kinds
        ]
        priced.sort(key=lambda pk: (pk[0], pk[1]["name"]))
        for i, (price, k) in enumerate(priced):
            # The cheapest room of a hotel that is not fully booked is always free.
            available = not h.sold_out and (i == 0 or not r.chance(0.2))
            rooms.append(
                Room(
                    id=f"{h.id}-R{i + 1}",
                    hotel_id=h.id,
                    name=k["name"],
                    beds=k["beds"],
                    capacity=k["capacity"],
                    price=price,
                    refundable=r.chance(0.6),
                    available=available,
                )
            )
    return hotels, tuple(rooms)


def _member(rng: SeedStream, airlines: tuple[Airline, ...], seed: int) -> Member:
    vocab = _vocab()
    first = rng.choice(vocab["first_names"])
    last = rng.choice(vocab["last_names"])
    password = (
        f"{rng.choice(vocab['password_words'])}-{rng.randint(1000, 9999)}{rng.choice('!#$%?')}"
    )
    return Member(
        first_name=first,
        last_name=last,
        email=f"{first}.{last}@example.com".lower(),
        password=password,
        phone=f"+1 415 555 {rng.randint(100, 999):04d}",
        sms_code=_code_digits(seed, 1),
        loyalty_number=f"{rng.choice(airlines).code}{rng.randint(10_000_000, 99_999_999)}",
    )


def _trips(
    rng: SeedStream,
    airports: tuple[Airport, ...],
    airlines: tuple[Airline, ...],
    n: int,
    today: str,
    seed: int,
) -> tuple[Trip, ...]:
    """The member's trips: distinct destinations; at least one upcoming refundable trip
    (cancellable), one upcoming non-refundable trip and one completed trip."""
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
        status = "upcoming" if upcoming else kind
        out.append(
            Trip(
                reference=_reference(f"travel:{seed}:trip:{i}"),
                destination=dest,
                depart=depart.isoformat(),
                return_date=back.isoformat(),
                airline=r.choice(airlines).name,
                status=status,
                total=r.randint(240, 1900),
                refundable=refundable,
                cancellable=upcoming and refundable,
            )
        )
    out.sort(key=lambda t: t.depart, reverse=True)
    return tuple(out)


# ------------------------------------------------------------------------ pricing
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


@dataclass(frozen=True)
class Offer:
    """A bookable trip: one flight each way on its date, sold in a fare brand family."""

    id: str
    legs: tuple[tuple[Flight, dt.date], ...]
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


def offer_id(legs: Sequence[tuple[Flight, dt.date]]) -> str:
    return "_".join(f"{f.id}-{d.strftime('%Y%m%d')}" for f, d in legs)


_OFFER_LEG = re.compile(r"^([A-Z]{2}\d{3,4})-(\d{8})$")


# ----------------------------------------------------------------------- validation
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*\.?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)*\.[A-Za-z]{2,}$")
_PHONE = re.compile(r"^\+?[\d\s().\-]+$")
_LOYALTY = re.compile(r"^[A-Z]{2}\d{8}$")


def validate_passenger(values: Mapping[str, str], strict: bool = False) -> dict[str, str]:
    """Field -> error key for every invalid passenger field (empty when valid)."""
    errors: dict[str, str] = {}
    for name in REQUIRED_PASSENGER:
        if not values.get(name, "").strip():
            errors[name] = "required"
    for name in ("first_name", "last_name"):
        v = values.get(name, "").strip()
        if name not in errors and (not _NAME.match(v) or (strict and len(v) < 2)):
            errors[name] = "name"
    email = values.get("email", "").strip()
    if "email" not in errors and not _EMAIL.match(email):
        errors["email"] = "email"
    phone = values.get("phone", "").strip()
    digits = sum(ch.isdigit() for ch in phone)
    if phone and (not _PHONE.match(phone) or not 10 <= digits <= 15):
        errors["phone"] = "phone"
    loyalty = values.get("loyalty_number", "").strip().upper().replace(" ", "")
    if loyalty and not _LOYALTY.match(loyalty):
        errors["loyalty_number"] = "loyalty_number"
    return errors


def validate_dates(
    first: str,
    second: str,
    today: dt.date,
    *,
    second_required: bool,
    names: tuple[str, str],
    min_gap: int,
    max_gap: int | None,
) -> dict[str, str]:
    """Errors of a date pair (departure and return, or check-in and check-out)."""
    errors: dict[str, str] = {}
    a, b = parse_date(first), parse_date(second)
    last = today + dt.timedelta(days=BOOKING_WINDOW_DAYS)
    if not first.strip():
        errors[names[0]] = "required"
    elif a is None:
        errors[names[0]] = "date"
    elif a < today:
        errors[names[0]] = "past"
    elif a > last:
        errors[names[0]] = "too_far"
    if not second_required:
        return errors
    if not second.strip():
        errors[names[1]] = "required"
    elif b is None:
        errors[names[1]] = "date"
    elif a is not None and (b - a).days < min_gap:
        errors[names[1]] = "before_start" if min_gap == 0 else "no_nights"
    elif b > last + dt.timedelta(days=MAX_NIGHTS):
        errors[names[1]] = "too_far"
    elif a is not None and max_gap is not None and (b - a).days > max_gap:
        errors[names[1]] = "too_long"
    return errors


def _route_effect(route: str) -> Eq:
    return Eq(("route",), route)


# ------------------------------------------------------------------------------ app
class TravelApp(SiteApp):
    """The running travel site: searches, results, itinerary, bookings, member area."""

    family = "travel"

    def __init__(self, site: Any) -> None:
        super().__init__(site)
        e = self.spec.entities
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
        self.member_trips: tuple[Trip, ...] = e["trips"]
        self.strict = self.spec.difficulty == "hard"
        self.forms: dict[str, dict[str, str]] = {
            "flight_search": {
                "origin": "",
                "origin_text": "",
                "destination": "",
                "destination_text": "",
                "roundtrip": "false",
                "depart_date": "",
                "return_date": "",
                "passengers": "1",
            },
            "hotel_search": {
                "city": "",
                "city_text": "",
                "checkin_date": "",
                "checkout_date": "",
                "guests": "2",
            },
            "stay": {"checkin_date": "", "checkout_date": "", "guests": "2"},
            "passenger": {**dict.fromkeys(PASSENGER_FIELDS, ""), "seat": "none"},
            "login": {"email": ""},
            "cancel_trip": {"reason": "plans_changed"},
            "newsletter": {"email": ""},
        }
        # Secrets typed into the page live here only: never in state().
        self._password = ""
        self._otp = ""
        self.errors_by_form: dict[str, dict[str, str]] = {
            "flight_search": {},
            "hotel_search": {},
            "stay": {},
            "passenger": {},
            "login": {},
            "otp": {},
        }
        self.submitted: set[str] = set()
        self.search: dict[str, str] = {}
        self.flight_sort = "best"
        self.flight_filters = {"airline": "", "stops": "any"}
        self.results_page = 1
        self.stay: dict[str, str] = {}
        self.hotel_sort = "recommended"
        self.hotel_filters = {"stars": "any", "rating": "any", "price": "any"}
        self.hotel_pages: dict[str, int] = {}
        self.fare_choice: dict[str, str] = {}
        self.itinerary: dict[str, Any] = self._empty_itinerary()
        self.bookings: list[dict[str, Any]] = []
        self.glitch_pending = bool(self.spec.extra.get("booking_glitch"))
        self.auth: dict[str, Any] = {"stage": "signed_out", "email": "", "codes_sent": 0}
        self.cancelled: list[str] = []
        self.saved: list[str] = []
        self.insurance = False
        self.price_alert = False
        self._offers: dict[tuple[Any, ...], list[Offer]] = {}
        self._offer_by_id: dict[str, Offer | None] = {}

    @staticmethod
    def _empty_itinerary() -> dict[str, Any]:
        return {"flights": {}, "rooms": {}, "status": "empty", "reference": "", "lead": {}}

    # ------------------------------------------------------------------ data
    def today_date(self) -> dt.date:
        return self.today()

    def offer(self, oid: str) -> Offer | None:
        """The offer an id names, if its flights exist and fly on those dates."""
        if oid not in self._offer_by_id:
            if len(self._offer_by_id) > 4096:  # ids come from the page: keep memory bounded
                self._offer_by_id.clear()
            self._offer_by_id[oid] = self._parse_offer(oid)
        return self._offer_by_id[oid]

    def _parse_offer(self, oid: str) -> Offer | None:
        parts = oid.split("_")
        if not 1 <= len(parts) <= 2:
            return None
        legs: list[tuple[Flight, dt.date]] = []
        for part in parts:
            m = _OFFER_LEG.match(part)
            if not m or m.group(1) not in self.by_flight:
                return None
            try:
                day = dt.datetime.strptime(m.group(2), "%Y%m%d").date()
            except ValueError:
                return None
            flight = self.by_flight[m.group(1)]
            if str(day.isoweekday()) not in flight.days:
                return None
            legs.append((flight, day))
        if len(legs) == 2:
            (out, d1), (back, d2) = legs
            if (
                out.airline != back.airline
                or back.origin != out.destination
                or back.destination != out.origin
                or d2 < d1
            ):
                return None
        return self._make_offer(tuple(legs))

    def _make_offer(self, legs: tuple[tuple[Flight, dt.date], ...]) -> Offer:
        airline = self.by_airline[legs[0][0].airline]
        brands = BRANDS if airline.basic else BRANDS[1:]
        today = self.today_date()
        prices = {b: sum(fare_on(self.spec.seed, f, d, today, b) for f, d in legs) for b in brands}
        seats = min(seats_left(self.spec.seed, f, d) for f, d in legs)
        return Offer(offer_id(legs), legs, prices, seats)

    def offers_for(self, search: Mapping[str, str]) -> list[Offer]:
        """Every offer for a search, unsorted and unfiltered (cached per search)."""
        key = (
            search["origin"],
            search["destination"],
            search["roundtrip"],
            search["depart_date"],
            search["return_date"],
        )
        if key in self._offers:
            return self._offers[key]
        out: list[Offer] = []
        d1 = parse_date(search["depart_date"])
        if d1 is not None:
            outbound = [
                f
                for f in self.on_route.get((search["origin"], search["destination"]), [])
                if str(d1.isoweekday()) in f.days
            ]
            if search["roundtrip"] == "true":
                d2 = parse_date(search["return_date"])
                back = [
                    f
                    for f in self.on_route.get((search["destination"], search["origin"]), [])
                    if d2 is not None and str(d2.isoweekday()) in f.days
                ]
                for f in outbound:
                    for g in back:
                        if g.airline == f.airline and d2 is not None:
                            out.append(self._make_offer(((f, d1), (g, d2))))
            else:
                out = [self._make_offer(((f, d1),)) for f in outbound]
        self._offers[key] = out
        return out

    def results(self) -> list[Offer]:
        """The current search's offers, filtered and sorted as the page shows them."""
        if not self.search:
            return []
        items = list(self.offers_for(self.search))
        airline, stops = self.flight_filters["airline"], self.flight_filters["stops"]
        if airline:
            items = [o for o in items if o.airline == airline]
        if stops != "any":
            items = [o for o in items if o.stops <= int(stops)]
        keys: dict[str, Callable[[Offer], Any]] = {
            "best": lambda o: (o.price + 0.35 * o.duration, o.id),
            "price-asc": lambda o: (o.price, o.duration, o.id),
            "price-desc": lambda o: (-o.price, o.duration, o.id),
            "duration-asc": lambda o: (o.duration, o.price, o.id),
            "departure-asc": lambda o: (o.legs[0][0].depart, o.price, o.id),
        }
        items.sort(key=keys[self.flight_sort])
        return items

    def hotel_price(self, h: Hotel) -> int:
        rooms = self.rooms_of.get(h.id, [])
        free = [r.price for r in rooms if r.available]
        return min(free or [r.price for r in rooms] or [0])

    def hotel_listing(self, city: str) -> list[Hotel]:
        items = [h for h in self.hotels if h.city == city]
        f = self.hotel_filters
        if f["stars"] != "any":
            items = [h for h in items if h.stars >= int(f["stars"])]
        if f["rating"] != "any":
            items = [h for h in items if h.rating >= int(f["rating"])]
        if f["price"] != "any":
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
        items.sort(key=keys[self.hotel_sort])
        return items

    def nights(self) -> int:
        a, b = (
            parse_date(self.stay.get("checkin_date", "")),
            parse_date(self.stay.get("checkout_date", "")),
        )
        return (b - a).days if a and b else 0

    def otp_code(self, n: int) -> str:
        return _code_digits(self.spec.seed, n)

    def signed_in(self) -> bool:
        return self.auth["stage"] == "signed_in"

    def all_trips(self) -> list[dict[str, Any]]:
        """The member's trips, bookings made while signed in first."""
        out = [dict(b["trip"]) for b in reversed(self.bookings) if b.get("member")]
        for t in self.member_trips:
            d = {
                "reference": t.reference,
                "destination": t.destination,
                "depart": t.depart,
                "return_date": t.return_date,
                "airline": t.airline,
                "status": t.status,
                "total": t.total,
                "refundable": t.refundable,
                "cancellable": t.cancellable,
            }
            if t.reference in self.cancelled:
                d["status"], d["cancellable"] = "cancelled", False
            out.append(d)
        return out

    def trip(self, ref: str) -> dict[str, Any] | None:
        return next((t for t in self.all_trips() if t["reference"] == ref), None)

    # ----------------------------------------------------------------- state
    def state(self) -> dict[str, Any]:
        results = self.results()
        shown = min(
            len(results),
            self.ui.more.get("results", 1) * RESULTS_PAGE
            if self.v.list_mode == "infinite"
            else RESULTS_PAGE,
        )
        it = self.itinerary
        flights_total = sum(
            self.offer_price(oid, v["fare"]) * v["passengers"] for oid, v in it["flights"].items()
        )
        rooms_total = sum(self.by_room[rid].price * v["nights"] for rid, v in it["rooms"].items())
        city = self._city_of(self.route)
        return {
            "route": self.route,
            "page": self._page_kind(self.route),
            "forms": {
                **{k: dict(v) for k, v in self.forms.items()},
                "login": {
                    "email": self.forms["login"]["email"],
                    "password_given": bool(self._password),
                },
                "otp": {"code_entered": len(self._otp_digits()) == 6},
            },
            "search": {
                "done": bool(self.search),
                **{
                    k: self.search.get(k, "")
                    for k in (
                        "origin",
                        "destination",
                        "roundtrip",
                        "depart_date",
                        "return_date",
                        "passengers",
                    )
                },
                "errors": dict(self.errors_by_form["flight_search"]),
            },
            "results": {
                "count": len(results),
                "total": len(self.offers_for(self.search)) if self.search else 0,
                "sort": self.flight_sort,
                "filters": dict(self.flight_filters),
                "page": self.results_page,
                "pages": max(1, -(-len(results) // RESULTS_PAGE)),
                "shown": shown,
            },
            "offer": self._offer_state(),
            "stay": {
                "done": bool(self.stay),
                "city": self.stay.get("city", ""),
                "checkin_date": self.stay.get("checkin_date", ""),
                "checkout_date": self.stay.get("checkout_date", ""),
                "guests": self.stay.get("guests", ""),
                "nights": self.nights(),
                "errors": {**self.errors_by_form["hotel_search"], **self.errors_by_form["stay"]},
            },
            "hotels": {
                "city": city,
                "count": len(self.hotel_listing(city)) if city else 0,
                "sort": self.hotel_sort,
                "filters": dict(self.hotel_filters),
                "page": self.hotel_pages.get(self.by_city[city].slug, 1) if city else 1,
            },
            "hotel": self._hotel_state(),
            "itinerary": {
                "status": it["status"],
                "flights": list(it["flights"]),
                "fares": {k: v["fare"] for k, v in it["flights"].items()},
                "rooms": list(it["rooms"]),
                "hotels": sorted({self.by_room[r].hotel_id for r in it["rooms"]}),
                "flights_count": len(it["flights"]),
                "rooms_count": len(it["rooms"]),
                "count": len(it["flights"]) + len(it["rooms"]),
                "total": flights_total + rooms_total,
                "reference": it["reference"],
                "lead": dict(it["lead"]),
            },
            "checkout": {"errors": dict(self.errors_by_form["passenger"])},
            "bookings": {
                "count": len(self.bookings),
                "references": [b["reference"] for b in self.bookings],
            },
            "auth": {
                "signed_in": self.signed_in(),
                "stage": self.auth["stage"],
                "email": self.auth["email"],
                "codes_sent": self.auth["codes_sent"],
                "errors": {**self.errors_by_form["login"], **self.errors_by_form["otp"]},
            },
            "trips": {
                "count": len(self.all_trips()) if self.signed_in() else 0,
                "cancelled": list(self.cancelled),
            },
            "trip": self._trip_state(),
            "saved": list(self.saved),
            "extras": {"insurance": self.insurance, "price_alert": self.price_alert},
        }

    def offer_price(self, oid: str, brand: str) -> int:
        o = self.offer(oid)
        return o.prices.get(brand, o.price) if o else 0

    def _passengers(self) -> int:
        return int(self.search.get("passengers", "1") or 1)

    def _offer_state(self) -> dict[str, Any]:
        o = (
            self.offer(self.route[len("/flights/offer/") :])
            if self.route.startswith("/flights/offer/")
            else None
        )
        if o is None:
            return {
                "id": "",
                "trip": "",
                "airline": "",
                "fare": "",
                "price": 0,
                "total": 0,
                "checked_bag_fee": 0,
                "carry_on": False,
                "changes": "",
                "change_fee": 0,
                "refunds": "",
                "refundable": False,
                "seats_left": 0,
                "stops": 0,
                "duration": 0,
                "in_itinerary": False,
            }
        brand = self.fare_choice.get(o.id, o.cheapest_brand)
        rules = self.fare_rules(o, brand)
        return {
            "id": o.id,
            "trip": "roundtrip" if o.roundtrip else "oneway",
            "airline": self.by_airline[o.airline].name,
            "fare": brand,
            "price": o.prices[brand],
            "total": o.prices[brand] * self._passengers(),
            **rules,
            "seats_left": o.seats,
            "stops": o.stops,
            "duration": o.duration,
            "in_itinerary": o.id in self.itinerary["flights"],
        }

    def fare_rules(self, o: Offer, brand: str) -> dict[str, Any]:
        airline = self.by_airline[o.airline]
        if brand == "basic":
            return {
                "checked_bag_fee": airline.bag_fee,
                "carry_on": False,
                "changes": "not_allowed",
                "change_fee": 0,
                "refunds": "none",
                "refundable": False,
            }
        if brand == "standard":
            return {
                "checked_bag_fee": airline.bag_fee,
                "carry_on": True,
                "changes": "free" if airline.change_fee == 0 else "fee",
                "change_fee": airline.change_fee,
                "refunds": "credit",
                "refundable": False,
            }
        return {
            "checked_bag_fee": 0,
            "carry_on": True,
            "changes": "free",
            "change_fee": 0,
            "refunds": "full",
            "refundable": True,
        }

    def _hotel_state(self) -> dict[str, Any]:
        h = (
            self.by_hotel.get(self.route[len("/hotel/") :])
            if self.route.startswith("/hotel/")
            else None
        )
        if h is None:
            return {
                "id": "",
                "name": "",
                "city": "",
                "stars": 0,
                "rating": 0.0,
                "available": False,
                "rooms_available": 0,
                "price": 0,
            }
        free = [r for r in self.rooms_of.get(h.id, []) if r.available]
        return {
            "id": h.id,
            "name": h.name,
            "city": h.city,
            "stars": h.stars,
            "rating": h.rating,
            "available": bool(free),
            "rooms_available": len(free),
            "price": self.hotel_price(h),
        }

    def _trip_state(self) -> dict[str, Any]:
        t = (
            self.trip(self.route[len("/trips/") :])
            if self.route.startswith("/trips/") and self.signed_in()
            else None
        )
        if t is None:
            return {
                "reference": "",
                "destination": "",
                "status": "",
                "refundable": False,
                "cancellable": False,
            }
        return {
            k: t[k] for k in ("reference", "destination", "status", "refundable", "cancellable")
        }

    def _otp_digits(self) -> str:
        return "".join(ch for ch in self._otp if ch.isdigit())

    def _city_of(self, route: str) -> str:
        if route.startswith("/hotels/in/"):
            c = self.by_slug.get(route[len("/hotels/in/") :])
            return c.name if c else ""
        return ""

    def _page_kind(self, route: str) -> str:
        fixed = {
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
        if route in fixed:
            return fixed[route]
        if route.startswith("/flights/offer/") and self.offer(route[15:]) is not None:
            return "offer"
        if route.startswith("/hotels/in/") and route[11:] in self.by_slug:
            return "city"
        if route.startswith("/hotel/") and route[7:] in self.by_hotel:
            return "hotel"
        if route.startswith("/booking/") and any(
            b["reference"] == route[9:] for b in self.bookings
        ):
            return "booking"
        if route.startswith("/trips/") and self.trip(route[7:]) is not None:
            return "trip"  # behind the login wall when signed out
        return "not_found"

    def month_of(self, picker: str) -> str:
        """The month a calendar shows: where the user paged to, else the chosen date's
        month, else (for the second date of a pair) the first date's month, else today's."""
        if picker in self.ui.months:
            return self.ui.months[picker]
        form = self._picker_form()
        values = self.forms.get(form, {})
        pair = {"return_date": "depart_date", "checkout_date": "checkin_date"}
        for name in (picker, pair.get(picker, "")):
            d = parse_date(values.get(name, ""))
            if d is not None:
                return d.isoformat()[:7]
        return self.spec.today[:7]

    def _picker_form(self) -> str:
        kind = self._page_kind(self.route)
        return {"flights": "flight_search", "hotels": "hotel_search", "hotel": "stay"}.get(kind, "")

    # -------------------------------------------------------------- handlers
    @handler("field")
    def on_field(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        values = self.forms.get(form)
        if (
            values is None
            or name not in values
            or name.endswith("_text")
            or name
            in (
                "origin",
                "destination",
                "city",
                "roundtrip",
                "passengers",
                "guests",
                "seat",
                "reason",
            )
        ):
            return None
        value = (ev.value or "")[:200]
        values[name] = _norm_date(value) if name.endswith("_date") else value
        self._revalidate(form, name)
        return None

    @handler("secret")
    def on_secret(self, ev: AppEvent) -> str | None:
        if ev.arg == "login.password":
            self._password = (ev.value or "")[:200]
        elif ev.arg == "otp.code":
            self._otp = (ev.value or "")[:12]
        return None

    @handler("place_text")
    def on_place_text(self, ev: AppEvent) -> str | None:
        """Typing into an airport or city field: the text changes, the choice is undone."""
        form, _, name = (ev.arg or "").partition(".")
        values = self.forms.get(form)
        if values is None or f"{name}_text" not in values:
            return None
        text = (ev.value or "")[:60]
        if text != values[f"{name}_text"]:
            values[f"{name}_text"] = text
            values[name] = ""
        self._revalidate(form, name)
        return None

    @handler("pick_place")
    def on_pick_place(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        values = self.forms.get(form)
        value = ev.value or ""
        if values is None or f"{name}_text" not in values:
            return None
        if name == "city" and value in self.by_city:
            values["city"], values["city_text"] = value, value
        elif name != "city" and value in self.by_airport:
            a = self.by_airport[value]
            values[name], values[f"{name}_text"] = value, f"{a.city} ({a.code})"
        self._revalidate(form, name)
        return None

    @handler("set_trip")
    def on_set_trip(self, ev: AppEvent) -> str | None:
        if ev.value in ("true", "false"):
            f = self.forms["flight_search"]
            f["roundtrip"] = ev.value
            if ev.value == "false":
                f["return_date"] = ""
                self.errors_by_form["flight_search"].pop("return_date", None)
        return None

    @handler("set_choice")
    def on_set_choice(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        allowed = {
            ("flight_search", "passengers"): [str(n) for n in range(1, 7)],
            ("hotel_search", "guests"): [str(n) for n in range(1, 5)],
            ("stay", "guests"): [str(n) for n in range(1, 5)],
            ("passenger", "seat"): list(SEATS),
            ("cancel_trip", "reason"): list(CANCEL_REASONS),
        }
        if ev.value in allowed.get((form, name), []):
            self.forms[form][name] = ev.value or ""
        return None

    @handler("search_flights")
    def on_search_flights(self, ev: AppEvent) -> str | None:
        f = self.forms["flight_search"]
        values = ev.values or {}
        for side in ("origin", "destination"):
            if side in values and not f[side]:
                f[f"{side}_text"] = values[side][:60]
        for name in ("depart_date", "return_date"):
            if values.get(name):
                f[name] = _norm_date(values[name][:40])
        if not self.strict:  # an exact code typed without picking it still counts
            for side in ("origin", "destination"):
                typed = f[f"{side}_text"].strip().upper()
                if not f[side] and typed in self.by_airport:
                    f[side] = typed
        self.submitted.add("flight_search")
        errors = self._search_errors()
        self.errors_by_form["flight_search"] = errors
        if errors:
            return None
        self.search = {
            k: f[k]
            for k in (
                "origin",
                "destination",
                "roundtrip",
                "depart_date",
                "return_date",
                "passengers",
            )
        }
        self.flight_sort = "best"
        self.flight_filters = {"airline": "", "stops": "any"}
        self.results_page = 1
        self.ui.more.pop("results", None)
        return "/flights/results"

    def _search_errors(self) -> dict[str, str]:
        f = self.forms["flight_search"]
        errors: dict[str, str] = {}
        for side in ("origin", "destination"):
            if not f[side]:
                errors[side] = "airport_pick" if f[f"{side}_text"].strip() else "required"
        if not errors and f["origin"] == f["destination"]:
            errors["destination"] = "same_airport"
        elif (
            not errors
            and self.by_airport[f["origin"]].metro == self.by_airport[f["destination"]].metro
        ):
            errors["destination"] = "same_metro"
        errors.update(
            validate_dates(
                f["depart_date"],
                f["return_date"],
                self.today_date(),
                second_required=f["roundtrip"] == "true",
                names=("depart_date", "return_date"),
                min_gap=0,
                max_gap=None,
            )
        )
        return errors

    def _hotel_search_errors(self, form: str) -> dict[str, str]:
        f = self.forms[form]
        errors: dict[str, str] = {}
        if form == "hotel_search" and not f["city"]:
            errors["city"] = "city_pick" if f["city_text"].strip() else "required"
        errors.update(
            validate_dates(
                f["checkin_date"],
                f["checkout_date"],
                self.today_date(),
                second_required=True,
                names=("checkin_date", "checkout_date"),
                min_gap=1,
                max_gap=MAX_NIGHTS,
            )
        )
        return errors

    def _form_errors(self, form: str) -> dict[str, str]:
        if form == "flight_search":
            return self._search_errors()
        if form in ("hotel_search", "stay"):
            return self._hotel_search_errors(form)
        if form == "passenger":
            return validate_passenger(self.forms["passenger"], self.strict)
        return {}

    def _revalidate(self, form: str, name: str) -> None:
        """`sync` validation: a field's error follows its value as the user types, once
        the field holds something or the form was submitted; `async`: only on submit."""
        if self.v.validation != "sync" or form not in self.errors_by_form:
            return
        errors = self._form_errors(form)
        current = self.errors_by_form[form]
        linked = {
            "depart_date": ("return_date",),
            "checkin_date": ("checkout_date",),
            "origin": ("destination",),
            "destination": ("origin",),
        }
        for field in (name, *linked.get(name, ())):
            touched = form in self.submitted or bool(self.forms[form].get(field, "").strip())
            if field in errors and touched:
                current[field] = errors[field]
            else:
                current.pop(field, None)

    @handler("sort_flights")
    def on_sort_flights(self, ev: AppEvent) -> str | None:
        if ev.value in FLIGHT_SORTS:
            self.flight_sort = ev.value or "best"
            self.results_page = 1
            self.ui.more.pop("results", None)
        return None

    @handler("filter_flights")
    def on_filter_flights(self, ev: AppEvent) -> str | None:
        name, value = ev.arg or "", ev.value or ""
        allowed = {"airline": ["", *self.by_airline], "stops": [v for v, _ in STOP_OPTIONS]}
        if value in allowed.get(name, []):
            self.flight_filters[name] = value
            self.results_page = 1
            self.ui.more.pop("results", None)
        return None

    @handler("results_page")
    def on_results_page(self, ev: AppEvent) -> str | None:
        pages = max(1, -(-len(self.results()) // RESULTS_PAGE))
        if (ev.arg or "").isdigit() and 1 <= int(ev.arg or 0) <= pages:
            self.results_page = int(ev.arg or 1)
        return None

    @handler("choose_fare")
    def on_choose_fare(self, ev: AppEvent) -> str | None:
        o = self.offer(ev.arg or "")
        if o is not None and ev.value in o.prices:
            self.fare_choice[o.id] = ev.value or ""
        return None

    @handler("add_flight", mutating=True)
    def on_add_flight(self, ev: AppEvent) -> str | None:
        o = self.offer(ev.arg or "")
        if o is None or o.seats < self._passengers():
            return None
        self._fresh_itinerary()
        brand = self.fare_choice.get(o.id, o.cheapest_brand)
        self.itinerary["flights"][o.id] = {"fare": brand, "passengers": self._passengers()}
        self.itinerary["status"] = "draft"
        self.flash = self.copy("offer.added")
        return None

    @handler("select_room", mutating=True)
    def on_select_room(self, ev: AppEvent) -> str | None:
        room = self.by_room.get(ev.arg or "")
        if room is None or not self._room_bookable(room):
            return None
        self._fresh_itinerary()
        self.itinerary["rooms"][room.id] = {
            "checkin": self.stay["checkin_date"],
            "checkout": self.stay["checkout_date"],
            "guests": int(self.stay["guests"]),
            "nights": self.nights(),
        }
        self.itinerary["status"] = "draft"
        self.flash = self.copy("hotel.added")
        return None

    def _room_bookable(self, room: Room) -> bool:
        return (
            room.available
            and self.nights() > 0
            and int(self.stay.get("guests", "1") or 1) <= room.capacity
        )

    def _fresh_itinerary(self) -> None:
        if self.itinerary["status"] == "booked":
            self.itinerary = self._empty_itinerary()

    @handler("remove_item", mutating=True)
    def on_remove_item(self, ev: AppEvent) -> str | None:
        it = self.itinerary
        if it["status"] == "booked":
            return None
        it["flights"].pop(ev.arg or "", None)
        it["rooms"].pop(ev.arg or "", None)
        if not it["flights"] and not it["rooms"]:
            it["status"] = "empty"
        return None

    @handler("book", mutating=True)
    def on_book(self, ev: AppEvent) -> str | None:
        p = self.forms["passenger"]
        for name in PASSENGER_FIELDS:
            if ev.values is not None and name in ev.values:
                p[name] = ev.values[name][:200]
        self.submitted.add("passenger")
        errors = validate_passenger(p, self.strict)
        it = self.itinerary
        if it["status"] != "draft":
            errors["_itinerary"] = "itinerary_empty"
        self.errors_by_form["passenger"] = errors
        if errors:
            return None
        if self.glitch_pending:  # the booking service times out once: Retry books
            self.glitch_pending = False
            self.failed = ev
            return None
        n = len(self.bookings)
        ref = _reference(f"travel:{self.spec.seed}:booking:{n}")
        lead = {k: v.strip() for k, v in p.items()}
        it["status"], it["reference"], it["lead"] = "booked", ref, lead
        total = self.state()["itinerary"]["total"]
        # Where and when the trip goes: the first flight's destination and date, else the
        # first hotel's city and check-in.
        legs = [o.legs[0] for o in map(self.offer, it["flights"]) if o is not None]
        stays = [(self.by_room[r], v) for r, v in it["rooms"].items()]
        if legs:
            destination = self.by_airport[legs[0][0].destination].metro
            depart = legs[0][1].isoformat()
        else:
            destination = self.by_hotel[stays[0][0].hotel_id].city if stays else ""
            depart = stays[0][1]["checkin"] if stays else ""
        self.bookings.append(
            {
                "reference": ref,
                "total": total,
                "lead": lead,
                "flights": dict(it["flights"]),
                "rooms": dict(it["rooms"]),
                "member": self.signed_in(),
                "trip": {
                    "reference": ref,
                    "destination": destination,
                    "depart": depart,
                    "return_date": "",
                    "airline": "",
                    "status": "upcoming",
                    "total": total,
                    "refundable": False,
                    "cancellable": False,
                },
            }
        )
        self.submitted.discard("passenger")
        return f"/booking/{ref}"

    @handler("search_hotels")
    def on_search_hotels(self, ev: AppEvent) -> str | None:
        f = self.forms["hotel_search"]
        values = ev.values or {}
        if "city" in values and not f["city"]:
            f["city_text"] = values["city"][:60]
        for name in ("checkin_date", "checkout_date"):
            if values.get(name):
                f[name] = _norm_date(values[name][:40])
        if not self.strict and not f["city"]:
            typed = f["city_text"].strip().lower()
            f["city"] = next((c.name for c in self.cities if c.name.lower() == typed), "")
        self.submitted.add("hotel_search")
        errors = self._hotel_search_errors("hotel_search")
        self.errors_by_form["hotel_search"] = errors
        if errors:
            return None
        self.stay = {k: f[k] for k in ("city", "checkin_date", "checkout_date", "guests")}
        self.forms["stay"] = {k: f[k] for k in ("checkin_date", "checkout_date", "guests")}
        self.hotel_filters = {"stars": "any", "rating": "any", "price": "any"}
        self.hotel_sort = "recommended"
        slug = self.by_city[f["city"]].slug
        self.hotel_pages.pop(slug, None)
        self.ui.more.pop(f"hotels:{slug}", None)
        return f"/hotels/in/{slug}"

    @handler("update_stay")
    def on_update_stay(self, ev: AppEvent) -> str | None:
        f = self.forms["stay"]
        for name in ("checkin_date", "checkout_date"):
            if (ev.values or {}).get(name):
                f[name] = _norm_date((ev.values or {})[name][:40])
        self.submitted.add("stay")
        errors = self._hotel_search_errors("stay")
        self.errors_by_form["stay"] = errors
        if errors:
            return None
        h = self.by_hotel.get(self.route[len("/hotel/") :])
        city = h.city if h else self.stay.get("city", "")
        self.stay = {"city": city, **{k: f[k] for k in ("checkin_date", "checkout_date", "guests")}}
        self.ui.modal = None
        return None

    @handler("sort_hotels")
    def on_sort_hotels(self, ev: AppEvent) -> str | None:
        if ev.value in HOTEL_SORTS:
            self.hotel_sort = ev.value or "recommended"
            self.hotel_pages.clear()
        return None

    @handler("filter_hotels")
    def on_filter_hotels(self, ev: AppEvent) -> str | None:
        name, value = ev.arg or "", ev.value or ""
        allowed = {"stars": STAR_OPTIONS, "rating": RATING_OPTIONS, "price": PRICE_OPTIONS}
        if name in allowed and value in [v for v, _ in allowed[name]]:
            self.hotel_filters[name] = value
            self.hotel_pages.clear()
        return None

    @handler("hotels_page")
    def on_hotels_page(self, ev: AppEvent) -> str | None:
        city = self._city_of(self.route)
        pages = max(1, -(-len(self.hotel_listing(city)) // HOTELS_PAGE))
        if city and (ev.arg or "").isdigit() and 1 <= int(ev.arg or 0) <= pages:
            self.hotel_pages[self.by_city[city].slug] = int(ev.arg or 1)
        return None

    @handler("login", mutating=True)
    def on_login(self, ev: AppEvent) -> str | None:
        values = ev.values or {}
        if "email" in values:
            self.forms["login"]["email"] = values["email"][:200]
        if values.get("password"):
            self._password = values["password"][:200]
        email = self.forms["login"]["email"].strip().lower()
        self.submitted.add("login")
        if not email or not self._password:
            self.errors_by_form["login"] = {"email" if not email else "password": "required"}
            return None
        if email != self.member.email or self._password != self.member.password:
            self.errors_by_form["login"] = {"_login": "credentials"}
            return None
        self.errors_by_form["login"] = {}
        self._password = ""
        if self.auth["stage"] != "otp":  # signing in again keeps the code already sent
            self.auth = {
                "stage": "otp",
                "email": self.member.email,
                "codes_sent": max(1, self.auth["codes_sent"]),
            }
        self._otp = ""
        return "/login/verify"

    @handler("verify_otp", mutating=True)
    def on_verify(self, ev: AppEvent) -> str | None:
        if self.auth["stage"] != "otp":
            return None
        code = (ev.values or {}).get("code", "")
        if code:
            self._otp = code[:12]
        if self._otp_digits() != self.otp_code(self.auth["codes_sent"]):
            self.errors_by_form["otp"] = {"code": "code"}
            return None
        self.errors_by_form["otp"] = {}
        self._otp = ""
        self.auth["stage"] = "signed_in"
        return "/trips"

    @handler("resend_code", mutating=True)
    def on_resend(self, ev: AppEvent) -> str | None:
        if self.auth["stage"] == "otp" and self.auth["codes_sent"] < 5:
            self.auth["codes_sent"] += 1
            self.flash = self.copy("verify.resent")
        return None

    @handler("sign_out", mutating=True)
    def on_sign_out(self, ev: AppEvent) -> str | None:
        self.auth = {"stage": "signed_out", "email": "", "codes_sent": 0}
        return "/"

    @handler("cancel_trip", mutating=True)
    def on_cancel_trip(self, ev: AppEvent) -> str | None:
        # The form cancels the trip whose page it is on.
        ref = self.route[len("/trips/") :] if self.route.startswith("/trips/") else ""
        t = self.trip(ref) if self.signed_in() else None
        if t is None or not t["cancellable"] or ref in self.cancelled:
            return None
        self.cancelled.append(ref)
        self.ui.modal = None
        self.flash = self.copy("trip.cancelled")
        return None

    @handler("save", mutating=True)
    def on_save(self, ev: AppEvent) -> str | None:
        key = ev.arg or ""
        if (key in self.by_hotel or self.offer(key) is not None) and key not in self.saved:
            self.saved.append(key)
        return None

    @handler("extra")
    def on_extra(self, ev: AppEvent) -> str | None:
        if ev.value in ("true", "false"):
            if ev.arg == "insurance":
                self.insurance = ev.value == "true"
            elif ev.arg == "price_alert":
                self.price_alert = ev.value == "true"
        return None

    @handler("newsletter", mutating=True)
    def on_newsletter(self, ev: AppEvent) -> str | None:
        if ev.values is not None:
            self.forms["newsletter"]["email"] = ev.values.get("email", "")[:200]
        return None

    # ------------------------------------------------------------- rendering
    def header(self, r: Renderer) -> str:
        c = self.copy
        n = len(self.itinerary["flights"]) + len(self.itinerary["rooms"])
        trip_text = (
            f"{c('nav.itinerary')} ({n})"
            if n and self.itinerary["status"] != "booked"
            else c("nav.itinerary")
        )
        entries = [
            ("/", c("nav.home")),
            ("/flights", c("nav.flights")),
            ("/hotels", c("nav.hotels")),
            ("/itinerary", trip_text),
            ("/checkout", c("nav.checkout")),
            ("/trips", c("nav.trips")),
        ]
        if not self.signed_in():
            entries.append(("/login", c("nav.login")))
        nav = w.site_nav(r, entries, label=c("nav.label"))
        who = ""
        if self.signed_in():
            out = w.button(
                r,
                sid="signout",
                text=c("nav.logout"),
                handler="sign_out",
                attrs_={"role": "sign-out"},
                variant="secondary",
                effect=Eq(("auth", "signed_in"), False),
            )
            who = (
                f'<span class="muted">{esc(c("nav.hello", name=self.member.first_name))}'
                f"</span>{out}"
            )
        return f'<span class="brand">{esc(self.spec.brand)}</span>{nav}{who}'

    # .................................................................. shared
    def _errors_line(self, r: Renderer, form: str, name: str) -> str:
        """The error region of a field whose widget has none of its own (typeahead, date):
        its own sub-region, so it can change while the user types elsewhere."""
        key = self.errors_by_form.get(form, {}).get(name, "")
        text = (
            f'<span class="error" role="alert">{esc(self.copy(f"errors.{key}"))}</span>'
            if key
            else ""
        )
        return r.subregion(f"err:{form}.{name}", text, class_="field-error")

    def _banner(self, form: str) -> str:
        errors = self.errors_by_form.get(form, {})
        if not errors:
            return ""
        special = [k for k in errors if k.startswith("_")]
        text = self.copy(f"errors.{errors[special[0]]}") if special else self.copy("form.fix")
        return f'<p class="error-summary" role="alert">{esc(text)}</p>'

    def _airport_label(self, code: str) -> str:
        a = self.by_airport[code]
        return f"{a.code} — {a.city} ({a.name})"

    def _airport_suggestions(self, text: str) -> list[tuple[str, str]]:
        t = text.strip().lower()
        if len(t) < 2:
            return []

        def rank(a: Airport) -> tuple[int, str]:
            if a.code.lower() == t:
                return (0, a.code)
            if a.code.lower().startswith(t):
                return (1, a.code)
            return (2, a.code)

        hits = [
            a
            for a in self.airports
            if a.code.lower().startswith(t)
            or t in a.city.lower()
            or t in a.name.lower()
            or t in a.metro.lower()
        ]
        return [(a.code, self._airport_label(a.code)) for a in sorted(hits, key=rank)[:6]]

    def _place_field(
        self, r: Renderer, form: str, name: str, label: str, placeholder: str, helper: str
    ) -> str:
        values = self.forms[form]
        text = values[f"{name}_text"]
        if name == "city":
            t = text.strip().lower()
            suggestions = (
                [(c.name, f"{c.name}, {c.region}") for c in self.cities if t in c.name.lower()]
                if len(t) >= 2 and not values["city"]
                else []
            )
        else:
            suggestions = self._airport_suggestions(text) if not values[name] else []
        field = w.typeahead(
            r,
            sid=f"field:{form}.{name}",
            name=name,
            label=label,
            text=text,
            handler="place_text",
            arg=f"{form}.{name}",
            effect=Eq(("forms", form, name), Ref("value")),
            form=form,
            pick_handler="pick_place",
            suggestions=suggestions,
            placeholder=placeholder,
            helper=helper,
        )
        return f'<div class="field-group">{field}{self._errors_line(r, form, name)}</div>'

    def _date_field(self, r: Renderer, form: str, name: str, label: str) -> str:
        sid = f"date:{form}.{name}"
        picker = w.date_picker(
            r,
            sid=sid,
            name=name,
            label=label,
            value=self.forms[form][name],
            handler="field",
            arg=f"{form}.{name}",
            effect=Eq(("forms", form, name), Ref("value")),
            form=form,
            month=self.month_of(name),
            is_open=sid in self.ui.open,
            today=self.spec.today,
        )
        return f'<div class="field-group">{picker}{self._errors_line(r, form, name)}</div>'

    def _choice(
        self,
        r: Renderer,
        *,
        form: str,
        name: str,
        label: str,
        options: Sequence[Option],
        kind: str = "Choice",
    ) -> str:
        sid = f"choice:{form}.{name}"
        return w.choice(
            r,
            sid=sid,
            kind=kind,
            name=name,
            label=label,
            options=options,
            selected=self.forms[form][name],
            handler="set_choice",
            arg=f"{form}.{name}",
            effect=Eq(("forms", form, name), Ref("value")),
            is_open=sid in self.ui.open,
            attrs_={"form": form},
        )

    def _sort_choice(
        self,
        r: Renderer,
        *,
        results: str,
        label: str,
        prefix: str,
        sorts: Sequence[str],
        attrs_of: Mapping[str, Mapping[str, AttrValue]],
        aliases: Mapping[str, tuple[str, ...]],
        selected: str,
        state: str,
    ) -> str:
        """The sort menu of the flight or hotel results (`results`): option `s` reads the
        copy `<prefix>.<s>`; choosing one sets `<state>.sort`."""
        sid = f"sort:{results}"
        return w.choice(
            r,
            sid=sid,
            kind="Sort",
            name="sort",
            label=label,
            options=[
                Option(
                    s, self.copy(f"{prefix}.{s}"), tuple(sorted(attrs_of[s].items())), aliases[s]
                )
                for s in sorts
            ],
            selected=selected,
            handler=f"sort_{results}",
            arg=None,
            effect=Eq((state, "sort"), Ref("value")),
            is_open=sid in self.ui.open,
        )

    def _listing(
        self,
        r: Renderer,
        *,
        key: str,
        items: Sequence[Any],
        page: int,
        page_size: int,
        handler_name: str,
        state_path: tuple[str, ...],
        render_item: Callable[[Any, int], str],
    ) -> tuple[str, str]:
        """A long list, paginated or infinite as the `list_mode` axis says: (items, more)."""
        c = self.copy
        if self.v.list_mode == "infinite":
            first, shown = 0, items[: self.ui.more.get(key, 1) * page_size]
            more = w.load_more(r, key=key, has_more=len(shown) < len(items), text=c("list.loading"))
        else:
            pages = max(1, -(-len(items) // page_size))
            page = min(page, pages)
            first = (page - 1) * page_size
            shown = items[first : first + page_size]
            more = w.pager(
                r,
                key=key,
                page=page,
                pages=pages,
                handler=handler_name,
                label=c("list.pages"),
                prev_text=c("list.prev"),
                next_text=c("list.next"),
                state_path=state_path,
            )
        return "".join(render_item(x, first + i + 1) for i, x in enumerate(shown)), more

    def _secondary(
        self,
        r: Renderer,
        *,
        name: str,
        title: str,
        body: Callable[[], str],
        opener_attrs: Mapping[str, AttrValue],
    ) -> str:
        """A secondary form inline, or behind a button in a dialog (the `form_mode` axis).
        `body` renders the form only when it is shown, so a closed dialog has no fields."""
        if self.v.form_mode == "modal":
            if self.ui.modal == name:
                return w.modal(
                    r, name=name, title=title, body=body(), close_text=self.copy("form.close")
                )
            return w.modal_opener(r, name=name, text=title, attrs_=opener_attrs)
        return f'<section class="secondary-form"><h2>{esc(title)}</h2>{body()}</section>'

    def _flash(self, r: Renderer, links: Sequence[tuple[str, str]] = ()) -> str:
        if not self.flash:
            return ""
        extra = " ".join(
            w.link(r, sid=f"notice:{href}", href=href, text=text) for href, text in links
        )
        return f'<p class="notice" role="status">{esc(self.flash)} {extra}</p>'

    # .................................................................... pages
    def _extra_toggle(self, r: Renderer, name: str, checked: bool) -> str:
        """A distractor switch (price alert, insurance) that only sets `extras[name]`."""
        return w.toggle(
            r,
            sid=f"toggle:{name}",
            kind="Toggle",
            name=name,
            label=self.copy(f"distractors.{name}"),
            checked=checked,
            handler="extra",
            arg=name,
            effect=Eq(("extras", name), Ref("value")),
            attrs_={"distractor": True},
        )

    def _render_home(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        title = c("home.title", brand=self.spec.brand)
        flights = w.link(
            r, sid="home:flights", href="/flights", text=c("home.flights"), class_="button"
        )
        hotels = w.link(
            r, sid="home:hotels", href="/hotels", text=c("home.hotels"), class_="button"
        )
        cards = []
        for city in self.cities:
            here = [h for h in self.hotels if h.city == city.name and not h.sold_out]
            low = min((self.hotel_price(h) for h in here), default=0)
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
        return title, (
            f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
            f'<div class="actions">{flights}{hotels}</div></section>'
            f'<h2>{esc(c("home.popular"))}</h2><div class="grid">{"".join(cards)}</div>'
            f"{w.newsletter_promo(r, self.copy, self.forms['newsletter']['email'])}"
        )

    def _render_flights(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        f = self.forms["flight_search"]
        roundtrip = f["roundtrip"] == "true"
        trip = w.toggle(
            r,
            sid="toggle:roundtrip",
            kind="Toggle",
            name="roundtrip",
            label=c("search.roundtrip"),
            checked=roundtrip,
            handler="set_trip",
            arg=None,
            effect=Eq(("forms", "flight_search", "roundtrip"), Ref("value")),
            attrs_={"form": "flight_search"},
            switch=True,
        )
        places = self._place_field(
            r,
            "flight_search",
            "origin",
            c("search.origin"),
            c("search.origin_placeholder"),
            c("search.place_help"),
        ) + self._place_field(
            r,
            "flight_search",
            "destination",
            c("search.destination"),
            c("search.destination_placeholder"),
            "",
        )
        dates = self._date_field(r, "flight_search", "depart_date", c("search.depart"))
        if roundtrip:
            dates += self._date_field(r, "flight_search", "return_date", c("search.return"))
        pax = self._choice(
            r,
            form="flight_search",
            name="passengers",
            label=c("search.pax"),
            options=[
                Option(
                    str(n),
                    c("search.adults_one") if n == 1 else c("search.adults", n=n),
                    aliases=(str(n),),
                )
                for n in range(1, 7)
            ],
        )
        body = (
            f'<div class="trip-type">{trip}</div><div class="row">{places}</div>'
            f'<div class="row">{dates}</div>{pax}'
        )
        form = w.form(
            r,
            name="flight_search",
            handler="search_flights",
            body=body,
            submit_sid="form:flight_search",
            submit_text=c("search.submit"),
            label=c("search.title"),
            banner=self._banner("flight_search"),
            effect=All(
                (
                    Eq(("search", "done"), True),
                    *(
                        Eq(("search", k), Ref(f"state:forms.flight_search.{k}"))
                        for k in (
                            "origin",
                            "destination",
                            "roundtrip",
                            "depart_date",
                            "return_date",
                            "passengers",
                        )
                    ),
                )
            ),
        )
        return c("search.title"), (
            f'<h1>{esc(c("search.title"))}</h1><div class="search-panel">{form}</div>'
        )

    def _search_summary(self) -> str:
        c = self.copy
        s = self.search
        d1 = parse_date(s["depart_date"])
        dates = d1.strftime("%a %d %b") if d1 else ""
        if s["roundtrip"] == "true":
            d2 = parse_date(s["return_date"])
            dates += f" – {d2.strftime('%a %d %b')}" if d2 else ""
        pax = int(s["passengers"])
        who = c("search.adults_one") if pax == 1 else c("search.adults", n=pax)
        kind = c("search.roundtrip_short") if s["roundtrip"] == "true" else c("search.oneway")
        return f"{s['origin']} → {s['destination']} · {kind} · {dates} · {who}"

    def _render_results(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if not self.search:
            link = w.link(r, sid="results:search", href="/flights", text=c("results.start"))
            return c("results.title"), (
                f"<h1>{esc(c('results.title'))}</h1>"
                f"<p>{esc(c('results.none_yet'))}</p><p>{link}</p>"
            )
        airline = w.choice(
            r,
            sid="filter:airline",
            kind="Filter",
            name="airline",
            label=c("results.airline"),
            options=[
                Option("", c("results.all_airlines"), aliases=("all", "any")),
                *(Option(a.code, a.name, aliases=(a.code,)) for a in self.airlines),
            ],
            selected=self.flight_filters["airline"],
            handler="filter_flights",
            arg="airline",
            effect=Eq(("results", "filters", "airline"), Ref("value")),
            is_open="filter:airline" in self.ui.open,
        )
        stops = w.choice(
            r,
            sid="filter:stops",
            kind="Filter",
            name="stops",
            label=c("results.stops"),
            options=[Option(v, c(f"results.stops_{v}"), aliases=al) for v, al in STOP_OPTIONS],
            selected=self.flight_filters["stops"],
            handler="filter_flights",
            arg="stops",
            effect=Eq(("results", "filters", "stops"), Ref("value")),
            is_open="filter:stops" in self.ui.open,
        )
        sort = self._sort_choice(
            r,
            results="flights",
            label=c("results.sort"),
            prefix="sort",
            sorts=FLIGHT_SORTS,
            attrs_of=FLIGHT_SORT_ATTRS,
            aliases=FLIGHT_SORT_ALIASES,
            selected=self.flight_sort,
            state="results",
        )
        alert = ""
        if self.v.distractors == "many":
            alert = self._extra_toggle(r, "price_alert", self.price_alert)
        items = self.results()
        cards, more = self._listing(
            r,
            key="results",
            items=items,
            page=self.results_page,
            page_size=RESULTS_PAGE,
            handler_name="results_page",
            state_path=("results", "page"),
            render_item=lambda o, rank: self._flight_card(r, o, rank),
        )
        sponsored = ""
        if self.v.distractors != "none":
            ad = w.link(
                r,
                sid="sponsored:results",
                href="/hotels",
                text=c("distractors.ad_link"),
                attrs_={"distractor": True, "type": "ad"},
            )
            sponsored = (
                f'<article class="flight-card sponsored"><span class="muted">'
                f"{esc(c('distractors.sponsored'))}</span>"
                f"<strong>{esc(c('distractors.ad'))}</strong>{ad}</article>"
            )
        if items:
            body = f'<div class="results">{sponsored}{cards}</div>{more}'
        elif self.offers_for(self.search):
            body = f"<p>{esc(c('results.none_filtered'))}</p>"
        else:
            body = f"<p>{esc(c('results.none_route'))}</p>"
        n = len(items)
        count = c("results.count_one") if n == 1 else c("results.count_many", n=n)
        change = w.link(r, sid="results:change", href="/flights", text=c("results.change"))
        return c("results.title"), (
            f"<h1>{esc(c('results.title'))}</h1>"
            f'<p class="search-summary">{esc(self._search_summary())} · {change}</p>'
            f'<div class="toolbar">{airline}{stops}{sort}{alert}'
            f'<p class="muted" role="status">{esc(count)}</p></div>{body}'
        )

    def _leg_line(self, f: Flight, day: dt.date) -> str:
        c = self.copy
        o, d = self.by_airport[f.origin], self.by_airport[f.destination]
        arrive = f.depart + f.duration + (d.tz - o.tz) * 60
        plus = arrive // 1440
        stops = c("results.nonstop") if not f.stops else c("results.via", code=f.via)
        return (
            f'<div class="leg"><span class="times">{clock(f.depart)} {esc(f.origin)} → '
            f"{clock(arrive)}{f'<sup>+{plus}</sup>' if plus > 0 else ''} {esc(f.destination)}"
            f'</span> <span class="muted">{esc(day.strftime("%a %d %b"))} · {span(f.duration)}'
            f" · {esc(stops)} · {esc(f.id[:2])} {esc(f.id[2:])}</span></div>"
        )

    def _flight_card(self, r: Renderer, o: Offer, rank: int) -> str:
        c = self.copy
        airline = self.by_airline[o.airline]
        out = o.legs[0][0]
        arrive = (
            out.depart
            + out.duration
            + (self.by_airport[out.destination].tz - self.by_airport[out.origin].tz) * 60
        )
        text = f"{airline.name} {clock(out.depart)}–{clock(arrive)}"
        if o.roundtrip:
            back = o.legs[1][0]
            text += f" / {clock(back.depart)}"
        link = w.link(
            r,
            sid=f"flight:{o.id}",
            href=f"/flights/offer/{o.id}",
            text=text,
            kind="Result",
            class_="title",
            attrs_={
                "type": "flight",
                "id": o.id,
                "rank": rank,
                "price": o.price,
                "total": o.price * self._passengers(),
                "duration": o.duration,
                "stops": o.stops,
                "nonstop": o.stops == 0,
                "airline": airline.name,
                "airline_code": airline.code,
                "origin": out.origin,
                "destination": out.destination,
                "depart": clock(out.depart),
                "trip": "roundtrip" if o.roundtrip else "oneway",
                "flight": " / ".join(f.id for f, _ in o.legs),
            },
        )
        legs = "".join(self._leg_line(f, d) for f, d in o.legs)
        per = c("results.per_roundtrip") if o.roundtrip else c("results.per_oneway")
        seats = (
            f'<span class="seats">{esc(c("results.seats", n=o.seats))}</span>'
            if o.seats <= 4
            else ""
        )
        return (
            f'<article class="flight-card"><div class="flight-main">{link}{legs}</div>'
            f'<div class="flight-price"><strong>{money(o.price)}</strong>'
            f'<span class="muted">{esc(per)}</span>{seats}</div></article>'
        )

    def _render_offer(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        o = self.offer(route[len("/flights/offer/") :])
        assert o is not None
        airline = self.by_airline[o.airline]
        brand = self.fare_choice.get(o.id, o.cheapest_brand)
        pax = self._passengers()
        back = w.link(r, sid="offer:results", href="/flights/results", text=c("offer.back"))
        outbound = o.legs[0][0]
        title = f"{outbound.origin} → {outbound.destination}"
        legs = ""
        for i, (f, d) in enumerate(o.legs):
            heading = c("offer.outbound") if i == 0 else c("offer.return")
            legs += (
                f'<section class="leg-detail"><h2>{esc(heading)}</h2>'
                f"{self._leg_line(f, d)}"
                f'<p class="muted">{esc(airline.name)} · {esc(f.aircraft)}</p></section>'
            )
        fare = w.choice(
            r,
            sid="choice:fare",
            kind="Choice",
            name="fare",
            label=c("offer.fare"),
            options=[
                Option(
                    b,
                    f"{c(f'fare.{b}')} ({money(o.prices[b])})",  # ASCII: text actions quote as JSON
                    (("price", o.prices[b]),),
                    aliases=(c(f"fare.{b}"),),
                )
                for b in BRANDS
                if b in o.prices
            ],
            selected=brand,
            handler="choose_fare",
            arg=o.id,
            effect=Eq(("offer", "fare"), Ref("value")),
            is_open="choice:fare" in self.ui.open,
        )
        rules = self.fare_rules(o, brand)
        bag = (
            c("rules.bag_free")
            if rules["checked_bag_fee"] == 0
            else c("rules.bag_fee", fee=money(rules["checked_bag_fee"]))
        )
        carry = c("rules.carry_yes") if rules["carry_on"] else c("rules.carry_no")
        changes = {
            "not_allowed": c("rules.change_no"),
            "free": c("rules.change_free"),
            "fee": c("rules.change_fee", fee=money(rules["change_fee"])),
        }[rules["changes"]]
        refunds = {
            "none": c("rules.refund_none"),
            "credit": c("rules.refund_credit"),
            "full": c("rules.refund_full"),
        }[rules["refunds"]]
        sections = [
            ("baggage", c("rules.baggage"), f"<p>{esc(bag)}</p><p>{esc(carry)}</p>"),
            ("changes", c("rules.changes"), f"<p>{esc(changes)}</p>"),
            ("refunds", c("rules.refunds"), f"<p>{esc(refunds)}</p>"),
        ]
        if self.spec.extra.get("fare_rules_widget") == "accordion":
            rules_html = w.accordion(r, group="fare", sections=sections, open_keys=self.ui.open)
        else:
            active = self.ui.tabs.get("fare", "baggage")
            panel = next(body for name, _, body in sections if name == active)
            rules_html = w.tabs(
                r,
                group="fare",
                items=[(n, t) for n, t, _ in sections],
                active=active,
                panel=panel,
                label=c("rules.title"),
            )
        add = w.button(
            r,
            sid=f"add:{o.id}",
            text=c("offer.add"),
            handler="add_flight",
            arg=o.id,
            disabled=o.seats < pax,
            attrs_={
                "role": "add-to-itinerary",
                "id": o.id,
                "price": o.prices[brand],
                "airline": airline.name,
            },
            effect=Contains(("itinerary", "flights"), o.id),
        )
        save = ""
        if self.v.distractors != "none":
            save = w.button(
                r,
                sid=f"save:{o.id}",
                text=c("distractors.save"),
                handler="save",
                arg=o.id,
                variant="secondary",
                attrs_={"role": "save", "id": o.id, "distractor": True},
                effect=Contains(("saved",), o.id),
            )
        seats = f'<p class="seats">{esc(c("results.seats", n=o.seats))}</p>' if o.seats <= 4 else ""
        price = (
            f'<p class="price"><strong>{money(o.prices[brand])}</strong> '
            f"{esc(c('offer.per_traveller'))} · "
            f"{esc(c('offer.total', total=money(o.prices[brand] * pax), n=pax))}</p>"
        )
        notice = self._flash(
            r, (("/itinerary", c("offer.view_itinerary")), ("/checkout", c("offer.to_checkout")))
        )
        return title, (
            f'<p>{back}</p><h1>{esc(title)} <small class="muted">'
            f"{esc(c('search.roundtrip_short') if o.roundtrip else c('search.oneway'))}"
            f"</small></h1>{legs}"
            f'<div class="offer-box">{fare}{price}{seats}<div class="actions">{add}{save}</div>'
            f"{notice}</div><h2>{esc(c('rules.title'))}</h2>{rules_html}"
        )

    def _render_hotels(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        city = self._place_field(
            r,
            "hotel_search",
            "city",
            c("hotels.city"),
            c("hotels.city_placeholder"),
            c("hotels.city_help"),
        )
        dates = self._date_field(
            r, "hotel_search", "checkin_date", c("hotels.checkin")
        ) + self._date_field(r, "hotel_search", "checkout_date", c("hotels.checkout"))
        guests = self._choice(
            r,
            form="hotel_search",
            name="guests",
            label=c("hotels.guests"),
            options=self._guest_options(),
        )
        form = w.form(
            r,
            name="hotel_search",
            handler="search_hotels",
            body=f'{city}<div class="row">{dates}</div>{guests}',
            submit_sid="form:hotel_search",
            submit_text=c("hotels.submit"),
            label=c("hotels.title"),
            banner=self._banner("hotel_search"),
            effect=All(
                (
                    Eq(("stay", "done"), True),
                    Eq(("stay", "city"), Ref("state:forms.hotel_search.city")),
                    Eq(("stay", "checkin_date"), Ref("state:forms.hotel_search.checkin_date")),
                    Eq(("stay", "checkout_date"), Ref("state:forms.hotel_search.checkout_date")),
                    Eq(("stay", "guests"), Ref("state:forms.hotel_search.guests")),
                )
            ),
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
            for x in self.cities
        )
        return c("hotels.title"), (
            f'<h1>{esc(c("hotels.title"))}</h1><div class="search-panel">{form}</div>'
            f'<h2>{esc(c("hotels.browse"))}</h2><ul class="cities">{links}</ul>'
        )

    def _guest_options(self) -> list[Option]:
        c = self.copy
        return [
            Option(
                str(n),
                c("hotels.guests_one") if n == 1 else c("hotels.guests_n", n=n),
                aliases=(str(n),),
            )
            for n in range(1, 5)
        ]

    def _stay_summary(self) -> str:
        c = self.copy
        if not self.nights():
            return c("hotels.no_dates")
        a = parse_date(self.stay["checkin_date"])
        b = parse_date(self.stay["checkout_date"])
        assert a and b
        return c(
            "hotels.stay",
            checkin=a.strftime("%a %d %b"),
            checkout=b.strftime("%a %d %b"),
            nights=self.nights(),
            guests=self.stay["guests"],
        )

    def _render_city(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        city = self.by_slug[route[len("/hotels/in/") :]]
        filters = "".join(
            w.choice(
                r,
                sid=f"filter:{name}",
                kind="Filter",
                name=name,
                label=c(f"hotels.filter_{name}"),
                options=[Option(v, c(f"hotels.{name}_{v}"), aliases=al) for v, al in opts],
                selected=self.hotel_filters[name],
                handler="filter_hotels",
                arg=name,
                effect=Eq(("hotels", "filters", name), Ref("value")),
                is_open=f"filter:{name}" in self.ui.open,
            )
            for name, opts in (
                ("stars", STAR_OPTIONS),
                ("rating", RATING_OPTIONS),
                ("price", PRICE_OPTIONS),
            )
        )
        sort = self._sort_choice(
            r,
            results="hotels",
            label=c("hotels.sort"),
            prefix="hotel_sort",
            sorts=HOTEL_SORTS,
            attrs_of=HOTEL_SORT_ATTRS,
            aliases=HOTEL_SORT_ALIASES,
            selected=self.hotel_sort,
            state="hotels",
        )
        items = self.hotel_listing(city.name)
        cards, more = self._listing(
            r,
            key=f"hotels:{city.slug}",
            items=items,
            page=self.hotel_pages.get(city.slug, 1),
            page_size=HOTELS_PAGE,
            handler_name="hotels_page",
            state_path=("hotels", "page"),
            render_item=lambda h, rank: self._hotel_card(r, h, rank),
        )
        body = (
            f'<div class="results">{cards}</div>{more}'
            if items
            else f"<p>{esc(c('hotels.none'))}</p>"
        )
        crumbs = w.breadcrumbs(
            r, [(c("nav.hotels"), "/hotels"), (city.name, None)], label=c("hotels.crumbs")
        )
        title = c("hotels.in", city=city.name)
        return title, (
            f'{crumbs}<h1>{esc(title)}</h1><p class="search-summary">'
            f"{esc(self._stay_summary())}</p>"
            f'<div class="toolbar">{filters}{sort}</div>{body}'
        )

    def _hotel_card(self, r: Renderer, h: Hotel, rank: int) -> str:
        c = self.copy
        price = self.hotel_price(h)
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

    def _render_hotel(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        h = self.by_hotel[route[len("/hotel/") :]]
        city = self.by_city[h.city]
        crumbs = w.breadcrumbs(
            r,
            [(c("nav.hotels"), "/hotels"), (h.city, f"/hotels/in/{city.slug}"), (h.name, None)],
            label=c("hotels.crumbs"),
        )
        rows = []
        for room in self.rooms_of.get(h.id, []):
            bookable = self._room_bookable(room)
            button = w.button(
                r,
                sid=f"room:{room.id}",
                text=c("hotel.select"),
                handler="select_room",
                arg=room.id,
                disabled=not bookable,
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
                effect=Contains(("itinerary", "rooms"), room.id),
            )
            policy = c("hotel.refundable") if room.refundable else c("hotel.nonrefundable")
            state = (
                money(room.price)
                if room.available
                else f'<span class="stock-out">{esc(c("hotel.room_gone"))}</span>'
            )
            total = ""
            if self.nights() and room.available:
                text = c(
                    "hotel.total", total=money(room.price * self.nights()), nights=self.nights()
                )
                total = f'<br><span class="muted">{esc(text)}</span>'
            rows.append(
                f"<tr><td><strong>{esc(room.name)}</strong><br>"
                f'<span class="muted">{esc(room.beds)} · '
                f"{esc(c('hotel.sleeps', n=room.capacity))}</span></td>"
                f"<td>{esc(policy)}</td><td>{state}{total}</td><td>{button}</td></tr>"
            )
        table = (
            f'<table class="rooms"><thead><tr><th>{esc(c("hotel.room"))}</th>'
            f"<th>{esc(c('hotel.policy'))}</th><th>{esc(c('hotel.price'))}</th><th></th>"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
        sold = (
            f'<p class="error-summary" role="alert">{esc(c("hotel.fully_booked"))}</p>'
            if h.sold_out
            else ""
        )
        stay = self._secondary(
            r,
            name="stay",
            title=c("hotel.change_dates"),
            body=lambda: self._stay_form(r),
            opener_attrs={"form": "stay"},
        )
        save = ""
        if self.v.distractors != "none":
            save = w.button(
                r,
                sid=f"save:{h.id}",
                text=c("distractors.save_hotel"),
                handler="save",
                arg=h.id,
                variant="secondary",
                attrs_={"role": "save", "id": h.id, "distractor": True},
                effect=Contains(("saved",), h.id),
            )
        notice = self._flash(
            r, (("/itinerary", c("offer.view_itinerary")), ("/checkout", c("offer.to_checkout")))
        )
        amenities = "".join(f"<li>{esc(a)}</li>" for a in h.amenities)
        return h.name, (
            f'{crumbs}<h1>{esc(h.name)} <span class="stars">{"★" * h.stars}</span></h1>'
            f'<p class="muted">{esc(h.neighborhood)}, {esc(h.city)} · '
            f"{esc(c('hotel.rating', rating=f'{h.rating:.1f}', n=h.reviews))}</p>"
            f'<p>{esc(h.description)}</p><ul class="amenities">{amenities}</ul>{save}'
            f'<p class="search-summary">{esc(self._stay_summary())}</p>{stay}{sold}{notice}'
            f"<h2>{esc(c('hotel.rooms'))}</h2>{table}"
        )

    def _stay_form(self, r: Renderer) -> str:
        c = self.copy
        dates = self._date_field(r, "stay", "checkin_date", c("hotels.checkin")) + self._date_field(
            r, "stay", "checkout_date", c("hotels.checkout")
        )
        guests = self._choice(
            r, form="stay", name="guests", label=c("hotels.guests"), options=self._guest_options()
        )
        return w.form(
            r,
            name="stay",
            handler="update_stay",
            body=f'<div class="row">{dates}</div>{guests}',
            submit_sid="form:stay",
            submit_text=c("hotel.update"),
            label=c("hotel.your_stay"),
            banner=self._banner("stay"),
            effect=All(
                (
                    Eq(("stay", "checkin_date"), Ref("state:forms.stay.checkin_date")),
                    Eq(("stay", "checkout_date"), Ref("state:forms.stay.checkout_date")),
                    Eq(("stay", "guests"), Ref("state:forms.stay.guests")),
                )
            ),
        )

    def _itinerary_rows(self, r: Renderer, *, removable: bool) -> list[str]:
        c = self.copy
        it = self.itinerary
        rows = []
        for oid, v in it["flights"].items():
            o = self.offer(oid)
            assert o is not None
            airline = self.by_airline[o.airline]
            price = o.prices.get(v["fare"], o.price) * v["passengers"]
            remove = ""
            if removable:
                remove = w.button(
                    r,
                    sid=f"remove:{oid}",
                    text=c("itinerary.remove"),
                    handler="remove_item",
                    arg=oid,
                    variant="secondary",
                    attrs_={"role": "remove", "type": "flight", "item": oid, "price": price},
                    effect=Not(Contains(("itinerary", "flights"), oid)),
                )
            legs = "".join(self._leg_line(f, d) for f, d in o.legs)
            fare = c("fare." + v["fare"])
            rows.append(
                f'<li class="item"><div><strong>{esc(airline.name)} · '
                f"{esc(fare)}</strong>{legs}</div>"
                f"<div>{money(price)} {remove}</div></li>"
            )
        for rid, v in it["rooms"].items():
            room = self.by_room[rid]
            h = self.by_hotel[room.hotel_id]
            price = room.price * v["nights"]
            remove = ""
            if removable:
                remove = w.button(
                    r,
                    sid=f"remove:{rid}",
                    text=c("itinerary.remove"),
                    handler="remove_item",
                    arg=rid,
                    variant="secondary",
                    attrs_={"role": "remove", "type": "hotel", "item": rid, "price": price},
                    effect=Not(Contains(("itinerary", "rooms"), rid)),
                )
            rows.append(
                f'<li class="item"><div><strong>{esc(h.name)}</strong> · '
                f'{esc(room.name)}<br><span class="muted">{esc(v["checkin"])} → '
                f"{esc(v['checkout'])} · "
                f"{esc(c('hotel.total', total=money(price), nights=v['nights']))}"
                f"</span></div><div>{money(price)} {remove}</div></li>"
            )
        return rows

    def _render_itinerary(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        it = self.itinerary
        title = c("itinerary.title")
        if it["status"] == "empty":
            links = (
                w.link(r, sid="itinerary:flights", href="/flights", text=c("home.flights"))
                + " · "
                + w.link(r, sid="itinerary:hotels", href="/hotels", text=c("home.hotels"))
            )
            return title, (
                f"<h1>{esc(title)}</h1>{w.toast(self.flash)}"
                f"<p>{esc(c('itinerary.empty'))}</p><p>{links}</p>"
            )
        booked = it["status"] == "booked"
        rows = self._itinerary_rows(r, removable=not booked)
        total = self.state()["itinerary"]["total"]
        status = (
            f'<p class="notice" role="status">{esc(c("itinerary.booked", ref=it["reference"]))}</p>'
            if booked
            else ""
        )
        proceed = (
            ""
            if booked
            else "<p>"
            + w.link(
                r,
                sid="itinerary:checkout",
                href="/checkout",
                text=c("itinerary.checkout"),
                class_="button",
            )
            + "</p>"
        )
        return title, (
            f"<h1>{esc(title)}</h1>{status}{w.toast(self.flash)}"
            f'<ul class="itinerary">{"".join(rows)}</ul>'
            f"<p><strong>{esc(c('itinerary.total'))}: {money(total)}</strong></p>{proceed}"
        )

    def _field_order(self, names: Sequence[str], key: str) -> list[str]:
        ordered = list(names)
        if self.v.field_order == "shuffled":
            SeedStream(self.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
        return ordered

    def _render_checkout(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        p = self.forms["passenger"]
        errors = self.errors_by_form["passenger"]
        autocomplete = {
            "first_name": "given-name",
            "last_name": "family-name",
            "email": "email",
            "phone": "tel",
            "loyalty_number": None,
        }
        helpers = {
            "email": c("checkout.email_help"),
            "phone": c("checkout.phone_help"),
            "loyalty_number": c("checkout.loyalty_help"),
        }
        fields = []
        for name in self._field_order(PASSENGER_FIELDS, "passenger"):
            err = errors.get(name, "")
            fields.append(
                w.text_field(
                    r,
                    sid=f"field:passenger.{name}",
                    name=name,
                    label=c(f"checkout.{name}"),
                    value=p[name],
                    handler="field",
                    arg=f"passenger.{name}",
                    effect=Eq(("forms", "passenger", name), Ref("value")),
                    form="passenger",
                    error=c(f"errors.{err}") if err else "",
                    helper=helpers.get(name, ""),
                    autocomplete=autocomplete[name],
                    input_type="email" if name == "email" else "tel" if name == "phone" else "text",
                )
            )
        seat = self._choice(
            r,
            form="passenger",
            name="seat",
            label=c("checkout.seat"),
            options=[Option(s, c(f"checkout.seat_{s}"), aliases=(s,)) for s in SEATS],
        )
        insurance = ""
        if self.v.distractors == "many":
            insurance = self._extra_toggle(r, "insurance", self.insurance)
        down = ""
        if self.failed is not None and self.failed.handler == "book":
            down = f'<p class="error-summary" role="alert">{esc(c("checkout.service_down"))}</p>'
        form = w.form(
            r,
            name="passenger",
            handler="book",
            body="".join(fields) + seat + insurance,
            submit_sid="form:passenger",
            submit_text=c("checkout.book"),
            label=c("checkout.lead"),
            banner=self._banner("passenger") + down,
            effect=All(
                (
                    Eq(("itinerary", "status"), "booked"),
                    Eq(("itinerary", "lead"), Ref("state:forms.passenger")),
                )
            ),
        )
        rows = (
            self._itinerary_rows(r, removable=False) if self.itinerary["status"] == "draft" else []
        )
        summary = (
            f'<aside class="summary"><h2>{esc(c("checkout.summary"))}</h2>'
            + (
                f'<ul class="itinerary">{"".join(rows)}</ul><p><strong>'
                f"{money(self.state()['itinerary']['total'])}</strong></p>"
                if rows
                else f"<p>{esc(c('checkout.empty'))}</p>"
            )
            + "</aside>"
        )
        return c("checkout.title"), (
            f'<h1>{esc(c("checkout.title"))}</h1><div class="checkout"><div>'
            f"<h2>{esc(c('checkout.lead'))}</h2>{form}</div>{summary}</div>"
        )

    def _render_booking(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        b = next(x for x in self.bookings if x["reference"] == route[len("/booking/") :])
        lead = b["lead"]
        details = w.detail_view(
            [
                (c("booking.reference"), b["reference"]),
                (c("booking.traveller"), f"{lead['first_name']} {lead['last_name']}"),
                (c("booking.email"), lead["email"]),
                (c("booking.total"), money(b["total"])),
            ]
        )
        more = w.link(r, sid="booking:home", href="/", text=c("booking.continue"))
        body = c("booking.body", ref=b["reference"], email=lead["email"])
        return c("booking.title"), (
            f"<h1>{esc(c('booking.title'))}</h1>"
            f'<p class="notice" role="status">{esc(body)}</p>'
            f"{details}<p>{more}</p>"
        )

    def _render_login(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if self.signed_in():
            trips = w.link(r, sid="login:trips", href="/trips", text=c("nav.trips"))
            return c("login.title"), (
                f"<h1>{esc(c('login.title'))}</h1>"
                f"<p>{esc(c('login.already', email=self.auth['email']))}"
                f"</p><p>{trips}</p>"
            )
        errors = self.errors_by_form["login"]
        email = w.text_field(
            r,
            sid="field:login.email",
            name="email",
            label=c("login.email"),
            value=self.forms["login"]["email"],
            handler="field",
            arg="login.email",
            effect=Eq(("forms", "login", "email"), Ref("value")),
            form="login",
            input_type="email",
            autocomplete="username",
            error=c(f"errors.{errors['email']}") if "email" in errors else "",
        )
        password = w.password_field(
            r,
            sid="field:login.password",
            name="password",
            label=c("login.password"),
            value=self._password,
            handler="secret",
            arg="login.password",
            effect=Eq(("forms", "login", "password_given"), True),
            form="login",
            autocomplete="current-password",
            error=c(f"errors.{errors['password']}") if "password" in errors else "",
        )
        form = w.form(
            r,
            name="login",
            handler="login",
            body=email + password,
            submit_sid="form:login",
            submit_text=c("login.submit"),
            label=c("login.title"),
            banner=self._banner("login"),
            effect=Any_((Eq(("auth", "stage"), "otp"), Eq(("auth", "signed_in"), True))),
        )
        return c("login.title"), (
            f"<h1>{esc(c('login.title'))}</h1><p>{esc(c('login.intro'))}</p>{form}"
        )

    def _render_verify(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        title = c("verify.title")
        if self.auth["stage"] != "otp":
            link = w.link(r, sid="verify:login", href="/login", text=c("verify.start"))
            return title, f"<h1>{esc(title)}</h1><p>{esc(c('verify.not_started'))}</p><p>{link}</p>"
        err = self.errors_by_form["otp"].get("code", "")
        code = w.otp_field(
            r,
            sid="field:otp.code",
            name="code",
            label=c("verify.code"),
            value="",
            handler="secret",
            arg="otp.code",
            effect=Eq(("forms", "otp", "code_entered"), True),
            form="otp",
            error=c(f"errors.{err}") if err else "",
            helper=c("verify.help"),
        )
        resend = w.button(
            r,
            sid="resend",
            text=c("verify.resend"),
            handler="resend_code",
            attrs_={"role": "resend-code"},
            variant="secondary",
        )
        form = w.form(
            r,
            name="otp",
            handler="verify_otp",
            body=code,
            submit_sid="form:otp",
            submit_text=c("verify.submit"),
            label=title,
            effect=Eq(("auth", "signed_in"), True),
            extra_buttons=resend,
        )
        last4 = self.member.phone[-4:]
        messages = "".join(
            f'<li class="sms"><span class="from">{esc(self.spec.brand)}</span>'
            f"{esc(c('verify.sms', code=self.otp_code(n), brand=self.spec.brand))}</li>"
            for n in range(self.auth["codes_sent"], 0, -1)
        )
        phone = (
            f'<aside class="phone" aria-label="{esc(c("verify.phone"))}">'
            f'<div class="phone-bar">{esc(c("verify.phone"))} · •••• {esc(last4)}</div>'
            f'<ul class="sms-list">{messages}</ul></aside>'
        )
        return title, (
            f'<div class="verify"><div><h1>{esc(title)}</h1>'
            f"<p>{esc(c('verify.intro', last4=last4))}</p>{w.toast(self.flash)}{form}</div>"
            f"{phone}</div>"
        )

    def _login_wall(self, r: Renderer) -> tuple[str, str]:
        c = self.copy
        link = w.link(r, sid="wall:login", href="/login", text=c("trips.sign_in"), class_="button")
        return c("trips.title"), (
            f"<h1>{esc(c('trips.title'))}</h1><p>{esc(c('trips.wall'))}</p><p>{link}</p>"
        )

    def _render_trips(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if not self.signed_in():
            return self._login_wall(r)
        rows = []
        for t in self.all_trips():
            link = w.link(
                r,
                sid=f"trip:{t['reference']}",
                href=f"/trips/{t['reference']}",
                text=t["reference"],
                kind="Item",
                attrs_={
                    "type": "trip",
                    "reference": t["reference"],
                    "destination": t["destination"],
                    "status": t["status"],
                    "depart": t["depart"],
                    "total": t["total"],
                    "refundable": t["refundable"],
                    "cancellable": t["cancellable"],
                },
            )
            rows.append(
                [
                    link,
                    esc(t["destination"]),
                    esc(t["depart"]),
                    esc(c(f"trip.status_{t['status']}")),
                    money(t["total"]),
                ]
            )
        table = w.data_table(
            r,
            key="trips",
            columns=[
                ("reference", c("trips.reference"), False),
                ("destination", c("trips.destination"), False),
                ("depart", c("trips.depart"), False),
                ("status", c("trips.status"), False),
                ("total", c("trips.total"), False),
            ],
            rows=rows,
            sort=("depart", "desc"),
            sort_handler="noop",
            caption=c("trips.caption"),
            sort_path=("trips", "sort"),
        )
        return c("trips.title"), f"<h1>{esc(c('trips.title'))}</h1>{w.toast(self.flash)}{table}"

    def _render_trip(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if not self.signed_in():
            return self._login_wall(r)
        t = self.trip(route[len("/trips/") :])
        assert t is not None
        back = w.link(r, sid="trip:back", href="/trips", text=c("trips.title"))
        details = w.detail_view(
            [
                (c("trips.reference"), t["reference"]),
                (c("trips.destination"), t["destination"]),
                (c("trips.depart"), t["depart"]),
                (c("trips.status"), c(f"trip.status_{t['status']}")),
                (c("trips.total"), money(t["total"])),
                (
                    c("trip.policy"),
                    c("hotel.refundable") if t["refundable"] else c("hotel.nonrefundable"),
                ),
            ]
        )
        cancel = ""
        if t["cancellable"]:

            def form() -> str:
                reason = self._choice(
                    r,
                    form="cancel_trip",
                    name="reason",
                    label=c("trip.reason"),
                    options=[
                        Option(x, c(f"trip.reason_{x}"), aliases=(x,)) for x in CANCEL_REASONS
                    ],
                )
                return w.form(
                    r,
                    name="cancel_trip",
                    handler="cancel_trip",
                    body=reason,
                    submit_sid="form:cancel_trip",
                    submit_text=c("trip.confirm"),
                    label=c("trip.cancel"),
                    attrs_={"reference": t["reference"]},
                    effect=Contains(("trips", "cancelled"), t["reference"]),
                )

            cancel = self._secondary(
                r,
                name="cancel_trip",
                title=c("trip.cancel"),
                body=form,
                opener_attrs={"form": "cancel_trip"},
            )
        elif t["status"] == "upcoming":
            cancel = f'<p class="muted">{esc(c("trip.locked"))}</p>'
        return c("trip.title", ref=t["reference"]), (
            f"<p>{back}</p><h1>{esc(c('trip.title', ref=t['reference']))}</h1>"
            f"{w.toast(self.flash)}{details}{cancel}"
        )


FAMILY = Family(
    name="travel",
    version=FAMILY_VERSION,
    description="Flights and hotels: airport typeahead search with calendars, sortable and "
    "filterable results, fare rules, an itinerary and checkout, hotel search with rooms, and "
    "a member area behind sign-in with an SMS code.",
    generate=generate,
    app_class=TravelApp,
    kinds=(
        "Accordion",
        "Button",
        "Choice",
        "DatePicker",
        "Field",
        "Filter",
        "Form",
        "Item",
        "Link",
        "Option",
        "Result",
        "Sort",
        "Suggestion",
        "Tab",
        "Toggle",
    ),
)
register_family(FAMILY)
