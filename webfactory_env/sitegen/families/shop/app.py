"""The shop's app: its state, queries, transitions and pages tied to the shared `SiteApp`."""

from __future__ import annotations

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import transitions_in
from webfactory_env.sitegen.families.shop import transitions, views
from webfactory_env.sitegen.families.shop.queries import ShopQueries, facts
from webfactory_env.sitegen.families.shop.state import ShopFacts, ShopState
from webfactory_env.sitegen.html import Renderer

# Every state an order can be in, as the site words it.
STATUSES = Vocabulary("statuses", "status", phrases=("copy.json:status.*",))


class ShopApp(SiteApp):
    """The running shop: filters, sort, cart, coupons, checkout, orders, tracking."""

    family = "shop"
    State = ShopState
    Queries = ShopQueries
    Facts = ShopFacts
    TRANSITIONS = transitions_in(transitions)
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
    OPEN = {"order": "orders", "viewed_order": "orders"}
    DOMAINS = {"feedback.tracking_result": "orders.status"}
    ANSWERS = {
        "order.status": STATUSES,
        "viewed_order.status": STATUSES,
        "feedback.tracking_result": STATUSES,
        "product.price": "money",
    }

    queries: ShopQueries

    def facts(self) -> ShopFacts:
        return facts(self.context())

    def header(self, r: Renderer) -> str:
        return views.header(self.context(), r)

    def _entity_page_kind(self, route: str) -> str:
        return self.queries.entity_page_kind(route)
