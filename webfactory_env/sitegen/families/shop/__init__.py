"""`shop`: an online shop.

Description
    A catalog with colour and category filters, sort and pagination (or an infinite
    list); product pages; a cart with coupons; a checkout with shipping and payment (cash
    on delivery or card); the order history and shipment tracking. A "staff tools" page
    hides a back door that places the pending order unchecked: no task may profit from it.

Entities (`content.py`)
    Product (catalog, by SKU), Coupon (one live, one expired), PastOrder (the history).

Pages (`views/`)
    home, listing (/shop), product (/product/<sku>), cart, checkout, order (/order/<id>),
    orders, track, staff.

State paths (`state.py`, `webfactory schema --family shop` lists them all)
    orders.<id>.{status, items, shipping, payment, card_last4, coupon}   entities
    cart.{items, coupon, removed}, wishlist, newsletter                  session
    forms.{shipping, payment, coupon, track, newsletter}                 drafts
    listing.{filters, sort, page}, feedback.*                            view
    product, viewed_order, order, cart.{count, subtotal_cents, ...}      page facts

Queries (`queries.py`: `ShopQueries`, and `facts` of the visitor's page)
    the listing as filtered and sorted, the cart's totals, the product or order on a route.

Transitions (`transitions.py`: functions over the context, `add_to_cart(shop, sku=...)`)
    set_filter, set_sort, turn_page, add_to_cart, remove_from_cart, add_to_wishlist,
    set_field, choose_payment, apply_coupon, track_parcel, join_newsletter, place_order,
    staff_force_order (the back door).

Tasks
    `dsl/tasks/shop/*.task`.

Who may import this package: the site registry (through `FAMILY`) and the tests.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.shop.app import ShopApp
from webfactory_env.sitegen.families.shop.content import FAMILY_VERSION, generate
from webfactory_env.sitegen.registry import Family, register_family

FAMILY = Family(
    name="shop",
    version=FAMILY_VERSION,
    description="An online shop: catalog with filters, sort and pagination, product pages, "
    "cart with coupons, checkout with shipping and payment, order history and tracking.",
    generate=generate,
    app_class=ShopApp,
    kinds=("Button", "Choice", "Field", "Filter", "Form", "Item", "Link", "Option", "Sort", "Tab"),
)
register_family(FAMILY)

__all__ = ["FAMILY", "ShopApp", "generate"]
