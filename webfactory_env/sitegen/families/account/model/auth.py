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
from webfactory_env.sitegen.families.account.model.drafts import AccountDrafts, read_code
from webfactory_env.sitegen.families.account.model.queries import (
    HERE_DEVICE,
    PRIVATE_KINDS,
    START_MINUTE,
    account_id,
)
from webfactory_env.sitegen.families.account.model.state import (
    PROFILE_FIELDS,
    SIGNUP_STEPS,
    Account,
    AccountForms,
    Login,
    Mail,
    Session,
    Settings,
)
from webfactory_env.sitegen.families.account.rules import (
    email_valid,
    password_problems,
    signup_profile_errors,
)
from webfactory_env.sitegen.spec import AppEvent, Patch

MAX_CODES = 5  # codes one sign-in may ask for


def _first(table: dict[str, Any], key: str, record: Any) -> dict[str, Any]:
    """`table` with `record` put first: pages list the newest first."""
    return {key: record, **table}


class AccountAuth(AccountDrafts):
    """Sign-in, sign-out, sign-up and password reset (no HTML here)."""

    # ------------------------------------------------------------ the login wall
    def dispatch(self, event: AppEvent) -> Patch:
        """Pages behind the login wall send a signed-out visitor to /login, and there back
        to the page they wanted once they are in."""
        if event.type == "nav":
            path = (event.path or "/").split("?", 1)[0]
            status = self.model.login
            status.wall = False
            if not self.signed_in() and self.route_kind(path) in PRIVATE_KINDS:
                status.next_route, status.wall = path, True
                event = event.model_copy(update={"path": "/login"})
        return super().dispatch(event)

    # ------------------------------------------------------------ bookkeeping
    def _now(self) -> str:
        """The time of a new event: one logical minute after the last."""
        server = self.model.server
        server.clock += 1
        minute = START_MINUTE + server.clock
        return f"{TODAY} {minute // 60:02d}:{minute % 60:02d}"

    def _send(self, channel: str, to: str, subject: str, body: str, kind: str, user: str) -> None:
        server = self.model.server
        mid = "M-" + short_hash(f"{self.spec.seed}|sent|{len(server.messages)}", 8)
        server.messages.insert(
            0, Mail(mid, channel, to, subject, body, self._now(), kind, user=user)
        )

    def _send_code(self, account: Account) -> None:
        server = self.model.server
        server.codes_sent += 1
        code = otp_code(self.spec.seed, server.codes_sent)
        server.challenge.append(code)
        self.model.auth.codes_sent = len(server.challenge)
        self._send(
            "sms",
            f"phone ending {account.phone_last4}",
            "Sign-in code",
            f"{self.spec.brand}: your sign-in code is {code}. It expires in 10 minutes.",
            "otp",
            account.username,
        )

    def _record_login(self, account: Account, result: str) -> None:
        """A sign-in attempt from this browser joins the member's login history."""
        at = self._now()
        eid = "L-" + short_hash(f"{self.spec.seed}|new-login|{self.model.server.clock}", 8)
        self.model.logins = _first(
            self.model.logins,
            eid,
            Login(
                id=eid,
                user=account.username,
                result=result,
                device=HERE_DEVICE,
                at=at,
                city=self.here["city"],
                country=self.here["country"],
                ip=self.here["ip"],
            ),
        )

    def _sign_in(self, account: Account, method: str) -> str:
        """`account` is signed in here: a new session and a successful sign-in; the profile
        form shows its profile. The page the visitor wanted, or their account."""
        auth, server = self.model.auth, self.model.server
        auth.user, auth.method, auth.pending, auth.codes_sent = account.username, method, "", 0
        server.challenge = []
        self._record_login(account, "success")
        sid = "S-" + short_hash(f"{self.spec.seed}|here|{server.clock}", 8)
        here = Session(
            id=sid,
            user=account.username,
            current=True,
            device=HERE_DEVICE,
            city=self.here["city"],
            country=self.here["country"],
            last_active=TODAY,
        )
        self.model.sessions = _first(self.model.sessions, sid, here)
        forms = self.model.forms
        forms.profile = {name: str(getattr(account, name)) for name in PROFILE_FIELDS}
        self.model.history = type(self.model.history)()
        self.ui.more.pop("history", None)
        status = self.model.login
        target, status.next_route = status.next_route or "/account", ""
        return target

    def _sign_out(self) -> None:
        """Nobody is signed in here any more: this browser's session ends, every secret
        typed is forgotten, and a finished sign-up starts afresh for the next visitor."""
        me = self.me
        if me is not None:
            self.model.sessions = {
                k: s
                for k, s in self.model.sessions.items()
                if not (s.current and s.user == me.username)
            }
        self.model.auth = type(self.model.auth)()
        fresh, forms = AccountForms(), self.model.forms
        fresh.login.username = forms.login.username
        forms.login, forms.otp, forms.two_factor = fresh.login, fresh.otp, fresh.two_factor
        forms.signup_password, forms.reset_password = fresh.signup_password, fresh.reset_password
        if self.model.signup.step == "done":
            self.model.signup = type(self.model.signup)()
            forms.signup_account, forms.signup_profile = fresh.signup_account, fresh.signup_profile
        self.model.server.new_key = ""

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
    def sign_in(self, ev: AppEvent) -> str | None:
        self._take("login", ev, ("username",))
        identifier = self.model.forms.login.username
        password = self._take_secret(ev, ("login", "password"))
        status = self.model.login
        status.attempts += 1
        status.identifier, status.error = identifier, ""
        account = self.find_account(identifier)
        if not identifier.strip() or not password:
            status.result = status.error = "incomplete"
            return None
        if account is None or password != account.password:
            status.result = status.error = "bad_credentials"
            self._write_secret(("login", "password"), "")  # a rejected password is cleared
            if account is not None:
                self._record_login(account, "failed")
            return None
        if account.locked:
            status.result = status.error = "locked"
            self._record_login(account, "blocked")
            return None
        self._write_secret(("login", "password"), "")
        login = self.model.forms.login  # the secret goes; that the right one was given stays
        login.password_given = login.password_ok = True
        if self.me is not None:  # someone else was signed in here: sign them out first
            self._sign_out()
        if account.two_factor:
            status.result, status.code_error = "code_required", ""
            auth = self.model.auth
            auth.pending, auth.codes_sent = account.username, 0
            self.model.server.challenge = []
            self._write_secret(("otp", "code"), "")
            self._send_code(account)
            return "/login"
        status.result = "signed_in"
        return self._sign_in(account, "password")

    @transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), True))
    def verify_code(self, ev: AppEvent) -> str | None:
        account = self.model.users.get(account_id(self.model.auth.pending))
        if account is None:
            return None
        code = read_code(self._take_secret(ev, ("otp", "code")))
        status = self.model.login
        if code and code in self.model.server.challenge:
            status.code_error, status.result = "", "signed_in"
            self._write_secret(("otp", "code"), "")
            self.model.forms.otp.code_given = self.model.forms.otp.code_ok = True
            return self._sign_in(account, "password+otp")
        status.code_error = "code_required" if not code else "bad_code"
        return None

    @transition(mutating=True, effect=lambda: Gt(("auth", "codes_sent"), 1))
    def resend_code(self, ev: AppEvent) -> str | None:
        account = self.model.users.get(account_id(self.model.auth.pending))
        if account is not None and len(self.model.server.challenge) < MAX_CODES:
            self._send_code(account)
            self.flash = self.copy("login.resent")
        return None

    @transition(effect=lambda: Eq(("auth", "stage"), "signed_out"))
    def cancel_code(self, ev: AppEvent) -> str | None:
        """ "Use another account": the pending sign-in is dropped."""
        auth = self.model.auth
        auth.pending, auth.codes_sent = "", 0
        self.model.server.challenge = []
        self.model.login.code_error = ""
        self._write_secret(("otp", "code"), "")
        self._write_secret(("login", "password"), "")
        return "/login"

    @transition(mutating=True, effect=lambda: Eq(("auth", "signed_in"), False))
    def sign_out(self, ev: AppEvent) -> str | None:
        if self.me is None:
            return None
        self._sign_out()
        self.flash = self.copy("login.signed_out")
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
    def choose_username(self, ev: AppEvent) -> str | None:
        """The wizard's first step: an e-mail address and a username nobody has."""
        signup = self.model.signup
        if signup.step == "done":
            return None
        self._take("signup_account", ev, ("email", "username"))
        errors = {}
        for name, status in zip(("username", "email"), self.signup_status(), strict=True):
            if status == "empty":
                errors[name] = "required"
            elif status != "available":
                errors[name] = f"{name}_{status}"
        signup.errors = errors
        if errors:
            return None
        draft = self.model.forms.signup_account
        signup.username, signup.email = draft["username"].strip(), draft["email"].strip()
        signup.step = "password"
        signup.completed.add("account")
        self._check_new_password("signup_password")  # the rules may name the username
        return None

    @transition(
        mutating=True,
        effect=lambda: Contains(("signup", "completed"), "password"),
    )
    def choose_password(self, ev: AppEvent) -> str | None:
        signup = self.model.signup
        if signup.step != "password":
            return None
        pw = self._take_secret(ev, ("signup_password", "password"))
        confirm = self._take_secret(ev, ("signup_password", "confirm_password"))
        problems = password_problems(pw, self.policy, signup.username, signup.email)
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
    def create_account(self, ev: AppEvent) -> str | None:
        """The wizard's last step makes the account and signs its owner in."""
        signup = self.model.signup
        if signup.step != "profile":
            return None
        self._take("signup_profile", ev, ("display_name", "birthday"))
        values = self.model.forms.signup_profile
        errors = signup_profile_errors(values, self.today(), self.country_names)
        if signup.username.lower() in self.taken_usernames() or (
            signup.email.lower() in self.taken_emails()
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
            password=self.model.forms.signup_password.password,
        )
        self.model.users[key] = account
        self.model.settings[key] = Settings(id=key, user=username)
        signup.step, signup.created = "done", username
        signup.completed.add("profile")
        self._send(
            "email",
            account.email,
            f"Welcome to {self.spec.brand}",
            f"Hi {account.display_name}, your account is ready.",
            "welcome",
            username,
        )
        if self.me is not None:
            self._sign_out()
        self._sign_in(account, "signup")
        return "/signup"

    @transition(effect=lambda step: Eq(("signup", "step"), step))
    def step_back(self, ev: AppEvent, *, step: str) -> str | None:
        """Back to the wizard's previous step (`step` names it)."""
        signup = self.model.signup
        if signup.step in ("password", "profile"):
            signup.step = SIGNUP_STEPS[SIGNUP_STEPS.index(signup.step) - 1]
            signup.errors = {}
        return None

    # --------------------------------------------------------- password reset
    @transition(
        mutating=True,
        effect=lambda: Eq(("reset", "email"), Ref("state:forms.reset_request.email|strip")),
    )
    def request_reset(self, ev: AppEvent) -> str | None:
        """Ask for a reset link: it goes to the address if a member has it (the page says
        the same either way, so nobody learns who is a member)."""
        self._take("reset_request", ev, ("email",))
        reset = self.model.reset
        email = self.model.forms.reset_request["email"].strip()
        if not email or not email_valid(email):
            reset.errors = {"email": "required" if not email else "email_invalid"}
            return None
        reset.errors = {}
        reset.stage, reset.email, reset.user = "sent", email, ""
        account = self.find_account(email) if "@" in email else None
        if account is None or account.email.lower() != email.lower():
            return None
        brand = self.spec.brand
        if account.locked:
            body = (
                f"Your {brand} account is locked, so its password cannot be reset online. "
                "Please contact support."
            )
            self._send(
                "email",
                account.email,
                "About your password reset",
                body,
                "locked",
                account.username,
            )
            return None
        for m in self.model.server.messages:  # a new link replaces older ones
            if m.kind == "reset" and m.user == account.username:
                m.expired = True
        body = (
            f"Someone asked to reset the password of your {brand} account. "
            "Use the button below to choose a new one."
        )
        self._send("email", account.email, "Reset your password", body, "reset", account.username)
        return None

    @transition(effect=lambda: Eq(("reset", "stage"), "request"))
    def restart_reset(self, ev: AppEvent) -> str | None:
        reset = self.model.reset
        if reset.stage in ("sent", "done"):
            reset.stage, reset.user, reset.errors = "request", "", {}
        return None

    @transition(mutating=True, effect=lambda message: Contains(("reset", "opened"), message))
    def open_reset_link(self, ev: AppEvent, *, message: str) -> str | None:
        """The reset button of an e-mail in the inbox (`message` is its id)."""
        msg = self.message(message)
        if msg is None or msg.kind != "reset":
            return None
        if msg.expired or msg.used or account_id(msg.user) not in self.model.users:
            self.flash = self.copy("reset.expired")
            return None
        reset = self.model.reset
        self.flash = ""
        reset.stage, reset.user, reset.errors = "verified", msg.user, {}
        reset.opened.add(msg.id)
        self.model.forms.reset_password = type(self.model.forms.reset_password)()
        self.model.server.reset_link = msg.id
        return "/reset"

    @transition(
        mutating=True,
        effect=lambda: Contains(("reset", "changed"), Ref("state:reset.user")),
    )
    def reset_password(self, ev: AppEvent) -> str | None:
        reset = self.model.reset
        account = self.reset_account()
        if reset.stage != "verified" or account is None:
            return None
        pw = self._take_secret(ev, ("reset_password", "new_password"))
        confirm = self._take_secret(ev, ("reset_password", "confirm_password"))
        problems = password_problems(pw, self.policy, account.username, account.email)
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
        used = self.message(self.model.server.reset_link)
        if used is not None:
            used.used = True
        reset.changed.add(account.username)
        reset.stage = "done"
        self.flash = self.copy("reset.done")
        if self.model.auth.user == account.username:
            self._sign_out()
        return "/login"
