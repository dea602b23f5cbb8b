"""The transitions of the member area: the profile, notification and privacy settings,
two-step verification, signed-in devices, API keys, and the login history (where a sign-in
can be reported as not yours). Offers that lead nowhere are transitions of their own."""

from __future__ import annotations

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Has, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.core.typed import canonical
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.account.content import NOTIFICATIONS, PRIVACY, TODAY
from webfactory_env.sitegen.families.account.model.auth import AccountAuth, _first
from webfactory_env.sitegen.families.account.model.queries import RESULTS, HistoryColumn
from webfactory_env.sitegen.families.account.model.state import PROFILE_FIELDS, ApiKey, Settings
from webfactory_env.sitegen.families.account.rules import validate_profile
from webfactory_env.sitegen.spec import AppEvent

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


class AccountModel(AccountAuth):
    """The member area's transitions (no HTML here)."""

    # ---------------------------------------------------------------- profile
    @transition(
        mutating=True,
        effect=lambda: All(
            tuple(Eq(("account", k), Ref(f"state:forms.profile.{k}|strip")) for k in PROFILE_FIELDS)
        ),
    )
    def save_profile(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        self._take("profile", ev, ("full_name", "display_name", "birthday"))
        draft = self.model.forms.profile
        errors = validate_profile(draft, self.today(), self.files, self.country_names)
        self.model.feedback.profile_errors = errors
        if errors:
            return None
        for name in PROFILE_FIELDS:
            setattr(me, name, draft[name].strip())
        me.birthday = canonical("date", me.birthday)  # kept as the site reads dates
        self.flash = self.copy("profile.saved")
        return None

    # --------------------------------------------------------------- settings
    @transition(
        mutating=True,
        effect=lambda account, setting: Eq(("settings", account, setting), Ref("value|bool")),
        field=_setting_field,
    )
    def set_notification(self, ev: AppEvent, *, account: str, setting: str) -> str | None:
        """Turn one of the member's (`account`'s) notifications on or off."""
        settings = self._own_settings(account)
        if settings is not None and setting in NOTIFICATIONS and ev.value in ("true", "false"):
            self._save_setting(settings, setting, ev.value, ev.value == "true")
        return None

    @transition(
        mutating=True,
        effect=lambda account, setting: Eq(("settings", account, setting), Ref("value")),
        field=_setting_field,
    )
    def set_privacy(self, ev: AppEvent, *, account: str, setting: str) -> str | None:
        """Choose who sees what of the member's (`account`'s) profile."""
        settings = self._own_settings(account)
        if settings is not None and ev.value in PRIVACY.get(setting, ()):
            self._save_setting(settings, setting, ev.value, ev.value)
        return None

    def _own_settings(self, account: str) -> Settings | None:
        """The settings of `account` if it is the signed-in member's own."""
        me = self.me
        return self.model.settings.get(account) if me is not None and account == me.id else None

    def _save_setting(self, settings: Settings, name: str, sent: str, value: object) -> None:
        self.model.forms.settings[name] = sent
        setattr(settings, name, value)
        self.flash = self.copy("settings.saved")

    @transition(mutating=True, effect=lambda: Eq(("account", "two_factor"), True))
    def enable_two_factor(self, ev: AppEvent) -> str | None:
        self._switch_two_factor(ev, on=True)
        return None

    @transition(mutating=True, effect=lambda: Eq(("account", "two_factor"), False))
    def disable_two_factor(self, ev: AppEvent) -> str | None:
        self._switch_two_factor(ev, on=False)
        return None

    def _switch_two_factor(self, ev: AppEvent, *, on: bool) -> None:
        """Two-step verification changes only with the member's current password."""
        me = self.me
        if me is None or me.two_factor == on:
            return
        password = self._take_secret(ev, ("two_factor", "current_password"))
        feedback = self.model.feedback
        if not password:
            feedback.two_factor_error = "required"
        elif password != me.password:
            feedback.two_factor_error = "current_password"
        else:
            feedback.two_factor_error = ""
            me.two_factor = on
            self.model.forms.two_factor.password = ""  # the secret goes; that one was given stays
            self.flash = self.copy("settings.two_factor_on" if on else "settings.two_factor_off")
            self.ui.modal = None

    # ---------------------------------------------------------------- devices
    @transition(mutating=True, effect=lambda session: Not(Has(("sessions", session))))
    def sign_out_session(self, ev: AppEvent, *, session: str) -> str | None:
        """Sign another device out (this browser's own session ends with `sign_out`)."""
        me = self.me
        found = self.model.sessions.get(session)
        if me is None or found is None or found.user != me.username or found.current:
            return None
        del self.model.sessions[found.id]
        self.model.feedback.signed_out.append(found.device)
        self.flash = self.copy("settings.session_signed_out", device=found.device)
        return None

    @transition(mutating=True, effect=lambda: Eq(("devices", "others"), 0))
    def sign_out_other_sessions(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        others = [s for s in self.sessions_of(me.username) if not s.current]
        for s in others:
            del self.model.sessions[s.id]
            self.model.feedback.signed_out.append(s.device)
        if others:
            self.flash = self.copy("settings.others_signed_out")
        return None

    # --------------------------------------------------------------- API keys
    @transition(mutating=True, effect=_new_key_effect)
    def create_key(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        self._take("api_key", ev, ("key_name", "expires"))
        feedback = self.model.feedback
        feedback.key_errors = self.key_errors()
        if feedback.key_errors:
            return None
        draft, server = self.model.forms.api_key, self.model.server
        n = len(self.keys_of(me.username)) + server.clock
        kid = "K-" + short_hash(f"{self.spec.seed}|new-key|{me.username}|{n}", 8)
        secret = short_hash(f"{self.spec.seed}|secret|{kid}", 24).lower()
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
        self.model.api_keys = _first(self.model.api_keys, kid, key)
        server.new_key = f"wfk_{secret}"  # shown once, never in the view
        self.ui.modal = None
        return None

    @transition(mutating=True, effect=lambda key: Not(Has(("api_keys", key))))
    def revoke_key(self, ev: AppEvent, *, key: str) -> str | None:
        me = self.me
        found = self.model.api_keys.get(key)
        if me is None or found is None or found.user != me.username:
            return None
        del self.model.api_keys[found.id]
        self.flash = self.copy("settings.key_revoked", name=found.name)
        return None

    @transition(neutral=True)
    def dismiss_key(self, ev: AppEvent) -> str | None:
        """Close the notice that shows a new key once (only what the page shows changes:
        the key itself never reaches the view)."""
        self.model.server.new_key = ""
        return None

    # ---------------------------------------------------------- login history
    @transition(effect=lambda: Eq(("history", "filter"), Ref("value")))
    def filter_history(self, ev: AppEvent) -> str | None:
        if ev.value in ("", *RESULTS):
            self.model.history.filter = ev.value or ""
            self._first_history_page()
        return None

    @transition(
        effect=lambda: Eq(("history", "query"), Ref("value")),
        field=lambda: FormField("history", "q", ("history", "query")),
    )
    def search_history(self, ev: AppEvent) -> str | None:
        self.model.history.query = (ev.value or "")[:80]
        self._first_history_page()
        return None

    @transition(effect=lambda column, order: Eq(("history", "sort"), f"{column}-{order}"))
    def sort_history(self, ev: AppEvent, *, column: HistoryColumn, order: SortOrder) -> str | None:
        self.model.history.sort = f"{column}-{order}"
        self._first_history_page()
        return None

    def _first_history_page(self) -> None:
        self.model.history.page = 1
        self.ui.more.pop("history", None)

    @transition(effect=lambda page: Eq(("history", "page"), page))
    def turn_history_page(self, ev: AppEvent, *, page: int) -> str | None:
        if 1 <= page <= self.history_pages():
            self.model.history.page = page
        return None

    @transition(mutating=True, effect=lambda login: Eq(("logins", login, "reported"), True))
    def report_login(self, ev: AppEvent, *, login: str) -> str | None:
        """ "This wasn't me": the sign-in is marked reported."""
        found = self.login_at(f"/history/{login}")
        if found is None or found.reported:
            return None
        found.reported = True
        self.flash = self.copy("history.reported")
        return None

    # ------------------------------------------------------------ distractors
    @transition(mutating=True, effect=lambda name: Contains(("feedback", "promos"), name))
    def try_promo(self, ev: AppEvent, *, name: str) -> str | None:
        """A lookalike offer (single sign-on, an upgrade, an export, the app): it only says
        it is not available."""
        if name in PROMOS:
            self.model.feedback.promos.add(name)
            self.flash = self.copy(f"distractors.{name}_msg")
        return None
