"""The transitions of getting in: signing in (with a texted code when the member has
two-step verification), signing out, the sign-up wizard and the password reset through the
simulated mailbox, and the login wall in front of the member area."""

from __future__ import annotations

from typing import Any

from webfactory_env.core.predicates import All, Any_, Contains, Eq, Gt, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.core.typed import canonical
from webfactory_env.sitegen.binding import transition
from webfactory_env.sitegen.families.account.content import TODAY, otp_code
from webfactory_env.sitegen.families.account.queries import HERE_DEVICE, START_MINUTE, Portal
from webfactory_env.sitegen.families.account.rules import (
    email_valid,
    password_problems,
    signup_profile_errors,
)
from webfactory_env.sitegen.families.account.state import (
    PROFILE_FIELDS,
    SIGNUP_STEPS,
    Account,
    AccountForms,
    Login,
    Mail,
    Session,
    Settings,
    account_id,
)
from webfactory_env.sitegen.families.account.transitions.drafts import (
    check_new_password,
    read_code,
    take_fields,
    take_secret,
    write_secret,
)

MAX_CODES = 5  # codes one sign-in may ask for


def put_first(table: dict[str, Any], key: str, record: Any) -> dict[str, Any]:
    """`table` with `record` put first: pages list the newest first."""
    return {key: record, **table}


# ------------------------------------------------------------ bookkeeping
def _now(portal: Portal) -> str:
    """The time of a new event: one logical minute after the last."""
    server = portal.state.server
    server.clock += 1
    minute = START_MINUTE + server.clock
    return f"{TODAY} {minute // 60:02d}:{minute % 60:02d}"


def _send(
    portal: Portal, channel: str, to: str, subject: str, body: str, kind: str, user: str
) -> None:
    server = portal.state.server
    mid = "M-" + short_hash(f"{portal.spec.seed}|sent|{len(server.messages)}", 8)
    server.messages.insert(0, Mail(mid, channel, to, subject, body, _now(portal), kind, user=user))


def _send_code(portal: Portal, account: Account) -> None:
    server = portal.state.server
    server.codes_sent += 1
    code = otp_code(portal.spec.seed, server.codes_sent)
    server.challenge.append(code)
    portal.state.auth.codes_sent = len(server.challenge)
    _send(
        portal,
        "sms",
        f"phone ending {account.phone_last4}",
        "Sign-in code",
        f"{portal.spec.brand}: your sign-in code is {code}. It expires in 10 minutes.",
        "otp",
        account.username,
    )


def _record_login(portal: Portal, account: Account, result: str) -> None:
    """A sign-in attempt from this browser joins the member's login history."""
    at = _now(portal)
    eid = "L-" + short_hash(f"{portal.spec.seed}|new-login|{portal.state.server.clock}", 8)
    portal.state.logins = put_first(
        portal.state.logins,
        eid,
        Login(
            id=eid,
            user=account.username,
            result=result,
            device=HERE_DEVICE,
            at=at,
            city=portal.queries.here["city"],
            country=portal.queries.here["country"],
            ip=portal.queries.here["ip"],
        ),
    )


def _sign_in(portal: Portal, account: Account, method: str) -> str:
    """`account` is signed in here: a new session and a successful sign-in; the profile
    form shows its profile. The page the visitor wanted, or their account."""
    auth, server = portal.state.auth, portal.state.server
    auth.user, auth.method, auth.pending, auth.codes_sent = account.username, method, "", 0
    server.challenge = []
    _record_login(portal, account, "success")
    sid = "S-" + short_hash(f"{portal.spec.seed}|here|{server.clock}", 8)
    here = Session(
        id=sid,
        user=account.username,
        current=True,
        device=HERE_DEVICE,
        city=portal.queries.here["city"],
        country=portal.queries.here["country"],
        last_active=TODAY,
    )
    portal.state.sessions = put_first(portal.state.sessions, sid, here)
    forms = portal.state.forms
    forms.profile = {name: str(getattr(account, name)) for name in PROFILE_FIELDS}
    portal.state.history = type(portal.state.history)()
    portal.ui.more.pop("history", None)
    status = portal.state.login
    target, status.next_route = status.next_route or "/account", ""
    return target


def _sign_out(portal: Portal) -> None:
    """Nobody is signed in here any more: this browser's session ends, every secret
    typed is forgotten, and a finished sign-up starts afresh for the next visitor."""
    me = portal.queries.me
    if me is not None:
        portal.state.sessions = {
            k: s
            for k, s in portal.state.sessions.items()
            if not (s.current and s.user == me.username)
        }
    portal.state.auth = type(portal.state.auth)()
    fresh, forms = AccountForms(), portal.state.forms
    fresh.login.username = forms.login.username
    forms.login, forms.otp, forms.two_factor = fresh.login, fresh.otp, fresh.two_factor
    forms.signup_password, forms.reset_password = fresh.signup_password, fresh.reset_password
    if portal.state.signup.step == "done":
        portal.state.signup = type(portal.state.signup)()
        forms.signup_account, forms.signup_profile = fresh.signup_account, fresh.signup_profile
    portal.state.server.new_key = ""


# ---------------------------------------------------------------- sign-in
@transition(
    mutating=True,
    effect=lambda: Any_(
        (
            Eq(("auth", "signed_in"), True),
            Eq(("auth", "stage"), "code_required"),
            Eq(("login", "result"), "locked"),
        )
    ),
)
def sign_in(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    take_fields(portal, "login", values, ("username",))
    identifier = portal.state.forms.login.username
    password = take_secret(portal, values, ("login", "password"))
    status = portal.state.login
    status.attempts += 1
    status.identifier, status.error = identifier, ""
    account = portal.queries.find_account(identifier)
    if not identifier.strip() or not password:
        status.result = status.error = "incomplete"
        return None
    if account is None or password != account.password:
        status.result = status.error = "bad_credentials"
        write_secret(portal, ("login", "password"), "")  # a rejected password is cleared
        if account is not None:
            _record_login(portal, account, "failed")
        return None
    if account.locked:
        status.result = status.error = "locked"
        _record_login(portal, account, "blocked")
        return None
    write_secret(portal, ("login", "password"), "")
    login = portal.state.forms.login  # the secret goes; that the right one was given stays
    login.password_given = login.password_ok = True
    if portal.queries.me is not None:  # someone else was signed in here: sign them out first
        _sign_out(portal)
    if account.two_factor:
        status.result, status.code_error = "code_required", ""
        auth = portal.state.auth
        auth.pending, auth.codes_sent = account.username, 0
        portal.state.server.challenge = []
        write_secret(portal, ("otp", "code"), "")
        _send_code(portal, account)
        return "/login"
    status.result = "signed_in"
    return _sign_in(portal, account, "password")


@transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), True))
def verify_code(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    account = portal.state.users.get(account_id(portal.state.auth.pending))
    if account is None:
        return None
    code = read_code(take_secret(portal, values, ("otp", "code")))
    status = portal.state.login
    if code and code in portal.state.server.challenge:
        status.code_error, status.result = "", "signed_in"
        write_secret(portal, ("otp", "code"), "")
        portal.state.forms.otp.code_given = portal.state.forms.otp.code_ok = True
        return _sign_in(portal, account, "password+otp")
    status.code_error = "code_required" if not code else "bad_code"
    return None


@transition(mutating=True, effect=lambda: Gt(("auth", "codes_sent"), 1))
def resend_code(portal: Portal) -> str | None:
    account = portal.state.users.get(account_id(portal.state.auth.pending))
    if account is not None and len(portal.state.server.challenge) < MAX_CODES:
        _send_code(portal, account)
        portal.ui.flash = portal.copy("login.resent")
    return None


@transition(effect=lambda: Eq(("auth", "stage"), "signed_out"))
def cancel_code(portal: Portal) -> str | None:
    """ "Use another account": the pending sign-in is dropped."""
    auth = portal.state.auth
    auth.pending, auth.codes_sent = "", 0
    portal.state.server.challenge = []
    portal.state.login.code_error = ""
    write_secret(portal, ("otp", "code"), "")
    write_secret(portal, ("login", "password"), "")
    return "/login"


@transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), False))
def sign_out(portal: Portal) -> str | None:
    if portal.queries.me is None:
        return None
    _sign_out(portal)
    portal.ui.flash = portal.copy("login.signed_out")
    return "/login"


# ---------------------------------------------------------------- sign-up
@transition(
    mutating=True,
    effect=lambda: All(
        (
            Contains(("signup", "completed"), "account"),
            Eq(("signup", "username"), Ref("state:forms.signup_account.username|strip")),
        )
    ),
)
def choose_username(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    """The wizard's first step: an e-mail address and a username nobody has."""
    signup = portal.state.signup
    if signup.step == "done":
        return None
    take_fields(portal, "signup_account", values, ("email", "username"))
    errors = {}
    for name, status in zip(("username", "email"), portal.queries.signup_status(), strict=True):
        if status == "empty":
            errors[name] = "required"
        elif status != "available":
            errors[name] = f"{name}_{status}"
    signup.errors = errors
    if errors:
        return None
    draft = portal.state.forms.signup_account
    signup.username, signup.email = draft["username"].strip(), draft["email"].strip()
    signup.step = "password"
    signup.completed.add("account")
    check_new_password(portal, "signup_password")  # the rules may name the username
    return None


@transition(
    mutating=True,
    effect=lambda: Contains(("signup", "completed"), "password"),
)
def choose_password(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    signup = portal.state.signup
    if signup.step != "password":
        return None
    pw = take_secret(portal, values, ("signup_password", "password"))
    confirm = take_secret(portal, values, ("signup_password", "confirm_password"))
    problems = password_problems(pw, portal.queries.policy, signup.username, signup.email)
    errors = {}
    if not pw:
        errors["password"] = "required"
    elif problems:
        errors["password"] = "rules:" + ",".join(problems)
    if pw and confirm != pw:
        errors["confirm_password"] = "mismatch"
    signup.errors = errors
    if errors:
        return None
    signup.step = "profile"
    signup.completed.add("password")
    return None


@transition(
    mutating=True,
    effect=lambda: All(
        (
            Eq(("signup", "created"), Ref("state:signup.username")),
            Eq(("auth", "user"), Ref("state:signup.username")),
        )
    ),
)
def create_account(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    """The wizard's last step makes the account and signs its owner in."""
    signup = portal.state.signup
    if signup.step != "profile":
        return None
    take_fields(portal, "signup_profile", values, ("display_name", "birthday"))
    values = portal.state.forms.signup_profile
    errors = signup_profile_errors(values, portal.today(), portal.queries.country_names)
    if signup.username.lower() in portal.queries.taken_usernames() or (
        signup.email.lower() in portal.queries.taken_emails()
    ):
        errors["_account"] = "account_gone"  # taken meanwhile: start over
    signup.errors = errors
    if errors:
        return None
    username, key = signup.username, account_id(signup.username)
    account = Account(
        id=key,
        username=username,
        email=signup.email,
        display_name=values["display_name"].strip(),
        country=values["country"],
        birthday=canonical("date", values["birthday"]),
        member_since=TODAY,
        password=portal.state.forms.signup_password.password,
    )
    portal.state.users[key] = account
    portal.state.settings[key] = Settings(id=key, user=username)
    signup.step, signup.created = "done", username
    signup.completed.add("profile")
    _send(
        portal,
        "email",
        account.email,
        f"Welcome to {portal.spec.brand}",
        f"Hi {account.display_name}, your account is ready.",
        "welcome",
        username,
    )
    if portal.queries.me is not None:
        _sign_out(portal)
    _sign_in(portal, account, "signup")
    return "/signup"


@transition(effect=lambda step: Eq(("signup", "step"), step))
def step_back(portal: Portal, *, step: str) -> str | None:
    """Back to the wizard's previous step (`step` names it)."""
    signup = portal.state.signup
    if signup.step in ("password", "profile"):
        signup.step = SIGNUP_STEPS[SIGNUP_STEPS.index(signup.step) - 1]
        signup.errors = {}
    return None


# --------------------------------------------------------- password reset
@transition(
    mutating=True,
    effect=lambda: Eq(("reset", "email"), Ref("state:forms.reset_request.email|strip")),
)
def request_reset(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    """Ask for a reset link: it goes to the address if a member has it (the page says
    the same either way, so nobody learns who is a member)."""
    take_fields(portal, "reset_request", values, ("email",))
    reset = portal.state.reset
    email = portal.state.forms.reset_request["email"].strip()
    if not email or not email_valid(email):
        reset.errors = {"email": "required" if not email else "email_invalid"}
        return None
    reset.errors = {}
    reset.stage, reset.email, reset.user = "sent", email, ""
    account = portal.queries.find_account(email) if "@" in email else None
    if account is None or account.email.lower() != email.lower():
        return None
    brand = portal.spec.brand
    if account.locked:
        body = (
            f"Your {brand} account is locked, so its password cannot be reset online. "
            "Please contact support."
        )
        _send(
            portal,
            "email",
            account.email,
            "About your password reset",
            body,
            "locked",
            account.username,
        )
        return None
    for m in portal.state.server.messages:  # a new link replaces older ones
        if m.kind == "reset" and m.user == account.username:
            m.expired = True
    body = (
        f"Someone asked to reset the password of your {brand} account. "
        "Use the button below to choose a new one."
    )
    _send(portal, "email", account.email, "Reset your password", body, "reset", account.username)
    return None


@transition(effect=lambda: Eq(("reset", "stage"), "request"))
def restart_reset(portal: Portal) -> str | None:
    reset = portal.state.reset
    if reset.stage in ("sent", "done"):
        reset.stage, reset.user, reset.errors = "request", "", {}
    return None


@transition(mutating=True, effect=lambda message: Contains(("reset", "opened"), message))
def open_reset_link(portal: Portal, *, message: str) -> str | None:
    """The reset button of an e-mail in the inbox (`message` is its id)."""
    msg = portal.queries.message(message)
    if msg is None or msg.kind != "reset":
        return None
    if msg.expired or msg.used or account_id(msg.user) not in portal.state.users:
        portal.ui.flash = portal.copy("reset.expired")
        return None
    reset = portal.state.reset
    portal.ui.flash = ""
    reset.stage, reset.user, reset.errors = "verified", msg.user, {}
    reset.opened.add(msg.id)
    portal.state.forms.reset_password = type(portal.state.forms.reset_password)()
    portal.state.server.reset_link = msg.id
    return "/reset"


@transition(
    mutating=True,
    effect=lambda: Contains(("reset", "changed"), Ref("state:reset.user")),
)
def reset_password(portal: Portal, *, values: dict[str, str] | None = None) -> str | None:
    reset = portal.state.reset
    account = portal.queries.reset_account()
    if reset.stage != "verified" or account is None:
        return None
    pw = take_secret(portal, values, ("reset_password", "new_password"))
    confirm = take_secret(portal, values, ("reset_password", "confirm_password"))
    problems = password_problems(pw, portal.queries.policy, account.username, account.email)
    errors = {}
    if not pw:
        errors["new_password"] = "required"
    elif problems:
        errors["new_password"] = "rules:" + ",".join(problems)
    elif pw == account.password:
        errors["new_password"] = "same_password"
    if pw and confirm != pw:
        errors["confirm_password"] = "mismatch"
    reset.errors = errors
    if errors:
        return None
    account.password, account.password_changed = pw, True
    used = portal.queries.message(portal.state.server.reset_link)
    if used is not None:
        used.used = True
    reset.changed.add(account.username)
    reset.stage = "done"
    portal.ui.flash = portal.copy("reset.done")
    if portal.state.auth.user == account.username:
        _sign_out(portal)
    return "/login"
