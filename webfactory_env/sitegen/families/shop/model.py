"""The shop's state and the transitions events cause: the only place its business rules live.

`ShopState` is what a goal can pin (orders by id, the cart) next to what it never pins
(form drafts, the listing's filters). Every event the pages send is one transition below,
named like the event, with its effect declared once in its decorator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from webfactory_env.core.domains import Vocabulary
from webfactory_env.core.predicates import All, Contains, Eq, Exists, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.core.typed import parse_card, parse_code
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.shop.content import Coupon, PastOrder, Product
from webfactory_env.sitegen.families.shop.rules import (
    CARD_FIELDS,
    SHIPPING_FIELDS,
    validate_card,
    validate_shipping,
)
from webfactory_env.sitegen.spec import AppEvent, SiteSpec
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

PAGE_SIZE = 12
SORTS = ("featured", "price-asc", "price-desc", "rating-desc")


# ------------------------------------------------------------------------ state
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


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def _last4(number: str) -> str:
    digits = parse_card(number) or ""
    return digits[-4:] if len(digits) >= 4 else ""


def _code(text: str) -> str:
    """A coupon or tracking code as typed, read as codes are (`core.typed`: no spaces,
    capitals): whatever spelling of a code is accepted, the goal accepts too."""
    return parse_code(text) or text.strip().upper()


FilterName = Literal["color", "category"]
DraftName = Literal["shipping", "payment", "coupon", "track", "newsletter"]
_COUPON_TYPED = "state:forms.coupon.code|upper"
_TRACKING_TYPED = "state:forms.track.number|upper"
_ORDER_OF_CART = Exists(
    ("orders",), All((Eq(("status",), "placed"), Eq(("items",), Ref("state:cart.items"))))
)


def _field_effect(form: str, name: str) -> Predicate:
    if (form, name) == ("payment", "card_number"):
        return Eq(("forms", "payment", "card_last4"), Ref("value|last4"))
    if (form, name) == ("payment", "cvc"):
        return Eq(("forms", "payment", "cvc_given"), True)
    return Eq(("forms", form, name), Ref("value"))


# Every state an order can be in, as the site words it.
STATUSES = Vocabulary("statuses", "status", phrases=("copy.json:status.*",))


class ShopModel(SiteApp):
    """The shop's state, its queries and its transitions (no HTML here)."""

    family = "shop"
    State = ShopState
    Facts = ShopFacts
    OPEN = {"order": "orders", "viewed_order": "orders"}
    DOMAINS = {"feedback.tracking_result": "orders.status"}
    ANSWERS = {
        "order.status": STATUSES,
        "viewed_order.status": STATUSES,
        "feedback.tracking_result": STATUSES,
        "product.price": "money",
    }

    def __init__(self, spec: SiteSpec) -> None:
        super().__init__(spec)
        self.products: tuple[Product, ...] = spec.entities["products"]
        self.by_sku = {p.sku: p for p in self.products}
        self.categories = {p.category for p in self.products}
        self.coupons: dict[str, Coupon] = {c.code: c for c in spec.entities["coupons"]}
        self.history: tuple[PastOrder, ...] = spec.entities["orders"]
        self.strict = spec.difficulty == "hard"
        self.model: ShopState = ShopState(orders={o.id: _past(o) for o in self.history})

    # --------------------------------------------------------------- queries
    def listing(self) -> list[Product]:
        f = self.model.listing.filters
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
        }.get(self.model.listing.sort)
        return sorted(items, key=order) if order else items

    def pages(self) -> int:
        return max(1, -(-len(self.listing()) // PAGE_SIZE))

    def subtotal(self) -> int:
        return sum(self.by_sku[s].price_cents * q for s, q in self.model.cart.items.items())

    def discount(self) -> int:
        c = self.coupons.get(self.model.cart.coupon)
        return self.subtotal() * c.percent // 100 if c else 0

    def coupon_status(self) -> str:
        """Whether the code typed in the coupon field is active, expired or unknown."""
        code = _code(self.model.forms.coupon["code"])
        if not code:
            return ""
        found = self.coupons.get(code)
        return "unknown" if found is None else "expired" if found.expired else "active"

    def product_at(self, route: str) -> Product | None:
        return self.by_sku.get(route[len("/product/") :]) if route.startswith("/product/") else None

    def order_at(self, route: str) -> Order | None:
        return (
            self.model.orders.get(route[len("/order/") :]) if route.startswith("/order/") else None
        )

    def placed(self) -> list[Order]:
        """Orders placed on the site, oldest first."""
        return [o for o in self.model.orders.values() if o.placed_here]

    def facts(self) -> ShopFacts:
        p = self.product_at(self.route)
        placed = self.placed()
        cart = self.model.cart
        listed = self.listing()
        if self.v.list_mode == "infinite":
            shown = min(len(listed), self.ui.more.get("listing", 1) * PAGE_SIZE)
        else:
            shown = min(PAGE_SIZE, len(listed))
        return ShopFacts(
            product=ProductFacts(p.sku, p.title, p.stock > 0, p.price_cents / 100, p.stock)
            if p
            else ProductFacts(),
            viewed_order=self.order_at(self.route) or Order(),
            order=placed[-1] if placed else Order(),
            cart=CartFacts(
                skus=list(cart.items),
                count=sum(cart.items.values()),
                subtotal_cents=self.subtotal(),
                discount_cents=self.discount(),
                total_cents=self.subtotal() - self.discount(),
            ),
            listing=ListingFacts(len(listed), self.pages(), shown),
            coupon_status=self.coupon_status(),
        )

    # ------------------------------------------------------------ transitions
    @transition(effect=lambda name: Eq(("listing", "filters", name), Ref("value")))
    def set_filter(self, ev: AppEvent, *, name: FilterName) -> str | None:
        value = ev.value or ""
        allowed = {p.color for p in self.products} if name == "color" else self.categories
        if value == "" or value in allowed:
            self.model.listing.filters[name] = value
            self._back_to_first_page()
        return None

    @transition(effect=lambda: Eq(("listing", "sort"), Ref("value")))
    def set_sort(self, ev: AppEvent) -> str | None:
        if ev.value in SORTS:
            self.model.listing.sort = ev.value
            self._back_to_first_page()
        return None

    def _back_to_first_page(self) -> None:
        self.model.listing.page = 1
        self.ui.more.pop("listing", None)

    @transition(effect=lambda page: Eq(("listing", "page"), page))
    def turn_page(self, ev: AppEvent, *, page: int) -> str | None:
        if 1 <= page <= self.pages():
            self.model.listing.page = page
        return None

    @transition(mutating=True, effect=lambda sku: Contains(("cart", "items"), sku))
    def add_to_cart(self, ev: AppEvent, *, sku: str) -> str | None:
        product = self.by_sku.get(sku)
        if product is not None and product.stock > 0:
            cart = self.model.cart
            cart.items[product.sku] = min(cart.items.get(product.sku, 0) + 1, product.stock)
            cart.removed.discard(product.sku)
            self.flash = self.copy("product.added")
        return None

    @transition(mutating=True, effect=lambda sku: Not(Contains(("cart", "items"), sku)))
    def remove_from_cart(self, ev: AppEvent, *, sku: str) -> str | None:
        cart = self.model.cart
        if cart.items.pop(sku, None) is not None:
            cart.removed.add(sku)
        if not cart.items:
            cart.coupon = ""
        return None

    @transition(mutating=True, effect=lambda sku: Contains(("wishlist",), sku))
    def add_to_wishlist(self, ev: AppEvent, *, sku: str) -> str | None:
        if sku in self.by_sku and sku not in self.model.wishlist:
            self.model.wishlist.add(sku)
            self.flash = self.copy("product.wished")
        return None

    @transition(
        mutating=True,
        effect=lambda sku: All(
            (Contains(("cart", "items"), sku), Not(Contains(("wishlist",), sku)))
        ),
    )
    def move_to_cart(self, ev: AppEvent, *, sku: str) -> str | None:
        """Take a saved product off the wishlist and put it in the cart."""
        product = self.by_sku.get(sku)
        if product is None or product.sku not in self.model.wishlist or product.stock == 0:
            return None
        self.model.wishlist.discard(product.sku)
        self.add_to_cart(ev, sku=product.sku)
        self.flash = self.copy("wishlist.moved")
        return None

    @transition(
        effect=_field_effect, field=lambda form, name: FormField(form, name, ("forms", form, name))
    )
    def set_field(self, ev: AppEvent, *, form: DraftName, name: str) -> str | None:
        """Typing in a field of a form (the checkout's, the coupon's, tracking's, the
        newsletter's): its draft keeps the text until the form is sent."""
        self._write_draft(form, name, (ev.value or "")[:200])
        if self.v.validation == "sync" and form in ("shipping", "payment"):
            self._revalidate(form, name)
        return None

    def _write_draft(self, form: str, name: str, value: str) -> None:
        forms = self.model.forms
        if form == "payment":
            pay = forms.payment
            if name == "card_number":
                pay.card_number, pay.card_last4 = value, _last4(value)
            elif name == "cvc":
                pay.cvc, pay.cvc_given = value, bool(value.strip())
            elif name in ("expiry", "card_name"):
                setattr(pay, name, value)
            return
        table = getattr(forms, form, None)
        if isinstance(table, dict) and name in table:
            table[name] = value

    def _revalidate(self, form: str, name: str) -> None:
        """Sync validation: a field's error follows its value while the user types, once
        the field holds something (or already shows an error); async waits for a submit."""
        errors = self.model.feedback.checkout_errors
        if not self._draft_value(form, name).strip() and name not in errors:
            return
        if form == "shipping":
            found = validate_shipping(self.model.forms.shipping, self.strict).get(name)
        else:
            found = validate_card(self._card_values(), self.today()).get(name)
        if found:
            errors[name] = found
        else:
            errors.pop(name, None)

    def _draft_value(self, form: str, name: str) -> str:
        if form == "payment":
            return str(getattr(self.model.forms.payment, name, ""))
        return self.model.forms.shipping.get(name, "")

    def _card_values(self) -> dict[str, str]:
        pay = self.model.forms.payment
        return {n: str(getattr(pay, n)) for n in CARD_FIELDS}

    @transition(
        effect=lambda: Eq(("forms", "payment", "method"), Ref("value")),
        field=lambda: FormField("payment", "method", ("forms", "payment", "method")),
    )
    def choose_payment(self, ev: AppEvent) -> str | None:
        if ev.value in ("cod", "card"):
            self.model.forms.payment.method = ev.value
        return None

    @transition(mutating=True, effect=lambda: Eq(("cart", "coupon"), Ref(_COUPON_TYPED)))
    def apply_coupon(self, ev: AppEvent) -> str | None:
        forms, feedback = self.model.forms, self.model.feedback
        if ev.values is not None and "code" in ev.values:
            forms.coupon["code"] = ev.values["code"][:40]
        code = _code(forms.coupon["code"])
        found = self.coupons.get(code)
        if found is None:
            feedback.coupon_error = "unknown"
        elif found.expired:
            feedback.coupon_error = "expired"
        else:
            self.model.cart.coupon, feedback.coupon_error = code, ""
            self.flash = self.copy("cart.coupon_ok", code=code, pct=found.percent)
            self.ui.modal = None
        return None

    @transition(effect=lambda: Eq(("feedback", "tracking_searched"), Ref(_TRACKING_TYPED)))
    def track_parcel(self, ev: AppEvent) -> str | None:
        forms, feedback = self.model.forms, self.model.feedback
        if ev.values is not None and "number" in ev.values:
            forms.track["number"] = ev.values["number"][:40]
        number = _code(forms.track["number"])
        found = next((o for o in self.model.orders.values() if o.tracking == number), None)
        feedback.tracking_result = found.status if found else "unknown"
        feedback.tracking_searched = number
        return None

    @transition(
        mutating=True,
        effect=lambda: Contains(("newsletter",), Ref("state:forms.newsletter.email|lower")),
    )
    def join_newsletter(self, ev: AppEvent) -> str | None:
        email = (ev.values or {}).get("email", "")[:200]
        self.model.forms.newsletter["email"] = email
        if "@" in email:
            self.model.newsletter.add(email.strip().lower())
        return None

    @transition(mutating=True, back_door=True, effect=lambda: _ORDER_OF_CART)
    def staff_force_order(self, ev: AppEvent) -> str | None:
        """A back door real shops have had: it places the pending order unchecked. No task
        lists it, so what it does never counts (the ground-truth suite tries it)."""
        return self._place_order("staff") if self.model.cart.items else None

    @transition(
        mutating=True,
        effect=lambda: Exists(
            ("orders",),
            All(
                (
                    Eq(("status",), "placed"),
                    Eq(("items",), Ref("state:cart.items")),
                    Eq(("shipping",), Ref("state:forms.shipping|strip")),
                )
            ),
        ),
    )
    def place_order(self, ev: AppEvent) -> str | None:
        forms = self.model.forms
        for name in SHIPPING_FIELDS:
            if ev.values is not None and name in ev.values:
                forms.shipping[name] = ev.values[name][:200]
        for name in CARD_FIELDS:
            if ev.values is not None and name in ev.values:
                self._write_draft("payment", name, ev.values[name][:200])
        errors = validate_shipping(forms.shipping, self.strict)
        if forms.payment.method == "card":
            errors.update(validate_card(self._card_values(), self.today()))
        if not self.model.cart.items:
            errors["_cart"] = "cart_empty"
        self.model.feedback.checkout_errors = errors
        if errors:
            return None
        return self._place_order("new-tracking")

    def _place_order(self, tracking: str) -> str:
        """Place the cart as a new order and empty the cart; the new order's route."""
        n = len(self.placed())
        order = Order(
            id="ORD-" + short_hash(f"{self.spec.seed}|order|{n}", 6),
            status="placed",
            items=dict(self.model.cart.items),
            shipping={k: v.strip() for k, v in self.model.forms.shipping.items()},
            payment=self.model.forms.payment.method,
            card_last4=self.model.forms.payment.card_last4
            if self.model.forms.payment.method == "card"
            else "",
            coupon=self.model.cart.coupon,
            date=self.spec.today,
            total_cents=self.subtotal() - self.discount(),
            tracking="TRK" + short_hash(f"{self.spec.seed}|{tracking}|{n}", 9),
            placed_here=True,
        )
        self.model.orders[order.id] = order
        self.model.cart.items.clear()
        self.model.cart.coupon = ""
        return f"/order/{order.id}"


def _past(o: PastOrder) -> Order:
    return Order(
        id=o.id,
        status=o.status,
        items=dict(o.items),
        payment="card",
        date=o.date,
        total_cents=o.total_cents,
        tracking=o.tracking,
    )
