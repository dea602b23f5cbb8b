"""The `shop` family: catalog with filters and sort, product pages, cart, checkout, orders."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from webfactory_env.__about__ import __version__
from webfactory_env.core.predicates import All, Any_, Contains, Eq, Not, Ref
from webfactory_env.core.resources import read_text, tree_digest
from webfactory_env.core.seeding import SeedStream, short_hash
from webfactory_env.sitegen.app import SiteApp, handler
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.registry import Family, register_family
from webfactory_env.sitegen.spec import AppEvent, Option, PageView, SiteSpec

FAMILY_VERSION = "1"
CATALOG_SIZE = {"easy": 24, "medium": 40, "hard": 64}
SHIPPING_FIELDS = ("full_name", "address_line1", "city", "postal_code")
SORTS = ("featured", "price-asc", "price-desc", "rating-desc")
SORT_ATTRS = {
    "featured": {"key": "featured", "order": "asc"},
    "price-asc": {"key": "price", "order": "asc"},
    "price-desc": {"key": "price", "order": "desc"},
    "rating-desc": {"key": "rating", "order": "desc"},
}
SORT_ALIASES = {
    "featured": ("featured", "default"),
    "price-asc": ("asc", "ascending", "low to high", "cheapest first"),
    "price-desc": ("desc", "descending", "high to low"),
    "rating-desc": ("desc", "descending", "best rated", "top rated"),
}
MUG_COUNT = 5  # every catalog holds mugs in several colours, at least two of them red
PAGE_SIZE = 12


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


@cache
def _vocab() -> dict[str, Any]:
    return json.loads(read_text("sites", "shop", "vocab.json"))


@cache
def _copy() -> dict[str, Any]:
    return json.loads(read_text("sites", "shop", "copy.json"))


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


# --------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str) -> SiteSpec:
    """The shop that `seed` determines: brand, catalog and start page."""
    root = SeedStream(seed).child("shop")
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    brand = f"{brand_rng.choice(vocab['brand_first'])} {brand_rng.choice(vocab['brand_second'])}"
    products = _catalog(root.child("content").child("catalog"), CATALOG_SIZE[difficulty])
    routes = ("/", "/shop", "/cart", "/checkout", *(f"/product/{p.sku}" for p in products))
    return SiteSpec(
        family="shop",
        seed=seed,
        difficulty=difficulty,
        generator_version=f"{__version__}+shop.{FAMILY_VERSION}."
        + tree_digest("sites", "common", "runtime", "shop"),
        brand=brand,
        variation={"theme": "light", "layout": "topnav"},
        entities={"products": tuple(products)},
        routes=routes,
        start_route="/",
        today="2026-01-05",
    )


def _catalog(rng: SeedStream, size: int) -> list[Product]:
    vocab = _vocab()
    colors: list[str] = vocab["colors"]
    kinds = [
        (category, key, spec)
        for category, items in sorted(vocab["categories"].items())
        for key, spec in sorted(items.items())
    ]
    mug = next(k for k in kinds if k[1] == "mug")
    others = [k for k in kinds if k[1] != "mug"]

    # Mugs first: red twice, then distinct other colours, so "the cheapest red mug" always
    # exists and is a real choice.
    picks: list[tuple[tuple[str, str, dict[str, Any]], str]] = [(mug, "Red"), (mug, "Red")]
    for color in rng.child("mug-colors").sample([c for c in colors if c != "Red"], MUG_COUNT - 2):
        picks.append((mug, color))
    filler = rng.child("filler")
    while len(picks) < size:
        picks.append((filler.choice(others), filler.choice(colors)))

    adjectives: list[str] = list(vocab["adjectives"])
    rng.child("adjectives").shuffle(adjectives)
    used_titles: set[str] = set()
    used_skus: set[str] = set()
    prices = rng.child("prices")
    details = rng.child("details")
    red_mug_prices: set[int] = set()
    red_mug_ratings: set[float] = set()
    drafts = []
    for i, ((category, key, spec), color) in enumerate(picks):
        material = details.choice(spec["materials"])
        title = ""
        for j in range(len(adjectives)):
            candidate = f"{adjectives[(i + j) % len(adjectives)]} {material} {spec['noun']}"
            if candidate not in used_titles:
                title = candidate
                break
        if not title:  # cannot happen with 50 adjectives and <= 64 products; keep it total
            title = f"{adjectives[i % len(adjectives)]} {material} {spec['noun']} {i + 1}"
        used_titles.add(title)

        low, high = spec["price"]
        price = _draw_price(prices, low, high)
        rating = round(details.randint(25, 50) / 10, 1)
        if key == "mug" and color == "Red":
            while price in red_mug_prices:
                price += 100
            while rating in red_mug_ratings:
                rating = round(rating - 0.1 if rating > 2.6 else rating + 0.3, 1)
            red_mug_prices.add(price)
            red_mug_ratings.add(rating)

        sku = "SKU-" + short_hash(f"SKU:{title}|{color}")
        n = 0
        while sku in used_skus:  # vanishingly rare; stays deterministic
            n += 1
            sku = "SKU-" + short_hash(f"SKU:{title}|{color}|{n}")
        used_skus.add(sku)
        stock = 0 if details.chance(0.12) else details.randint(1, 40)
        drafts.append(
            dict(
                sku=sku,
                title=title,
                product_type=key,
                noun=spec["noun"],
                category=category,
                color=color,
                material=material,
                price_cents=price,
                rating=rating,
                reviews=details.randint(3, 480),
                stock=stock,
                description=details.choice(vocab["descriptions"]),
            )
        )

    # The cheapest product of every (type, colour) is in stock, so "cheapest X" is buyable.
    cheapest: dict[tuple[str, str], dict[str, Any]] = {}
    for d in drafts:
        group = (d["product_type"], d["color"])
        if group not in cheapest or d["price_cents"] < cheapest[group]["price_cents"]:
            cheapest[group] = d
    for d in cheapest.values():
        if d["stock"] == 0:
            d["stock"] = 5

    order = list(range(len(drafts)))
    rng.child("featured").shuffle(order)
    products = [Product(featured_rank=order[i] + 1, **d) for i, d in enumerate(drafts)]
    products.sort(key=lambda p: p.featured_rank)
    return products


def _draw_price(rng: SeedStream, low: int, high: int) -> int:
    dollars = rng.randint(low // 100, high // 100)
    return dollars * 100 + rng.choice((99, 49, 0, 95))


# ------------------------------------------------------------------- validation
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)+$")
_ZIP = re.compile(r"^\d{5}(?:-\d{4})?$")


def validate_shipping(values: dict[str, str]) -> dict[str, str]:
    """Field -> message for every invalid shipping field (empty when the form is valid)."""
    msg = _copy()["errors"]
    errors: dict[str, str] = {}
    for name in SHIPPING_FIELDS:
        if not values.get(name, "").strip():
            errors[name] = msg["required"]
    name = values.get("full_name", "").strip()
    if "full_name" not in errors and not _NAME.match(name):
        errors["full_name"] = msg["full_name"]
    addr = values.get("address_line1", "").strip()
    has_digit = any(c.isdigit() for c in addr)
    has_alpha = any(c.isalpha() for c in addr)
    if "address_line1" not in errors and not (has_digit and has_alpha and len(addr) >= 5):
        errors["address_line1"] = msg["address_line1"]
    city = values.get("city", "").strip()
    if "city" not in errors and (
        len(city) < 2 or not all(c.isalpha() or c in " .-'" for c in city)
    ):
        errors["city"] = msg["city"]
    if "postal_code" not in errors and not _ZIP.match(values.get("postal_code", "").strip()):
        errors["postal_code"] = msg["postal_code"]
    return errors


# --------------------------------------------------------------------------- app
def _route_effect(route: str) -> Eq:
    return Eq(("route",), route)


class ShopApp(SiteApp):
    """The running shop: filters, sort, cart, shipping form and orders."""

    family = "shop"

    def __init__(self, site: Any) -> None:
        super().__init__(site)
        self.products: tuple[Product, ...] = self.spec.entities["products"]
        self.by_sku = {p.sku: p for p in self.products}
        self.filters = {"color": "", "category": ""}
        self.sort = "featured"
        self.page_no = 1
        self.cart: dict[str, int] = {}
        self.shipping = dict.fromkeys(SHIPPING_FIELDS, "")
        self.form_errors: dict[str, str] = {}
        self.notice = ""
        self.orders: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ state
    def listing(self) -> list[Product]:
        items = [
            p
            for p in self.products
            if (not self.filters["color"] or p.color == self.filters["color"])
            and (not self.filters["category"] or p.category == self.filters["category"])
        ]
        if self.sort == "price-asc":
            items.sort(key=lambda p: (p.price_cents, p.featured_rank))
        elif self.sort == "price-desc":
            items.sort(key=lambda p: (-p.price_cents, p.featured_rank))
        elif self.sort == "rating-desc":
            items.sort(key=lambda p: (-p.rating, p.featured_rank))
        return items

    def state_view(self) -> dict[str, Any]:
        order = (
            self.orders[-1]
            if self.orders
            else {
                "status": "none",
                "id": "",
                "skus": [],
                "shipping": {},
                "total_cents": 0,
            }
        )
        return {
            "route": self.route,
            "page": self._page_kind(self.route),
            "listing": {
                "filters": dict(self.filters),
                "sort": self.sort,
                "count": len(self.listing()),
                "page": self.page_no,
                "pages": self._pages(),
            },
            "product": {"sku": self._product_sku(self.route) or ""},
            "cart": {
                "skus": list(self.cart),
                "items": dict(self.cart),
                "count": sum(self.cart.values()),
                "subtotal_cents": self._subtotal(),
            },
            "forms": {"shipping": dict(self.shipping)},
            "checkout": {"errors": dict(self.form_errors)},
            "order": {k: (list(v) if isinstance(v, list) else v) for k, v in order.items()},
            "orders": {"count": len(self.orders)},
        }

    def _pages(self) -> int:
        return max(1, -(-len(self.listing()) // PAGE_SIZE))

    def _subtotal(self) -> int:
        return sum(self.by_sku[s].price_cents * q for s, q in self.cart.items())

    @staticmethod
    def _product_sku(route: str) -> str | None:
        return route[len("/product/") :] if route.startswith("/product/") else None

    def _page_kind(self, route: str) -> str:
        if route == "/":
            return "home"
        if route == "/shop":
            return "listing"
        if route == "/cart":
            return "cart"
        if route == "/checkout":
            return "checkout"
        sku = self._product_sku(route)
        if sku is not None and sku in self.by_sku:
            return "product"
        if route.startswith("/order/") and any(o["id"] == route[7:] for o in self.orders):
            return "order"
        return "not_found"

    def known_route(self, path: str) -> bool:
        return self._page_kind(path) != "not_found"

    # --------------------------------------------------------------- handlers
    @handler("filter")
    def on_filter(self, ev: AppEvent) -> str | None:
        name, value = ev.arg or "", ev.value or ""
        allowed = {
            "color": {p.color for p in self.products},
            "category": {p.category for p in self.products},
        }
        if name in allowed and (value == "" or value in allowed[name]):
            self.filters[name] = value
            self.page_no = 1
        return None

    @handler("sort")
    def on_sort(self, ev: AppEvent) -> str | None:
        if ev.value in SORTS:
            self.sort = ev.value
            self.page_no = 1
        return None

    @handler("page")
    def on_page(self, ev: AppEvent) -> str | None:
        if (ev.arg or "").isdigit() and 1 <= int(ev.arg or 0) <= self._pages():
            self.page_no = int(ev.arg or 1)
        return None

    @handler("add_to_cart")
    def on_add(self, ev: AppEvent) -> str | None:
        product = self.by_sku.get(ev.arg or "")
        if product is not None and product.stock > 0:
            self.cart[product.sku] = min(self.cart.get(product.sku, 0) + 1, product.stock)
            self.notice = _copy()["product"]["added"]
        return None

    @handler("remove_from_cart")
    def on_remove(self, ev: AppEvent) -> str | None:
        self.cart.pop(ev.arg or "", None)
        return None

    @handler("field")
    def on_field(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        if form == "shipping" and name in self.shipping:
            self.shipping[name] = (ev.value or "")[:200]
        return None

    @handler("submit_shipping")
    def on_submit(self, ev: AppEvent) -> str | None:
        for name in SHIPPING_FIELDS:
            if ev.values is not None and name in ev.values:
                self.shipping[name] = ev.values[name][:200]
        errors = validate_shipping(self.shipping)
        if not self.cart:
            errors["_cart"] = _copy()["errors"]["cart_empty"]
        self.form_errors = errors
        if errors:
            return None
        order_id = "ORD-" + short_hash(f"{self.spec.seed}|order|{len(self.orders)}", 6)
        self.orders.append(
            {
                "status": "placed",
                "id": order_id,
                "skus": list(self.cart),
                "items": dict(self.cart),
                "shipping": {k: v.strip() for k, v in self.shipping.items()},
                "total_cents": self._subtotal(),
            }
        )
        self.cart = {}
        return f"/order/{order_id}"

    def dispatch(self, event: AppEvent):
        # A notice ("Added to your cart") lasts until the next navigation.
        if event.type == "nav":
            self.notice = ""
        return super().dispatch(event)

    # -------------------------------------------------------------- rendering
    def render(self, route: str) -> PageView:
        r = Renderer()
        kind = self._page_kind(route)
        title, main = getattr(self, f"_render_{kind}")(r, route)
        header = self._render_header(r)
        return PageView(
            route=route,
            title=f"{title} · {self.spec.brand}",
            regions={"header": header, "main": main},
            affordances=tuple(r.affordances),
            status=404 if kind == "not_found" else 200,
        )

    def _link(
        self,
        r: Renderer,
        sid: str,
        route: str,
        text: str,
        *,
        region: str,
        class_: str | None = None,
    ) -> str:
        inst = r.instrument(
            sid,
            "Link",
            "click",
            {"route": route, "text": text, "region": region},
            label=text,
            effect=_route_effect(route),
            sticky=True,
            href=route,
        )
        return f"<a{attrs(href=route, class_=class_)}{inst}>{esc(text)}</a>"

    def _render_header(self, r: Renderer) -> str:
        nav = _copy()["nav"]
        count = sum(self.cart.values())
        cart_text = f"{nav['cart']} ({count})" if count else nav["cart"]
        links = [
            self._link(r, "nav:/", "/", nav["home"], region="nav"),
            self._link(r, "nav:/shop", "/shop", nav["shop"], region="nav"),
            self._link(r, "nav:/cart", "/cart", cart_text, region="nav"),
            self._link(r, "nav:/checkout", "/checkout", nav["checkout"], region="nav"),
        ]
        return (
            f'<span class="brand">{esc(self.spec.brand)}</span>'
            f'<nav aria-label="Main">{"".join(links)}</nav>'
        )

    def _card(self, r: Renderer, p: Product, rank: int) -> str:
        inst = r.instrument(
            f"item:{p.sku}",
            "Item",
            "click",
            {
                "type": "product",
                "title": p.title,
                "sku": p.sku,
                "color": p.color,
                "category": p.category,
                "product_type": p.product_type,
                "price": p.price_cents / 100,
                "rating": p.rating,
                "in_stock": p.stock > 0,
                "rank": rank,
            },
            label=p.title,
            effect=_route_effect(f"/product/{p.sku}"),
            sticky=True,
            href=f"/product/{p.sku}",
        )
        return (
            '<article class="card">'
            f'<div class="swatch swatch-{p.color.lower()}"></div>'
            f'<a class="title" href="/product/{esc(p.sku)}"{inst}>{esc(p.title)}</a>'
            f'<span class="price">{money(p.price_cents)}</span>'
            f'<span class="muted">Color: {esc(p.color)} · {esc(p.category)}</span>'
            f"<span>★ {p.rating:.1f} ({p.reviews} reviews)</span>"
            f"{self._stock_html(p)}"
            "</article>"
        )

    def _stock_html(self, p: Product) -> str:
        c = _copy()["product"]
        if p.stock == 0:
            return f'<span class="stock-out">{esc(c["out"])}</span>'
        if p.stock <= 5:
            return f'<span class="stock-low">{esc(c["low"].format(n=p.stock))}</span>'
        return f'<span class="muted">{esc(c["in"])}</span>'

    def _render_home(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["home"]
        featured = self.products[:4]
        cta = self._link(r, "home:cta", "/shop", c["cta"], region="main", class_="button")
        cards = "".join(self._card(r, p, i + 1) for i, p in enumerate(featured))
        title = c["title"].format(brand=self.spec.brand)
        return title, (
            f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c["tagline"])}</p>{cta}</section>'
            f'<h2>{esc(c["featured"])}</h2><div class="grid">{cards}</div>'
        )

    def _select(
        self,
        r: Renderer,
        *,
        sid: str,
        kind: str,
        attrs_: dict[str, Any],
        label: str,
        field_id: str,
        name: str,
        options: list[Option],
        selected: str,
        handler_: str,
        arg: str | None,
        effect: Any,
    ) -> str:
        inst = r.instrument(
            sid,
            kind,
            "select",
            attrs_,
            label=label,
            handler=handler_,
            arg=arg,
            options=options,
            effect=effect,
        )
        opts = "".join(
            f"<option{attrs(value=o.value, selected=o.value == selected)}>{esc(o.label)}</option>"
            for o in options
        )
        return (
            f'<div class="field"><label for="{field_id}">{esc(label)}</label>'
            f"<select{attrs(id=field_id, name=name)}{inst}>{opts}</select></div>"
        )

    def _render_listing(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["listing"]
        sort_copy = _copy()["sort"]
        colors = sorted({p.color for p in self.products})
        categories = sorted({p.category for p in self.products})
        color_sel = self._select(
            r,
            sid="filter:color",
            kind="Filter",
            attrs_={"name": "color"},
            label=c["color"],
            field_id="filter-color",
            name="color",
            options=[Option("", c["all_colors"]), *(Option(x, x) for x in colors)],
            selected=self.filters["color"],
            handler_="filter",
            arg="color",
            effect=Eq(("listing", "filters", "color"), Ref("value")),
        )
        cat_sel = self._select(
            r,
            sid="filter:category",
            kind="Filter",
            attrs_={"name": "category"},
            label=c["category"],
            field_id="filter-category",
            name="category",
            options=[Option("", c["all_categories"]), *(Option(x, x) for x in categories)],
            selected=self.filters["category"],
            handler_="filter",
            arg="category",
            effect=Eq(("listing", "filters", "category"), Ref("value")),
        )
        sort_sel = self._select(
            r,
            sid="sort",
            kind="Sort",
            attrs_={"name": "sort"},
            label=c["sort"],
            field_id="sort",
            name="sort",
            options=[
                Option(s, sort_copy[s], tuple(sorted(SORT_ATTRS[s].items())), SORT_ALIASES[s])
                for s in SORTS
            ],
            selected=self.sort,
            handler_="sort",
            arg=None,
            effect=Eq(("listing", "sort"), Ref("value")),
        )
        items = self.listing()
        count = c["count_one"] if len(items) == 1 else c["count_many"].format(n=len(items))
        first = (self.page_no - 1) * PAGE_SIZE
        shown = items[first : first + PAGE_SIZE]
        cards = "".join(self._card(r, p, first + i + 1) for i, p in enumerate(shown))
        body = f'<div class="grid">{cards}</div>' if items else f"<p>{esc(c['empty'])}</p>"
        return c["title"], (
            f"<h1>{esc(c['title'])}</h1>"
            f'<div class="toolbar">{color_sel}{cat_sel}{sort_sel}'
            f'<p class="muted" role="status">{esc(count)}</p></div>{body}{self._pager(r)}'
        )

    def _pager(self, r: Renderer) -> str:
        pages = self._pages()
        if pages == 1:
            return ""
        c = _copy()["listing"]
        buttons = []
        targets = [("prev", self.page_no - 1, c["prev"])]
        targets += [(str(n), n, str(n)) for n in range(1, pages + 1)]
        targets += [("next", self.page_no + 1, c["next"])]
        for key, n, text in targets:
            usable = 1 <= n <= pages and n != self.page_no
            inst = r.instrument(
                f"pager:{key}",
                "Button",
                "click",
                {"role": "page", "page": n, "text": text, "disabled": not usable},
                label=text,
                handler="page",
                arg=str(n),
                effect=Eq(("listing", "page"), n),
            )
            current = ' aria-current="page"' if n == self.page_no and key.isdigit() else ""
            buttons.append(
                f'<button type="button" class="secondary"{attrs(disabled=not usable)}'
                f"{current}{inst}>{esc(text)}</button>"
            )
        return f'<nav class="pager" aria-label="{esc(c["pages"])}">{"".join(buttons)}</nav>'

    def _render_product(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["product"]
        p = self.by_sku[route[len("/product/") :]]
        crumb = self._link(r, "crumb:/shop", "/shop", c["back"], region="main")
        inst = r.instrument(
            f"add-to-cart:{p.sku}",
            "Button",
            "click",
            {"role": "add-to-cart", "sku": p.sku, "title": p.title, "disabled": p.stock == 0},
            label=c["add"],
            handler="add_to_cart",
            arg=p.sku,
            effect=Any_((Contains(("cart", "skus"), p.sku), Contains(("order", "skus"), p.sku))),
        )
        notice = ""
        if self.notice:
            view = self._link(r, "notice:/cart", "/cart", c["view_cart"], region="main")
            notice = f'<p class="notice" role="status">{esc(self.notice)} {view}</p>'
        button = (
            f"<button{attrs(type='button', disabled=p.stock == 0)}{inst}>{esc(c['add'])}</button>"
        )
        return p.title, (
            f'<nav class="breadcrumb" aria-label="Breadcrumb">{crumb} › {esc(p.category)}</nav>'
            f'<div class="product"><div class="swatch swatch-{p.color.lower()}"></div><div>'
            f"<h1>{esc(p.title)}</h1>"
            f'<p class="price">{money(p.price_cents)}</p>'
            f"<p>Color: {esc(p.color)}</p><p>Material: {esc(p.material)}</p>"
            f"<p>Category: {esc(p.category)}</p>"
            f"<p>★ {p.rating:.1f} · {p.reviews} reviews</p>"
            f"<p>{self._stock_html(p)}</p><p>{esc(p.description)}</p>"
            f"{button}{notice}</div></div>"
        )

    def _render_cart(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["cart"]
        if not self.cart:
            link = self._link(r, "cart:/shop", "/shop", _copy()["home"]["cta"], region="main")
            return c["title"], f"<h1>{esc(c['title'])}</h1><p>{esc(c['empty'])}</p><p>{link}</p>"
        rows = []
        for sku, qty in self.cart.items():
            p = self.by_sku[sku]
            link = self._link(r, f"cart-item:{sku}", f"/product/{sku}", p.title, region="main")
            inst = r.instrument(
                f"remove:{sku}",
                "Button",
                "click",
                {"role": "remove-from-cart", "sku": sku, "title": p.title},
                label=c["remove"],
                handler="remove_from_cart",
                arg=sku,
                effect=Not(Contains(("cart", "skus"), sku)),
            )
            rows.append(
                f"<tr><td>{link}</td><td>{c['qty']} {qty}</td>"
                f"<td>{money(p.price_cents * qty)}</td>"
                f'<td><button type="button" class="secondary"{inst}>{esc(c["remove"])}</button>'
                "</td></tr>"
            )
        proceed = self._link(
            r, "cart:proceed", "/checkout", c["proceed"], region="main", class_="button"
        )
        return c["title"], (
            f"<h1>{esc(c['title'])}</h1><table><tbody>{''.join(rows)}</tbody></table>"
            f"<p><strong>{esc(c['subtotal'])}: {money(self._subtotal())}</strong></p>"
            f"<p>{proceed}</p>"
        )

    def _render_checkout(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["checkout"]
        fields = []
        autocomplete = {
            "full_name": "name",
            "address_line1": "address-line1",
            "city": "address-level2",
            "postal_code": "postal-code",
        }
        for name in SHIPPING_FIELDS:
            label = c[name]
            inst = r.instrument(
                f"field:shipping.{name}",
                "Field",
                "fill",
                {"name": name, "form": "shipping", "label": label},
                label=label,
                handler="field",
                arg=f"shipping.{name}",
                effect=Eq(("forms", "shipping", name), Ref("value")),
            )
            err = self.form_errors.get(name, "")
            error_html = f'<span class="error" role="alert">{esc(err)}</span>' if err else ""
            input_attrs = attrs(
                id=f"ship-{name}",
                name=name,
                type="text",
                value=self.shipping[name],
                autocomplete=autocomplete[name],
                aria_invalid="true" if err else None,
            )
            fields.append(
                f'<div class="field{" invalid" if err else ""}">'
                f'<label for="ship-{name}">{esc(label)}</label>'
                f"<input{input_attrs}{inst}>{error_html}</div>"
            )
        submit = r.instrument(
            "form:shipping",
            "Form",
            "submit",
            {"name": "shipping"},
            label=c["place"],
            handler="submit_shipping",
            effect=All(
                (
                    Eq(("order", "status"), "placed"),
                    Eq(("order", "shipping"), Ref("state:forms.shipping")),
                    Contains(("order", "skus"), Ref("state:cart.skus")),
                )
            ),
        )
        summary_rows = "".join(
            f"<li>{esc(self.by_sku[s].title)} × {q} — {money(self.by_sku[s].price_cents * q)}</li>"
            for s, q in self.cart.items()
        )
        summary = (
            f'<aside class="summary"><h2>{esc(c["summary"])}</h2>'
            + (
                f"<ul>{summary_rows}</ul><p><strong>{money(self._subtotal())}</strong></p>"
                if self.cart
                else f"<p>{esc(c['empty'])}</p>"
            )
            + "</aside>"
        )
        banner = ""
        if self.form_errors:
            text = self.form_errors.get("_cart") or c["fix"]
            banner = f'<p class="error-summary" role="alert">{esc(text)}</p>'
        form = (
            f"<form{attrs(novalidate=True, aria_label=c['shipping'], data_wf_h='submit_shipping')}>"
            f"<h2>{esc(c['shipping'])}</h2>{banner}{''.join(fields)}"
            f'<button type="submit"{submit}>{esc(c["place"])}</button></form>'
        )
        return c["title"], (
            f'<h1>{esc(c["title"])}</h1><div class="checkout">{form}{summary}</div>'
        )

    def _render_order(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["order"]
        order = next(o for o in self.orders if o["id"] == route[len("/order/") :])
        items = "".join(
            f"<li>{esc(self.by_sku[s].title)} × {q}</li>" for s, q in order["items"].items()
        )
        ship = order["shipping"]
        more = self._link(r, "order:continue", "/shop", c["continue"], region="main")
        return c["title"], (
            f"<h1>{esc(c['title'])}</h1>"
            f'<p role="status">{esc(c["placed"].format(id=order["id"]))}</p>'
            f"<ul>{items}</ul><h2>{esc(c['ship_to'])}</h2>"
            f"<p>{esc(ship['full_name'])}<br>{esc(ship['address_line1'])}<br>"
            f"{esc(ship['city'])} {esc(ship['postal_code'])}</p><p>{more}</p>"
        )

    def _render_not_found(self, r: Renderer, route: str) -> tuple[str, str]:
        c = _copy()["not_found"]
        home = self._link(r, "notfound:/", "/", c["home"], region="main")
        return c["title"], f"<h1>{esc(c['title'])}</h1><p>{esc(c['body'])}</p><p>{home}</p>"


FAMILY = Family(
    name="shop",
    version=FAMILY_VERSION,
    description="An online shop: catalog with colour/category filters and sort, product pages, "
    "cart, checkout with a validated shipping form, order confirmation.",
    generate=generate,
    app_class=ShopApp,
    kinds=("Button", "Field", "Filter", "Form", "Item", "Link", "Sort"),
)
register_family(FAMILY)
