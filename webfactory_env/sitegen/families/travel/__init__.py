"""`travel`: flights and hotels, with a member area.

Description
    Flight search with typeahead airports and calendars (one way or round trip), sortable
    and filterable results, an offer page with fare brands and their rules, an itinerary
    and a checkout (whose booking service times out once on some sites: Retry books);
    hotel search by city with stars, rating and price filters and rooms to choose; a
    member area behind a password and a code texted to the member's phone, where trips
    can be looked up and a refundable one cancelled. Distractors: a sponsored result, a
    price-alert switch, travel insurance, "save for later", a newsletter.

Entities (`entities.py`, drawn by `content.py` and `network.py`)
    Airport, Airline, Route, Flight (the timetable), City, Hotel, Room, Member (one),
    MemberTrip (the member's trips before the episode). Fares (`fares.py`) are a pure
    function of the flight, the date and the fare brand; no two offers of one search
    cost the same.

Pages (`views/`)
    home, flights (/flights), results (/flights/results), offer (/flights/offer/<id>),
    hotels (/hotels), city (/hotels/in/<slug>), hotel (/hotel/<id>), itinerary,
    checkout, booking (/booking/<ref>), login, verify (/login/verify), trips,
    trip (/trips/<ref>).

State paths (`state.py`; `webfactory schema --family travel` lists them all)
    trips.<ref>.{status, flights, passengers, rooms, guests, fares, traveller, seat,
        cancel_reason}                                                  entities
    itinerary.{flights, rooms}, auth.member, saved, extras, newsletter   session
    forms.{flight_search, hotel_search, stay, passenger, fares, login, otp,
        cancel_trip, newsletter}                                         drafts
    search.*, results.{sort, filters, page}, stay.*, hotels.*, feedback.*  view
    offer, hotel, trip, booking, results.count, itinerary.total, auth.signed_in,
        ...                                                              page facts
    `trip` is the member's trip whose page is open and `booking` the last trip booked
    here: both stand for `trips[<ref>]` (`OPEN`). Paths of version 1 that tasks may
    still write (`itinerary.status = "booked"`, `itinerary.lead`) compile to their new
    spelling with a deprecation warning (`state.py`, `RENAMED`).

Queries (`queries.py`: `TravelQueries`, and `facts` of the visitor's page)
    offers of a search, result and hotel lists as shown, the member's trips.

Transitions (`transitions/drafts.py`, `transitions/trips.py`: functions over the context)
    set_field, set_secret, type_place, pick_place, set_round_trip, set_choice,
    search_flights, sort_flights, filter_flights, turn_results_page, choose_fare,
    add_flight, remove_flight, search_hotels, update_stay, sort_hotels, filter_hotels,
    turn_hotels_page, select_room, remove_room, book_trip, sign_in, verify_code,
    resend_code, sign_out, cancel_trip; distractors: save_for_later, set_price_alert,
    set_insurance, join_newsletter.

Tasks
    `dsl/tasks/travel/*.task`.

Who may import this package: the site registry (through `FAMILY`) and the tests.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.travel.app import TravelApp
from webfactory_env.sitegen.families.travel.content import FAMILY_VERSION, generate
from webfactory_env.sitegen.families.travel.state import RENAMED
from webfactory_env.sitegen.registry import Family, register_family

FAMILY = Family(
    name="travel",
    version=FAMILY_VERSION,
    description="Flights and hotels: airport typeahead search with calendars, sortable and "
    "filterable results, fare rules, an itinerary and checkout, hotel search with rooms, and "
    "a member area behind sign-in with an SMS code.",
    generate=generate,
    app_class=TravelApp,
    kinds=(
        "Accordion",
        "Button",
        "Choice",
        "DatePicker",
        "Field",
        "Filter",
        "Form",
        "Item",
        "Link",
        "Option",
        "Result",
        "Sort",
        "Suggestion",
        "Tab",
        "Toggle",
    ),
    renamed=RENAMED,
)
register_family(FAMILY)

__all__ = ["FAMILY", "FAMILY_VERSION", "TravelApp", "generate"]
