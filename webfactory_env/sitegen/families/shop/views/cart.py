"""The cart with its coupon form, and the wishlist."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.shop.queries import Shop
from webfactory_env.sitegen.families.shop.transitions import (
    apply_coupon,
    move_to_cart,
    remove_from_cart,
    set_field,
)
from webfactory_env.sitegen.families.shop.views.common import Page, money
from webfactory_env.sitegen.html import Renderer, esc


def coupon_form(shop: Shop, r: Renderer) -> str:
    c = shop.copy
    error = shop.state.feedback.coupon_error
    field = w.text_field(
        r,
        label=c("cart.coupon"),
        error=c(f"errors.coupon_{error}") if error else "",
        helper=c("cart.coupon_help"),
        bind=set_field.bind(form="coupon", name="code"),
    )
    return w.form(
        r,
        name="coupon",
        body=field,
        submit_sid="form:coupon",
        submit_text=c("cart.apply"),
        label=c("cart.coupon"),
        bind=apply_coupon.bind(),
    )


def cart(shop: Shop, r: Renderer, route: str) -> Page:
    c = shop.copy
    state, by_sku = shop.state.cart, shop.queries.by_sku
    removed = ", ".join(by_sku[s].title for s in sorted(state.removed) if s in by_sku)
    removed_note = (
        f'<p class="muted">{esc(c("cart.removed", titles=removed))}</p>' if removed else ""
    )
    if not state.items:
        link = w.link(r, sid="cart:/shop", href="/shop", text=c("home.cta"))
        return c("cart.title"), (
            f"<h1>{esc(c('cart.title'))}</h1>"
            f"{w.toast(shop.ui.flash)}<p>{esc(c('cart.empty'))}</p>{removed_note}<p>{link}</p>"
        )
    rows = []
    for sku, qty in state.items.items():
        p = by_sku[sku]
        link = w.link(r, sid=f"cart-item:{sku}", href=f"/product/{sku}", text=p.title)
        remove = w.button(
            r,
            sid=f"remove:{sku}",
            text=c("cart.remove"),
            variant="secondary",
            attrs_={"role": "remove-from-cart", "sku": sku, "title": p.title},
            bind=remove_from_cart.bind(sku=sku),
        )
        rows.append([link, f"{esc(c('cart.qty'))} {qty}", money(p.price_cents * qty), remove])
    table = (
        "<table><tbody>"
        + "".join("<tr>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>" for row in rows)
        + "</tbody></table>"
    )
    if shop.v.form_mode == "modal":
        coupon = (
            w.modal(
                r,
                name="coupon",
                title=c("cart.have_coupon"),
                body=coupon_form(shop, r),
                close_text=c("cart.close"),
            )
            if shop.ui.modal == "coupon"
            else w.modal_opener(
                r, name="coupon", text=c("cart.have_coupon"), attrs_={"form": "coupon"}
            )
        )
    else:
        coupon = (
            f'<section class="coupon"><h2>{esc(c("cart.have_coupon"))}</h2>'
            f"{coupon_form(shop, r)}</section>"
        )
    proceed = w.link(
        r, sid="cart:proceed", href="/checkout", text=c("cart.proceed"), class_="button"
    )
    discount = shop.queries.discount()
    totals = (
        f"<p>{esc(c('cart.subtotal'))}: {money(shop.queries.subtotal())}</p>"
        + (f"<p>{esc(c('cart.discount'))}: −{money(discount)}</p>" if discount else "")
        + f"<p><strong>{esc(c('cart.total'))}: {money(shop.queries.subtotal() - discount)}"
        "</strong></p>"
    )
    return c("cart.title"), (
        f"<h1>{esc(c('cart.title'))}</h1>{w.toast(shop.ui.flash)}{table}{totals}{removed_note}"
        f"{coupon}<p>{proceed}</p>"
    )


def wishlist(shop: Shop, r: Renderer, route: str) -> Page:
    """What the customer saved for later, each with a button that moves it to the cart."""
    c = shop.copy
    by_sku = shop.queries.by_sku
    saved = [by_sku[s] for s in sorted(shop.state.wishlist) if s in by_sku]
    rows = [
        f"<li>{esc(p.title)} — {money(p.price_cents)} "
        + w.button(
            r,
            sid=f"move-to-cart:{p.sku}",
            text=c("wishlist.move"),
            disabled=p.stock == 0,
            attrs_={"role": "move-to-cart", "sku": p.sku, "title": p.title},
            bind=move_to_cart.bind(sku=p.sku),
        )
        + "</li>"
        for p in saved
    ]
    body = f"<ul>{''.join(rows)}</ul>" if rows else f"<p>{esc(c('wishlist.empty'))}</p>"
    return c("wishlist.title"), f"<h1>{esc(c('wishlist.title'))}</h1>{w.toast(shop.ui.flash)}{body}"
