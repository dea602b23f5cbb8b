"""The transitions of the member area: the profile, notification and privacy settings,
two-step verification, signed-in devices, API keys, and the login history (where a sign-in
can be reported as not yours). Offers that lead nowhere are transitions of their own."""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Has, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.core.typed import canonical
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.account.content import CHANNELS, NOTIFICATIONS, PRIVACY, TODAY
from webfactory_env.sitegen.families.account.queries import RESULTS, HistoryColumn, Portal
from webfactory_env.sitegen.families.account.rules import validate_profile
from webfactory_env.sitegen.families.account.state import (
    PROFILE_FIELDS,
    ApiKey,
    Settings,
    channel_ranks,
)
from webfactory_env.sitegen.families.account.transitions.auth import put_first
from webfactory_env.sitegen.families.account.transitions.drafts import take_fields, take_secret

PROMOS = ("sso", "upgrade", "export", "app")  # lookalike offers no task asks for


def _setting_field(account: str, setting: str) -> FormField:
    return FormField("settings", setting, ("settings", account, setting))


def _new_key_effect() -> Predicate:
    return Exists(
        ("api_keys",),
        All(
            (
                Eq(("user",), Ref("state:auth.user")),
                Eq(("name",), Ref("state:forms.api_key.key_name|strip")),
                Eq(("scope",), Ref("state:forms.api_key.scope")),
            )
        ),
    )


# ---------------------------------------------------------------- profile
@transition(
    mutating=True,
    effect=lambda: All(
        tuple(Eq(("account", k), Ref(f"state:forms.profile.{k}|strip")) for k in PROFILE_FIELDS)
    ),
)
def save_profile(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    me = portal.queries.me
    if me is None:
        return None
    take_fields(portal, "profile", values, ("full_name", "display_name", "birthday"))
    draft = portal.state.forms.profile
    errors = validate_profile(
        draft, portal.today(), portal.queries.files, portal.queries.country_names
    )
    portal.state.feedback.profile_errors = errors
    if errors:
        return None
    for name in PROFILE_FIELDS:
        setattr(me, name, draft[name].strip())
    me.birthday = canonical("date", me.birthday)  # kept as the site reads dates
    portal.ui.flash = portal.copy("profile.saved")
    return None


# --------------------------------------------------------------- settings
@transition(
    mutating=True,
    effect=lambda account, setting: Eq(("settings", account, setting), Ref("value|bool")),
    field=_setting_field,
)
def set_notification(
    portal: Portal, *, account: str, setting: str, value: str | None = None
) -> str | None:
    """Turn one of the member's (`account`'s) notifications on or off."""
    settings = _own_settings(portal, account)
    if settings is not None and setting in NOTIFICATIONS and value in ("true", "false"):
        _save_setting(portal, settings, setting, value, value == "true")
    return None


@transition(
    mutating=True,
    effect=lambda account, setting: Eq(("settings", account, setting), Ref("value")),
    field=_setting_field,
)
def set_privacy(
    portal: Portal, *, account: str, setting: str, value: str | None = None
) -> str | None:
    """Choose who sees what of the member's (`account`'s) profile."""
    settings = _own_settings(portal, account)
    if settings is not None and value in PRIVACY.get(setting, ()):
        _save_setting(portal, settings, setting, value, value)
    return None


def _own_settings(portal: Portal, account: str) -> Settings | None:
    """The settings of `account` if it is the signed-in member's own."""
    me = portal.queries.me
    return portal.state.settings.get(account) if me is not None and account == me.id else None


def _save_setting(portal: Portal, settings: Settings, name: str, sent: str, value: object) -> None:
    portal.state.forms.settings[name] = sent
    setattr(settings, name, value)
    portal.ui.flash = portal.copy("settings.saved")


def _channel_moved(account: str, channel: str, place: str) -> Predicate:
    rank = ("settings", account, "channels", channel)
    if place == "top":
        return Eq(rank, 1)
    return Not(Eq(rank, Ref(f"state:settings.{account}.channels.{channel}")))


@transition(mutating=True, effect=_channel_moved)
def move_channel(
    portal: Portal,
    *,
    account: str,
    channel: str,
    place: Literal["", "top", "up", "down"] = "",
    values: dict[str, str] | None = None,
) -> str | None:
    """Move one of the member's channels in the order the site tries them: a row's Move
    to top, Move up or Move down button names the `place`; a drop in the list sends
    `values` with it: "top", "last" or "before:<channel>" (the one it was dropped above)."""
    settings = _own_settings(portal, account)
    if settings is None or channel not in CHANNELS:
        return None
    order = portal.queries.channel_order(settings)
    others = [key for key in order if key != channel]
    at = order.index(channel)
    dropped = (values or {}).get("place", "")
    spots = {"top": 0, "up": max(at - 1, 0), "down": at + 1, "last": len(others)}
    if place:
        spot = spots[place]
    elif dropped.removeprefix("before:") in others:
        spot = others.index(dropped.removeprefix("before:"))
    elif dropped in ("top", "last"):
        spot = spots[dropped]
    else:
        return None
    moved = [*others[:spot], channel, *others[spot:]]
    if moved != order:
        settings.channels = channel_ranks(tuple(moved))
        portal.ui.flash = portal.copy("settings.channels_saved")
    return None


@transition(mutating=True, effect=lambda: Eq(("account", "two_factor"), True))
def enable_two_factor(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    _switch_two_factor(portal, values, on=True)
    return None


@transition(mutating=True, effect=lambda: Eq(("account", "two_factor"), False))
def disable_two_factor(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    _switch_two_factor(portal, values, on=False)
    return None


def _switch_two_factor(portal: Portal, values: dict[str, str] | None, *, on: bool) -> None:
    """Two-step verification changes only with the member's current password."""
    me = portal.queries.me
    if me is None or me.two_factor == on:
        return
    password = take_secret(portal, values, ("two_factor", "current_password"))
    feedback = portal.state.feedback
    if not password:
        feedback.two_factor_error = "required"
    elif password != me.password:
        feedback.two_factor_error = "current_password"
    else:
        feedback.two_factor_error = ""
        me.two_factor = on
        portal.state.forms.two_factor.password = ""  # the secret goes; that one was given stays
        portal.ui.flash = portal.copy("settings.two_factor_on" if on else "settings.two_factor_off")
        portal.ui.modal = None


# ---------------------------------------------------------------- devices
@transition(mutating=True, effect=lambda session: Not(Has(("sessions", session))))
def sign_out_session(portal: Portal, *, session: str) -> str | None:
    """Sign another device out (this browser's own session ends with `sign_out`)."""
    me = portal.queries.me
    found = portal.state.sessions.get(session)
    if me is None or found is None or found.user != me.username or found.current:
        return None
    del portal.state.sessions[found.id]
    portal.state.feedback.signed_out.append(found.device)
    portal.ui.flash = portal.copy("settings.session_signed_out", device=found.device)
    return None


@transition(mutating=True, effect=lambda: Eq(("devices", "others"), 0))
def sign_out_other_sessions(portal: Portal) -> str | None:
    me = portal.queries.me
    if me is None:
        return None
    others = [s for s in portal.queries.sessions_of(me.username) if not s.current]
    for s in others:
        del portal.state.sessions[s.id]
        portal.state.feedback.signed_out.append(s.device)
    if others:
        portal.ui.flash = portal.copy("settings.others_signed_out")
    return None


# --------------------------------------------------------------- API keys
@transition(mutating=True, effect=_new_key_effect)
def create_key(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    me = portal.queries.me
    if me is None:
        return None
    take_fields(portal, "api_key", values, ("key_name", "expires"))
    feedback = portal.state.feedback
    feedback.key_errors = portal.queries.api_key_errors()
    if feedback.key_errors:
        return None
    draft, server = portal.state.forms.api_key, portal.state.server
    n = len(portal.queries.keys_of(me.username)) + server.clock
    kid = "K-" + short_hash(f"{portal.spec.seed}|new-key|{me.username}|{n}", 8)
    secret = short_hash(f"{portal.spec.seed}|secret|{kid}", 24).lower()
    key = ApiKey(
        id=kid,
        user=me.username,
        name=draft["key_name"].strip(),
        scope=draft["scope"],
        expires=canonical("date", draft["expires"]),
        prefix=f"wfk_{secret[:6]}",
        created=TODAY,
        last_used="never",
    )
    portal.state.api_keys = put_first(portal.state.api_keys, kid, key)
    server.new_key = f"wfk_{secret}"  # shown once, never in the view
    portal.ui.modal = None
    return None


@transition(mutating=True, effect=lambda key: Not(Has(("api_keys", key))))
def revoke_key(portal: Portal, *, key: str) -> str | None:
    me = portal.queries.me
    found = portal.state.api_keys.get(key)
    if me is None or found is None or found.user != me.username:
        return None
    del portal.state.api_keys[found.id]
    portal.ui.flash = portal.copy("settings.key_revoked", name=found.name)
    return None


@transition(neutral=True)
def dismiss_key(portal: Portal) -> str | None:
    """Close the notice that shows a new key once (only what the page shows changes:
    the key itself never reaches the view)."""
    portal.state.server.new_key = ""
    return None


# ---------------------------------------------------------- login history
@transition(effect=lambda: Eq(("history", "filter"), Ref("value")))
def filter_history(portal: Portal, *, value: str | None = None) -> str | None:
    if value in ("", *RESULTS):
        portal.state.history.filter = value or ""
        _first_history_page(portal)
    return None


@transition(
    effect=lambda: Eq(("history", "query"), Ref("value")),
    field=lambda: FormField("history", "q", ("history", "query")),
)
def search_history(portal: Portal, *, value: str | None = None) -> str | None:
    portal.state.history.query = (value or "")[:80]
    _first_history_page(portal)
    return None


@transition(effect=lambda column, order: Eq(("history", "sort"), f"{column}-{order}"))
def sort_history(portal: Portal, *, column: HistoryColumn, order: SortOrder) -> str | None:
    portal.state.history.sort = f"{column}-{order}"
    _first_history_page(portal)
    return None


def _first_history_page(portal: Portal) -> None:
    portal.state.history.page = 1
    portal.ui.more.pop("history", None)


@transition(effect=lambda page: Eq(("history", "page"), page))
def turn_history_page(portal: Portal, *, page: int) -> str | None:
    if 1 <= page <= portal.queries.history_pages():
        portal.state.history.page = page
    return None


@transition(mutating=True, effect=lambda login: Eq(("logins", login, "reported"), True))
def report_login(portal: Portal, *, login: str) -> str | None:
    """ "This wasn't me": the sign-in is marked reported."""
    found = portal.queries.login_at(f"/history/{login}")
    if found is None or found.reported:
        return None
    found.reported = True
    portal.ui.flash = portal.copy("history.reported")
    return None


# ------------------------------------------------------------ distractors
@transition(mutating=True, effect=lambda name: Contains(("feedback", "promos"), name))
def try_promo(portal: Portal, *, name: str) -> str | None:
    """A lookalike offer (single sign-on, an upgrade, an export, the app): it only says
    it is not available."""
    if name in PROMOS:
        portal.state.feedback.promos.add(name)
        portal.ui.flash = portal.copy(f"distractors.{name}_msg")
    return None
