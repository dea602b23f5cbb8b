"""What the shop's pages and transitions read: the catalog the seed drew, and queries over the
state (the listing as filtered, the cart's totals, the order on a route). They change nothing."""

from __future__ import annotations

from webfactory_env.core.typed import parse_code
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.families.shop.content import Coupon, PastOrder, Product
from webfactory_env.sitegen.families.shop.state import (
    CartFacts,
    ListingFacts,
    Order,
    ProductFacts,
    ShopFacts,
    ShopState,
)
from webfactory_env.sitegen.spec import SiteSpec

PAGE_SIZE = 12
SORTS = ("featured", "price-asc", "price-desc", "rating-desc")


def code_of(text: str) -> str:
    """A coupon or tracking code as typed, read as codes are (`core.typed`: no spaces,
    capitals): whatever spelling of a code is accepted, the goal accepts too."""
    return parse_code(text) or text.strip().upper()


class ShopQueries(Queries):
    """The catalog, the coupons and the order history, with reads over the shop's state."""

    state: ShopState

    def __init__(self, state: ShopState, spec: SiteSpec) -> None:
        super().__init__(state, spec)
        self.products: tuple[Product, ...] = spec.entities["products"]
        self.by_sku = {p.sku: p for p in self.products}
        self.categories = {p.category for p in self.products}
        self.coupons: dict[str, Coupon] = {c.code: c for c in spec.entities["coupons"]}
        self.history: tuple[PastOrder, ...] = spec.entities["orders"]
        self.strict = spec.difficulty == "hard"  # checkout validation's strictness

    def listing(self) -> list[Product]:
        """The catalog as the listing's filters and sort show it."""
        f = self.state.listing.filters
        items = [
            p
            for p in self.products
            if (not f["color"] or p.color == f["color"])
            and (not f["category"] or p.category == f["category"])
        ]
        order = {
            "price-asc": lambda p: (p.price_cents, p.featured_rank),
            "price-desc": lambda p: (-p.price_cents, p.featured_rank),
            "rating-desc": lambda p: (-p.rating, p.featured_rank),
        }.get(self.state.listing.sort)
        return sorted(items, key=order) if order else items

    def pages(self, listed: list[Product] | None = None) -> int:
        """How many pages the listing takes (`listed`: the listing, if already at hand)."""
        return max(1, -(-len(self.listing() if listed is None else listed) // PAGE_SIZE))

    def subtotal(self) -> int:
        return sum(self.by_sku[s].price_cents * q for s, q in self.state.cart.items.items())

    def discount(self) -> int:
        c = self.coupons.get(self.state.cart.coupon)
        return self.subtotal() * c.percent // 100 if c else 0

    def total(self) -> int:
        return self.subtotal() - self.discount()

    def coupon_status(self) -> str:
        """Whether the code typed in the coupon field is active, expired or unknown."""
        code = code_of(self.state.forms.coupon["code"])
        if not code:
            return ""
        found = self.coupons.get(code)
        return "unknown" if found is None else "expired" if found.expired else "active"

    def product_at(self, route: str) -> Product | None:
        return self.by_sku.get(route[len("/product/") :]) if route.startswith("/product/") else None

    def order_at(self, route: str) -> Order | None:
        if not route.startswith("/order/"):
            return None
        return self.state.orders.get(route[len("/order/") :])

    def placed(self) -> list[Order]:
        """Orders placed on the site, oldest first."""
        return [o for o in self.state.orders.values() if o.placed_here]

    def entity_page_kind(self, route: str) -> str:
        """The kind of a page that shows one product or one order, or "not_found"."""
        if self.product_at(route) is not None:
            return "product"
        if self.order_at(route) is not None:
            return "order"
        return "not_found"


Shop = Context[ShopState, ShopQueries]  # what the shop's transitions and pages work on


def facts(shop: Shop) -> ShopFacts:
    """The computed values a goal reads next to the state, on the visitor's page."""
    q, cart = shop.queries, shop.state.cart
    p = q.product_at(shop.route)
    placed = q.placed()
    listed = q.listing()
    if shop.v.list_mode == "infinite":
        shown = min(len(listed), shop.ui.more.get("listing", 1) * PAGE_SIZE)
    else:
        shown = min(PAGE_SIZE, len(listed))
    return ShopFacts(
        product=ProductFacts(p.sku, p.title, p.stock > 0, p.price_cents / 100, p.stock)
        if p
        else ProductFacts(),
        viewed_order=q.order_at(shop.route) or Order(),
        order=placed[-1] if placed else Order(),
        cart=CartFacts(
            skus=list(cart.items),
            count=sum(cart.items.values()),
            subtotal_cents=q.subtotal(),
            discount_cents=q.discount(),
            total_cents=q.total(),
        ),
        listing=ListingFacts(len(listed), q.pages(listed), shown),
        coupon_status=q.coupon_status(),
    )
