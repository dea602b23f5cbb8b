"""The transitions that fill in the account portal's forms, and the validation that follows
what is typed. Form drafts are never a goal themselves; what a submit makes of them is
(`auth.py`, `member.py`). Passwords and codes are kept as secrets: the view only says
whether one was given (and is valid, and confirmed)."""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import Eq, Predicate, Ref
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.account.content import SCOPES
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.rules import (
    password_problems,
    signup_profile_errors,
    validate_profile,
)
from webfactory_env.sitegen.families.account.state import NewPasswordDraft

TEXT_FIELDS = {  # form -> the fields `set_field` writes (typed, picked or chosen)
    "login": ("username",),
    "signup_account": ("email", "username"),
    "signup_profile": ("display_name", "country", "birthday", "terms"),
    "reset_request": ("email",),
    "profile": ("full_name", "display_name", "birthday", "country", "avatar"),
    "api_key": ("key_name", "scope", "expires"),
}
Secret = tuple[str, str]  # (form, field) of a secret field
SECRET_FIELDS: dict[Secret, tuple[str, str]] = {  # -> (the draft's secret, what the view says)
    ("login", "password"): ("password", "password_ok"),
    ("otp", "code"): ("code", "code_ok"),
    ("signup_password", "password"): ("password", "password_valid"),
    ("signup_password", "confirm_password"): ("confirm", "confirm_matches"),
    ("reset_password", "new_password"): ("password", "password_valid"),
    ("reset_password", "confirm_password"): ("confirm", "confirm_matches"),
    ("two_factor", "current_password"): ("password", "password_ok"),
}
DraftForm = Literal[
    "login", "signup_account", "signup_profile", "reset_request", "profile", "api_key"
]
SecretForm = Literal["login", "otp", "signup_password", "reset_password", "two_factor"]


def _draft_effect(form: str, name: str) -> Predicate:
    return Eq(("forms", form, name), Ref("value"))


def _draft_field(form: str, name: str) -> FormField:
    # the login form's draft is a record, the others are dicts: both are read the same way
    return FormField(form, name, ("forms", form, name))


def _secret_effect(form: str, name: str) -> Predicate | None:
    known = SECRET_FIELDS.get((form, name))
    return Eq(("forms", form, known[1]), True) if known else None


def read_code(text: str) -> str:
    """A one-time code as the site reads it (spaces between its digits allowed)."""
    return text.strip().replace(" ", "")


@transition(effect=_draft_effect, field=_draft_field)
def set_field(
    portal: Portal, *, form: DraftForm, name: str, value: str | None = None
) -> str | None:
    """Typing, picking or choosing in a field of a form's draft."""
    if name not in TEXT_FIELDS[form]:
        return None
    value = (value or "")[:200]
    allowed = {
        "country": portal.queries.country_names,
        "avatar": tuple(portal.queries.files),
        "terms": ("true", "false"),
        "scope": SCOPES,
    }.get(name)
    if allowed is not None and value not in allowed:
        return None  # a value the page never offers is ignored, not trusted
    if form == "login":
        portal.state.forms.login.username = value
        if portal.state.forms.login.password:  # one signed in with stays judged
            _check_password(portal, "login")
    else:
        getattr(portal.state.forms, form)[name] = value
    if portal.v.validation == "sync":
        _revalidate(portal, form)
    return None


@transition(effect=lambda form, name, file: Eq(("forms", form, name), file))
def drop_file(
    portal: Portal,
    *,
    form: DraftForm,
    name: str,
    file: str,
    values: dict[str, str] | None = None,
) -> str | None:
    """A file dragged from the tray onto a file field's drop zone: what choosing it with
    the field's button does. The drop's `values` name the field whose zone it landed on."""
    if values is not None and values.get("field", name) != name:
        return None
    return set_field(portal, form=form, name=name, value=file)


@transition(effect=_secret_effect, field=lambda form, name: FormField(form, name))
def set_secret(
    portal: Portal, *, form: SecretForm, name: str, value: str | None = None
) -> str | None:
    """Typing a password or a code: kept as a secret, never shown again."""
    if (form, name) not in SECRET_FIELDS:
        return None
    write_secret(portal, (form, name), (value or "")[:200])
    if portal.v.validation == "sync":
        _revalidate(portal, form)
    return None


def write_secret(portal: Portal, field: Secret, value: str) -> None:
    form, name = field[0], SECRET_FIELDS[field][0]
    draft = getattr(portal.state.forms, form)
    setattr(draft, name, value)
    if isinstance(draft, NewPasswordDraft):
        check_new_password(portal, form)
    elif form == "otp":
        draft.code_given = bool(value.strip())
        draft.code_ok = read_code(value) in portal.state.server.challenge
    else:
        draft.password_given = bool(value)
        _check_password(portal, form)


def _check_password(portal: Portal, form: str) -> None:
    """Whether the password typed is the one asked for: the account the sign-in form
    names, or the signed-in member's. A subgoal pays for that, not for any password."""
    draft = getattr(portal.state.forms, form)
    account = portal.queries.find_account(draft.username) if form == "login" else portal.queries.me
    draft.password_ok = bool(draft.password) and draft.password == getattr(
        account, "password", None
    )


def check_new_password(portal: Portal, form: str) -> None:
    """Whether the new password typed meets the rules and is confirmed."""
    draft: NewPasswordDraft = getattr(portal.state.forms, form)
    username, email = _new_password_owner(portal, form)
    draft.password_given = bool(draft.password)
    draft.password_valid = bool(draft.password) and not password_problems(
        draft.password, portal.queries.policy, username, email
    )
    draft.confirm_matches = bool(draft.password) and draft.confirm == draft.password


def _new_password_owner(portal: Portal, form: str) -> tuple[str, str]:
    """Whose password a new-password form sets: (username, e-mail)."""
    if form == "signup_password":
        who = portal.state.forms.signup_account
        return who["username"].strip(), who["email"].strip()
    account = portal.queries.reset_account()
    return (account.username, account.email) if account else ("", "")


def take_fields(
    portal: Portal, form: str, values: dict[str, str] | None, names: tuple[str, ...]
) -> None:
    """Copy the text fields of a submitted form (what the browser's FormData held)."""
    values = values or {}
    for name in names:
        if name in values:
            value = values[name][:200]
            if form == "login":
                portal.state.forms.login.username = value
            else:
                getattr(portal.state.forms, form)[name] = value


def take_secret(portal: Portal, values: dict[str, str] | None, field: Secret) -> str:
    """A secret of a submitted form: what the browser sent, else what was typed."""
    form, name = field[0], SECRET_FIELDS[field][0]
    sent = (values or {}).get(field[1], "")
    if sent:
        write_secret(portal, field, sent[:200])
    return str(getattr(getattr(portal.state.forms, form), name))


# ------------------------------------------------------------ validation
def _revalidate(portal: Portal, form: str) -> None:
    """Sync validation: field errors follow the drafts while the user types."""
    forms, signup, reset = portal.state.forms, portal.state.signup, portal.state.reset
    if form == "signup_account":
        for name, status in zip(("username", "email"), portal.queries.signup_status(), strict=True):
            if status in ("invalid", "taken"):
                signup.errors[name] = f"{name}_{status}"
            else:
                signup.errors.pop(name, None)
    elif form in ("signup_password", "reset_password"):
        errors = signup.errors if form == "signup_password" else reset.errors
        draft: NewPasswordDraft = getattr(forms, form)
        first = "password" if form == "signup_password" else "new_password"
        problems = password_problems(
            draft.password, portal.queries.policy, *_new_password_owner(portal, form)
        )
        if draft.password and problems:
            errors[first] = "rules:" + ",".join(problems)
        else:
            errors.pop(first, None)
        if draft.confirm and draft.confirm != draft.password:
            errors["confirm_password"] = "mismatch"
        else:
            errors.pop("confirm_password", None)
    elif form == "signup_profile":
        still = signup_profile_errors(
            forms.signup_profile, portal.today(), portal.queries.country_names
        )
        for name in [n for n in signup.errors if n in forms.signup_profile]:
            if name not in still:
                signup.errors.pop(name)
    elif form == "profile":
        errors = portal.state.feedback.profile_errors
        still = validate_profile(
            forms.profile, portal.today(), portal.queries.files, portal.queries.country_names
        )
        if "avatar" in still:  # a picked file is checked at once
            errors["avatar"] = still["avatar"]
        for name in [n for n in errors if n not in still]:
            errors.pop(name)
    elif form == "api_key":
        errors = portal.state.feedback.key_errors
        still = portal.queries.api_key_errors()
        for name in [n for n in errors if n not in still]:
            errors.pop(name)
