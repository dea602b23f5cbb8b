"""The pages of getting in: sign-in (and its texted code), the sign-up wizard, the password
reset, and the simulated phone and mailbox that receive codes and links."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.model import SIGNUP_STEPS, AccountModel
from webfactory_env.sitegen.families.account.views.parts import (
    Page,
    birthday_picker,
    country_choice,
    error_line,
    errors_text,
    field_order,
    heading,
    promo,
    rules_list,
)
from webfactory_env.sitegen.html import Renderer, esc


# ------------------------------------------------------------------------ sign-in
def login(app: AccountModel, r: Renderer, route: str) -> Page:
    c = app.copy
    me = app.me
    if me is not None:
        go = w.link(
            r, sid="login:/account", href="/account", text=c("login.go_account"), class_="button"
        )
        text = c("login.already", name=me.username)
        return c("login.title"), (
            f"{heading(c('login.title'))}{w.toast(app.flash)}<p>{esc(text)}</p><p>{go}</p>"
        )
    if app.model.auth.pending:
        return _code(app, r)
    status = app.model.login
    notice = f'<p class="notice" role="status">{esc(c("login.wall"))}</p>' if status.wall else ""
    banner = (
        f'<p class="error-summary" role="alert">{esc(c(f"errors.login_{status.error}"))}</p>'
        if status.error
        else ""
    )
    fields = w.text_field(
        r,
        label=c("login.username"),
        autocomplete="username",
        helper=c("login.username_help"),
        bind=app.set_field.bind(form="login", name="username"),
    ) + w.password_field(
        r,
        label=c("login.password"),
        autocomplete="current-password",
        bind=app.set_secret.bind(form="login", name="password"),
    )
    form = w.form(
        r,
        name="login",
        body=fields,
        submit_sid="form:login",
        submit_text=c("login.submit"),
        label=c("login.title"),
        banner=banner,
        bind=app.sign_in.bind(),
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
        f'<div class="auth-card">{heading(c("login.title"))}{notice}'
        f"{w.toast(app.flash)}{form}<p>{forgot}</p><p>{create}</p>{promo(app, r, 'sso')}</div>"
    )


def _code(app: AccountModel, r: Renderer) -> Page:
    """The second step of a sign-in with two-step verification: the texted code."""
    c = app.copy
    pending = app.find_account(app.model.auth.pending)
    field = w.otp_field(
        r,
        label=c("login.code"),
        form="verify_code",
        error=errors_text(app, app.model.login.code_error),
        helper=c("login.code_help"),
        bind=app.set_secret.bind(form="otp", name="code"),
    )
    form = w.form(
        r,
        name="verify_code",
        body=field,
        submit_sid="form:verify_code",
        submit_text=c("login.verify"),
        label=c("login.code_title"),
        bind=app.verify_code.bind(),
    )
    resend = w.button(
        r,
        sid="resend-code",
        text=c("login.resend"),
        attrs_={"role": "resend-code"},
        variant="secondary",
        bind=app.resend_code.bind(),
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
        attrs_={"role": "cancel"},
        variant="link-button",
        bind=app.cancel_code.bind(),
    )
    intro = c("login.code_intro", last4=pending.phone_last4 if pending else "")
    return c("login.code_title"), (
        f'<div class="auth-card">{heading(c("login.code_title"))}'
        f"<p>{esc(intro)}</p>{w.toast(app.flash)}{form}"
        f'<p class="actions">{resend}{inbox}</p><p>{cancel}</p></div>'
    )


# ------------------------------------------------------------------------ sign-up
def signup(app: AccountModel, r: Renderer, route: str) -> Page:
    c = app.copy
    step = app.model.signup.step
    title = c("signup.title")
    if app.me is not None and step != "done":
        go = w.link(r, sid="signup:/account", href="/account", text=c("signup.go_account"))
        return title, f"{heading(title)}<p>{esc(c('signup.already'))}</p><p>{go}</p>"
    labels = [c(f"signup.step_{s}") for s in SIGNUP_STEPS]
    steps = w.wizard_steps(labels, SIGNUP_STEPS.index(step))
    body = _SIGNUP_STEPS[step](app, r)
    return title, f'<div class="auth-card wide">{heading(title)}{steps}{body}</div>'


def _signup_error(app: AccountModel, name: str) -> str:
    return errors_text(app, app.model.signup.errors.get(name, ""))


def _signup_account(app: AccountModel, r: Renderer) -> str:
    c = app.copy
    fields = {
        name: w.text_field(
            r,
            sid=f"field:signup.{name}",
            label=c(f"signup.{name}"),
            input_type="email" if name == "email" else "text",
            autocomplete=name,
            error=_signup_error(app, name),
            helper=c(f"signup.{name}_help"),
            bind=app.set_field.bind(form="signup_account", name=name),
        )
        for name in ("email", "username")
    }
    form = w.form(
        r,
        name="signup_account",
        body="".join(fields[n] for n in field_order(app, ("email", "username"), "signup")),
        submit_sid="form:signup_account",
        submit_text=c("signup.continue"),
        label=c("signup.step_account"),
        bind=app.choose_username.bind(),
    )
    login = w.link(r, sid="signup:/login", href="/login", text=c("nav.login"))
    return f'{form}<p class="muted">{esc(c("signup.have_account"))} {login}</p>'


def _back(app: AccountModel, r: Renderer) -> str:
    previous = SIGNUP_STEPS[max(0, SIGNUP_STEPS.index(app.model.signup.step) - 1)]
    return w.button(
        r,
        sid="signup-back",
        text=app.copy("signup.back"),
        attrs_={"role": "back"},
        variant="secondary",
        bind=app.step_back.bind(step=previous),
    )


def _new_password_fields(app: AccountModel, r: Renderer, form: str, errors: dict[str, str]) -> str:
    """A new password and its confirmation (sign-up and reset), under the rules."""
    c = app.copy
    prefix = "signup" if form == "signup_password" else "reset"
    first = "password" if form == "signup_password" else "new_password"
    return (
        rules_list(app)
        + w.password_field(
            r,
            sid=f"field:{prefix}.{first}",
            label=c(f"{prefix}.{first}"),
            autocomplete="new-password",
            error=errors_text(app, errors.get(first, "")),
            bind=app.set_secret.bind(form=form, name=first),
        )
        + w.password_field(
            r,
            sid=f"field:{prefix}.confirm_password",
            label=c(f"{prefix}.confirm"),
            autocomplete="new-password",
            error=errors_text(app, errors.get("confirm_password", "")),
            bind=app.set_secret.bind(form=form, name="confirm_password"),
        )
    )


def _signup_password(app: AccountModel, r: Renderer) -> str:
    c = app.copy
    signup = app.model.signup
    who = f'<p class="muted">{esc(c("signup.for_user", username=signup.username))}</p>'
    return w.form(
        r,
        name="signup_password",
        body=who + _new_password_fields(app, r, "signup_password", signup.errors),
        submit_sid="form:signup_password",
        submit_text=c("signup.continue"),
        label=c("signup.step_password"),
        extra_buttons=_back(app, r),
        bind=app.choose_password.bind(),
    )


def _signup_profile(app: AccountModel, r: Renderer) -> str:
    c = app.copy
    errors = app.model.signup.errors
    body = (
        w.text_field(
            r,
            sid="field:signup.display_name",
            label=c("profile.display_name"),
            error=_signup_error(app, "display_name"),
            helper=c("profile.display_help"),
            bind=app.set_field.bind(form="signup_profile", name="display_name"),
        )
        + country_choice(
            app, r, sid="choice:signup.country", form="signup_profile", label=c("profile.country")
        )
        + birthday_picker(app, r, sid="date:signup.birthday", form="signup_profile")
        + w.toggle(
            r,
            sid="toggle:signup.terms",
            kind="Toggle",
            label=c("signup.terms"),
            attrs_={"form": "signup_profile"},
            bind=app.set_field.bind(form="signup_profile", name="terms"),
        )
        + "".join(
            error_line(app, errors[k])
            for k in ("country", "birthday", "terms", "_account")
            if k in errors
        )
    )
    return w.form(
        r,
        name="signup_profile",
        body=body,
        submit_sid="form:signup_profile",
        submit_text=c("signup.create"),
        label=c("signup.step_profile"),
        extra_buttons=_back(app, r),
        bind=app.create_account.bind(),
    )


def _signup_done(app: AccountModel, r: Renderer) -> str:
    c = app.copy
    go = w.link(
        r, sid="signup:/account", href="/account", text=c("signup.go_account"), class_="button"
    )
    created = app.model.signup.created
    return (
        f"<h2>{esc(c('signup.done_title'))}</h2>"
        f"<p>{esc(c('signup.done_body', username=created))}</p><p>{go}</p>"
    )


_SIGNUP_STEPS = {
    "account": _signup_account,
    "password": _signup_password,
    "profile": _signup_profile,
    "done": _signup_done,
}


# ------------------------------------------------------------------ password reset
def reset(app: AccountModel, r: Renderer, route: str) -> Page:
    c = app.copy
    progress = app.model.reset
    title = c("reset.title")
    head = f'<div class="auth-card">{heading(title)}{w.toast(app.flash)}'
    if progress.stage == "request":
        field = w.text_field(
            r,
            sid="field:reset.email",
            label=c("reset.email"),
            input_type="email",
            autocomplete="email",
            error=errors_text(app, progress.errors.get("email", "")),
            helper=c("reset.email_help"),
            bind=app.set_field.bind(form="reset_request", name="email"),
        )
        form = w.form(
            r,
            name="reset_request",
            body=field,
            submit_sid="form:reset_request",
            submit_text=c("reset.submit"),
            label=title,
            bind=app.request_reset.bind(),
        )
        back = w.link(r, sid="reset:/login", href="/login", text=c("reset.back"))
        return title, f"{head}<p>{esc(c('reset.intro'))}</p>{form}<p>{back}</p></div>"
    if progress.stage == "sent":
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
            attrs_={"role": "restart"},
            variant="secondary",
            bind=app.restart_reset.bind(),
        )
        sent = c("reset.sent", email=progress.email)
        return title, f'{head}<p role="status">{esc(sent)}</p><p>{inbox} {again}</p></div>'
    if progress.stage == "verified":
        who = c("reset.for_user", username=progress.user)
        form = w.form(
            r,
            name="reset_password",
            body=f'<p class="muted">{esc(who)}</p>'
            + _new_password_fields(app, r, "reset_password", progress.errors),
            submit_sid="form:reset_password",
            submit_text=c("reset.change"),
            label=c("reset.new_title"),
            bind=app.reset_password.bind(),
        )
        return title, f"{head}<h2>{esc(c('reset.new_title'))}</h2>{form}</div>"
    login = w.link(r, sid="reset:/login", href="/login", text=c("reset.sign_in"), class_="button")
    return title, f"{head}<p>{esc(c('reset.done'))}</p><p>{login}</p></div>"


# --------------------------------------------------------------- phone and mailbox
def inbox(app: AccountModel, r: Renderer, route: str) -> Page:
    c = app.copy
    items = []
    for m in app.model.server.messages:
        action = ""
        if m.kind == "reset":
            action = w.button(
                r,
                sid=f"reset-link:{m.id}",
                text=c("inbox.reset_button"),
                attrs_={
                    "role": "reset-link",
                    "to": m.to,
                    "expired": m.expired or m.used,
                    "message": m.id,
                },
                bind=app.open_reset_link.bind(message=m.id),
            )
        items.append(
            f'<li class="message {esc(m.channel)}"><div class="meta">'
            f'<span class="badge">{esc(c(f"inbox.{m.channel}"))}</span> '
            f"<strong>{esc(m.subject)}</strong>"
            f' <span class="muted">{esc(c("inbox.to"))} {esc(m.to)} · {esc(m.at)}'
            f"</span></div><p>{esc(m.body)}</p>{action}</li>"
        )
    body = (
        f'<ul class="messages">{"".join(items)}</ul>'
        if items
        else f"<p>{esc(c('inbox.empty'))}</p>"
    )
    back = ""
    if app.model.auth.pending:
        back = w.link(
            r,
            sid="inbox:/login",
            href="/login",
            text=c("inbox.back_to_code"),
            attrs_={"role": "back-to-sign-in"},
        )
    elif app.model.reset.stage == "sent":
        back = w.link(
            r,
            sid="inbox:/reset",
            href="/reset",
            text=c("inbox.back_to_reset"),
            attrs_={"role": "back-to-reset"},
        )
    return c("inbox.title"), (
        f'{heading(c("inbox.title"))}<p class="muted">{esc(c("inbox.intro"))}</p>'
        f"{w.toast(app.flash)}{f'<p>{back}</p>' if back else ''}{body}"
        f"{promo(app, r, 'app', 'many')}"
    )
