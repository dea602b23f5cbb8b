"""The travel site's transitions: functions over its context, in two modules (`drafts`:
typing into forms, picking places, validation; `trips`: searches, the itinerary, booking,
signing in, the member's trips). A test calls one directly:
`add_flight(travel, offer=offer.id)`."""
