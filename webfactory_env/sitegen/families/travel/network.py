"""What a travel site's seed draws for its flights: airports, the route network from the hub,
the airlines and their timetables."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen.families.travel.entities import HUB, Airline, Flight, Route, vocab

REQUIRED_AIRPORTS = ("SFO", "JFK", "LGA", "EWR")  # incl. the New York metro ambiguity
FLAGSHIP = frozenset({HUB, "JFK"})  # the route every airline of the site flies
LGA_PERIMETER_KM = 2400  # LaGuardia has no nonstop flights beyond this distance
AirportRow = dict[str, Any]


def distance_km(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    """Great-circle distance, rounded to 10 km (stable against last-digit float noise)."""
    return _distance_km(a["lat"], a["lon"], b["lat"], b["lon"])


@lru_cache(maxsize=8192)  # the same airport pairs, site after site
def _distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> int:
    la1, lo1, la2, lo2 = (math.radians(v) for v in (lat1, lon1, lat2, lon2))
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return int(round(2 * 6371 * math.asin(math.sqrt(h)), -1))


def block_minutes(km: int, eastbound: bool) -> int:
    """Gate-to-gate time of one leg: taxi and climb, then cruise with or against the jet
    stream."""
    return _round5(35 + km / 13.0 * (0.92 if eastbound else 1.08))


def _round5(x: float) -> int:
    return int(5 * round(x / 5))


@cache
def _airport_pool() -> Mapping[str, AirportRow]:
    """Every airport of the vocabulary by code (read only: sites copy the rows they use)."""
    return {a["code"]: a for a in vocab()["airports"]}


@cache
def _fare_factor() -> Mapping[str, float]:
    """Each airline's fare factor, by code."""
    return {a["code"]: a["factor"] for a in vocab()["airlines"]}


def pick_airports(rng: SeedStream, n: int) -> list[AirportRow]:
    """The hub and the New York airports, then others at random (sorted by code)."""
    pool = _airport_pool()
    others = [c for c in sorted(pool) if c not in REQUIRED_AIRPORTS]
    chosen = [*REQUIRED_AIRPORTS, *rng.sample(others, n - len(REQUIRED_AIRPORTS))]
    return [dict(pool[c]) for c in sorted(chosen)]


def network(
    rng: SeedStream, airports: list[AirportRow], extra: int
) -> tuple[tuple[Route, ...], dict[str, str]]:
    """Routes: the hub to every airport outside its metro (nonstop or connecting only), plus
    a few point-to-point routes; and how the hub reaches each airport. JFK and EWR always
    have nonstops from the hub; LaGuardia's perimeter rule makes it connecting-only from
    far away."""
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


def airlines(rng: SeedStream, n: int) -> tuple[Airline, ...]:
    pool = vocab()["airlines"]
    chosen = sorted(rng.sample(pool, n), key=lambda a: a["code"])
    return tuple(
        Airline(a["code"], a["name"], a["bag_fee"], a["change_fee"], a["basic"]) for a in chosen
    )


def timetables(
    rng: SeedStream,
    routes: tuple[Route, ...],
    carriers: tuple[Airline, ...],
    airports: list[AirportRow],
) -> tuple[Flight, ...]:
    """Flights per route, with the guarantees the task library relies on:

    - each airline on a route flies it both ways, so round trips pair up;
    - every route has a daily flight, and a daily nonstop when it has nonstop service;
    - every airline of the site flies the hub to JFK daily, nonstop;
    - no two flights of one route and direction take equally long, so "the fastest" on
      any route is one flight.
    """
    numbers: set[str] = set()
    flights: list[Flight] = []
    codes = [a.code for a in carriers]
    nonstop_route = {(r.origin, r.destination): r.nonstop for r in routes}
    for x, y in sorted({tuple(sorted((r.origin, r.destination))) for r in routes}):
        r = rng.child(f"{x}-{y}")
        flagship = {x, y} == FLAGSHIP
        flying = codes if flagship else sorted(r.sample(codes, r.randint(1, min(3, len(codes)))))
        for origin, dest in ((x, y), (y, x)):
            leg = _Leg(r.child(f"{origin}>{dest}"), origin, dest, airports, numbers)
            one_way = leg.flights(flying, flagship, nonstop_route[(origin, dest)])
            flights += _durations_differ(one_way)
    flights.sort(key=lambda f: (f.origin, f.destination, f.depart, f.id))
    return tuple(flights)


class _Leg:
    """The flights of one route in one direction."""

    def __init__(
        self,
        rng: SeedStream,
        origin: str,
        dest: str,
        airports: list[AirportRow],
        numbers: set[str],
    ) -> None:
        self.rng = rng
        self.origin, self.dest = origin, dest
        self.by_code = {a["code"]: a for a in airports}
        self.pool = _airport_pool()
        self.numbers = numbers  # flight numbers taken site-wide
        self.km = distance_km(self.by_code[origin], self.by_code[dest])

    def flights(self, carriers: list[str], flagship: bool, nonstop_ok: bool) -> list[Flight]:
        out: list[Flight] = []
        rng = self.rng
        for i, airline in enumerate(carriers):
            count = rng.randint(2, 3) if flagship else rng.randint(1, 2)
            for j in range(count):
                # The first flight of the first carrier (of every carrier on the flagship
                # route) is daily, and nonstop when the route allows.
                anchor = j == 0 and (flagship or i == 0)
                nonstop = nonstop_ok and (anchor or rng.chance(0.6))
                out.append(self._flight(airline, anchor, nonstop))
        assert not nonstop_ok or any(f.stops == 0 and f.days == "1234567" for f in out)
        return out

    def _flight(self, airline: str, anchor: bool, nonstop: bool) -> Flight:
        rng = self.rng
        origin, dest = self.by_code[self.origin], self.by_code[self.dest]
        depart = 6 * 60 + 5 * rng.randint(0, 191)
        if nonstop:
            duration = block_minutes(self.km, dest["lon"] > origin["lon"]) + 5 * rng.randint(-2, 2)
            via, stops = "", 0
        else:
            via = _via(rng, origin, dest, self.pool)
            hop = self.pool[via]
            layover = 5 * rng.randint(9, 30)
            duration = (
                block_minutes(distance_km(origin, hop), hop["lon"] > origin["lon"])
                + layover
                + block_minutes(distance_km(hop, dest), dest["lon"] > hop["lon"])
            )
            stops = 1
        days = "1234567"
        if not anchor and rng.chance(0.25):
            dropped = rng.sample("1234567", rng.randint(1, 2))
            days = "".join(d for d in "1234567" if d not in dropped)
        fare = (49 + 0.072 * self.km) * _fare_factor()[airline]
        fare *= 0.86 if stops else 1.0
        fare *= 0.9 if depart < 7 * 60 or depart >= 21 * 60 else 1.0
        fare *= 0.95 + 0.1 * rng.random()
        number = f"{airline}{rng.randint(100, 2999)}"
        while number in self.numbers:
            number = f"{airline}{int(number[2:]) % 2999 + 100}"
        self.numbers.add(number)
        size = "short" if self.km < 1200 else "medium" if self.km < 3600 else "long"
        return Flight(
            id=number,
            airline=airline,
            origin=self.origin,
            destination=self.dest,
            depart=depart,
            duration=duration,
            stops=stops,
            via=via,
            days=days,
            base_fare=round(fare),
            aircraft=rng.choice(vocab()["aircraft"][size]),
        )


def _durations_differ(flights: list[Flight]) -> list[Flight]:
    """Flights of one route and direction, each taking at least five minutes longer than
    any faster one: the one that is quicker by the schedule stays quicker."""
    out: dict[str, Flight] = {}
    slowest = 0
    for f in sorted(flights, key=lambda f: (f.duration, f.id)):
        duration = max(f.duration, slowest + 5)
        out[f.id] = dataclasses.replace(f, duration=duration)
        slowest = duration
    return [out[f.id] for f in flights]


def _via(
    rng: SeedStream,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    pool: Mapping[str, Mapping[str, Any]],
) -> str:
    """A connection airport: the least detour among three candidate hubs."""
    hubs = [
        c for c in vocab()["connection_hubs"] if pool[c]["metro"] not in (a["metro"], b["metro"])
    ]
    options = rng.sample(hubs, min(3, len(hubs)))
    return min(options, key=lambda c: (distance_km(a, pool[c]) + distance_km(pool[c], b), c))
