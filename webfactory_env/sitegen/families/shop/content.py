"""What a shop's seed draws: its brand, catalog, coupons and past orders.

`generate` reads as a recipe; each guarantee a task relies on is a named helper or a
commented line ("the cheapest of every kind is in stock", "exactly one product is sold
out at least", "two red mugs at different prices and ratings").
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_family_text
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen.registry import generator_version
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "3"
CATALOG_SIZE = {"easy": 24, "medium": 40, "hard": 64}
HISTORY_SIZE = {"easy": 3, "medium": 5, "hard": 8}
MUG_COUNT = 5  # every catalog holds mugs in several colours, at least two of them red
TODAY = "2026-01-05"


@dataclass(frozen=True, slots=True)
class Product:
    sku: str
    title: str
    product_type: str
    noun: str
    category: str
    color: str
    material: str
    price_cents: int
    rating: float
    reviews: int
    stock: int
    description: str
    featured_rank: int


@dataclass(frozen=True, slots=True)
class Coupon:
    code: str
    percent: int
    expired: bool


@dataclass(frozen=True, slots=True)
class PastOrder:
    id: str
    date: str
    items: tuple[tuple[str, int], ...]
    total_cents: int
    status: str
    tracking: str


@cache
def _vocab() -> dict[str, Any]:
    return json.loads(read_family_text("shop", "vocab.json"))


# --------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The shop that `seed` determines: brand, catalog, coupons, past orders, variation."""
    root = SeedStream(seed).child("shop")
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    brand = f"{brand_rng.choice(vocab['brand_first'])} {brand_rng.choice(vocab['brand_second'])}"
    products = _catalog(root.child("content").child("catalog"), CATALOG_SIZE[difficulty])
    coupons = _coupons(root.child("content").child("coupons"))
    history = _history(
        root.child("content").child("history"), products, HISTORY_SIZE[difficulty], seed
    )
    variation = Variation.draw(seed, difficulty, overrides)
    routes = (
        "/",
        "/staff",
        "/shop",
        "/cart",
        "/checkout",
        "/orders",
        "/track",
        "/wishlist",
        *(f"/order/{o.id}" for o in history),
        *(f"/product/{p.sku}" for p in products),
    )
    return SiteSpec(
        family="shop",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("shop", FAMILY_VERSION),
        brand=brand,
        variation=variation.to_json(),
        entities={"products": tuple(products), "coupons": coupons, "orders": history},
        routes=routes,
        start_route="/",
        today=TODAY,
    )


def _catalog(rng: SeedStream, size: int) -> list[Product]:
    """The catalog, with the guarantees the task library relies on."""
    # One order of the adjectives for the whole catalog (its own stream: drawing it once or
    # once per product gives the same order).
    adjectives: list[str] = list(_vocab()["adjectives"])
    rng.child("adjectives").shuffle(adjectives)
    drafts = [
        _product(rng, i, kind, color, adjectives)
        for i, (kind, color) in enumerate(_kinds_and_colours(rng, size))
    ]
    _two_red_mugs_that_differ(drafts)  # "the cheapest red mug" is a real choice
    _mug_ratings_differ(drafts)  # "the best-rated mug" is one mug
    _cheapest_of_each_colour_is_one(drafts)  # "the cheapest red product" is one product, and
    # "the cheapest red mug" still is one mug after the ties that settling breaks
    _cheapest_of_each_kind_in_stock(drafts)  # "the cheapest X" can be bought
    _something_sold_out(drafts)  # "out of stock" tasks exist on every site
    order = list(range(len(drafts)))
    rng.child("featured").shuffle(order)
    products = [Product(featured_rank=order[i] + 1, **d) for i, d in enumerate(drafts)]
    return sorted(products, key=lambda p: p.featured_rank)


Kind = tuple[str, str, dict[str, Any]]  # category, product type, its vocabulary entry


def _kinds_and_colours(rng: SeedStream, size: int) -> list[tuple[Kind, str]]:
    """Mugs first (two red, the others in distinct colours), then random products, then
    one repeat of an earlier kind and colour (so one can be sold out while the cheapest of
    every kind stays buyable)."""
    vocab = _vocab()
    colours: list[str] = vocab["colors"]
    kinds = [
        (category, key, spec)
        for category, items in sorted(vocab["categories"].items())
        for key, spec in sorted(items.items())
    ]
    mug = next(k for k in kinds if k[1] == "mug")
    others = [k for k in kinds if k[1] != "mug"]
    picks: list[tuple[Kind, str]] = [(mug, "Red"), (mug, "Red")]
    others_colours = [c for c in colours if c != "Red"]
    picks += [(mug, c) for c in rng.child("mug-colors").sample(others_colours, MUG_COUNT - 2)]
    filler = rng.child("filler")
    while len(picks) < size - 1:
        picks.append((filler.choice(others), filler.choice(colours)))
    picks.append(filler.choice(picks[MUG_COUNT:]) if len(picks) > MUG_COUNT else picks[0])
    return picks


def _product(
    rng: SeedStream, i: int, kind: Kind, colour: str, adjectives: list[str]
) -> dict[str, Any]:
    """Product `i` of a kind and colour: a unique title, a price, a rating, stock."""
    category, key, spec = kind
    details = rng.child("details").child(str(i))
    material = details.choice(spec["materials"])
    # Titles are unique: the i-th product takes the i-th adjective (50 adjectives, at most
    # 64 products: the materials and nouns tell the rest apart, and a number if need be).
    title = f"{adjectives[i % len(adjectives)]} {material} {spec['noun']}"
    if i >= len(adjectives):
        title += f" {i + 1}"
    low, high = spec["price"]
    return dict(
        sku="SKU-" + short_hash(f"SKU:{title}|{colour}|{i}"),
        title=title,
        product_type=key,
        noun=spec["noun"],
        category=category,
        color=colour,
        material=material,
        price_cents=_draw_price(details, low, high),
        rating=round(details.randint(25, 50) / 10, 1),
        reviews=details.randint(3, 480),
        stock=0 if details.chance(0.12) else details.randint(1, 40),
        description=details.choice(_vocab()["descriptions"]),
    )


def _red_mugs(drafts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in drafts if d["product_type"] == "mug" and d["color"] == "Red"]


def _two_red_mugs_that_differ(drafts: list[dict[str, Any]]) -> None:
    first, second = _red_mugs(drafts)
    if second["price_cents"] == first["price_cents"]:
        second["price_cents"] += 100
    for d in (first, second):
        d["stock"] = max(d["stock"], 2)  # both are always buyable


def _mug_ratings_differ(drafts: list[dict[str, Any]]) -> None:
    seen: set[float] = set()
    for d in drafts:
        if d["product_type"] != "mug":
            continue
        while d["rating"] in seen:
            d["rating"] = round(d["rating"] - 0.1 if d["rating"] > 2.6 else d["rating"] + 0.7, 1)
        seen.add(d["rating"])


SETTLE_ROUNDS = 8  # raising one price can make a new tie elsewhere; a few rounds settle all


def _cheapest_of_each_colour_is_one(drafts: list[dict[str, Any]]) -> None:
    """Within every colour and every kind, no other price ties the cheapest one; and the two
    red mugs still differ (raising the dearer of a tie can make them equal: seed 850)."""
    for _ in range(SETTLE_ROUNDS):
        _no_price_ties_the_cheapest(drafts)
        first, second = sorted(_red_mugs(drafts), key=lambda d: (d["price_cents"], d["sku"]))
        if first["price_cents"] != second["price_cents"]:
            return
        second["price_cents"] += 100
    raise RuntimeError("shop prices did not settle")  # never on seeds 0-9999 (benchmarked)


def _no_price_ties_the_cheapest(drafts: list[dict[str, Any]]) -> None:
    for _ in range(SETTLE_ROUNDS):
        changed = False
        for key in ("color", "product_type"):
            for group in sorted({d[key] for d in drafts}):
                members = sorted(
                    (d for d in drafts if d[key] == group),
                    key=lambda d: (d["price_cents"], d["sku"]),
                )
                for other in members[1:]:
                    if other["price_cents"] <= members[0]["price_cents"]:
                        other["price_cents"] = members[0]["price_cents"] + 100
                        changed = True
        if not changed:
            return


def _cheapest_of_each_kind_in_stock(drafts: list[dict[str, Any]]) -> None:
    cheapest: dict[tuple[str, str], dict[str, Any]] = {}
    for d in drafts:
        group = (d["product_type"], d["color"])
        if group not in cheapest or d["price_cents"] < cheapest[group]["price_cents"]:
            cheapest[group] = d
    for d in cheapest.values():
        d["stock"] = d["stock"] or 5
    for colour in {d["color"] for d in drafts}:
        first = min((d for d in drafts if d["color"] == colour), key=lambda d: d["price_cents"])
        first["stock"] = first["stock"] or 5


def _something_sold_out(drafts: list[dict[str, Any]]) -> None:
    if any(d["stock"] == 0 for d in drafts):
        return
    # The cheapest of each colour, of each kind and of each kind in each colour (the first
    # in catalog order on a tie) stay in stock.
    protected: set[int] = set()
    for keys in (("color",), ("product_type",), ("color", "product_type")):
        cheapest: dict[tuple[Any, ...], dict[str, Any]] = {}
        for d in drafts:
            group = tuple(d[k] for k in keys)
            if group not in cheapest or d["price_cents"] < cheapest[group]["price_cents"]:
                cheapest[group] = d
        protected |= {id(d) for d in cheapest.values()}
    spare = [
        d
        for d in drafts
        if id(d) not in protected and not (d["product_type"] == "mug" and d["color"] == "Red")
    ]
    max(spare, key=lambda d: (d["price_cents"], d["sku"]))["stock"] = 0


def _draw_price(rng: SeedStream, low: int, high: int) -> int:
    dollars = rng.randint(low // 100, high // 100)
    return dollars * 100 + rng.choice((99, 49, 0, 95))


def _coupons(rng: SeedStream) -> tuple[Coupon, ...]:
    words = ("SPRING", "HELLO", "WELCOME", "THANKS", "FRESH", "SUNNY")
    expired_words = ("WINTER", "XMAS", "AUTUMN", "OLDIE")
    pct = rng.choice((10, 15, 20))
    live = Coupon(f"{rng.choice(words)}{pct}", pct, False)
    old_pct = rng.choice((5, 25, 30))
    old = Coupon(f"{rng.choice(expired_words)}{old_pct}", old_pct, True)
    return (live, old)


def _history(rng: SeedStream, products: list[Product], n: int, seed: int) -> tuple[PastOrder, ...]:
    today = dt.date.fromisoformat(TODAY)
    out = []
    for i in range(n):
        days = rng.randint(3, 200)
        date = today - dt.timedelta(days=days)
        count = rng.randint(1, 3)
        chosen = rng.sample(products, count)
        items = tuple((p.sku, rng.randint(1, 2)) for p in chosen)
        total = sum(p.price_cents * q for p, (_, q) in zip(chosen, items, strict=True))
        status = (
            "delivered"
            if days > 14
            else rng.choice(("shipped", "processing"))
            if days > 4
            else "processing"
        )
        if rng.chance(0.12):
            status = "cancelled"
        oid = "ORD-" + short_hash(f"{seed}|history|{i}", 6)
        tracking = "TRK" + short_hash(f"{seed}|tracking|{i}", 9)
        out.append(PastOrder(oid, date.isoformat(), items, total, status, tracking))
    out.sort(key=lambda o: o.date, reverse=True)
    return tuple(out)
