"""The transitions that fill in a travel site's forms: typing, picking airports and cities,
choosing from menus, and the validation that follows what is typed. Form drafts are never
a goal themselves; what a submit makes of them is (`transitions.py`)."""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import Eq, Predicate, Ref
from webfactory_env.core.typed import parse_email
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.travel.queries import Travel
from webfactory_env.sitegen.families.travel.rules import (
    PASSENGER_FIELDS,
    normalize_date,
    stay_errors,
    validate_dates,
    validate_passenger,
)

SEATS = ("none", "aisle", "window")
CANCEL_REASONS = ("plans_changed", "found_better", "other")
CHOICES = {  # (form, field) -> the values its menu offers
    ("flight_search", "passengers"): tuple(str(n) for n in range(1, 7)),
    ("hotel_search", "guests"): tuple(str(n) for n in range(1, 5)),
    ("stay", "guests"): tuple(str(n) for n in range(1, 5)),
    ("passenger", "seat"): SEATS,
    ("cancel_trip", "reason"): CANCEL_REASONS,
}
TEXT_FIELDS = {  # form -> the fields typed in as text (dates included)
    "flight_search": ("depart_date", "return_date"),
    "hotel_search": ("checkin_date", "checkout_date"),
    "stay": ("checkin_date", "checkout_date"),
    "passenger": PASSENGER_FIELDS,
    "login": ("email",),
    "newsletter": ("email",),
}
VALIDATED = ("flight_search", "hotel_search", "stay", "passenger", "login")
PLACES = {"flight_search": ("origin", "destination"), "hotel_search": ("city",)}
LINKED = {  # a field whose change can fix or break another's error
    "depart_date": ("return_date",),
    "checkin_date": ("checkout_date",),
    "origin": ("destination",),
    "destination": ("origin",),
}


TextForm = Literal["flight_search", "hotel_search", "stay", "passenger", "login", "newsletter"]
ChoiceForm = Literal["flight_search", "hotel_search", "stay", "passenger", "cancel_trip"]
PlaceForm = Literal["flight_search", "hotel_search"]
Place = Literal["origin", "destination", "city"]


def _draft_effect(form: str, name: str) -> Predicate:
    return Eq(("forms", form, name), Ref("value"))


def _draft_field(form: str, name: str) -> FormField:
    return FormField(form, name, ("forms", form, name))


def _secret_field(form: str) -> FormField:
    # The password field shows what was typed (redacted on the page); a code never shows.
    if form == "login":
        return FormField("login", "password", ("forms", "login", "password"))
    return FormField("otp", "code")


def _secret_effect(form: str) -> Predicate:
    """Typing a secret takes effect when it is the one the site asks for: a wrong password
    or code is no progress (the view says only whether it is right)."""
    if form == "otp":
        return Eq(("forms", "otp", "code_ok"), True)
    return Eq(("forms", "login", "password_ok"), True)


@transition(effect=_draft_effect, field=_draft_field)
def set_field(travel: Travel, *, form: TextForm, name: str, value: str | None = None) -> str | None:
    """Typing in a text or date field of a form's draft."""
    if name not in TEXT_FIELDS[form]:
        return None
    value = (value or "")[:200]
    _write(travel, form, name, normalize_date(value) if name.endswith("_date") else value)
    _revalidate(travel, form, name)
    return None


def _write(travel: Travel, form: str, name: str, value: str) -> None:
    forms = travel.state.forms
    if form == "passenger":
        setattr(forms.passenger, name, value)
    elif form == "login":
        forms.login.email = value
        if forms.login.password:  # the one signed in with stays judged
            check_password(travel)
    else:
        getattr(forms, form)[name] = value


@transition(effect=_secret_effect, field=_secret_field)
def set_secret(
    travel: Travel, *, form: Literal["login", "otp"], value: str | None = None
) -> str | None:
    """Typing the password (`login`) or the texted code (`otp`)."""
    forms = travel.state.forms
    if form == "login":
        forms.login.password = (value or "")[:200]
        forms.login.password_given = bool(forms.login.password)
        check_password(travel)
    else:
        forms.otp.code = (value or "")[:12]
        forms.otp.code_entered = len(code_digits(travel)) == 6
        forms.otp.code_ok = code_digits(travel) == travel.queries.otp_code(
            travel.state.auth.codes_sent
        )
    return None


def check_password(travel: Travel) -> None:
    """Whether the password typed is the member's, for the e-mail address typed."""
    login = travel.state.forms.login
    login.password_ok = (
        bool(login.password)
        and parse_email(login.email) == travel.queries.member.email.lower()
        and login.password == travel.queries.member.password
    )


def code_digits(travel: Travel) -> str:
    return "".join(ch for ch in travel.state.forms.otp.code if ch.isdigit())


@transition(
    effect=_draft_effect,
    field=lambda form, name: FormField(form, name, ("forms", form, f"{name}_text")),
)
def type_place(
    travel: Travel, *, form: PlaceForm, name: Place, value: str | None = None
) -> str | None:
    """Typing into an airport or city field: the text changes, the choice is undone."""
    if name not in PLACES[form]:
        return None
    values = getattr(travel.state.forms, form)
    text = (value or "")[:60]
    if text != values[f"{name}_text"]:
        values[f"{name}_text"], values[name] = text, ""
    _revalidate(travel, form, name)
    return None


@transition(effect=_draft_effect)
def pick_place(
    travel: Travel, *, form: PlaceForm, name: Place, value: str | None = None
) -> str | None:
    """Picking one of the airports or cities suggested for what was typed."""
    if name not in PLACES[form]:
        return None
    values, value = getattr(travel.state.forms, form), value or ""
    if name == "city" and value in travel.queries.by_city:
        values["city"], values["city_text"] = value, value
    elif name != "city" and value in travel.queries.by_airport:
        a = travel.queries.by_airport[value]
        values[name], values[f"{name}_text"] = value, f"{a.city} ({a.code})"
    _revalidate(travel, form, name)
    return None


@transition(
    effect=lambda: _draft_effect("flight_search", "roundtrip"),
    field=lambda: _draft_field("flight_search", "roundtrip"),
)
def set_round_trip(travel: Travel, *, value: str | None = None) -> str | None:
    if value in ("true", "false"):
        f = travel.state.forms.flight_search
        f["roundtrip"] = value
        if value == "false":
            f["return_date"] = ""
            travel.state.feedback.flight_search_errors.pop("return_date", None)
    return None


@transition(effect=_draft_effect, field=_draft_field)
def set_choice(
    travel: Travel, *, form: ChoiceForm, name: str, value: str | None = None
) -> str | None:
    """Choosing from the menu of a form's draft."""
    if value in CHOICES.get((form, name), ()):
        if form == "passenger":
            travel.state.forms.passenger.seat = value or ""
        else:
            getattr(travel.state.forms, form)[name] = value or ""
    return None


def _errors(travel: Travel, form: str) -> dict[str, str]:
    """The errors a form's draft has now."""
    forms = travel.state.forms
    if form == "flight_search":
        return _search_errors(travel)
    if form == "hotel_search":
        f = forms.hotel_search
        where = "city_pick" if f["city_text"].strip() else "required"
        errors = {} if f["city"] else {"city": where}
        return {**errors, **stay_errors(f["checkin_date"], f["checkout_date"], travel.today())}
    if form == "stay":
        return stay_errors(forms.stay["checkin_date"], forms.stay["checkout_date"], travel.today())
    if form == "passenger":
        return validate_passenger(_passenger_values(travel), travel.queries.strict)
    return {}


def _passenger_values(travel: Travel) -> dict[str, str]:
    p = travel.state.forms.passenger
    return {name: getattr(p, name) for name in PASSENGER_FIELDS}


def _search_errors(travel: Travel) -> dict[str, str]:
    f = travel.state.forms.flight_search
    errors: dict[str, str] = {}
    for side in ("origin", "destination"):
        if not f[side]:
            errors[side] = "airport_pick" if f[f"{side}_text"].strip() else "required"
    if not errors and f["origin"] == f["destination"]:
        errors["destination"] = "same_airport"
    elif (
        not errors
        and travel.queries.by_airport[f["origin"]].metro
        == travel.queries.by_airport[f["destination"]].metro
    ):
        errors["destination"] = "same_metro"
    errors.update(
        validate_dates(
            f["depart_date"],
            f["return_date"],
            travel.today(),
            second_required=f["roundtrip"] == "true",
            names=("depart_date", "return_date"),
            min_gap=0,
            max_gap=None,
        )
    )
    return errors


def _draft_values(travel: Travel, form: str) -> dict[str, str]:
    forms = travel.state.forms
    if form == "passenger":
        return _passenger_values(travel)
    if form == "login":
        return {"email": forms.login.email}
    return dict(getattr(forms, form))


def _revalidate(travel: Travel, form: str, name: str) -> None:
    """`sync` validation: a field's error follows its value as the user types, once
    the field holds something or the form was submitted; `async`: only on submit."""
    if travel.v.validation != "sync" or form not in VALIDATED:
        return
    errors = _errors(travel, form)
    shown: dict[str, str] = getattr(travel.state.feedback, f"{form}_errors")
    submitted = form in travel.state.feedback.submitted
    values = _draft_values(travel, form)
    for field in (name, *LINKED.get(name, ())):
        touched = submitted or bool(values.get(field, "").strip())
        if field in errors and touched:
            shown[field] = errors[field]
        else:
            shown.pop(field, None)


def submit(travel: Travel, form: str) -> dict[str, str]:
    """Validate a submitted form: its errors, now shown."""
    feedback = travel.state.feedback
    feedback.submitted.add(form)
    errors = _errors(travel, form)
    setattr(feedback, f"{form}_errors", dict(errors))
    return errors
