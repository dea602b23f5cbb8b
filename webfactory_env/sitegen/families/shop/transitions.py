"""The shop's transitions: every event its pages send is one function below, over the shop's
context, named like the event, with its effect declared once in its decorator. The only
place the shop's business rules run.

    shop = ShopApp.context_of(site.spec)
    add_to_cart(shop, sku="SKU-1")
"""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.core.typed import parse_card
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.shop.queries import SORTS, Shop, code_of
from webfactory_env.sitegen.families.shop.rules import (
    CARD_FIELDS,
    SHIPPING_FIELDS,
    validate_card,
    validate_shipping,
)
from webfactory_env.sitegen.families.shop.state import Order

FilterName = Literal["color", "category"]
DraftName = Literal["shipping", "payment", "coupon", "track", "newsletter"]
_COUPON_TYPED = "state:forms.coupon.code|upper"
_TRACKING_TYPED = "state:forms.track.number|upper"
_ORDER_OF_CART = Exists(
    ("orders",), All((Eq(("status",), "placed"), Eq(("items",), Ref("state:cart.items"))))
)


# ------------------------------------------------------------------ the listing
@transition(effect=lambda name: Eq(("listing", "filters", name), Ref("value")))
def set_filter(shop: Shop, *, name: FilterName, value: str | None = None) -> str | None:
    value = value or ""
    q = shop.queries
    allowed = {p.color for p in q.products} if name == "color" else q.categories
    if value == "" or value in allowed:
        shop.state.listing.filters[name] = value
        _back_to_first_page(shop)
    return None


@transition(effect=lambda: Eq(("listing", "sort"), Ref("value")))
def set_sort(shop: Shop, *, value: str | None = None) -> str | None:
    if value in SORTS:
        shop.state.listing.sort = value
        _back_to_first_page(shop)
    return None


def _back_to_first_page(shop: Shop) -> None:
    shop.state.listing.page = 1
    shop.ui.more.pop("listing", None)


@transition(effect=lambda page: Eq(("listing", "page"), page))
def turn_page(shop: Shop, *, page: int) -> str | None:
    if 1 <= page <= shop.queries.pages():
        shop.state.listing.page = page
    return None


# ------------------------------------------------------------ cart and wishlist
@transition(mutating=True, effect=lambda sku: Contains(("cart", "items"), sku))
def add_to_cart(shop: Shop, *, sku: str) -> str | None:
    product = shop.queries.by_sku.get(sku)
    if product is not None and product.stock > 0:
        cart = shop.state.cart
        cart.items[product.sku] = min(cart.items.get(product.sku, 0) + 1, product.stock)
        cart.removed.discard(product.sku)
        shop.ui.flash = shop.copy("product.added")
    return None


@transition(mutating=True, effect=lambda sku: Not(Contains(("cart", "items"), sku)))
def remove_from_cart(shop: Shop, *, sku: str) -> str | None:
    cart = shop.state.cart
    if cart.items.pop(sku, None) is not None:
        cart.removed.add(sku)
    if not cart.items:
        cart.coupon = ""
    return None


@transition(mutating=True, effect=lambda sku: Contains(("wishlist",), sku))
def add_to_wishlist(shop: Shop, *, sku: str) -> str | None:
    if sku in shop.queries.by_sku and sku not in shop.state.wishlist:
        shop.state.wishlist.add(sku)
        shop.ui.flash = shop.copy("product.wished")
    return None


@transition(
    mutating=True,
    effect=lambda sku: All((Contains(("cart", "items"), sku), Not(Contains(("wishlist",), sku)))),
)
def move_to_cart(shop: Shop, *, sku: str) -> str | None:
    """Take a saved product off the wishlist and put it in the cart."""
    product = shop.queries.by_sku.get(sku)
    if product is None or product.sku not in shop.state.wishlist or product.stock == 0:
        return None
    shop.state.wishlist.discard(product.sku)
    add_to_cart(shop, sku=product.sku)
    shop.ui.flash = shop.copy("wishlist.moved")
    return None


# ------------------------------------------------------------------------ forms
def _field_effect(form: str, name: str) -> Predicate:
    if (form, name) == ("payment", "card_number"):
        return Eq(("forms", "payment", "card_last4"), Ref("value|last4"))
    if (form, name) == ("payment", "cvc"):
        return Eq(("forms", "payment", "cvc_given"), True)
    return Eq(("forms", form, name), Ref("value"))


@transition(
    effect=_field_effect, field=lambda form, name: FormField(form, name, ("forms", form, name))
)
def set_field(shop: Shop, *, form: DraftName, name: str, value: str | None = None) -> str | None:
    """Typing in a field of a form (the checkout's, the coupon's, tracking's, the
    newsletter's): its draft keeps the text until the form is sent."""
    _write_draft(shop, form, name, (value or "")[:200])
    if shop.v.validation == "sync" and form in ("shipping", "payment"):
        _revalidate(shop, form, name)
    return None


def _write_draft(shop: Shop, form: str, name: str, value: str) -> None:
    forms = shop.state.forms
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


def _last4(number: str) -> str:
    digits = parse_card(number) or ""
    return digits[-4:] if len(digits) >= 4 else ""


def _revalidate(shop: Shop, form: str, name: str) -> None:
    """Sync validation: a field's error follows its value while the user types, once the
    field holds something (or already shows an error); async waits for a submit."""
    errors = shop.state.feedback.checkout_errors
    if not _draft_value(shop, form, name).strip() and name not in errors:
        return
    if form == "shipping":
        found = validate_shipping(shop.state.forms.shipping, shop.queries.strict).get(name)
    else:
        found = validate_card(_card_values(shop), shop.today()).get(name)
    if found:
        errors[name] = found
    else:
        errors.pop(name, None)


def _draft_value(shop: Shop, form: str, name: str) -> str:
    if form == "payment":
        return str(getattr(shop.state.forms.payment, name, ""))
    return shop.state.forms.shipping.get(name, "")


def _card_values(shop: Shop) -> dict[str, str]:
    pay = shop.state.forms.payment
    return {n: str(getattr(pay, n)) for n in CARD_FIELDS}


@transition(
    effect=lambda: Eq(("forms", "payment", "method"), Ref("value")),
    field=lambda: FormField("payment", "method", ("forms", "payment", "method")),
)
def choose_payment(shop: Shop, *, value: str | None = None) -> str | None:
    if value in ("cod", "card"):
        shop.state.forms.payment.method = value
    return None


@transition(mutating=True, effect=lambda: Eq(("cart", "coupon"), Ref(_COUPON_TYPED)))
def apply_coupon(shop: Shop, *, values: dict[str, str] | None = None) -> str | None:
    forms, feedback = shop.state.forms, shop.state.feedback
    if values is not None and "code" in values:
        forms.coupon["code"] = values["code"][:40]
    code = code_of(forms.coupon["code"])
    found = shop.queries.coupons.get(code)
    if found is None:
        feedback.coupon_error = "unknown"
    elif found.expired:
        feedback.coupon_error = "expired"
    else:
        shop.state.cart.coupon, feedback.coupon_error = code, ""
        shop.ui.flash = shop.copy("cart.coupon_ok", code=code, pct=found.percent)
        shop.ui.modal = None
    return None


@transition(effect=lambda: Eq(("feedback", "tracking_searched"), Ref(_TRACKING_TYPED)))
def track_parcel(shop: Shop, *, values: dict[str, str] | None = None) -> str | None:
    forms, feedback = shop.state.forms, shop.state.feedback
    if values is not None and "number" in values:
        forms.track["number"] = values["number"][:40]
    number = code_of(forms.track["number"])
    found = next((o for o in shop.state.orders.values() if o.tracking == number), None)
    feedback.tracking_result = found.status if found else "unknown"
    feedback.tracking_searched = number
    return None


@transition(
    mutating=True,
    effect=lambda: Contains(("newsletter",), Ref("state:forms.newsletter.email|lower")),
)
def join_newsletter(shop: Shop, *, values: dict[str, str] | None = None) -> str | None:
    email = (values or {}).get("email", "")[:200]
    shop.state.forms.newsletter["email"] = email
    if "@" in email:
        shop.state.newsletter.add(email.strip().lower())
    return None


# ----------------------------------------------------------------------- orders
@transition(mutating=True, back_door=True, effect=lambda: _ORDER_OF_CART)
def staff_force_order(shop: Shop) -> str | None:
    """A back door real shops have had: it places the pending order unchecked. No task
    lists it, so what it does never counts (the ground-truth suite tries it)."""
    return _place_order(shop, "staff") if shop.state.cart.items else None


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
def place_order(shop: Shop, *, values: dict[str, str] | None = None) -> str | None:
    forms, sent = shop.state.forms, values or {}
    for name in SHIPPING_FIELDS:
        if name in sent:
            forms.shipping[name] = sent[name][:200]
    for name in CARD_FIELDS:
        if name in sent:
            _write_draft(shop, "payment", name, sent[name][:200])
    errors = validate_shipping(forms.shipping, shop.queries.strict)
    if forms.payment.method == "card":
        errors.update(validate_card(_card_values(shop), shop.today()))
    if not shop.state.cart.items:
        errors["_cart"] = "cart_empty"
    shop.state.feedback.checkout_errors = errors
    if errors:
        return None
    return _place_order(shop, "new-tracking")


def _place_order(shop: Shop, tracking: str) -> str:
    """Place the cart as a new order and empty the cart; the new order's route."""
    state, seed = shop.state, shop.spec.seed
    n = len(shop.queries.placed())
    pay = state.forms.payment
    order = Order(
        id="ORD-" + short_hash(f"{seed}|order|{n}", 6),
        status="placed",
        items=dict(state.cart.items),
        shipping={k: v.strip() for k, v in state.forms.shipping.items()},
        payment=pay.method,
        card_last4=pay.card_last4 if pay.method == "card" else "",
        coupon=state.cart.coupon,
        date=shop.spec.today,
        total_cents=shop.queries.total(),
        tracking="TRK" + short_hash(f"{seed}|{tracking}|{n}", 9),
        placed_here=True,
    )
    state.orders[order.id] = order
    state.cart.items.clear()
    state.cart.coupon = ""
    return f"/order/{order.id}"
