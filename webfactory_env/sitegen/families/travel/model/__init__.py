"""The travel site's model: its declared state (`state.py`), the queries pages and facts
read (`queries.py`), and the transitions events cause (`drafts.py` for form drafts,
`transitions.py` for the rest). Imported by the family's views and app, and by tests."""

from __future__ import annotations

from webfactory_env.sitegen.families.travel.model.drafts import CANCEL_REASONS, SEATS
from webfactory_env.sitegen.families.travel.model.queries import (
    HOTELS_PAGE,
    RESULTS_PAGE,
    TravelQueries,
)
from webfactory_env.sitegen.families.travel.model.state import Stay, TravelState, Trip
from webfactory_env.sitegen.families.travel.model.transitions import (
    FLIGHT_SORTS,
    HOTEL_SORTS,
    TravelModel,
)

__all__ = [
    "CANCEL_REASONS",
    "FLIGHT_SORTS",
    "HOTELS_PAGE",
    "HOTEL_SORTS",
    "RESULTS_PAGE",
    "SEATS",
    "Stay",
    "TravelModel",
    "TravelQueries",
    "TravelState",
    "Trip",
]
