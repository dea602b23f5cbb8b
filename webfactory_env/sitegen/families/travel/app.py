"""The travel site's app: its model, its pages and its routes wired together."""

from __future__ import annotations

from webfactory_env.sitegen.families.travel import views
from webfactory_env.sitegen.families.travel.model import TravelModel
from webfactory_env.sitegen.html import Renderer


class TravelApp(TravelModel):
    """The running travel site: searches, results, itinerary, bookings, member area."""

    PAGES = views.PAGES
    ROUTES = {
        "/": "home",
        "/flights": "flights",
        "/flights/results": "results",
        "/hotels": "hotels",
        "/itinerary": "itinerary",
        "/checkout": "checkout",
        "/login": "login",
        "/login/verify": "verify",
        "/trips": "trips",
    }

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _entity_page_kind(self, route: str) -> str:
        if route.startswith("/flights/offer/") and self.offer(route[15:]) is not None:
            return "offer"
        if self.city_at(route) is not None:
            return "city"
        if self.hotel_at(route) is not None:
            return "hotel"
        if self.booking_at(route) is not None:
            return "booking"
        trip = self.model.trips.get(route[7:]) if route.startswith("/trips/") else None
        if trip is not None and trip.member:
            return "trip"  # behind the login wall when signed out
        return "not_found"
