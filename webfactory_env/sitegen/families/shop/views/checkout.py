"""The checkout: shipping fields, the payment method and card fields, the order summary."""

from __future__ import annotations

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.shop.queries import Shop
from webfactory_env.sitegen.families.shop.rules import CARD_FIELDS, SHIPPING_FIELDS
from webfactory_env.sitegen.families.shop.transitions import choose_payment, place_order, set_field
from webfactory_env.sitegen.families.shop.views.common import Page, money
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

AUTOCOMPLETE = {
    "full_name": "name",
    "address_line1": "address-line1",
    "city": "address-level2",
    "postal_code": "postal-code",
    "card_number": "cc-number",
    "expiry": "cc-exp",
    "cvc": "cc-csc",
    "card_name": "cc-name",
}


def _field_order(shop: Shop, names: tuple[str, ...], key: str) -> list[str]:
    ordered = list(names)
    if shop.v.field_order == "shuffled":
        SeedStream(shop.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def checkout(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    forms, errors = shop.state.forms, shop.state.feedback.checkout_errors
    helpers = {"postal_code": c("checkout.postal_help"), "full_name": c("checkout.name_help")}
    fields = []
    for name in _field_order(shop, SHIPPING_FIELDS, "shipping"):
        err = errors.get(name, "")
        fields.append(
            w.text_field(
                r,
                label=c(f"checkout.{name}"),
                error=c(f"errors.{err}") if err else "",
                helper=helpers.get(name, ""),
                autocomplete=AUTOCOMPLETE[name],
                bind=set_field.bind(form="shipping", name=name),
            )
        )
    pay = forms.payment
    method = w.choice(
        r,
        kind="Choice",
        label=c("checkout.method"),
        options=[
            Option("cod", c("checkout.cod"), aliases=("cash", "delivery")),
            Option("card", c("checkout.card"), aliases=("credit card", "credit")),
        ],
        is_open="choice:payment.method" in shop.ui.open,
        attrs_={"form": "payment"},
        bind=choose_payment.bind(),
    )
    card = ""
    if pay.method == "card":
        for name in CARD_FIELDS:
            err = errors.get(name, "")
            redact = name in ("card_number", "cvc")
            card += w.text_field(
                r,
                label=c(f"checkout.{name}"),
                error=c(f"errors.{err}") if err else "",
                redact=redact,
                inputmode="numeric" if redact else None,
                autocomplete=AUTOCOMPLETE[name],
                bind=set_field.bind(form="payment", name=name),
            )
    items, by_sku = shop.state.cart.items, shop.queries.by_sku
    summary_rows = "".join(
        f"<li>{esc(by_sku[s].title)} × {q} — {money(by_sku[s].price_cents * q)}</li>"
        for s, q in items.items()
    )
    summary = (
        f'<aside class="summary"><h2>{esc(c("checkout.summary"))}</h2>'
        + (
            f"<ul>{summary_rows}</ul><p><strong>{money(shop.queries.total())}</strong></p>"
            if items
            else f"<p>{esc(c('checkout.empty'))}</p>"
        )
        + "</aside>"
    )
    banner = ""
    if errors:
        text = c("errors.cart_empty") if "_cart" in errors else c("checkout.fix")
        banner = f'<p class="error-summary" role="alert">{esc(text)}</p>'
    body = (
        f"<h2>{esc(c('checkout.shipping'))}</h2>{''.join(fields)}"
        f"<h2>{esc(c('checkout.payment'))}</h2>{method}{card}"
    )
    form = w.form(
        r,
        name="shipping",
        body=body,
        submit_sid="form:shipping",
        submit_text=c("checkout.place"),
        label=c("checkout.shipping"),
        banner=banner,
        bind=place_order.bind(),
    )
    return c("checkout.title"), (
        f'<h1>{esc(c("checkout.title"))}</h1><div class="checkout">{form}{summary}</div>'
    )
