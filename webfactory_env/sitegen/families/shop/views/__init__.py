"""The shop's pages: functions of the shop's context (its state, queries, copy and UI state)
drawn with the widget library. Pages only read: every element that changes something is
bound to a transition (`bind=add_to_cart.bind(sku=...)`).

One module per part of the shop: `catalog` (home, the listing, a product), `cart` (the
cart and the wishlist), `checkout`, `orders` (an order, the history, tracking, staff).
"""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.shop.queries import Shop
from webfactory_env.sitegen.families.shop.views import cart, catalog, checkout, orders
from webfactory_env.sitegen.html import Renderer, esc


def header(shop: Shop, r: Renderer) -> str:
    c = shop.copy
    count = sum(shop.state.cart.items.values())
    entries = [
        ("/", c("nav.home")),
        ("/shop", c("nav.shop")),
        ("/cart", f"{c('nav.cart')} ({count})" if count else c("nav.cart")),
        ("/checkout", c("nav.checkout")),
        ("/orders", c("nav.orders")),
        ("/track", c("nav.track")),
        ("/wishlist", c("nav.wishlist")),
    ]
    nav = w.site_nav(r, entries, label=c("nav.label"))
    return f'<span class="brand">{esc(shop.spec.brand)}</span>{nav}'


PAGES: dict[str, PageFn] = {
    "home": catalog.home,
    "listing": catalog.listing,
    "product": catalog.product,
    "cart": cart.cart,
    "checkout": checkout.checkout,
    "order": orders.order,
    "orders": orders.orders,
    "track": orders.track,
    "staff": orders.staff,
    "wishlist": cart.wishlist,
}
