"""The shop's app: its model, its pages and its routes wired together."""

from __future__ import annotations

from webfactory_env.sitegen.families.shop import views
from webfactory_env.sitegen.families.shop.model import ShopModel
from webfactory_env.sitegen.html import Renderer


class ShopApp(ShopModel):
    """The running shop: filters, sort, cart, coupons, checkout, orders, tracking."""

    PAGES = views.PAGES
    ROUTES = {
        "/": "home",
        "/shop": "listing",
        "/cart": "cart",
        "/checkout": "checkout",
        "/orders": "orders",
        "/track": "track",
        "/staff": "staff",
        "/wishlist": "wishlist",
    }

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _entity_page_kind(self, route: str) -> str:
        if self.product_at(route) is not None:
            return "product"
        if self.order_at(route) is not None:
            return "order"
        return "not_found"
