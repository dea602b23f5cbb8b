"""The `account` family: a SaaS account portal — sign-up wizard, sign-in with optional
two-step codes, password reset through a simulated inbox, profile, settings (notifications,
privacy, security, API keys) and a sortable login history behind a login wall.

Secrets never enter `state()`: passwords and one-time codes typed into the page live in
private drafts, and state only says facts about them (`password_given`, `otp_verified`).
The simulated phone and mailbox (`/inbox`) show the codes and reset links the site sends;
the n-th code the site sends is `otp_code(seed, n)`, listed for tasks in the
`phone_codes` table (the first few) the way a test phone's message log would be.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from webfactory_env.core.predicates import All, Any_, Contains, Eq, Gt, Not, Ref
from webfactory_env.core.resources import read_text
from webfactory_env.core.seeding import SeedStream, hash_to_int, short_hash
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp, handler
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.registry import Family, generator_version, register_family
from webfactory_env.sitegen.spec import AppEvent, Option, PageView, SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "1"
TODAY = "2026-01-05"
USER_COUNT = {"easy": 5, "medium": 7, "hard": 9}
EVENT_COUNT = {"easy": (14, 20), "medium": (20, 30), "hard": (30, 44)}
SESSION_COUNT = {"easy": (2, 3), "medium": (3, 4), "hard": (4, 6)}
KEY_COUNT = {"easy": (2, 3), "medium": (2, 4), "hard": (3, 5)}
PAGE_SIZE = 10
OTP_LISTED = 3  # codes listed in the `phone_codes` table; later ones follow the same rule
AVATAR_LIMIT_KB = 5000
MIN_AGE = 13
RESERVED = ("admin", "root", "support", "security", "help", "system")
SCOPES = ("read", "write", "admin")
RESULTS = ("success", "failed", "blocked")
NOTIFICATIONS = ("security_alerts", "product_updates", "weekly_digest", "sms_alerts")
PRIVACY: dict[str, tuple[str, ...]] = {
    "profile_visibility": ("public", "members", "private"),
    "email_visibility": ("everyone", "members", "nobody"),
    "search_indexing": ("allow", "block"),
}
SETTINGS_TABS = ("notifications", "privacy", "security", "api")
HISTORY_COLUMNS = ("date", "device", "location", "result")
SIGNUP_STEPS = ("account", "password", "profile", "done")
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
HERE_DEVICE = "Chromium on Linux"  # the browser the agent uses: new sessions and sign-ins
START_MINUTE = 9 * 60  # new events happen today from 09:00 on, one logical minute apart


# ---------------------------------------------------------------------- entities
@dataclass(frozen=True, slots=True)
class User:
    username: str
    email: str
    password: str  # the site's ground truth; only tasks read it (typed values are redacted)
    full_name: str
    display_name: str
    country: str
    birthday: str
    phone_last4: str
    security: str  # "password" | "two_factor" | "locked"
    member_since: str
    notifications: tuple[str, ...]  # the ones switched on
    profile_visibility: str
    email_visibility: str
    search_indexing: str


@dataclass(frozen=True, slots=True)
class LoginEvent:
    id: str
    username: str
    at: str  # "YYYY-MM-DD HH:MM"
    device: str
    city: str
    country: str
    ip: str
    result: str  # "success" | "failed" | "blocked"


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    username: str
    device: str
    city: str
    country: str
    last_active: str


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    username: str
    name: str
    prefix: str
    scope: str
    created: str
    last_used: str


@dataclass(frozen=True, slots=True)
class PhoneCode:
    seq: int
    code: str


@dataclass(frozen=True, slots=True)
class AvatarFile:
    name: str
    kind: str
    size_kb: int
    accepted: bool


@dataclass(frozen=True, slots=True)
class Country:
    name: str


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    channel: str  # "email" | "sms"
    to: str
    subject: str
    body: str
    at: str
    kind: str  # "welcome" | "newsletter" | "alert" | "reset" | "otp"
    expired: bool


@cache
def _vocab() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(read_text("sites", "account", "vocab.json"))
    return data


def otp_code(seed: int, n: int) -> str:
    """The n-th one-time code (1-based) the site sends: six digits from the seed."""
    return f"{hash_to_int(f'account:{seed}:otp:{n}', 32) % 1_000_000:06d}"


def _ip(username: str, city: str) -> str:
    h = hash_to_int(f"ip:{username}:{city}", 32)
    net = ("203.0.113", "198.51.100", "192.0.2")[h % 3]
    return f"{net}.{h // 3 % 250 + 2}"


# -------------------------------------------------------------------- generation
def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    """The portal that `seed` determines: brand, users, their sign-ins, sessions, keys."""
    root = SeedStream(seed).child("account")
    vocab = _vocab()
    brand_rng = root.child("copy").child("brand")
    brand = f"{brand_rng.choice(vocab['brand_first'])} {brand_rng.choice(vocab['brand_second'])}"
    content = root.child("content")
    users = _users(content.child("users"), USER_COUNT[difficulty])
    events: list[LoginEvent] = []
    sessions: list[Session] = []
    keys: list[ApiKey] = []
    for user in users:
        events += _events(content.child("events").child(user.username), user, difficulty)
        sessions += _sessions(content.child("sessions").child(user.username), user, difficulty)
        keys += _keys(content.child("keys").child(user.username), user, difficulty)
    files = _files(content.child("files"))
    here_rng = content.child("here")
    here_city, here_country = here_rng.choice(vocab["cities"])
    codes = tuple(PhoneCode(n, otp_code(seed, n)) for n in range(1, OTP_LISTED + 1))
    messages = _messages(content.child("messages"), users, brand, seed)
    countries = tuple(Country(c) for c in sorted({c for _, c in vocab["cities"]}))
    variation = Variation.draw(seed, difficulty, overrides)
    return SiteSpec(
        family="account",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("account", FAMILY_VERSION),
        brand=brand,
        variation=variation.to_json(),
        entities={
            "users": users,
            "logins": tuple(events),
            "sessions": tuple(sessions),
            "api_keys": tuple(keys),
            "phone_codes": codes,
            "files": files,
            "countries": countries,
            "messages": messages,
        },
        routes=(*PUBLIC_PAGES, *PRIVATE_PAGES),
        start_route="/",
        today=TODAY,
        extra={
            "here": {
                "city": here_city,
                "country": here_country,
                "ip": _ip("here", f"{seed}:{here_city}"),
            }
        },
    )


def _users(rng: SeedStream, n: int) -> tuple[User, ...]:
    vocab = _vocab()
    firsts = rng.child("first").sample(vocab["first_names"], n)
    lasts = rng.child("last").sample(vocab["last_names"], n)
    # Roles: at least three password-only accounts, one with two-step codes, one locked.
    roles = ["password", "password", "password", "two_factor", "locked"]
    extra = rng.child("roles")
    roles += ["two_factor" if extra.chance(0.4) else "password" for _ in range(n - len(roles))]
    rng.child("role-order").shuffle(roles)
    today = dt.date.fromisoformat(TODAY)
    used: set[str] = set()
    out = []
    details = rng.child("details")
    for i, (first, last) in enumerate(zip(firsts, lasts, strict=True)):
        f, la = first.lower(), last.lower()
        styles = [f"{f}.{la}", f"{f[0]}{la}", f"{f}{la}", f"{f}.{la[0]}", f"{la}.{f}"]
        start = details.below(len(styles))
        username = next(
            (
                styles[(start + k) % len(styles)]
                for k in range(len(styles))
                if styles[(start + k) % len(styles)] not in used
            ),
            f"{f}.{la}{i}",
        )
        used.add(username)
        email = f"{f}.{la}@{details.choice(vocab['email_domains'])}"
        words = details.sample(vocab["password_words"], 2)
        password = (
            f"{words[0]}-{words[1]}{details.randint(10, 99)}"
            f"{details.choice(vocab['password_symbols'])}"
        )
        country = details.choice(vocab["cities"])[1]
        birthday = dt.date(
            details.randint(1962, 2004), details.randint(1, 12), details.randint(1, 28)
        )
        since = today - dt.timedelta(days=details.randint(120, 2400))
        display = details.choice((first, f"{first} {last[0]}.", f"{first[0]}{last}"))
        on = tuple(x for x in NOTIFICATIONS if details.chance(0.6 if x != "sms_alerts" else 0.3))
        out.append(
            User(
                username=username,
                email=email,
                password=password,
                full_name=f"{first} {last}",
                display_name=display,
                country=country,
                birthday=birthday.isoformat(),
                phone_last4=f"{details.randint(0, 9999):04d}",
                security=roles[i],
                member_since=since.isoformat(),
                notifications=on,
                profile_visibility=details.choice(PRIVACY["profile_visibility"]),
                email_visibility=details.choice(PRIVACY["email_visibility"]),
                search_indexing=details.choice(PRIVACY["search_indexing"]),
            )
        )
    return tuple(out)


def _events(rng: SeedStream, user: User, difficulty: str) -> list[LoginEvent]:
    """A user's sign-in history, newest first: mostly at home on their usual devices, with
    failed attempts and blocked ones from elsewhere (at least two and one of each)."""
    vocab = _vocab()
    cities = [tuple(c) for c in vocab["cities"]]
    home = [c for c in cities if c[1] == user.country]
    usual = rng.child("devices").sample(vocab["devices"], 3)
    n = rng.randint(*EVENT_COUNT[difficulty])
    results = ["failed", "failed", "blocked", "success"]
    mix = rng.child("results")
    results += [
        ("failed" if mix.chance(0.18) else "blocked" if mix.chance(0.08) else "success")
        for _ in range(n - len(results))
    ]
    mix.shuffle(results)
    when = rng.child("times")
    slots: set[int] = set()
    minutes: list[int] = []
    for _ in range(n):
        m = when.randint(1, 90) * 1440 - when.randint(0, 1439)  # minutes before today 00:00
        while m in slots:
            m += 1
        slots.add(m)
        minutes.append(m)
    minutes.sort()
    midnight = dt.datetime.fromisoformat(f"{TODAY}T00:00")
    place = rng.child("places")
    out = []
    for m, result in zip(minutes, results, strict=True):
        if result == "blocked":
            city, country = place.choice([c for c in cities if c[1] != user.country])
            device = place.choice([d for d in vocab["devices"] if d not in usual])
        elif result == "failed" and place.chance(0.5):
            city, country = place.choice(cities)
            device = place.choice(vocab["devices"])
        else:
            city, country = place.choice(home) if place.chance(0.8) else place.choice(cities)
            device = place.choice(usual)
        at = (midnight - dt.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M")
        eid = "L-" + short_hash(f"login|{user.username}|{m}", 8)
        out.append(
            LoginEvent(
                eid, user.username, at, device, city, country, _ip(user.username, city), result
            )
        )
    return out


def _sessions(rng: SeedStream, user: User, difficulty: str) -> list[Session]:
    vocab = _vocab()
    n = rng.randint(*SESSION_COUNT[difficulty])
    devices = rng.child("devices").sample(vocab["devices"], n)
    home = [tuple(c) for c in vocab["cities"] if c[1] == user.country]
    today = dt.date.fromisoformat(TODAY)
    out = []
    for i, device in enumerate(devices):
        city, country = rng.choice(home) if rng.chance(0.75) else rng.choice(vocab["cities"])
        last = today - dt.timedelta(days=rng.randint(0, 30))
        sid = "S-" + short_hash(f"session|{user.username}|{i}|{device}", 8)
        out.append(Session(sid, user.username, device, city, country, last.isoformat()))
    return out


def _keys(rng: SeedStream, user: User, difficulty: str) -> list[ApiKey]:
    vocab = _vocab()
    n = rng.randint(*KEY_COUNT[difficulty])
    names = rng.child("names").sample(vocab["key_names"], n)
    today = dt.date.fromisoformat(TODAY)
    out = []
    for name in names:
        created = today - dt.timedelta(days=rng.randint(20, 700))
        used = (
            "never"
            if rng.chance(0.2)
            else (today - dt.timedelta(days=rng.randint(0, 19))).isoformat()
        )
        kid = "K-" + short_hash(f"key|{user.username}|{name}", 8)
        prefix = "wfk_" + short_hash(f"prefix|{user.username}|{name}", 6).lower()
        out.append(
            ApiKey(kid, user.username, name, prefix, rng.choice(SCOPES), created.isoformat(), used)
        )
    return out


def _files(rng: SeedStream) -> tuple[AvatarFile, ...]:
    """Five synthetic files for the avatar picker: usable images, too-large ones, documents."""
    table = [
        AvatarFile(n, k, s, k == "image" and s <= AVATAR_LIMIT_KB) for n, k, s in _vocab()["files"]
    ]
    good = [f for f in table if f.accepted]
    big = [f for f in table if f.kind == "image" and not f.accepted]
    docs = [f for f in table if f.kind != "image"]
    chosen = [*rng.sample(good, 3), rng.choice(big), rng.choice(docs)]
    rng.shuffle(chosen)
    return tuple(chosen)


def _messages(rng: SeedStream, users: Sequence[User], brand: str, seed: int) -> tuple[Message, ...]:
    """What the simulated phone and mailbox already hold: a welcome mail, a newsletter, a
    security alert, an expired reset link and an old (no longer valid) code."""
    vocab = _vocab()
    today = dt.date.fromisoformat(TODAY)
    plain = [u for u in users if u.security == "password"]
    two = [u for u in users if u.security == "two_factor"]

    def when(lo: int, hi: int) -> str:
        day = today - dt.timedelta(days=rng.randint(lo, hi))
        return f"{day.isoformat()} {rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}"

    welcome = rng.choice(users)
    news = rng.choice(users)
    alert = rng.choice(two)
    reset = rng.choice(plain)
    old_code = otp_code(seed, 0)
    listed = {otp_code(seed, n) for n in range(1, OTP_LISTED + 1)}
    k = 0
    while old_code in listed:  # vanishingly rare; keep the old code unusable and distinct
        k += 1
        old_code = otp_code(seed, -k)
    drafts = [
        (
            "email",
            welcome.email,
            f"Welcome to {brand}",
            f"Hi {welcome.display_name}, your account is ready.",
            when(60, 120),
            "welcome",
            False,
        ),
        (
            "email",
            news.email,
            rng.choice(vocab["newsletters"]),
            "Read the latest news from the team.",
            when(3, 20),
            "newsletter",
            False,
        ),
        (
            "email",
            alert.email,
            "New sign-in to your account",
            "We noticed a sign-in from a new device. If this was you, you can ignore this.",
            when(5, 30),
            "alert",
            False,
        ),
        (
            "email",
            reset.email,
            "Reset your password",
            "Someone asked to reset your password. This link has expired.",
            when(10, 40),
            "reset",
            True,
        ),
        (
            "sms",
            f"phone ending {alert.phone_last4}",
            "Sign-in code",
            f"{brand}: your sign-in code is {old_code}. It expires in 10 minutes.",
            when(2, 9),
            "otp",
            True,
        ),
    ]
    out = [Message("M-" + short_hash(f"message|{seed}|{i}", 8), *d) for i, d in enumerate(drafts)]
    out.sort(key=lambda m: m.at, reverse=True)
    return tuple(out)


# -------------------------------------------------------------------- validation
@dataclass(frozen=True)
class PasswordPolicy:
    """Which rules a new password must meet; stricter with difficulty."""

    min_length: int
    symbol: bool
    mixed_case: bool
    no_username: bool
    no_repeats: bool

    def rules(self) -> list[str]:
        keys = ["length", "digit"]
        keys += ["symbol"] * self.symbol + ["case"] * self.mixed_case
        keys += ["username"] * self.no_username + ["repeat"] * self.no_repeats
        return keys


POLICIES = {
    "easy": PasswordPolicy(8, False, False, False, False),
    "medium": PasswordPolicy(10, True, False, True, False),
    "hard": PasswordPolicy(12, True, True, True, True),
}
_USERNAME = re.compile(r"^[a-z][a-z0-9._]{2,19}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)
_DISPLAY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{1,22}[A-Za-z0-9.]$")
_FULL_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*$")
_KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{1,38}[A-Za-z0-9]$")


def password_problems(
    password: str, policy: PasswordPolicy, username: str = "", email: str = ""
) -> list[str]:
    """The rules (keys of `policy.rules()`) that `password` does not meet yet."""
    low = password.lower()
    names = [x.lower() for x in (username, email.partition("@")[0]) if len(x) >= 3]
    broken = {
        "length": len(password) < policy.min_length,
        "digit": not any(c.isdigit() for c in password),
        "symbol": not any(not c.isalnum() and not c.isspace() for c in password),
        "case": not (any(c.isupper() for c in password) and any(c.islower() for c in password)),
        "username": any(n in low for n in names),
        "repeat": bool(re.search(r"(.)\1\1", password)),
    }
    return [k for k in policy.rules() if broken[k]]


def username_status(text: str, taken: Sequence[str]) -> str:
    """`empty`, `invalid`, `taken` (existing or reserved) or `available`."""
    name = text.strip()
    if not name:
        return "empty"
    if not _USERNAME.match(name):
        return "invalid"
    if name.lower() in taken or name.lower() in RESERVED:
        return "taken"
    return "available"


def email_status(text: str, taken: Sequence[str]) -> str:
    email = text.strip()
    if not email:
        return "empty"
    if not _EMAIL.match(email):
        return "invalid"
    return "taken" if email.lower() in taken else "available"


def validate_profile(
    values: Mapping[str, str],
    today: dt.date,
    files: Mapping[str, AvatarFile],
    countries: Sequence[str],
) -> dict[str, str]:
    """Field -> error key for the profile form (empty when valid)."""
    errors: dict[str, str] = {}
    full = values.get("full_name", "").strip()
    if full and (len(full) > 60 or not _FULL_NAME.match(full)):
        errors["full_name"] = "full_name"
    display = values.get("display_name", "").strip()
    if not display:
        errors["display_name"] = "required"
    elif not _DISPLAY.match(display):
        errors["display_name"] = "display_name"
    birthday = values.get("birthday", "").strip()
    if birthday:
        error = birthday_error(birthday, today)
        if error:
            errors["birthday"] = error
    if values.get("country", "") not in countries:
        errors["country"] = "required"
    avatar = values.get("avatar", "")
    if avatar:
        f = files.get(avatar)
        if f is None or f.kind != "image":
            errors["avatar"] = "avatar_kind"
        elif f.size_kb > AVATAR_LIMIT_KB:
            errors["avatar"] = "avatar_size"
    return errors


def birthday_error(text: str, today: dt.date) -> str:
    try:
        day = dt.date.fromisoformat(text.strip())
    except ValueError:
        return "birthday"
    if day >= today or day.year < 1900:
        return "birthday"
    age = today.year - day.year - ((today.month, today.day) < (day.month, day.day))
    return "birthday_young" if age < MIN_AGE else ""


# --------------------------------------------------------------------------- app
@dataclass
class Account:
    """One user's server-side record while the site runs (the password stays private)."""

    username: str
    email: str
    password: str
    two_factor: bool
    locked: bool
    phone_last4: str
    member_since: str
    profile: dict[str, str]
    notifications: dict[str, bool]
    privacy: dict[str, str]
    sessions: list[dict[str, str]]
    keys: list[dict[str, str]]
    history: list[dict[str, str]]  # newest first
    reported: list[str] = field(default_factory=list)
    password_changed: bool = False


def _empty_forms() -> dict[str, dict[str, str]]:
    return {
        "login": {"username": ""},
        "signup_account": {"email": "", "username": ""},
        "signup_profile": {"display_name": "", "country": "", "birthday": "", "terms": "false"},
        "reset_request": {"email": ""},
        "profile": {
            "full_name": "",
            "display_name": "",
            "birthday": "",
            "country": "",
            "avatar": "",
        },
        "notifications": {n: "false" for n in NOTIFICATIONS},
        "api_key": {"key_name": "", "scope": "read", "expires": ""},
        "history": {"q": ""},
    }


# Secret drafts (never in state): form -> field names.
SECRET_FIELDS = {
    "login": ("password",),
    "otp": ("code",),
    "signup_password": ("password", "confirm_password"),
    "reset_password": ("new_password", "confirm_password"),
    "two_factor": ("current_password",),
}


def _owned_rows(
    rows: Sequence[Any], username: str, fields: tuple[str, ...], *, blank: str
) -> list[dict[str, str]]:
    """The rows of an entity table that belong to `username`, as dicts of `fields` plus
    the live-only field `blank`, empty at the start."""
    return [
        {**{f: getattr(row, f) for f in fields}, blank: ""}
        for row in rows
        if row.username == username
    ]


class AccountApp(SiteApp):
    """The running portal: who is signed in, every account's data, the simulated inbox."""

    family = "account"

    def __init__(self, site: Any) -> None:
        super().__init__(site)
        ents = self.spec.entities
        self.users: tuple[User, ...] = ents["users"]
        self.files = {f.name: f for f in ents["files"]}
        self.country_names = [c.name for c in ents["countries"]]
        self.here: dict[str, str] = dict(self.spec.extra["here"])
        self.policy = POLICIES[self.spec.difficulty]
        self.accounts: dict[str, Account] = {u.username: self._account(u) for u in self.users}
        self.messages: list[dict[str, Any]] = [
            {
                "id": m.id,
                "channel": m.channel,
                "to": m.to,
                "subject": m.subject,
                "body": m.body,
                "at": m.at,
                "kind": m.kind,
                "expired": m.expired,
                "user": "",
                "used": False,
            }
            for m in ents["messages"]
        ]
        self.clock = 0  # logical minutes since 09:00 today
        # auth
        self.user = ""
        self.method = ""
        self.otp_verified = False
        self.pending = ""  # account waiting for its one-time code
        self.challenge: list[str] = []  # codes sent for the pending sign-in (private)
        self.codes_sent = 0  # every code the site has sent (the n of otp_code)
        self.next_route = ""
        self.wall = False
        self.login: dict[str, Any] = {"attempts": 0, "identifier": "", "result": ""}
        self.login_error = ""
        self.otp_error = ""
        # flows
        self.forms = _empty_forms()
        self.secrets: dict[str, dict[str, str]] = {
            form: dict.fromkeys(names, "") for form, names in SECRET_FIELDS.items()
        }
        self.signup: dict[str, Any] = {
            "step": "account",
            "username": "",
            "email": "",
            "created": "",
            "done": dict.fromkeys(SIGNUP_STEPS[:3], False),
        }
        self.signup_errors: dict[str, str] = {}
        self.reset: dict[str, Any] = {
            "stage": "request",
            "email": "",
            "user": "",
            "opened": [],
            "changed": [],
        }
        self.reset_errors: dict[str, str] = {}
        self.profile_errors: dict[str, str] = {}
        self.key_errors: dict[str, str] = {}
        self.two_factor_error = ""
        self.new_key = ""  # a freshly created key, shown once (private)
        self.reset_link = ""  # the message whose reset link was opened
        self.last_created: dict[str, str] = {"name": "", "scope": "", "expires": ""}
        self.last_revoked = ""
        self.signed_out: list[str] = []
        self.history_view: dict[str, Any] = {"filter": "", "sort": "date-desc", "page": 1}
        self.distractor_clicks = 0

    def _account(self, u: User) -> Account:
        ents = self.spec.entities
        return Account(
            username=u.username,
            email=u.email,
            password=u.password,
            two_factor=u.security == "two_factor",
            locked=u.security == "locked",
            phone_last4=u.phone_last4,
            member_since=u.member_since,
            profile={
                "full_name": u.full_name,
                "display_name": u.display_name,
                "birthday": u.birthday,
                "country": u.country,
                "avatar": "",
            },
            notifications={n: n in u.notifications for n in NOTIFICATIONS},
            privacy={
                "profile_visibility": u.profile_visibility,
                "email_visibility": u.email_visibility,
                "search_indexing": u.search_indexing,
            },
            sessions=_owned_rows(
                ents["sessions"],
                u.username,
                ("id", "device", "city", "country", "last_active"),
                blank="current",
            ),
            keys=_owned_rows(
                ents["api_keys"],
                u.username,
                ("id", "name", "prefix", "scope", "created", "last_used"),
                blank="expires",
            ),
            history=[
                {
                    "id": e.id,
                    "at": e.at,
                    "device": e.device,
                    "city": e.city,
                    "country": e.country,
                    "ip": e.ip,
                    "result": e.result,
                }
                for e in sorted(
                    (e for e in ents["logins"] if e.username == u.username),
                    key=lambda e: e.at,
                    reverse=True,
                )
            ],
        )

    # ------------------------------------------------------------------ helpers
    @property
    def me(self) -> Account | None:
        return self.accounts.get(self.user)

    def _now(self) -> str:
        self.clock += 1
        minute = START_MINUTE + self.clock
        return f"{TODAY} {minute // 60:02d}:{minute % 60:02d}"

    def _find_account(self, identifier: str) -> Account | None:
        key = identifier.strip().lower()
        if not key:
            return None
        return next(
            (a for a in self.accounts.values() if key in (a.username.lower(), a.email.lower())),
            None,
        )

    def _taken_usernames(self) -> list[str]:
        return [a.username.lower() for a in self.accounts.values()]

    def _taken_emails(self) -> list[str]:
        return [a.email.lower() for a in self.accounts.values()]

    def _record_login(self, account: Account, result: str) -> None:
        at = self._now()
        eid = "L-" + short_hash(f"{self.spec.seed}|new-login|{self.clock}", 8)
        account.history.insert(
            0,
            {
                "id": eid,
                "at": at,
                "device": HERE_DEVICE,
                "city": self.here["city"],
                "country": self.here["country"],
                "ip": self.here["ip"],
                "result": result,
            },
        )

    def _sign_in(self, account: Account, method: str) -> str:
        self.user = account.username
        self.method = method
        self.otp_verified = method == "password+otp"
        self.pending = ""
        self.challenge = []
        self._record_login(account, "success")
        sid = "S-" + short_hash(f"{self.spec.seed}|here|{self.clock}", 8)
        account.sessions.insert(
            0,
            {
                "id": sid,
                "device": HERE_DEVICE,
                "city": self.here["city"],
                "country": self.here["country"],
                "last_active": TODAY,
                "current": "yes",
            },
        )
        self.forms["profile"] = dict(account.profile)
        self.forms["notifications"] = {
            n: "true" if on else "false" for n, on in account.notifications.items()
        }
        self.history_view = {"filter": "", "sort": "date-desc", "page": 1}
        self.forms["history"] = {"q": ""}
        self.ui.more.pop("history", None)
        target = self.next_route or "/account"
        self.next_route = ""
        return target

    def _send(
        self, channel: str, to: str, subject: str, body: str, kind: str, user: str = ""
    ) -> dict[str, Any]:
        msg = {
            "id": "M-" + short_hash(f"{self.spec.seed}|sent|{len(self.messages)}", 8),
            "channel": channel,
            "to": to,
            "subject": subject,
            "body": body,
            "at": self._now(),
            "kind": kind,
            "expired": False,
            "user": user,
            "used": False,
        }
        self.messages.insert(0, msg)
        return msg

    def _send_code(self, account: Account) -> None:
        self.codes_sent += 1
        code = otp_code(self.spec.seed, self.codes_sent)
        self.challenge.append(code)
        self._send(
            "sms",
            f"phone ending {account.phone_last4}",
            "Sign-in code",
            f"{self.spec.brand}: your sign-in code is {code}. It expires in 10 minutes.",
            "otp",
            account.username,
        )

    def _secret(self, form: str, name: str, ev: AppEvent | None = None) -> str:
        """A secret draft, refreshed from a submit's values when the browser sent one."""
        if ev is not None and ev.values and ev.values.get(name):
            self.secrets[form][name] = ev.values[name][:200]
        return self.secrets[form][name]

    def _take(self, form: str, ev: AppEvent, names: Sequence[str]) -> None:
        """Copy the submitted text fields of `form` into its drafts."""
        for name in names:
            if ev.values is not None and name in ev.values:
                self.forms[form][name] = ev.values[name][:200]

    def _field_order(self, names: Sequence[str], key: str) -> list[str]:
        ordered = list(names)
        if self.v.field_order == "shuffled":
            SeedStream(self.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
        return ordered

    def month_of(self, picker: str) -> str:
        """Calendars open at the month of their value (or a sensible default)."""
        if picker in self.ui.months:
            return self.ui.months[picker]
        value = {
            "birthday": (
                self.forms["signup_profile"]["birthday"]
                if self.route.startswith("/signup")
                else self.forms["profile"]["birthday"]
            ),
            "expires": self.forms["api_key"]["expires"],
        }.get(picker, "")
        if re.match(r"^\d{4}-\d{2}-\d{2}$", value or ""):
            return value[:7]
        if picker == "birthday":  # date-of-birth pickers open some decades back
            return f"{int(TODAY[:4]) - 30:04d}{TODAY[4:7]}"
        return TODAY[:7]

    # -------------------------------------------------------------------- state
    def _page_kind(self, route: str) -> str:
        path = route.split("?", 1)[0]
        if path in PUBLIC_PAGES:
            return PUBLIC_PAGES[path]
        if path in PRIVATE_PAGES:
            return PRIVATE_PAGES[path]
        if path.startswith("/history/"):
            eid = path[len("/history/") :]
            if self.me is not None:
                return (
                    "login_detail" if any(e["id"] == eid for e in self.me.history) else "not_found"
                )
            if any(e["id"] == eid for a in self.accounts.values() for e in a.history):
                return "login_detail"
        return "not_found"

    def history_rows(self) -> list[dict[str, str]]:
        me = self.me
        if me is None:
            return []
        q = self.forms["history"]["q"].strip().lower()
        result = self.history_view["filter"]
        rows = [
            e
            for e in me.history
            if (not result or e["result"] == result)
            and (not q or any(q in e[k].lower() for k in ("device", "city", "country", "ip")))
        ]
        col, _, order = self.history_view["sort"].partition("-")
        key = {
            "date": lambda e: (e["at"],),
            "device": lambda e: (e["device"], e["at"]),
            "location": lambda e: (e["city"], e["country"], e["at"]),
            "result": lambda e: (e["result"], e["at"]),
        }[col]
        rows.sort(key=key, reverse=order == "desc")
        return rows

    def _history_pages(self) -> int:
        return max(1, -(-len(self.history_rows()) // PAGE_SIZE))

    def _history_shown(self) -> list[dict[str, str]]:
        rows = self.history_rows()
        if self.v.list_mode == "infinite":
            return rows[: self.ui.more.get("history", 1) * PAGE_SIZE]
        first = (self.history_view["page"] - 1) * PAGE_SIZE
        return rows[first : first + PAGE_SIZE]

    def _signup_status(self) -> tuple[str, str]:
        draft = self.forms["signup_account"]
        return (
            username_status(draft["username"], self._taken_usernames()),
            email_status(draft["email"], self._taken_emails()),
        )

    def _new_password_facts(self, form: str, username: str, email: str) -> dict[str, bool]:
        names = SECRET_FIELDS[form]
        pw, confirm = self.secrets[form][names[0]], self.secrets[form][names[1]]
        return {
            "password_given": bool(pw),
            "password_valid": bool(pw) and not password_problems(pw, self.policy, username, email),
            "confirm_matches": bool(pw) and confirm == pw,
        }

    def _reset_account(self) -> Account | None:
        return self.accounts.get(self.reset["user"])

    def state(self) -> dict[str, Any]:
        me = self.me
        uname, estatus = self._signup_status()
        reset_acct = self._reset_account()
        rows = self.history_rows()
        shown = self._history_shown()
        viewed = self._viewed_login()
        latest = self.messages[0] if self.messages else None
        stage = "signed_in" if me else "code_required" if self.pending else "signed_out"
        page = self._page_kind(self.route)
        return {
            "route": self.route,
            "page": "login" if page in PRIVATE_KINDS and me is None else page,
            "auth": {
                "logged_in": me is not None,
                "user": self.user,
                "method": self.method,
                "otp_verified": self.otp_verified,
                "stage": stage,
                "pending_user": self.pending,
                "codes_sent": len(self.challenge),
            },
            "login": {**self.login, "error": self.login_error, "otp_error": self.otp_error},
            "signup": {
                "step": self.signup["step"],
                "username": self.signup["username"],
                "email": self.signup["email"],
                "created": self.signup["created"],
                "username_status": uname,
                "email_status": estatus,
                "done": dict(self.signup["done"]),
                "errors": dict(self.signup_errors),
            },
            "reset": {
                "stage": self.reset["stage"],
                "email": self.reset["email"],
                "user": self.reset["user"],
                "opened": list(self.reset["opened"]),
                "changed": list(self.reset["changed"]),
                "errors": dict(self.reset_errors),
            },
            "forms": {
                **{name: dict(values) for name, values in self.forms.items()},
                "login": {
                    **self.forms["login"],
                    "password_given": bool(self.secrets["login"]["password"]),
                },
                "otp": {"code_given": bool(self.secrets["otp"]["code"])},
                "signup_password": self._new_password_facts(
                    "signup_password",
                    self.forms["signup_account"]["username"].strip(),
                    self.forms["signup_account"]["email"].strip(),
                ),
                "reset_password": self._new_password_facts(
                    "reset_password",
                    reset_acct.username if reset_acct else "",
                    reset_acct.email if reset_acct else "",
                ),
                "two_factor": {
                    "password_given": bool(self.secrets["two_factor"]["current_password"])
                },
            },
            "profile": (
                {"username": me.username, "email": me.email, **me.profile}
                if me
                else {
                    "username": "",
                    "email": "",
                    "full_name": "",
                    "display_name": "",
                    "birthday": "",
                    "country": "",
                    "avatar": "",
                }
            ),
            "profile_form": {"errors": dict(self.profile_errors)},
            "settings": {
                "notifications": (
                    dict(me.notifications) if me else dict.fromkeys(NOTIFICATIONS, False)
                ),
                "privacy": dict(me.privacy) if me else dict.fromkeys(PRIVACY, ""),
            },
            "security": {
                "two_factor": bool(me and me.two_factor),
                "password_changed": bool(me and me.password_changed),
                "error": self.two_factor_error,
                "sessions": {
                    "count": len(me.sessions) if me else 0,
                    "others": sum(1 for s in me.sessions if not s["current"]) if me else 0,
                    "ids": [s["id"] for s in me.sessions] if me else [],
                    "devices": [s["device"] for s in me.sessions] if me else [],
                },
                "signed_out": list(self.signed_out),
            },
            "api_keys": {
                "count": len(me.keys) if me else 0,
                "ids": [k["id"] for k in me.keys] if me else [],
                "names": [k["name"] for k in me.keys] if me else [],
                "last_created": dict(self.last_created),
                "last_revoked": self.last_revoked,
                "errors": dict(self.key_errors),
            },
            "history": {
                "filter": self.history_view["filter"],
                "query": self.forms["history"]["q"],
                "sort": self.history_view["sort"],
                "page": self.history_view["page"],
                "pages": self._history_pages(),
                "count": len(rows),
                "shown": len(shown),
                "failed": sum(1 for e in (me.history if me else []) if e["result"] == "failed"),
                "reported": list(me.reported) if me else [],
            },
            "viewed_login": viewed,
            "inbox": {
                "count": len(self.messages),
                "latest": {k: (latest or {}).get(k, "") for k in ("channel", "to", "subject")},
            },
            "distractors": {"clicks": self.distractor_clicks},
        }

    def _viewed_login(self) -> dict[str, str]:
        empty = {
            "id": "",
            "date": "",
            "device": "",
            "city": "",
            "country": "",
            "ip": "",
            "result": "",
        }
        if self.me is None or not self.route.startswith("/history/"):
            return empty
        e = self._event(self.route[len("/history/") :])
        if e is None:
            return empty
        return {
            "id": e["id"],
            "date": e["at"],
            "device": e["device"],
            "city": e["city"],
            "country": e["country"],
            "ip": e["ip"],
            "result": e["result"],
        }

    def _event(self, eid: str) -> dict[str, str] | None:
        me = self.me
        return next((e for e in me.history if e["id"] == eid), None) if me else None

    # --------------------------------------------------------------- page guard
    def dispatch(self, event: AppEvent) -> Any:
        """Pages behind the login wall send a signed-out visitor to /login (and back after)."""
        if event.type == "nav":
            path = (event.path or "/").split("?", 1)[0]
            self.wall = False
            if self.me is None and self._page_kind(path) in PRIVATE_KINDS:
                self.next_route = path
                self.wall = True
                event = event.model_copy(update={"path": "/login"})
        return super().dispatch(event)

    # ----------------------------------------------------------------- handlers
    @handler("field")
    def on_field(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        if form not in self.forms or name not in self.forms[form] or form == "notifications":
            return None
        value = (ev.value or "")[:200]
        if name == "country" and value not in self.country_names:
            return None
        if name == "avatar" and value not in self.files:
            return None
        if name == "terms" and value not in ("true", "false"):
            return None
        if name == "scope" and value not in SCOPES:
            return None
        self.forms[form][name] = value
        if self.v.validation == "sync":
            self._live_errors(form)
        return None

    @handler("secret")
    def on_secret(self, ev: AppEvent) -> str | None:
        form, _, name = (ev.arg or "").partition(".")
        if form not in self.secrets or name not in self.secrets[form]:
            return None
        self.secrets[form][name] = (ev.value or "")[:200]
        if self.v.validation == "sync":
            self._live_errors(form)
        return None

    def _live_errors(self, form: str) -> None:
        """Sync validation: field errors follow the drafts while the user types."""
        if form == "signup_account":
            uname, estatus = self._signup_status()
            for name, status in (("username", uname), ("email", estatus)):
                if status in ("invalid", "taken"):
                    self.signup_errors[name] = f"{name}_{status}"
                else:
                    self.signup_errors.pop(name, None)
        elif form in ("signup_password", "reset_password"):
            errors = self.signup_errors if form == "signup_password" else self.reset_errors
            names = SECRET_FIELDS[form]
            pw, confirm = self.secrets[form][names[0]], self.secrets[form][names[1]]
            if form == "signup_password":
                who = self.forms["signup_account"]
                problems = password_problems(
                    pw, self.policy, who["username"].strip(), who["email"].strip()
                )
            else:
                acct = self._reset_account()
                problems = password_problems(
                    pw, self.policy, acct.username if acct else "", acct.email if acct else ""
                )
            if pw and problems:
                errors[names[0]] = "rules:" + ",".join(problems)
            else:
                errors.pop(names[0], None)
            if confirm and confirm != pw:
                errors["confirm_password"] = "mismatch"
            else:
                errors.pop("confirm_password", None)
        elif form == "signup_profile":
            for name in list(self.signup_errors):
                if name in self.forms[form] and not self._signup_profile_errors().get(name):
                    self.signup_errors.pop(name)
        elif form == "profile":
            still = validate_profile(
                self.forms["profile"], self.today(), self.files, self.country_names
            )
            if "avatar" in still:  # a picked file is checked at once
                self.profile_errors["avatar"] = still["avatar"]
            for name in list(self.profile_errors):
                if name not in still:
                    self.profile_errors.pop(name)
        elif form == "api_key":
            still = self._key_errors()
            for name in list(self.key_errors):
                if name not in still:
                    self.key_errors.pop(name)

    # sign-in ---------------------------------------------------------------
    @handler("login", mutating=True)
    def on_login(self, ev: AppEvent) -> str | None:
        self._take("login", ev, ("username",))
        identifier = self.forms["login"]["username"]
        password = self._secret("login", "password", ev)
        self.login["attempts"] += 1
        self.login["identifier"] = identifier
        self.login_error = ""
        account = self._find_account(identifier)
        if not identifier.strip() or not password:
            self.login["result"] = "incomplete"
            self.login_error = "incomplete"
            return None
        if account is None or password != account.password:
            self.login["result"] = "bad_credentials"
            self.login_error = "bad_credentials"
            self.secrets["login"]["password"] = ""
            if account is not None:
                self._record_login(account, "failed")
            return None
        if account.locked:
            self.login["result"] = "locked"
            self.login_error = "locked"
            self._record_login(account, "blocked")
            return None
        if self.me is not None:  # someone else was signed in here: sign them out first
            self._sign_out()
        if account.two_factor:
            self.login["result"] = "code_required"
            self.pending = account.username
            self.challenge = []
            self.otp_error = ""
            self.secrets["otp"]["code"] = ""
            self._send_code(account)
            return "/login"
        self.login["result"] = "signed_in"
        return self._sign_in(account, "password")

    @handler("verify_code", mutating=True)
    def on_verify_code(self, ev: AppEvent) -> str | None:
        account = self.accounts.get(self.pending)
        if account is None:
            return None
        code = self._secret("otp", "code", ev).strip().replace(" ", "")
        if code and code in self.challenge:
            self.otp_error = ""
            return self._sign_in(account, "password+otp")
        self.otp_error = "code_required" if not code else "bad_code"
        return None

    @handler("resend_code", mutating=True)
    def on_resend_code(self, ev: AppEvent) -> str | None:
        account = self.accounts.get(self.pending)
        if account is not None and len(self.challenge) < 5:
            self._send_code(account)
            self.flash = self.copy("login.resent")
        return None

    @handler("cancel_code")
    def on_cancel_code(self, ev: AppEvent) -> str | None:
        self.pending = ""
        self.challenge = []
        self.otp_error = ""
        self.secrets["otp"]["code"] = ""
        self.secrets["login"]["password"] = ""
        return "/login"

    def _sign_out(self) -> None:
        me = self.me
        if me is not None:
            me.sessions = [s for s in me.sessions if not s["current"]]
        self.user = self.method = ""
        self.otp_verified = False
        if self.signup["step"] == "done":  # the next visitor starts a fresh sign-up
            self.signup["step"] = "account"
            self.forms["signup_account"] = _empty_forms()["signup_account"]
            self.forms["signup_profile"] = _empty_forms()["signup_profile"]
        self.secrets = {form: dict.fromkeys(names, "") for form, names in SECRET_FIELDS.items()}
        self.new_key = ""

    @handler("sign_out", mutating=True)
    def on_sign_out(self, ev: AppEvent) -> str | None:
        if self.me is None:
            return None
        self._sign_out()
        self.flash = self.copy("login.signed_out")
        return "/login"

    # sign-up ---------------------------------------------------------------
    @handler("signup_account", mutating=True)
    def on_signup_account(self, ev: AppEvent) -> str | None:
        if self.signup["step"] == "done":
            return None
        self._take("signup_account", ev, ("email", "username"))
        uname, estatus = self._signup_status()
        errors = {}
        for name, status in (("username", uname), ("email", estatus)):
            if status == "empty":
                errors[name] = "required"
            elif status != "available":
                errors[name] = f"{name}_{status}"
        self.signup_errors = errors
        if errors:
            return None
        draft = self.forms["signup_account"]
        self.signup.update(
            username=draft["username"].strip(), email=draft["email"].strip(), step="password"
        )
        self.signup["done"]["account"] = True
        return None

    @handler("signup_password", mutating=True)
    def on_signup_password(self, ev: AppEvent) -> str | None:
        if self.signup["step"] != "password":
            return None
        pw = self._secret("signup_password", "password", ev)
        confirm = self._secret("signup_password", "confirm_password", ev)
        problems = password_problems(pw, self.policy, self.signup["username"], self.signup["email"])
        errors = {}
        if not pw:
            errors["password"] = "required"
        elif problems:
            errors["password"] = "rules:" + ",".join(problems)
        if pw and confirm != pw:
            errors["confirm_password"] = "mismatch"
        self.signup_errors = errors
        if errors:
            return None
        self.signup["step"] = "profile"
        self.signup["done"]["password"] = True
        return None

    def _signup_profile_errors(self) -> dict[str, str]:
        values = self.forms["signup_profile"]
        errors = {}
        display = values["display_name"].strip()
        if not display:
            errors["display_name"] = "required"
        elif not _DISPLAY.match(display):
            errors["display_name"] = "display_name"
        if values["country"] not in self.country_names:
            errors["country"] = "required"
        if not values["birthday"].strip():
            errors["birthday"] = "required"
        else:
            error = birthday_error(values["birthday"], self.today())
            if error:
                errors["birthday"] = error
        if values["terms"] != "true":
            errors["terms"] = "terms"
        return errors

    @handler("signup_profile", mutating=True)
    def on_signup_profile(self, ev: AppEvent) -> str | None:
        if self.signup["step"] != "profile":
            return None
        self._take("signup_profile", ev, ("display_name", "birthday"))
        errors = self._signup_profile_errors()
        uname, estatus = (
            username_status(self.signup["username"], self._taken_usernames()),
            email_status(self.signup["email"], self._taken_emails()),
        )
        if uname != "available" or estatus != "available":  # taken meanwhile: start over
            errors["_account"] = "account_gone"
        self.signup_errors = errors
        if errors:
            return None
        values = self.forms["signup_profile"]
        username = self.signup["username"]
        account = Account(
            username=username,
            email=self.signup["email"],
            password=self.secrets["signup_password"]["password"],
            two_factor=False,
            locked=False,
            phone_last4="",
            member_since=TODAY,
            profile={
                "full_name": "",
                "display_name": values["display_name"].strip(),
                "birthday": values["birthday"].strip(),
                "country": values["country"],
                "avatar": "",
            },
            notifications={n: n == "security_alerts" for n in NOTIFICATIONS},
            privacy={
                "profile_visibility": "members",
                "email_visibility": "nobody",
                "search_indexing": "block",
            },
            sessions=[],
            keys=[],
            history=[],
        )
        self.accounts[username] = account
        self.signup.update(step="done", created=username)
        self.signup["done"]["profile"] = True
        self._send(
            "email",
            account.email,
            f"Welcome to {self.spec.brand}",
            f"Hi {account.profile['display_name']}, your account is ready.",
            "welcome",
            username,
        )
        if self.me is not None:
            self._sign_out()
        self._sign_in(account, "signup")
        return "/signup"

    @handler("signup_back")
    def on_signup_back(self, ev: AppEvent) -> str | None:
        step = self.signup["step"]
        if step in ("password", "profile"):
            self.signup["step"] = SIGNUP_STEPS[SIGNUP_STEPS.index(step) - 1]
            self.signup_errors = {}
        return None

    # password reset --------------------------------------------------------
    @handler("reset_request", mutating=True)
    def on_reset_request(self, ev: AppEvent) -> str | None:
        self._take("reset_request", ev, ("email",))
        email = self.forms["reset_request"]["email"].strip()
        if not email:
            self.reset_errors = {"email": "required"}
            return None
        if not _EMAIL.match(email):
            self.reset_errors = {"email": "email_invalid"}
            return None
        self.reset_errors = {}
        self.reset.update(stage="sent", email=self.forms["reset_request"]["email"], user="")
        account = self._find_account(email) if "@" in email else None
        if account is not None and account.email.lower() == email.lower():
            brand = self.spec.brand
            if account.locked:
                self._send(
                    "email",
                    account.email,
                    "About your password reset",
                    f"Your {brand} account is locked, so its password cannot be reset "
                    "online. Please contact support.",
                    "locked",
                    account.username,
                )
            else:
                for m in self.messages:  # a new link replaces older ones
                    if m["kind"] == "reset" and m["user"] == account.username:
                        m["expired"] = True
                self._send(
                    "email",
                    account.email,
                    "Reset your password",
                    f"Someone asked to reset the password of your {brand} account. "
                    "Use the button below to choose a new one.",
                    "reset",
                    account.username,
                )
        return None

    @handler("reset_restart")
    def on_reset_restart(self, ev: AppEvent) -> str | None:
        if self.reset["stage"] in ("sent", "done"):
            self.reset.update(stage="request", user="")
            self.reset_errors = {}
        return None

    @handler("open_reset", mutating=True)
    def on_open_reset(self, ev: AppEvent) -> str | None:
        msg = next((m for m in self.messages if m["id"] == ev.arg and m["kind"] == "reset"), None)
        if msg is None:
            return None
        if msg["expired"] or msg["used"] or msg["user"] not in self.accounts:
            self.flash = self.copy("reset.expired")
            return None
        self.flash = ""
        self.reset.update(stage="verified", user=msg["user"])
        if msg["id"] not in self.reset["opened"]:
            self.reset["opened"].append(msg["id"])
        self.reset_errors = {}
        self.secrets["reset_password"] = dict.fromkeys(SECRET_FIELDS["reset_password"], "")
        self.reset_link = msg["id"]
        return "/reset"

    @handler("reset_password", mutating=True)
    def on_reset_password(self, ev: AppEvent) -> str | None:
        account = self._reset_account()
        if self.reset["stage"] != "verified" or account is None:
            return None
        pw = self._secret("reset_password", "new_password", ev)
        confirm = self._secret("reset_password", "confirm_password", ev)
        errors = {}
        problems = password_problems(pw, self.policy, account.username, account.email)
        if not pw:
            errors["new_password"] = "required"
        elif problems:
            errors["new_password"] = "rules:" + ",".join(problems)
        elif pw == account.password:
            errors["new_password"] = "same_password"
        if pw and confirm != pw:
            errors["confirm_password"] = "mismatch"
        self.reset_errors = errors
        if errors:
            return None
        account.password = pw
        account.password_changed = True
        for m in self.messages:
            if m["id"] == self.reset_link:
                m["used"] = True
        if account.username not in self.reset["changed"]:
            self.reset["changed"].append(account.username)
        self.reset["stage"] = "done"
        self.flash = self.copy("reset.done")
        if self.user == account.username:
            self._sign_out()
        return "/login"

    # profile and settings -----------------------------------------------------
    @handler("save_profile", mutating=True)
    def on_save_profile(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        self._take("profile", ev, ("full_name", "display_name", "birthday"))
        errors = validate_profile(
            self.forms["profile"], self.today(), self.files, self.country_names
        )
        self.profile_errors = errors
        if errors:
            return None
        me.profile = {k: v.strip() for k, v in self.forms["profile"].items()}
        self.flash = self.copy("profile.saved")
        return None

    @handler("notify", mutating=True)
    def on_notify(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None or ev.arg not in NOTIFICATIONS or ev.value not in ("true", "false"):
            return None
        me.notifications[ev.arg or ""] = ev.value == "true"
        self.forms["notifications"][ev.arg or ""] = ev.value or "false"
        self.flash = self.copy("settings.saved")
        return None

    @handler("privacy", mutating=True)
    def on_privacy(self, ev: AppEvent) -> str | None:
        me = self.me
        name = ev.arg or ""
        if me is None or name not in PRIVACY or ev.value not in PRIVACY[name]:
            return None
        me.privacy[name] = ev.value or ""
        self.flash = self.copy("settings.saved")
        return None

    @handler("two_factor", mutating=True)
    def on_two_factor(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        password = self._secret("two_factor", "current_password", ev)
        if not password:
            self.two_factor_error = "required"
        elif password != me.password:
            self.two_factor_error = "current_password"
        else:
            self.two_factor_error = ""
            me.two_factor = not me.two_factor
            self.secrets["two_factor"]["current_password"] = ""
            self.flash = self.copy(
                "settings.two_factor_on" if me.two_factor else "settings.two_factor_off"
            )
            self.ui.modal = None
        return None

    @handler("revoke_session", mutating=True)
    def on_revoke_session(self, ev: AppEvent) -> str | None:
        me = self.me
        found = (
            next((s for s in me.sessions if s["id"] == ev.arg and not s["current"]), None)
            if me
            else None
        )
        if me is None or found is None:
            return None
        me.sessions.remove(found)
        self.signed_out.append(found["device"])
        self.flash = self.copy("settings.session_signed_out", device=found["device"])
        return None

    @handler("revoke_other_sessions", mutating=True)
    def on_revoke_others(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        others = [s for s in me.sessions if not s["current"]]
        self.signed_out += [s["device"] for s in others]
        me.sessions = [s for s in me.sessions if s["current"]]
        if others:
            self.flash = self.copy("settings.others_signed_out")
        return None

    def _key_errors(self) -> dict[str, str]:
        me = self.me
        draft = self.forms["api_key"]
        errors = {}
        name = draft["key_name"].strip()
        if not name:
            errors["key_name"] = "required"
        elif not _KEY_NAME.match(name):
            errors["key_name"] = "key_name"
        elif me is not None and name.lower() in (k["name"].lower() for k in me.keys):
            errors["key_name"] = "key_name_taken"
        expires = draft["expires"].strip()
        if expires:
            try:
                if dt.date.fromisoformat(expires) <= self.today():
                    errors["expires"] = "expires"
            except ValueError:
                errors["expires"] = "expires"
        return errors

    @handler("create_key", mutating=True)
    def on_create_key(self, ev: AppEvent) -> str | None:
        me = self.me
        if me is None:
            return None
        self._take("api_key", ev, ("key_name", "expires"))
        self.key_errors = self._key_errors()
        if self.key_errors:
            return None
        draft = self.forms["api_key"]
        n = len(me.keys) + self.clock
        kid = "K-" + short_hash(f"{self.spec.seed}|new-key|{me.username}|{n}", 8)
        secret = short_hash(f"{self.spec.seed}|secret|{kid}", 24).lower()
        key = {
            "id": kid,
            "name": draft["key_name"].strip(),
            "prefix": f"wfk_{secret[:6]}",
            "scope": draft["scope"],
            "created": TODAY,
            "last_used": "never",
            "expires": draft["expires"].strip(),
        }
        me.keys.insert(0, key)
        self.new_key = f"wfk_{secret}"
        self.last_created = {"name": key["name"], "scope": key["scope"], "expires": key["expires"]}
        self.ui.modal = None
        return None

    @handler("revoke_key", mutating=True)
    def on_revoke_key(self, ev: AppEvent) -> str | None:
        me = self.me
        found = next((k for k in me.keys if k["id"] == ev.arg), None) if me else None
        if me is None or found is None:
            return None
        me.keys.remove(found)
        self.last_revoked = found["name"]
        self.flash = self.copy("settings.key_revoked", name=found["name"])
        return None

    @handler("dismiss_key")
    def on_dismiss_key(self, ev: AppEvent) -> str | None:
        self.new_key = ""
        return None

    # login history ---------------------------------------------------------------
    @handler("history_filter")
    def on_history_filter(self, ev: AppEvent) -> str | None:
        if ev.value in ("", *RESULTS):
            self.history_view.update(filter=ev.value or "", page=1)
            self.ui.more.pop("history", None)
        return None

    @handler("history_query")
    def on_history_query(self, ev: AppEvent) -> str | None:
        self.forms["history"]["q"] = (ev.value or "")[:80]
        self.history_view["page"] = 1
        self.ui.more.pop("history", None)
        return None

    @handler("history_sort")
    def on_history_sort(self, ev: AppEvent) -> str | None:
        col, _, order = (ev.arg or "").partition("=")
        if col in HISTORY_COLUMNS and order in ("asc", "desc"):
            self.history_view.update(sort=f"{col}-{order}", page=1)
            self.ui.more.pop("history", None)
        return None

    @handler("history_page")
    def on_history_page(self, ev: AppEvent) -> str | None:
        arg = ev.arg or ""
        if arg.isdigit() and 1 <= int(arg) <= self._history_pages():
            self.history_view["page"] = int(arg)
        return None

    @handler("report_login", mutating=True)
    def on_report_login(self, ev: AppEvent) -> str | None:
        me = self.me
        event = self._event(ev.arg or "")
        if me is None or event is None or event["id"] in me.reported:
            return None
        me.reported.append(event["id"])
        self.flash = self.copy("history.reported")
        return None

    @handler("distractor")
    def on_distractor(self, ev: AppEvent) -> str | None:
        if ev.arg in ("sso", "upgrade", "export", "app"):
            self.distractor_clicks += 1
            self.flash = self.copy(f"distractors.{ev.arg}_msg")
        return None

    # ---------------------------------------------------------------- rendering
    def render(self, route: str) -> PageView:
        kind = self._page_kind(route)
        if kind in PRIVATE_KINDS and self.me is None:
            kind = "login"  # the login wall
        return self.render_kind(route, kind)

    def header(self, r: Renderer) -> str:
        c = self.copy
        me = self.me
        if me is None:
            entries = [
                ("/", c("nav.home")),
                ("/login", c("nav.login")),
                ("/signup", c("nav.signup")),
                ("/inbox", c("nav.inbox")),
            ]
            nav = w.site_nav(r, entries, label=c("nav.label"))
            return f'<span class="brand">{esc(self.spec.brand)}</span>{nav}'
        entries = [
            ("/account", c("nav.account")),
            ("/profile", c("nav.profile")),
            ("/settings", c("nav.settings")),
            ("/history", c("nav.history")),
            ("/inbox", c("nav.inbox")),
        ]
        nav = w.site_nav(r, entries, label=c("nav.label"))
        out = w.button(
            r,
            sid="sign-out",
            text=c("nav.sign_out"),
            handler="sign_out",
            attrs_={"role": "sign-out"},
            variant="secondary",
            effect=Eq(("auth", "logged_in"), False),
        )
        who = esc(c("nav.signed_in_as", name=me.profile["display_name"] or me.username))
        return (
            f'<span class="brand">{esc(self.spec.brand)}</span>{nav}'
            f'<span class="whoami muted">{who}</span>{out}'
        )

    def _distractor(self, r: Renderer, name: str, level: str = "some") -> str:
        """A lookalike control that does nothing a task asks for (flagged for checks)."""
        if self.v.distractors == "none" or (level == "many" and self.v.distractors != "many"):
            return ""
        return w.button(
            r,
            sid=f"distractor:{name}",
            text=self.copy(f"distractors.{name}"),
            handler="distractor",
            arg=name,
            variant="secondary",
            attrs_={"role": name, "distractor": True},
            effect=Gt(("distractors", "clicks"), 0),
        )

    def _heading(self, text: str) -> str:
        return f"<h1>{esc(text)}</h1>"

    def _errors_text(self, key: str) -> str:
        """The visible text of an error key (`rules:a,b` lists the unmet password rules)."""
        if not key:
            return ""
        c = self.copy
        if key.startswith("rules:"):
            needed = [self._rule_text(k) for k in key[6:].split(",") if k]
            return c("rules.still", rules="; ".join(needed))
        return c(f"errors.{key}")

    def _rule_text(self, key: str) -> str:
        if key == "length":
            return self.copy("rules.length", n=self.policy.min_length)
        return self.copy(f"rules.{key}")

    def _rules_list(self) -> str:
        items = "".join(f"<li>{esc(self._rule_text(k))}</li>" for k in self.policy.rules())
        return (
            f'<div class="rules"><strong>{esc(self.copy("rules.title"))}</strong>'
            f"<ul>{items}</ul></div>"
        )

    # public pages -----------------------------------------------------------------
    def _render_home(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        title = c("home.title", brand=self.spec.brand)
        if self.me is not None:
            cta = w.link(
                r,
                sid="home:/account",
                href="/account",
                text=c("home.open_account"),
                class_="button",
            )
        else:
            cta = (
                w.link(r, sid="home:/login", href="/login", text=c("home.sign_in"), class_="button")
                + " "
                + w.link(r, sid="home:/signup", href="/signup", text=c("home.create"))
            )
        return title, (
            f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
            f'<p class="actions">{cta}</p>{self._distractor(r, "sso")}</section>'
            f"{w.toast(self.flash)}"
            f'<ul class="features"><li>{esc(c("home.feature_security"))}</li>'
            f"<li>{esc(c('home.feature_devices'))}</li><li>{esc(c('home.feature_keys'))}</li></ul>"
        )

    def _render_login(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        if self.me is not None:
            go = w.link(
                r,
                sid="login:/account",
                href="/account",
                text=c("login.go_account"),
                class_="button",
            )
            text = c("login.already", name=self.me.username)
            return c("login.title"), (
                f"{self._heading(c('login.title'))}"
                f"{w.toast(self.flash)}<p>{esc(text)}</p><p>{go}</p>"
            )
        if self.pending:
            return self._render_code(r)
        notice = ""
        if self.wall:
            notice = f'<p class="notice" role="status">{esc(c("login.wall"))}</p>'
        banner = ""
        if self.login_error:
            banner = (
                f'<p class="error-summary" role="alert">'
                f"{esc(c(f'errors.login_{self.login_error}'))}</p>"
            )
        fields = w.text_field(
            r,
            sid="field:login.username",
            name="username",
            label=c("login.username"),
            value=self.forms["login"]["username"],
            handler="field",
            arg="login.username",
            effect=Eq(("forms", "login", "username"), Ref("value")),
            form="login",
            autocomplete="username",
            helper=c("login.username_help"),
        ) + w.password_field(
            r,
            sid="field:login.password",
            name="password",
            label=c("login.password"),
            value="",
            handler="secret",
            arg="login.password",
            effect=Eq(("forms", "login", "password_given"), True),
            form="login",
            autocomplete="current-password",
        )
        form = w.form(
            r,
            name="login",
            handler="login",
            body=fields,
            submit_sid="form:login",
            submit_text=c("login.submit"),
            label=c("login.title"),
            banner=banner,
            effect=All(
                (
                    Eq(("login", "identifier"), Ref("state:forms.login.username")),
                    Any_(
                        tuple(
                            Eq(("login", "result"), x)
                            for x in ("signed_in", "code_required", "locked")
                        )
                    ),
                )
            ),
        )
        forgot = w.link(
            r,
            sid="login:/reset",
            href="/reset",
            text=c("login.forgot"),
            attrs_={"role": "forgot-password"},
        )
        create = w.link(
            r,
            sid="login:/signup",
            href="/signup",
            text=c("login.create"),
            attrs_={"role": "create-account"},
        )
        return c("login.title"), (
            f'<div class="auth-card">{self._heading(c("login.title"))}{notice}'
            f"{w.toast(self.flash)}{form}<p>{forgot}</p><p>{create}</p>"
            f"{self._distractor(r, 'sso')}</div>"
        )

    def _render_code(self, r: Renderer) -> tuple[str, str]:
        c = self.copy
        account = self.accounts[self.pending]
        err = self._errors_text(self.otp_error)
        field_ = w.otp_field(
            r,
            sid="field:otp.code",
            name="code",
            label=c("login.code"),
            value="",
            handler="secret",
            arg="otp.code",
            effect=Eq(("forms", "otp", "code_given"), True),
            form="verify_code",
            error=err,
            helper=c("login.code_help"),
        )
        form = w.form(
            r,
            name="verify_code",
            handler="verify_code",
            body=field_,
            submit_sid="form:verify_code",
            submit_text=c("login.verify"),
            label=c("login.code_title"),
            effect=All(
                (
                    Eq(("auth", "otp_verified"), True),
                    Eq(("auth", "user"), Ref("state:auth.pending_user")),
                )
            ),
        )
        resend = w.button(
            r,
            sid="resend-code",
            text=c("login.resend"),
            handler="resend_code",
            attrs_={"role": "resend-code"},
            variant="secondary",
            effect=Gt(("auth", "codes_sent"), 1),
        )
        inbox = w.link(
            r,
            sid="login:/inbox",
            href="/inbox",
            text=c("login.open_inbox"),
            attrs_={"role": "open-inbox"},
        )
        cancel = w.button(
            r,
            sid="cancel-code",
            text=c("login.other_account"),
            handler="cancel_code",
            attrs_={"role": "cancel"},
            variant="link-button",
            effect=Eq(("auth", "stage"), "signed_out"),
        )
        intro = c("login.code_intro", last4=account.phone_last4)
        return c("login.code_title"), (
            f'<div class="auth-card">{self._heading(c("login.code_title"))}'
            f"<p>{esc(intro)}</p>{w.toast(self.flash)}{form}"
            f'<p class="actions">{resend}{inbox}</p><p>{cancel}</p></div>'
        )

    def _render_signup(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        step = self.signup["step"]
        title = c("signup.title")
        if self.me is not None and step != "done":
            go = w.link(r, sid="signup:/account", href="/account", text=c("signup.go_account"))
            return title, (f"{self._heading(title)}<p>{esc(c('signup.already'))}</p><p>{go}</p>")
        labels = [c(f"signup.step_{s}") for s in SIGNUP_STEPS]
        steps = w.wizard_steps(labels, SIGNUP_STEPS.index(step))
        body = getattr(self, f"_signup_{step}")(r)
        return title, (f'<div class="auth-card wide">{self._heading(title)}{steps}{body}</div>')

    def _signup_err(self, name: str) -> str:
        return self._errors_text(self.signup_errors.get(name, ""))

    def _signup_account(self, r: Renderer) -> str:
        c = self.copy
        draft = self.forms["signup_account"]
        helper = {"email": c("signup.email_help"), "username": c("signup.username_help")}
        fields = {
            "email": w.text_field(
                r,
                sid="field:signup.email",
                name="email",
                label=c("signup.email"),
                value=draft["email"],
                handler="field",
                arg="signup_account.email",
                effect=Eq(("forms", "signup_account", "email"), Ref("value")),
                form="signup_account",
                input_type="email",
                autocomplete="email",
                error=self._signup_err("email"),
                helper=helper["email"],
            ),
            "username": w.text_field(
                r,
                sid="field:signup.username",
                name="username",
                label=c("signup.username"),
                value=draft["username"],
                handler="field",
                arg="signup_account.username",
                effect=Eq(("forms", "signup_account", "username"), Ref("value")),
                form="signup_account",
                autocomplete="username",
                error=self._signup_err("username"),
                helper=helper["username"],
            ),
        }
        body = "".join(fields[n] for n in self._field_order(("email", "username"), "signup"))
        return w.form(
            r,
            name="signup_account",
            handler="signup_account",
            body=body,
            submit_sid="form:signup_account",
            submit_text=c("signup.continue"),
            label=c("signup.step_account"),
            effect=All(
                (
                    Eq(("signup", "done", "account"), True),
                    Eq(("signup", "username"), Ref("state:forms.signup_account.username")),
                )
            ),
        ) + (
            f'<p class="muted">{esc(c("signup.have_account"))} '
            + w.link(r, sid="signup:/login", href="/login", text=c("nav.login"))
            + "</p>"
        )

    def _back(self, r: Renderer) -> str:
        previous = SIGNUP_STEPS[max(0, SIGNUP_STEPS.index(self.signup["step"]) - 1)]
        return w.button(
            r,
            sid="signup-back",
            text=self.copy("signup.back"),
            handler="signup_back",
            attrs_={"role": "back"},
            variant="secondary",
            effect=Eq(("signup", "step"), previous),
        )

    def _signup_password(self, r: Renderer) -> str:
        c = self.copy
        body = (
            f'<p class="muted">{esc(c("signup.for_user", username=self.signup["username"]))}</p>'
            + self._rules_list()
            + w.password_field(
                r,
                sid="field:signup.password",
                name="password",
                label=c("signup.password"),
                value="",
                handler="secret",
                arg="signup_password.password",
                effect=Eq(("forms", "signup_password", "password_valid"), True),
                form="signup_password",
                autocomplete="new-password",
                error=self._signup_err("password"),
            )
            + w.password_field(
                r,
                sid="field:signup.confirm_password",
                name="confirm_password",
                label=c("signup.confirm"),
                value="",
                handler="secret",
                arg="signup_password.confirm_password",
                effect=Eq(("forms", "signup_password", "confirm_matches"), True),
                form="signup_password",
                autocomplete="new-password",
                error=self._signup_err("confirm_password"),
            )
        )
        return w.form(
            r,
            name="signup_password",
            handler="signup_password",
            body=body,
            submit_sid="form:signup_password",
            submit_text=c("signup.continue"),
            label=c("signup.step_password"),
            extra_buttons=self._back(r),
            effect=Eq(("signup", "done", "password"), True),
        )

    def _country_choice(
        self, r: Renderer, *, sid: str, form: str, selected: str, label: str
    ) -> str:
        options = [Option(name, name) for name in self.country_names]
        if not selected:
            options.insert(0, Option("", self.copy("profile.choose_country"), aliases=("none",)))
        return w.choice(
            r,
            sid=sid,
            kind="Choice",
            name="country",
            label=label,
            options=options,
            selected=selected,
            handler="field",
            arg=f"{form}.country",
            effect=Eq(("forms", form, "country"), Ref("value")),
            attrs_={"form": form},
            is_open=sid in self.ui.open,
        )

    def _birthday(self, r: Renderer, *, sid: str, form: str, value: str) -> str:
        return w.date_picker(
            r,
            sid=sid,
            name="birthday",
            label=self.copy("profile.birthday"),
            value=value,
            handler="field",
            arg=f"{form}.birthday",
            effect=Eq(("forms", form, "birthday"), Ref("value")),
            form=form,
            month=self.month_of("birthday"),
            is_open=sid in self.ui.open,
            today=TODAY,
        )

    def _signup_profile(self, r: Renderer) -> str:
        c = self.copy
        draft = self.forms["signup_profile"]
        errs = "".join(
            f'<p class="error" role="alert">{esc(self._errors_text(self.signup_errors[k]))}</p>'
            for k in ("country", "birthday", "terms", "_account")
            if k in self.signup_errors
        )
        body = (
            w.text_field(
                r,
                sid="field:signup.display_name",
                name="display_name",
                label=c("profile.display_name"),
                value=draft["display_name"],
                handler="field",
                arg="signup_profile.display_name",
                effect=Eq(("forms", "signup_profile", "display_name"), Ref("value")),
                form="signup_profile",
                error=self._signup_err("display_name"),
                helper=c("profile.display_help"),
            )
            + self._country_choice(
                r,
                sid="choice:signup.country",
                form="signup_profile",
                selected=draft["country"],
                label=c("profile.country"),
            )
            + self._birthday(
                r, sid="date:signup.birthday", form="signup_profile", value=draft["birthday"]
            )
            + w.toggle(
                r,
                sid="toggle:signup.terms",
                kind="Toggle",
                name="terms",
                label=c("signup.terms"),
                checked=draft["terms"] == "true",
                handler="field",
                arg="signup_profile.terms",
                effect=Eq(("forms", "signup_profile", "terms"), Ref("value")),
                attrs_={"form": "signup_profile"},
            )
            + errs
        )
        return w.form(
            r,
            name="signup_profile",
            handler="signup_profile",
            body=body,
            submit_sid="form:signup_profile",
            submit_text=c("signup.create"),
            label=c("signup.step_profile"),
            extra_buttons=self._back(r),
            effect=All(
                (
                    Eq(("signup", "created"), Ref("state:signup.username")),
                    Eq(("auth", "user"), Ref("state:signup.username")),
                )
            ),
        )

    def _signup_done(self, r: Renderer) -> str:
        c = self.copy
        go = w.link(
            r, sid="signup:/account", href="/account", text=c("signup.go_account"), class_="button"
        )
        return (
            f"<h2>{esc(c('signup.done_title'))}</h2>"
            f"<p>{esc(c('signup.done_body', username=self.signup['created']))}</p>"
            f"<p>{go}</p>"
        )

    def _render_reset(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        stage = self.reset["stage"]
        title = c("reset.title")
        head = f'<div class="auth-card">{self._heading(title)}{w.toast(self.flash)}'
        if stage == "request":
            field_ = w.text_field(
                r,
                sid="field:reset.email",
                name="email",
                label=c("reset.email"),
                value=self.forms["reset_request"]["email"],
                handler="field",
                arg="reset_request.email",
                effect=Eq(("forms", "reset_request", "email"), Ref("value")),
                form="reset_request",
                input_type="email",
                autocomplete="email",
                error=self._errors_text(self.reset_errors.get("email", "")),
                helper=c("reset.email_help"),
            )
            form = w.form(
                r,
                name="reset_request",
                handler="reset_request",
                body=field_,
                submit_sid="form:reset_request",
                submit_text=c("reset.submit"),
                label=title,
                # the request's email stays the fact once the link is opened
                effect=Eq(("reset", "email"), Ref("state:forms.reset_request.email")),
            )
            back = w.link(r, sid="reset:/login", href="/login", text=c("reset.back"))
            return title, f"{head}<p>{esc(c('reset.intro'))}</p>{form}<p>{back}</p></div>"
        if stage == "sent":
            inbox = w.link(
                r,
                sid="reset:/inbox",
                href="/inbox",
                text=c("reset.open_inbox"),
                attrs_={"role": "open-inbox"},
                class_="button",
            )
            again = w.button(
                r,
                sid="reset-restart",
                text=c("reset.other_email"),
                handler="reset_restart",
                attrs_={"role": "restart"},
                variant="secondary",
                effect=Eq(("reset", "stage"), "request"),
            )
            sent = c("reset.sent", email=self.reset["email"])
            return title, f'{head}<p role="status">{esc(sent)}</p><p>{inbox} {again}</p></div>'
        if stage == "verified":
            acct = self._reset_account()
            who = c("reset.for_user", username=acct.username if acct else "")
            body = (
                f'<p class="muted">{esc(who)}</p>{self._rules_list()}'
                + w.password_field(
                    r,
                    sid="field:reset.new_password",
                    name="new_password",
                    label=c("reset.new_password"),
                    value="",
                    handler="secret",
                    arg="reset_password.new_password",
                    effect=Eq(("forms", "reset_password", "password_valid"), True),
                    form="reset_password",
                    autocomplete="new-password",
                    error=self._errors_text(self.reset_errors.get("new_password", "")),
                )
                + w.password_field(
                    r,
                    sid="field:reset.confirm_password",
                    name="confirm_password",
                    label=c("reset.confirm"),
                    value="",
                    handler="secret",
                    arg="reset_password.confirm_password",
                    effect=Eq(("forms", "reset_password", "confirm_matches"), True),
                    form="reset_password",
                    autocomplete="new-password",
                    error=self._errors_text(self.reset_errors.get("confirm_password", "")),
                )
            )
            form = w.form(
                r,
                name="reset_password",
                handler="reset_password",
                body=body,
                submit_sid="form:reset_password",
                submit_text=c("reset.change"),
                label=c("reset.new_title"),
                effect=Contains(("reset", "changed"), Ref("state:reset.user")),
            )
            return title, f"{head}<h2>{esc(c('reset.new_title'))}</h2>{form}</div>"
        login = w.link(
            r, sid="reset:/login", href="/login", text=c("reset.sign_in"), class_="button"
        )
        return title, f"{head}<p>{esc(c('reset.done'))}</p><p>{login}</p></div>"

    def _render_inbox(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        items = []
        for m in self.messages:
            badge = c(f"inbox.{m['channel']}")
            action = ""
            if m["kind"] == "reset":
                expired = bool(m["expired"] or m["used"])
                action = w.button(
                    r,
                    sid=f"reset-link:{m['id']}",
                    text=c("inbox.reset_button"),
                    handler="open_reset",
                    arg=m["id"],
                    attrs_={
                        "role": "reset-link",
                        "to": m["to"],
                        "expired": expired,
                        "message": m["id"],
                    },
                    effect=Contains(("reset", "opened"), m["id"]),
                )
            items.append(
                f'<li class="message {esc(m["channel"])}"><div class="meta">'
                f'<span class="badge">{esc(badge)}</span> <strong>{esc(m["subject"])}</strong>'
                f' <span class="muted">{esc(c("inbox.to"))} {esc(m["to"])} · {esc(m["at"])}'
                f"</span></div><p>{esc(m['body'])}</p>{action}</li>"
            )
        body = (
            f'<ul class="messages">{"".join(items)}</ul>'
            if items
            else f"<p>{esc(c('inbox.empty'))}</p>"
        )
        back = ""
        if self.pending:
            back = w.link(
                r,
                sid="inbox:/login",
                href="/login",
                text=c("inbox.back_to_code"),
                attrs_={"role": "back-to-sign-in"},
            )
        elif self.reset["stage"] == "sent":
            back = w.link(
                r,
                sid="inbox:/reset",
                href="/reset",
                text=c("inbox.back_to_reset"),
                attrs_={"role": "back-to-reset"},
            )
        return c("inbox.title"), (
            f'{self._heading(c("inbox.title"))}<p class="muted">{esc(c("inbox.intro"))}</p>'
            f"{w.toast(self.flash)}{f'<p>{back}</p>' if back else ''}{body}"
            f"{self._distractor(r, 'app', 'many')}"
        )

    # private pages -----------------------------------------------------------------
    def _render_account(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        me = self.me
        assert me is not None
        title = c("account.title", name=me.profile["display_name"] or me.username)
        details = w.detail_view(
            [
                (c("account.username"), me.username),
                (c("account.email"), me.email),
                (c("profile.country"), me.profile["country"] or "—"),
                (c("account.since"), me.member_since),
                (c("account.two_factor"), c("account.on") if me.two_factor else c("account.off")),
                (c("account.sessions"), str(len(me.sessions))),
                (c("account.keys"), str(len(me.keys))),
            ]
        )
        links = "".join(
            f"<li>{w.link(r, sid=f'account:{href}', href=href, text=text)}</li>"
            for href, text in (
                ("/profile", c("account.edit_profile")),
                ("/settings", c("account.security")),
                ("/history", c("account.history")),
            )
        )
        return title, (
            f"{self._heading(title)}{w.toast(self.flash)}{details}"
            f'<ul class="links">{links}</ul>{self._distractor(r, "upgrade")}'
        )

    def _render_profile(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        draft = self.forms["profile"]
        err = self.profile_errors
        texts = {
            name: w.text_field(
                r,
                sid=f"field:profile.{name}",
                name=name,
                label=c(f"profile.{name}"),
                value=draft[name],
                handler="field",
                arg=f"profile.{name}",
                effect=Eq(("forms", "profile", name), Ref("value")),
                form="profile",
                error=self._errors_text(err.get(name, "")),
                helper=c("profile.display_help") if name == "display_name" else "",
                autocomplete="name" if name == "full_name" else "nickname",
            )
            for name in ("full_name", "display_name")
        }
        files = [w.SyntheticFile(f.name, f.size_kb, f.kind) for f in self.files.values()]
        upload = w.file_upload(
            r,
            sid="upload:profile.avatar",
            name="avatar",
            label=c("profile.avatar"),
            files=files,
            chosen=draft["avatar"],
            handler="field",
            arg="profile.avatar",
            effect=Eq(("forms", "profile", "avatar"), Ref("value")),
            is_open="upload:profile.avatar" in self.ui.open,
        )
        avatar_err = self._errors_text(err.get("avatar", ""))
        hint = c("profile.avatar_help", mb=AVATAR_LIMIT_KB // 1000)
        avatar_hint = (
            f'<small class="hint">{esc(hint)}</small>' if self.v.helper_text == "on" else ""
        )
        body = (
            "".join(texts[n] for n in self._field_order(("full_name", "display_name"), "profile"))
            + self._birthday(
                r, sid="date:profile.birthday", form="profile", value=draft["birthday"]
            )
            + (
                f'<p class="error" role="alert">{esc(self._errors_text(err["birthday"]))}</p>'
                if "birthday" in err
                else ""
            )
            + self._country_choice(
                r,
                sid="choice:profile.country",
                form="profile",
                selected=draft["country"],
                label=c("profile.country"),
            )
            + upload
            + avatar_hint
            + (f'<p class="error" role="alert">{esc(avatar_err)}</p>' if avatar_err else "")
        )
        banner = f'<p class="error-summary" role="alert">{esc(c("profile.fix"))}</p>' if err else ""
        form = w.form(
            r,
            name="profile",
            handler="save_profile",
            body=body,
            submit_sid="form:profile",
            submit_text=c("profile.save"),
            label=c("profile.title"),
            banner=banner,
            effect=All(
                tuple(
                    Eq(("profile", k), Ref(f"state:forms.profile.{k}"))
                    for k in ("full_name", "display_name", "birthday", "country", "avatar")
                )
            ),
        )
        return c("profile.title"), (
            f"{self._heading(c('profile.title'))}{w.toast(self.flash)}{form}"
        )

    def _render_settings(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        active = self.ui.tabs.get("settings", "notifications")
        if active not in SETTINGS_TABS:
            active = "notifications"
        panel = getattr(self, f"_settings_{active}")(r)
        tabs = w.tabs(
            r,
            group="settings",
            items=[(t, c(f"settings.tab_{t}")) for t in SETTINGS_TABS],
            active=active,
            panel=panel,
            label=c("settings.title"),
        )
        return c("settings.title"), (
            f"{self._heading(c('settings.title'))}{w.toast(self.flash)}{tabs}"
        )

    def _settings_notifications(self, r: Renderer) -> str:
        c = self.copy
        me = self.me
        assert me is not None
        toggles = "".join(
            w.toggle(
                r,
                sid=f"toggle:notify.{n}",
                kind="Toggle",
                name=n,
                label=c(f"settings.notify_{n}"),
                checked=me.notifications[n],
                handler="notify",
                arg=n,
                switch=True,
                effect=Eq(("forms", "notifications", n), Ref("value")),
                attrs_={"group": "notifications"},
            )
            for n in NOTIFICATIONS
        )
        return (
            f'<p class="muted">{esc(c("settings.notify_intro"))}</p>'
            f'<div class="stack">{toggles}</div>'
        )

    def _settings_privacy(self, r: Renderer) -> str:
        c = self.copy
        me = self.me
        assert me is not None
        out = []
        for name, values in PRIVACY.items():
            sid = f"choice:privacy.{name}"
            out.append(
                w.choice(
                    r,
                    sid=sid,
                    kind="Choice",
                    name=name,
                    label=c(f"settings.privacy_{name}"),
                    options=[Option(v, c(f"settings.privacy_{v}")) for v in values],
                    selected=me.privacy[name],
                    handler="privacy",
                    arg=name,
                    effect=Eq(("settings", "privacy", name), Ref("value")),
                    attrs_={"group": "privacy"},
                    is_open=sid in self.ui.open,
                    helper=c(f"settings.privacy_{name}_help"),
                )
            )
        return f'<div class="stack">{"".join(out)}</div>'

    def _secondary(
        self,
        r: Renderer,
        *,
        name: str,
        opener_text: str,
        title: str,
        build: Callable[[], str],
        form: str,
    ) -> str:
        """A secondary form: inline, or in a dialog that a button opens (`form_mode`).
        `build` renders the form only when it is shown (rendering records affordances)."""
        if self.v.form_mode == "modal":
            if self.ui.modal == name:
                return w.modal(
                    r, name=name, title=title, body=build(), close_text=self.copy("settings.close")
                )
            return w.modal_opener(r, name=name, text=opener_text, attrs_={"form": form})
        return f'<section class="subform"><h3>{esc(title)}</h3>{build()}</section>'

    def _settings_security(self, r: Renderer) -> str:
        c = self.copy
        me = self.me
        assert me is not None
        target = not me.two_factor
        action = "enable" if target else "disable"

        def build() -> str:
            field_ = w.password_field(
                r,
                sid="field:two_factor.current_password",
                name="current_password",
                label=c("settings.current_password"),
                value="",
                handler="secret",
                arg="two_factor.current_password",
                effect=Any_(
                    (
                        Eq(("forms", "two_factor", "password_given"), True),
                        Eq(("security", "two_factor"), target),
                    )
                ),
                form="two_factor",
                autocomplete="current-password",
                error=self._errors_text(self.two_factor_error),
            )
            return w.form(
                r,
                name="two_factor",
                handler="two_factor",
                body=field_,
                submit_sid="form:two_factor",
                submit_text=c(f"settings.{action}_2fa"),
                label=c("settings.two_factor_title"),
                attrs_={"action": action},
                effect=Eq(("security", "two_factor"), target),
            )

        status = c(
            "settings.two_factor_on_text" if me.two_factor else "settings.two_factor_off_text"
        )
        two = self._secondary(
            r,
            name="two-factor",
            opener_text=c(f"settings.{action}_2fa"),
            title=c(f"settings.{action}_2fa"),
            build=build,
            form="two_factor",
        )
        rows = []
        for s in me.sessions:
            if s["current"]:
                act = f'<span class="badge">{esc(c("settings.this_device"))}</span>'
            else:
                act = w.button(
                    r,
                    sid=f"session:{s['id']}:sign-out",
                    text=c("settings.sign_out_session"),
                    handler="revoke_session",
                    arg=s["id"],
                    variant="secondary",
                    attrs_={
                        "role": "sign-out-session",
                        "device": s["device"],
                        "city": s["city"],
                        "session": s["id"],
                    },
                    effect=Not(Contains(("security", "sessions", "ids"), s["id"])),
                )
            rows.append(
                f"<tr><td>{esc(s['device'])}</td><td>{esc(s['city'])}, "
                f"{esc(s['country'])}</td><td>{esc(s['last_active'])}</td>"
                f"<td>{act}</td></tr>"
            )
        heads = "".join(
            f'<th scope="col">{esc(c(f"settings.session_{k}"))}</th>'
            for k in ("device", "location", "last_active", "action")
        )
        others = sum(1 for s in me.sessions if not s["current"])
        all_out = w.button(
            r,
            sid="sessions:sign-out-others",
            text=c("settings.sign_out_others"),
            handler="revoke_other_sessions",
            variant="secondary",
            attrs_={"role": "sign-out-others"},
            disabled=others == 0,
            effect=Eq(("security", "sessions", "others"), 0),
        )
        return (
            f"<h2>{esc(c('settings.two_factor_title'))}</h2><p>{esc(status)}</p>{two}"
            f"<h2>{esc(c('settings.sessions_title'))}</h2>"
            f'<table class="data"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table><p>{all_out}</p>"
        )

    def _settings_api(self, r: Renderer) -> str:
        c = self.copy
        me = self.me
        assert me is not None
        draft = self.forms["api_key"]
        shown = ""
        if self.new_key:
            dismiss = w.button(
                r,
                sid="api:dismiss",
                text=c("settings.key_dismiss"),
                handler="dismiss_key",
                attrs_={"role": "dismiss"},
                variant="secondary",
                effect=None,
            )
            shown = (
                f'<div class="notice" role="status">{esc(c("settings.key_created"))} '
                f"<code>{esc(self.new_key)}</code> {dismiss}</div>"
            )
        rows = []
        for k in me.keys:
            revoke = w.button(
                r,
                sid=f"key:{k['id']}:revoke",
                text=c("settings.key_revoke"),
                handler="revoke_key",
                arg=k["id"],
                variant="secondary",
                attrs_={
                    "role": "revoke-key",
                    "key_name": k["name"],
                    "scope": k["scope"],
                    "key": k["id"],
                },
                effect=Not(Contains(("api_keys", "ids"), k["id"])),
            )
            rows.append(
                f"<tr><td>{esc(k['name'])}</td><td><code>{esc(k['prefix'])}…</code></td>"
                f"<td>{esc(c('settings.scope_' + k['scope']))}</td>"
                f"<td>{esc(k['created'])}</td><td>{esc(k['last_used'])}</td>"
                f"<td>{revoke}</td></tr>"
            )
        heads = "".join(
            f'<th scope="col">{esc(c(f"settings.key_{h}"))}</th>'
            for h in ("name", "prefix", "scope", "created_on", "last_used", "action")
        )
        table = (
            f'<table class="data"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            if rows
            else f"<p>{esc(c('settings.keys_none'))}</p>"
        )
        err = self.key_errors

        def build() -> str:
            return w.form(
                r,
                name="api_key",
                handler="create_key",
                body=key_fields(),
                submit_sid="form:api_key",
                submit_text=c("settings.key_create"),
                label=c("settings.key_new"),
                effect=Contains(("api_keys", "names"), Ref("state:forms.api_key.key_name")),
            )

        def key_fields() -> str:
            return (
                w.text_field(
                    r,
                    sid="field:api_key.key_name",
                    name="key_name",
                    label=c("settings.key_name"),
                    value=draft["key_name"],
                    handler="field",
                    arg="api_key.key_name",
                    effect=Eq(("forms", "api_key", "key_name"), Ref("value")),
                    form="api_key",
                    error=self._errors_text(err.get("key_name", "")),
                    helper=c("settings.key_name_help"),
                )
                + w.choice(
                    r,
                    sid="choice:api_key.scope",
                    kind="Choice",
                    name="scope",
                    label=c("settings.key_scope"),
                    options=[Option(s, c(f"settings.scope_{s}")) for s in SCOPES],
                    selected=draft["scope"],
                    handler="field",
                    arg="api_key.scope",
                    effect=Eq(("forms", "api_key", "scope"), Ref("value")),
                    attrs_={"form": "api_key"},
                    is_open="choice:api_key.scope" in self.ui.open,
                )
                + w.date_picker(
                    r,
                    sid="date:api_key.expires",
                    name="expires",
                    label=c("settings.key_expires"),
                    value=draft["expires"],
                    handler="field",
                    arg="api_key.expires",
                    effect=Eq(("forms", "api_key", "expires"), Ref("value")),
                    form="api_key",
                    month=self.month_of("expires"),
                    is_open="date:api_key.expires" in self.ui.open,
                    today=TODAY,
                )
                + (
                    f'<p class="error" role="alert">{esc(self._errors_text(err["expires"]))}</p>'
                    if "expires" in err
                    else ""
                )
            )

        create = self._secondary(
            r,
            name="api-key",
            opener_text=c("settings.key_new"),
            title=c("settings.key_new"),
            build=build,
            form="api_key",
        )
        return (
            f'<p class="muted">{esc(c("settings.keys_intro"))}</p>{shown}{table}{create}'
            f"{self._distractor(r, 'export', 'many')}"
        )

    def _render_history(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        search = w.text_field(
            r,
            sid="field:history.q",
            name="q",
            label=c("history.search"),
            value=self.forms["history"]["q"],
            handler="history_query",
            arg="history.q",
            effect=Eq(("history", "query"), Ref("value")),
            form="history",
            input_type="search",
            helper=c("history.search_help"),
        )
        result = w.choice(
            r,
            sid="filter:result",
            kind="Filter",
            name="result",
            label=c("history.result"),
            options=[
                Option("", c("history.all"), aliases=("all", "any")),
                *(Option(x, c(f"history.{x}")) for x in RESULTS),
            ],
            selected=self.history_view["filter"],
            handler="history_filter",
            arg=None,
            effect=Eq(("history", "filter"), Ref("value")),
            is_open="filter:result" in self.ui.open,
        )
        listing = r.subregion("history-list", self._history_list(r))
        return c("history.title"), (
            f"{self._heading(c('history.title'))}{w.toast(self.flash)}"
            f'<div class="toolbar">{search}{result}{self._distractor(r, "export")}</div>'
            f"{listing}"
        )

    def _history_list(self, r: Renderer) -> str:
        c = self.copy
        rows = self.history_rows()
        shown = self._history_shown()
        first = 0 if self.v.list_mode == "infinite" else (self.history_view["page"] - 1) * PAGE_SIZE
        cells = []
        for i, e in enumerate(shown):
            link = w.link(
                r,
                sid=f"login:{e['id']}",
                href=f"/history/{e['id']}",
                text=e["at"],
                kind="Item",
                attrs_={
                    "type": "login",
                    "id": e["id"],
                    "date": e["at"],
                    "device": e["device"],
                    "city": e["city"],
                    "country": e["country"],
                    "location": f"{e['city']}, {e['country']}",
                    "ip": e["ip"],
                    "result": e["result"],
                    "rank": first + i + 1,
                },
            )
            cells.append(
                [
                    link,
                    esc(e["device"]),
                    esc(f"{e['city']}, {e['country']}"),
                    esc(e["ip"]),
                    f'<span class="result-{esc(e["result"])}">'
                    f"{esc(c('history.' + e['result']))}</span>",
                ]
            )
        col, _, order = self.history_view["sort"].partition("-")
        table = w.data_table(
            r,
            key="history",
            columns=[
                ("date", c("history.date"), True),
                ("device", c("history.device"), True),
                ("location", c("history.location"), True),
                ("ip", c("history.ip"), False),
                ("result", c("history.result"), True),
            ],
            rows=cells,
            sort=(col, order),
            sort_handler="history_sort",
            caption=c("history.caption"),
            sort_path=("history", "sort"),
        )
        if self.v.list_mode == "infinite":
            more = w.load_more(
                r, key="history", has_more=len(shown) < len(rows), text=c("history.loading")
            )
        else:
            more = w.pager(
                r,
                key="history",
                page=self.history_view["page"],
                pages=self._history_pages(),
                handler="history_page",
                label=c("history.pages"),
                prev_text=c("history.prev"),
                next_text=c("history.next"),
                state_path=("history", "page"),
            )
        count = c("history.count_one") if len(rows) == 1 else c("history.count_many", n=len(rows))
        body = table if rows else f"<p>{esc(c('history.empty'))}</p>"
        return f'<p class="muted" role="status">{esc(count)}</p>{body}{more}'

    def _render_login_detail(self, r: Renderer, route: str) -> tuple[str, str]:
        c = self.copy
        me = self.me
        event = self._event(route.split("?", 1)[0][len("/history/") :])
        assert me is not None and event is not None
        details = w.detail_view(
            [
                (c("history.date"), event["at"]),
                (c("history.device"), event["device"]),
                (c("history.location"), f"{event['city']}, {event['country']}"),
                (c("history.ip"), event["ip"]),
                (c("history.result"), c(f"history.{event['result']}")),
            ]
        )
        if event["id"] in me.reported:
            action = f'<p class="notice" role="status">{esc(c("history.already_reported"))}</p>'
        else:
            action = (
                "<p>"
                + w.button(
                    r,
                    sid=f"report:{event['id']}",
                    text=c("history.report"),
                    handler="report_login",
                    arg=event["id"],
                    attrs_={"role": "report", "login": event["id"]},
                    effect=Contains(("history", "reported"), event["id"]),
                )
                + "</p>"
            )
        crumbs = w.breadcrumbs(
            r, [(c("history.title"), "/history"), (event["at"], None)], label=c("history.crumbs")
        )
        title = c("history.detail_title")
        return title, (
            f"{crumbs}{self._heading(title)}{w.toast(self.flash)}{details}"
            f'<p class="muted">{esc(c("history.report_help"))}</p>{action}'
        )


FAMILY = Family(
    name="account",
    version=FAMILY_VERSION,
    description="An account portal: sign-up wizard, sign-in with two-step codes, password "
    "reset through a simulated inbox, profile, settings with sessions and API keys, and a "
    "sortable login history behind a login wall.",
    generate=generate,
    app_class=AccountApp,
    kinds=(
        "Button",
        "Choice",
        "DatePicker",
        "Field",
        "FileUpload",
        "Filter",
        "Form",
        "Item",
        "Link",
        "Option",
        "Sort",
        "Tab",
        "Toggle",
    ),
)
register_family(FAMILY)
