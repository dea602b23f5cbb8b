"""The travel site's app: its state, queries, transitions and pages tied to the shared
`SiteApp`."""

from __future__ import annotations

from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import transitions_in
from webfactory_env.sitegen.families.travel import views
from webfactory_env.sitegen.families.travel.queries import HOTELS, ROUTES, TravelQueries, facts
from webfactory_env.sitegen.families.travel.state import TravelFacts, TravelState
from webfactory_env.sitegen.families.travel.transitions import drafts, trips
from webfactory_env.sitegen.html import Renderer


class TravelApp(SiteApp):
    """The running travel site: searches, results, itinerary, bookings, member area."""

    family = "travel"
    State = TravelState
    Queries = TravelQueries
    Facts = TravelFacts
    TRANSITIONS = transitions_in(drafts, trips)
    PAGES = views.PAGES
    ROUTES = ROUTES
    OPEN = {"trip": "trips", "booking": "trips"}
    ANSWERS = {
        "hotel.name": HOTELS,
        "flight.price": "money",
        "offer.checked_bag_fee": "money",
        "trip.reference": "reference",
    }
    model: TravelState
    queries: TravelQueries

    def facts(self) -> TravelFacts:
        return facts(self.context())

    def header(self, r: Renderer) -> str:
        return views.header(self.context(), r)

    def _entity_page_kind(self, route: str) -> str:
        return self.queries.entity_page_kind(route)
