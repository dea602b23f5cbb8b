"""What the account portal's pages and facts read: the member signed in, their devices,
keys and sign-ins, the login history as filtered, and the facts of the page. No
transition here: these only read the state."""

from __future__ import annotations

import re
from typing import Literal, get_args

from webfactory_env.core.domains import Vocabulary
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.families.account.content import (
    TODAY,
    AvatarFile,
    User,
)
from webfactory_env.sitegen.families.account.rules import (
    POLICIES,
    email_status,
    key_errors,
    username_status,
)
from webfactory_env.sitegen.families.account.state import (
    Account,
    AccountFacts,
    AccountState,
    ApiKey,
    AuthFacts,
    DeviceFacts,
    HistoryFacts,
    InboxFacts,
    Login,
    Mail,
    Session,
    Settings,
    SignupFacts,
    account_id,
)
from webfactory_env.sitegen.spec import SiteSpec

PAGE_SIZE = 10
HistoryColumn = Literal["date", "device", "location", "result"]
HISTORY_COLUMNS: tuple[str, ...] = get_args(HistoryColumn)
RESULTS = ("success", "failed", "blocked")
HERE_DEVICE = "Chromium on Linux"  # the browser the agent uses: its sessions and sign-ins
START_MINUTE = 9 * 60  # new events happen today from 09:00 on, one logical minute apart
PUBLIC_PAGES = {
    "/": "home",
    "/login": "login",
    "/signup": "signup",
    "/reset": "reset",
    "/inbox": "inbox",
}
PRIVATE_PAGES = {
    "/account": "account",
    "/profile": "profile",
    "/settings": "settings",
    "/history": "history",
}
PRIVATE_KINDS = frozenset({*PRIVATE_PAGES.values(), "login_detail"})
_HISTORY_SORT = {
    "date": lambda e: (e.at,),
    "device": lambda e: (e.device, e.at),
    "location": lambda e: (e.city, e.country, e.at),
    "result": lambda e: (e.result, e.at),
}


# Every place and device a sign-in can come from: an answer that names two is no answer.
CITIES = Vocabulary("cities", "place", phrases=("vocab.json:cities.*",))
DEVICES = Vocabulary("devices", "text", phrases=("vocab.json:devices.*",))


class AccountQueries(Queries):
    """The portal's content and the reads of its state its pages, facts and transitions
    make (no HTML, no changes)."""

    state: AccountState

    def __init__(self, state: AccountState, spec: SiteSpec) -> None:
        super().__init__(state, spec)
        ents = spec.entities
        self.users: tuple[User, ...] = ents["users"]
        self.files: dict[str, AvatarFile] = {f.name: f for f in ents["files"]}
        self.country_names: tuple[str, ...] = tuple(c.name for c in ents["countries"])
        self.here: dict[str, str] = dict(spec.extra["here"])
        self.policy = POLICIES[spec.difficulty]

    # ------------------------------------------------------------------- who
    @property
    def me(self) -> Account | None:
        """The member signed in on this browser, if any."""
        user = self.state.auth.user
        return self.state.users.get(account_id(user)) if user else None

    def signed_in(self) -> bool:
        return self.me is not None

    def settings_of(self, username: str) -> Settings:
        key = account_id(username)
        return self.state.settings.get(key) or Settings(id=key, user=username)

    def channel_order(self, settings: Settings) -> list[str]:
        """The member's channel keys in the order the site tries them."""
        return sorted(settings.channels, key=lambda key: settings.channels[key])

    def sessions_of(self, username: str) -> list[Session]:
        return [s for s in self.state.sessions.values() if s.user == username]

    def keys_of(self, username: str) -> list[ApiKey]:
        return [k for k in self.state.api_keys.values() if k.user == username]

    def logins_of(self, username: str) -> list[Login]:
        """A member's sign-ins, newest first."""
        found = [e for e in self.state.logins.values() if e.user == username]
        return sorted(found, key=lambda e: e.at, reverse=True)

    def find_account(self, identifier: str) -> Account | None:
        """The account a username or e-mail address names (case does not matter)."""
        key = identifier.strip().lower()
        if not key:
            return None
        return next(
            (a for a in self.state.users.values() if key in (a.username.lower(), a.email.lower())),
            None,
        )

    def taken_usernames(self) -> set[str]:
        return {a.username.lower() for a in self.state.users.values()}

    def taken_emails(self) -> set[str]:
        return {a.email.lower() for a in self.state.users.values()}

    def signup_status(self) -> tuple[str, str]:
        """Whether the username and the e-mail address typed into the sign-up are free."""
        draft = self.state.forms.signup_account
        return (
            username_status(draft["username"], self.taken_usernames()),
            email_status(draft["email"], self.taken_emails()),
        )

    def reset_account(self) -> Account | None:
        """The member whose reset link is open."""
        user = self.state.reset.user
        return self.state.users.get(account_id(user)) if user else None

    def message(self, mid: str) -> Mail | None:
        return next((m for m in self.state.server.messages if m.id == mid), None)

    # --------------------------------------------------------------- history
    def history_rows(self) -> list[Login]:
        """The signed-in member's sign-ins as the history page lists them."""
        me = self.me
        if me is None:
            return []
        view = self.state.history
        q = view.query.strip().lower()
        rows = [
            e
            for e in self.logins_of(me.username)
            if (not view.filter or e.result == view.filter)
            and (not q or any(q in x.lower() for x in (e.device, e.city, e.country, e.ip)))
        ]
        col, _, order = view.sort.partition("-")
        rows.sort(key=_HISTORY_SORT[col], reverse=order == "desc")
        return rows

    def history_pages(self) -> int:
        return max(1, -(-len(self.history_rows()) // PAGE_SIZE))

    def login_at(self, route: str) -> Login | None:
        """The signed-in member's sign-in whose page `route` is."""
        me = self.me
        eid = route.split("?", 1)[0][len("/history/") :] if route.startswith("/history/") else ""
        found = self.state.logins.get(eid)
        return found if me is not None and found is not None and found.user == me.username else None

    # ----------------------------------------------------------------- pages
    def route_kind(self, route: str) -> str:
        """The kind of page `route` is, before the login wall is applied."""
        path = route.split("?", 1)[0]
        if path in PUBLIC_PAGES:
            return PUBLIC_PAGES[path]
        if path in PRIVATE_PAGES:
            return PRIVATE_PAGES[path]
        if path.startswith("/history/"):
            if self.signed_in():
                return "login_detail" if self.login_at(path) is not None else "not_found"
            return "login_detail" if path[len("/history/") :] in self.state.logins else "not_found"
        return "not_found"

    def calendar_month(self, picker: str, route: str) -> str | None:
        """Calendars open at the month of their value (or a sensible default)."""
        forms = self.state.forms
        birthday = forms.signup_profile if route.startswith("/signup") else forms.profile
        value = {"birthday": birthday["birthday"], "expires": forms.api_key["expires"]}.get(
            picker, ""
        )
        if re.match(r"^\d{4}-\d{2}-\d{2}$", value or ""):
            return value[:7]
        if picker == "birthday":  # date-of-birth pickers open some decades back
            return f"{int(TODAY[:4]) - 30:04d}{TODAY[4:7]}"
        return TODAY[:7]

    def api_key_errors(self) -> dict[str, str]:
        """What is wrong with the API key being made (its name taken, its expiry past)."""
        me = self.me
        names = {k.name.lower() for k in self.keys_of(me.username)} if me else set()
        return key_errors(self.state.forms.api_key, names, self.today())


Portal = Context[AccountState, AccountQueries]  # what the portal's transitions and pages read


def history_first(portal: Portal) -> int:
    """The rank, less one, of the first row shown."""
    return 0 if portal.v.list_mode == "infinite" else (portal.state.history.page - 1) * PAGE_SIZE


def history_shown(portal: Portal) -> list[Login]:
    rows = portal.queries.history_rows()
    if portal.v.list_mode == "infinite":
        return rows[: portal.ui.more.get("history", 1) * PAGE_SIZE]
    first = history_first(portal)
    return rows[first : first + PAGE_SIZE]


def facts(portal: Portal) -> AccountFacts:
    """The computed values a goal reads next to the state, on the visitor's page."""
    me = portal.queries.me
    auth = portal.state.auth
    stage = "signed_in" if me else "code_required" if auth.pending else "signed_out"
    uname, estatus = portal.queries.signup_status()
    mine = portal.queries.sessions_of(me.username) if me else []
    messages = portal.state.server.messages
    latest = messages[0] if messages else None
    return AccountFacts(
        auth=AuthFacts(signed_in=me is not None, stage=stage),
        account=me or Account(),
        viewed_login=portal.queries.login_at(portal.route) or Login(),
        signup=SignupFacts(username_status=uname, email_status=estatus),
        history=HistoryFacts(
            count=len(portal.queries.history_rows()),
            pages=portal.queries.history_pages(),
            shown=len(history_shown(portal)),
            failed=sum(e.result == "failed" for e in portal.queries.logins_of(me.username))
            if me
            else 0,
        ),
        devices=DeviceFacts(count=len(mine), others=sum(not s.current for s in mine)),
        inbox=InboxFacts(
            count=len(messages),
            latest={"channel": latest.channel, "to": latest.to, "subject": latest.subject}
            if latest
            else {},
        ),
    )
