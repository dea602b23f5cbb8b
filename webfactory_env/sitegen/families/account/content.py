"""What an account portal's seed draws: its brand, members with their sign-in history,
devices and API keys, the files the avatar picker offers, and what the simulated phone and
mailbox already hold.

`generate` reads as a recipe; each guarantee a task relies on is a named helper or a
commented line ("every member has failed and blocked sign-ins", "sign-ins of a member never
share a minute", "at least three password-only members, one with two-step codes, one
locked").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from webfactory_env.core.resources import read_family_text
from webfactory_env.core.seeding import SeedStream, hash_to_int, short_hash
from webfactory_env.sitegen.registry import generator_version
from webfactory_env.sitegen.spec import SiteSpec
from webfactory_env.sitegen.variation import Variation

FAMILY_VERSION = "3"  # 3: members have a contact order
TODAY = "2026-01-05"
USER_COUNT = {"easy": 5, "medium": 7, "hard": 9}
EVENT_COUNT = {"easy": (14, 20), "medium": (20, 30), "hard": (30, 44)}
SESSION_COUNT = {"easy": (2, 3), "medium": (3, 4), "hard": (4, 6)}
KEY_COUNT = {"easy": (2, 3), "medium": (2, 4), "hard": (3, 5)}
OTP_LISTED = 3  # codes listed in the `phone_codes` table; later ones follow the same rule
AVATAR_LIMIT_KB = 5000
SCOPES = ("read", "write", "admin")
NOTIFICATIONS = ("security_alerts", "product_updates", "weekly_digest", "sms_alerts")
# The ways the site can reach a member, in the order a new account tries them.
CHANNELS: dict[str, str] = {
    "email": "E-mail",
    "sms": "Text message",
    "app": "App notification",
    "call": "Phone call",
}
PRIVACY: dict[str, tuple[str, ...]] = {
    "profile_visibility": ("public", "members", "private"),
    "email_visibility": ("everyone", "members", "nobody"),
    "search_indexing": ("allow", "block"),
}
PUBLIC_ROUTES = ("/", "/login", "/signup", "/reset", "/inbox")
PRIVATE_ROUTES = ("/account", "/profile", "/settings", "/history")


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
class ContactOrder:
    """The order in which the site tries to reach a member (channel names, first first);
    `first` and `last` let a task pick a channel by where it stands."""

    username: str
    channels: tuple[str, ...]
    first: str
    last: str


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
    data: dict[str, Any] = json.loads(read_family_text("account", "vocab.json"))
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
    users = _weekly_digest_for_password_members(
        _users(content.child("users"), USER_COUNT[difficulty])
    )  # "turn the weekly digest off" always changes something
    events: list[LoginEvent] = []
    sessions: list[Session] = []
    keys: list[ApiKey] = []
    for user in users:
        events += _events(content.child("events").child(user.username), user, difficulty)
        sessions += _sessions(content.child("sessions").child(user.username), user, difficulty)
        keys += _keys(content.child("keys").child(user.username), user, difficulty)
    files = _files(content.child("files"))
    orders = _contact_orders(content.child("channels"), users)
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
            "contact_orders": orders,
            "phone_codes": codes,
            "files": files,
            "countries": countries,
            "messages": messages,
        },
        routes=(*PUBLIC_ROUTES, *PRIVATE_ROUTES),
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


def _weekly_digest_for_password_members(users: tuple[User, ...]) -> tuple[User, ...]:
    """Members who sign in with a password alone all get the weekly digest."""
    return tuple(
        dataclasses.replace(
            u,
            notifications=tuple(
                n for n in NOTIFICATIONS if n in {*u.notifications, "weekly_digest"}
            ),
        )
        if u.security == "password"
        else u
        for u in users
    )


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


def _contact_orders(rng: SeedStream, users: Sequence[User]) -> tuple[ContactOrder, ...]:
    """Each member's channels in an order of their own (its own stream: the rest of the
    portal is what it was before members had one)."""
    out = []
    for u in users:
        names = list(CHANNELS.values())
        rng.child(u.username).shuffle(names)
        out.append(ContactOrder(u.username, tuple(names), names[0], names[-1]))
    return tuple(out)


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
