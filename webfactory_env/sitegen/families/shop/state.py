"""The shop's typed state: what a goal can pin (orders by id, the cart) next to what it never
pins (form drafts, the listing's filters), and the computed facts merged into its view."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from webfactory_env.sitegen.families.shop.content import PastOrder
from webfactory_env.sitegen.families.shop.rules import SHIPPING_FIELDS
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.state import (
    AppState,
    Record,
    copied,
    derived,
    drafts,
    entities,
    history,
    secret,
    session,
    typed,
    typed_keys,
    view,
)


@dataclass(kw_only=True)
class Order(Record):
    """An order: one from the seed's history, or one placed on the site."""

    status: str = "none"
    items: dict[str, int] = field(default_factory=dict)  # SKU -> quantity, compared exactly
    shipping: dict[str, str] = copied("forms.shipping", default_factory=dict)
    payment: str = copied("forms.payment.method", "")
    card_last4: str = copied("forms.payment.card_last4", "")
    coupon: str = copied("cart.coupon", "")
    date: str = derived("")
    total_cents: int = derived(0)
    tracking: str = derived("")
    placed_here: bool = derived(False)

    @classmethod
    def past(cls, o: PastOrder) -> Order:
        """An order of the seed's history, as the order page and the goals see it."""
        return cls(
            id=o.id,
            status=o.status,
            items=dict(o.items),
            payment="card",
            date=o.date,
            total_cents=o.total_cents,
            tracking=o.tracking,
        )


@dataclass
class Cart:
    items: dict[str, int] = field(default_factory=dict)  # SKU -> quantity
    coupon: str = typed("code")
    removed: set[str] = history()  # what was taken out again (shown on the cart page)


@dataclass
class PaymentDraft:
    method: str = "cod"
    expiry: str = ""
    card_name: str = ""
    # Card numbers and security codes never reach the view (rewards, traces): only the
    # last four digits and whether a code was given.
    card_last4: str = typed("card")
    cvc_given: bool = False
    card_number: str = secret()
    cvc: str = secret()


@dataclass
class ShopForms:
    shipping: dict[str, str] = typed_keys(
        lambda: dict.fromkeys(SHIPPING_FIELDS, ""), postal_code="postal"
    )
    payment: PaymentDraft = field(default_factory=PaymentDraft)
    coupon: dict[str, str] = typed_keys(lambda: {"code": ""}, code="code")
    track: dict[str, str] = typed_keys(lambda: {"number": ""}, number="code")
    newsletter: dict[str, str] = typed_keys(lambda: {"email": ""}, email="email")


@dataclass
class Listing:
    filters: dict[str, str] = field(default_factory=lambda: {"color": "", "category": ""})
    sort: str = "featured"
    page: int = 1


@dataclass
class Feedback:
    """What the last submissions said back (validation errors, the parcel looked up)."""

    checkout_errors: dict[str, str] = field(default_factory=dict)
    coupon_error: str = ""
    tracking_searched: str = ""
    tracking_result: str = ""


@dataclass
class ShopState(AppState):
    orders: dict[str, Order] = entities()
    cart: Cart = session(Cart, persists=False)  # unpaid: the order keeps it
    wishlist: set[str] = session(set, persists=True)
    newsletter: set[str] = session(set, persists=True)  # e-mail addresses signed up
    forms: ShopForms = drafts(ShopForms)
    listing: Listing = view(Listing)
    feedback: Feedback = view(Feedback)

    @classmethod
    def start(cls, spec: SiteSpec) -> Self:
        """The seed's order history; an empty cart."""
        return cls(orders={o.id: Order.past(o) for o in spec.entities["orders"]})


# ------------------------------------------------------------------------ facts
@dataclass
class ProductFacts:
    sku: str = ""
    title: str = ""
    in_stock: bool = False
    price: float = 0.0
    stock: int = 0


@dataclass
class CartFacts:
    skus: list[str] = field(default_factory=list)
    count: int = 0
    subtotal_cents: int = 0
    discount_cents: int = 0
    total_cents: int = 0


@dataclass
class ListingFacts:
    count: int = 0
    pages: int = 1
    shown: int = 0


@dataclass
class ShopFacts:
    """Computed, read-only values: the open product and order, totals, the listing."""

    product: ProductFacts
    viewed_order: Order  # the order page that is open
    order: Order  # the last order placed on the site
    cart: CartFacts
    listing: ListingFacts
    coupon_status: str  # of the code typed in the coupon field: active, expired, unknown
