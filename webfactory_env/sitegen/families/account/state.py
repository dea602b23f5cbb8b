"""The account portal's declared state: what a goal can pin (members' accounts and settings,
their devices, sign-ins and API keys, who is signed in on this browser) next to what it never
pins (form drafts, the wizard's and the reset's progress, the history's filters), what no
view shows (passwords, codes, the mailbox), and the computed facts of the page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from webfactory_env.core.seeding import short_hash
from webfactory_env.sitegen.families.account.content import (
    CHANNELS,
    NOTIFICATIONS,
    PRIVACY,
    ContactOrder,
    User,
)
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.state import (
    AppState,
    Record,
    copied,
    derived,
    drafts,
    entities,
    hidden,
    secret,
    session,
    typed,
    typed_keys,
    view,
)


# ------------------------------------------------------------------------- entities
@dataclass(kw_only=True)
class Account(Record):
    """A member's account, keyed by username. What its owner chose is pinned; how it came
    to be (member since, phone, locked) is bookkeeping; the password never shows. Fields a
    new account gets by default are copied from the form that sets them, so a default
    nobody chose is no goal."""

    username: str = ""
    email: str = typed("email")
    display_name: str = ""
    country: str = ""
    birthday: str = typed("date")
    full_name: str = copied("forms.profile.full_name", "")
    avatar: str = copied("forms.profile.avatar", "")
    two_factor: bool = copied("forms.two_factor", False)
    password_changed: bool = copied("forms.reset_password", False)  # through a reset link
    phone_last4: str = derived("")
    member_since: str = derived("")
    locked: bool = derived(False)
    password: str = secret()


@dataclass(kw_only=True)
class Settings(Record):
    """A member's notification and privacy settings, keyed by username. Each switch and
    menu is copied from what it was set to (`forms.settings`); the contact order is pinned
    as a whole (a task that moves one channel pins where every channel ends)."""

    user: str = ""
    security_alerts: bool = copied("forms.settings.security_alerts", True)
    product_updates: bool = copied("forms.settings.product_updates", False)
    weekly_digest: bool = copied("forms.settings.weekly_digest", False)
    sms_alerts: bool = copied("forms.settings.sms_alerts", False)
    profile_visibility: str = copied("forms.settings.profile_visibility", "members")
    email_visibility: str = copied("forms.settings.email_visibility", "nobody")
    search_indexing: str = copied("forms.settings.search_indexing", "block")
    # Where each channel stands in the order the site tries them (1 first): one change
    # (a drag, or a Move button) renumbers them all 1, 2, 3...
    channels: dict[str, int] = field(default_factory=lambda: channel_ranks(tuple(CHANNELS)))


@dataclass(kw_only=True)
class Session(Record):
    """A device signed in to a member's account, keyed by session id. `current` marks the
    one this browser holds: signing in here makes it, signing out ends it."""

    user: str = ""
    current: bool = False
    device: str = derived("")
    city: str = derived("")
    country: str = derived("")
    last_active: str = derived("")


@dataclass(kw_only=True)
class Login(Record):
    """One sign-in attempt, keyed by its id. When and where it happened is bookkeeping (a
    new attempt's time depends on how many steps came before); the device tells attempts
    made from this browser from the earlier ones; reporting it as not you marks it."""

    user: str = ""
    result: str = ""  # success, failed, blocked
    device: str = ""
    reported: bool = False
    at: str = derived("")
    city: str = derived("")
    country: str = derived("")
    ip: str = derived("")


@dataclass(kw_only=True)
class ApiKey(Record):
    """An API key of a member, keyed by key id."""

    user: str = ""
    name: str = ""
    scope: str = "read"
    expires: str = copied("forms.api_key.expires", "")
    prefix: str = derived("")
    created: str = derived("")
    last_used: str = derived("")


# -------------------------------------------------------------------------- session
@dataclass
class Auth:
    """Who is signed in on this browser. A member with two-step verification is `pending`
    between the password and the texted code."""

    user: str = ""
    method: str = derived("")  # password, password+otp, signup
    pending: str = derived("")
    codes_sent: int = derived(0)  # codes sent for the pending sign-in


# --------------------------------------------------------------------------- drafts
@dataclass
class LoginDraft:
    username: str = ""
    password_given: bool = False
    password_ok: bool = False  # it is the password of the account named (all the view says)
    password: str = secret()  # never in the view


@dataclass
class CodeDraft:
    code_given: bool = False
    code_ok: bool = False  # it is a code the member was sent
    code: str = secret()


@dataclass
class NewPasswordDraft:
    """A new password typed twice: the view only says whether it is valid and confirmed."""

    password_given: bool = False
    password_valid: bool = False
    confirm_matches: bool = False
    password: str = secret()
    confirm: str = secret()


@dataclass
class CurrentPasswordDraft:
    password_given: bool = False
    password_ok: bool = False  # it is the signed-in member's password
    password: str = secret()


PROFILE_FIELDS = ("full_name", "display_name", "birthday", "country", "avatar")


@dataclass
class AccountForms:
    login: LoginDraft = field(default_factory=LoginDraft)
    otp: CodeDraft = field(default_factory=CodeDraft)
    signup_account: dict[str, str] = typed_keys(
        lambda: {"email": "", "username": ""}, email="email"
    )
    signup_password: NewPasswordDraft = field(default_factory=NewPasswordDraft)
    signup_profile: dict[str, str] = typed_keys(
        lambda: {"display_name": "", "country": "", "birthday": "", "terms": "false"},
        birthday="date",
    )
    reset_request: dict[str, str] = typed_keys(lambda: {"email": ""}, email="email")
    reset_password: NewPasswordDraft = field(default_factory=NewPasswordDraft)
    # Loaded with the member's profile when they sign in.
    profile: dict[str, str] = typed_keys(lambda: dict.fromkeys(PROFILE_FIELDS, ""), birthday="date")
    settings: dict[str, str] = field(default_factory=dict)  # what each switch was set to
    two_factor: CurrentPasswordDraft = field(default_factory=CurrentPasswordDraft)
    api_key: dict[str, str] = typed_keys(
        lambda: {"key_name": "", "scope": "read", "expires": ""}, expires="date"
    )


# ----------------------------------------------------------------------------- view
@dataclass
class LoginStatus:
    """What the last sign-in said back, and the page a signed-out visitor was going to."""

    result: str = ""  # incomplete, bad_credentials, locked, code_required, signed_in
    identifier: str = ""
    attempts: int = 0
    error: str = ""
    code_error: str = ""
    wall: bool = False  # the visitor was sent here from a page behind the login wall
    next_route: str = ""


SIGNUP_STEPS = ("account", "password", "profile", "done")


@dataclass
class SignupProgress:
    """Where the sign-up wizard is, and what its steps accepted so far."""

    step: str = "account"
    username: str = ""
    email: str = ""
    created: str = ""  # the username of the account it made
    completed: set[str] = field(default_factory=set)
    errors: dict[str, str] = field(default_factory=dict)


@dataclass
class ResetProgress:
    """Where the password reset is: request, sent, verified (a link opened), done."""

    stage: str = "request"
    email: str = typed("email")
    user: str = ""  # the member whose reset link was opened
    opened: set[str] = field(default_factory=set)  # reset messages opened
    changed: set[str] = field(default_factory=set)  # members whose password was reset
    errors: dict[str, str] = field(default_factory=dict)


@dataclass
class HistoryView:
    filter: str = ""  # a result, or "" for all
    query: str = ""
    sort: str = "date-desc"
    page: int = 1


@dataclass
class Feedback:
    """What the member area's last submissions said back."""

    profile_errors: dict[str, str] = field(default_factory=dict)
    key_errors: dict[str, str] = field(default_factory=dict)
    two_factor_error: str = ""
    signed_out: list[str] = field(default_factory=list)  # devices signed out, in order
    promos: set[str] = field(default_factory=set)  # offers that lead nowhere, tried


# --------------------------------------------------------------------------- hidden
@dataclass
class Mail:
    """A message in the simulated mailbox or on the simulated phone."""

    id: str
    channel: str  # email, sms
    to: str
    subject: str
    body: str
    at: str
    kind: str  # welcome, newsletter, alert, reset, locked, otp
    expired: bool = False
    user: str = ""  # the member it was sent for ("" for the seed's messages)
    used: bool = False


@dataclass
class Server:
    """What the site keeps and no view shows: the messages it sent (they hold codes), the
    codes a pending sign-in accepts, a new API key shown once, and the logical clock."""

    messages: list[Mail] = field(default_factory=list)  # newest first
    challenge: list[str] = field(default_factory=list)
    codes_sent: int = 0  # every code the site has sent: the n of `otp_code`
    new_key: str = ""
    reset_link: str = ""  # the message whose reset link is open
    clock: int = 0  # logical minutes since 09:00 today


@dataclass
class AccountState(AppState):
    users: dict[str, Account] = entities()
    settings: dict[str, Settings] = entities()
    sessions: dict[str, Session] = entities(visit="current")
    logins: dict[str, Login] = entities(log=True)
    api_keys: dict[str, ApiKey] = entities()
    auth: Auth = session(Auth, persists=False)
    forms: AccountForms = drafts(AccountForms)
    login: LoginStatus = view(LoginStatus)
    signup: SignupProgress = view(SignupProgress)
    reset: ResetProgress = view(ResetProgress)
    history: HistoryView = view(HistoryView)
    feedback: Feedback = view(Feedback)
    server: Server = hidden(Server)

    @classmethod
    def start(cls, spec: SiteSpec) -> Self:
        """The seed's members with their settings, sessions, sign-ins (newest first) and
        keys, and the messages already sent; no one signed in."""
        ents = spec.entities
        orders: dict[str, ContactOrder] = {o.username: o for o in ents["contact_orders"]}
        state = cls(
            users={account_id(u.username): _account(u) for u in ents["users"]},
            settings={
                account_id(u.username): _settings(u, orders[u.username]) for u in ents["users"]
            },
            sessions={
                s.id: Session(
                    id=s.id,
                    user=s.username,
                    device=s.device,
                    city=s.city,
                    country=s.country,
                    last_active=s.last_active,
                )
                for s in ents["sessions"]
            },
            logins={
                e.id: Login(
                    id=e.id,
                    user=e.username,
                    result=e.result,
                    device=e.device,
                    at=e.at,
                    city=e.city,
                    country=e.country,
                    ip=e.ip,
                )
                for e in sorted(ents["logins"], key=lambda e: e.at, reverse=True)
            },
            api_keys={
                k.id: ApiKey(
                    id=k.id,
                    user=k.username,
                    name=k.name,
                    scope=k.scope,
                    prefix=k.prefix,
                    created=k.created,
                    last_used=k.last_used,
                )
                for k in ents["api_keys"]
            },
        )
        state.server.messages = [
            Mail(m.id, m.channel, m.to, m.subject, m.body, m.at, m.kind, m.expired)
            for m in ents["messages"]
        ]
        return state


# ---------------------------------------------------------------------------- facts
@dataclass
class AuthFacts:
    signed_in: bool = False
    stage: str = "signed_out"  # signed_out, code_required, signed_in


@dataclass
class SignupFacts:
    username_status: str = "empty"  # of the username typed: empty, invalid, taken, available
    email_status: str = "empty"


@dataclass
class HistoryFacts:
    count: int = 0  # sign-ins listed (after the filter and the search)
    pages: int = 1
    shown: int = 0
    failed: int = 0  # failed sign-ins of the member, listed or not


@dataclass
class DeviceFacts:
    count: int = 0  # the member's sessions
    others: int = 0  # ... on other devices than this one


@dataclass
class InboxFacts:
    count: int = 0
    latest: dict[str, str] = field(default_factory=dict)  # channel, to, subject


@dataclass
class AccountFacts:
    """Computed, read-only values of the page and of the site's state."""

    auth: AuthFacts
    account: Account  # the member signed in (`users[auth.user]`)
    viewed_login: Login  # the sign-in whose page is open
    signup: SignupFacts
    history: HistoryFacts
    devices: DeviceFacts
    inbox: InboxFacts


def account_id(username: str) -> str:
    """The key of a member's account and settings (usernames may hold dots, which state
    paths cannot)."""
    return "U-" + short_hash(f"account|{username}", 8)


def _account(u: User) -> Account:
    return Account(
        id=account_id(u.username),
        username=u.username,
        email=u.email,
        display_name=u.display_name,
        country=u.country,
        birthday=u.birthday,
        full_name=u.full_name,
        two_factor=u.security == "two_factor",
        phone_last4=u.phone_last4,
        member_since=u.member_since,
        locked=u.security == "locked",
        password=u.password,
    )


def channel_ranks(order: tuple[str, ...]) -> dict[str, int]:
    """Channel keys (`CHANNELS`) in `order` as their ranks: 1 for the first."""
    return {key: n for n, key in enumerate(order, 1)}


def _settings(u: User, order: ContactOrder) -> Settings:
    values: dict[str, Any] = {n: n in u.notifications for n in NOTIFICATIONS}
    values.update({name: getattr(u, name) for name in PRIVACY})
    keys = {name: key for key, name in CHANNELS.items()}
    ranks = channel_ranks(tuple(keys[name] for name in order.channels))
    return Settings(id=account_id(u.username), user=u.username, channels=ranks, **values)
