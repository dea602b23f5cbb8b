"""The pages of getting in: sign-in (and its texted code), the sign-up wizard, the password
reset, and the simulated phone and mailbox that receive codes and links."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.state import SIGNUP_STEPS
from webfactory_env.sitegen.families.account.transitions.auth import (
    cancel_code,
    choose_password,
    choose_username,
    create_account,
    open_reset_link,
    request_reset,
    resend_code,
    reset_password,
    restart_reset,
    sign_in,
    step_back,
    verify_code,
)
from webfactory_env.sitegen.families.account.transitions.drafts import set_field, set_secret
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
def login(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    me = portal.queries.me
    if me is not None:
        go = w.link(
            r, sid="login:/account", href="/account", text=c("login.go_account"), class_="button"
        )
        text = c("login.already", name=me.username)
        return c("login.title"), (
            f"{heading(c('login.title'))}{w.toast(portal.ui.flash)}<p>{esc(text)}</p><p>{go}</p>"
        )
    if portal.state.auth.pending:
        return _code(portal, r)
    status = portal.state.login
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
        bind=set_field.bind(form="login", name="username"),
    ) + w.password_field(
        r,
        label=c("login.password"),
        autocomplete="current-password",
        bind=set_secret.bind(form="login", name="password"),
    )
    form = w.form(
        r,
        name="login",
        body=fields,
        submit_sid="form:login",
        submit_text=c("login.submit"),
        label=c("login.title"),
        banner=banner,
        bind=sign_in.bind(),
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
        f"{w.toast(portal.ui.flash)}{form}<p>{forgot}</p><p>{create}</p>"
        f"{promo(portal, r, 'sso')}</div>"
    )


def _code(portal: Portal, r: Renderer) -> Page:
    """The second step of a sign-in with two-step verification: the texted code."""
    c = portal.copy
    pending = portal.queries.find_account(portal.state.auth.pending)
    field = w.otp_field(
        r,
        label=c("login.code"),
        form="verify_code",
        error=errors_text(portal, portal.state.login.code_error),
        helper=c("login.code_help"),
        bind=set_secret.bind(form="otp", name="code"),
    )
    form = w.form(
        r,
        name="verify_code",
        body=field,
        submit_sid="form:verify_code",
        submit_text=c("login.verify"),
        label=c("login.code_title"),
        bind=verify_code.bind(),
    )
    resend = w.button(
        r,
        sid="resend-code",
        text=c("login.resend"),
        attrs_={"role": "resend-code"},
        variant="secondary",
        bind=resend_code.bind(),
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
        bind=cancel_code.bind(),
    )
    intro = c("login.code_intro", last4=pending.phone_last4 if pending else "")
    return c("login.code_title"), (
        f'<div class="auth-card">{heading(c("login.code_title"))}'
        f"<p>{esc(intro)}</p>{w.toast(portal.ui.flash)}{form}"
        f'<p class="actions">{resend}{inbox}</p><p>{cancel}</p></div>'
    )


# ------------------------------------------------------------------------ sign-up
def signup(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    step = portal.state.signup.step
    title = c("signup.title")
    if portal.queries.me is not None and step != "done":
        go = w.link(r, sid="signup:/account", href="/account", text=c("signup.go_account"))
        return title, f"{heading(title)}<p>{esc(c('signup.already'))}</p><p>{go}</p>"
    labels = [c(f"signup.step_{s}") for s in SIGNUP_STEPS]
    steps = w.wizard_steps(labels, SIGNUP_STEPS.index(step))
    body = _SIGNUP_STEPS[step](portal, r)
    return title, f'<div class="auth-card wide">{heading(title)}{steps}{body}</div>'


def _signup_error(portal: Portal, name: str) -> str:
    return errors_text(portal, portal.state.signup.errors.get(name, ""))


def _signup_account(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    fields = {
        name: w.text_field(
            r,
            sid=f"field:signup.{name}",
            label=c(f"signup.{name}"),
            input_type="email" if name == "email" else "text",
            autocomplete=name,
            error=_signup_error(portal, name),
            helper=c(f"signup.{name}_help"),
            bind=set_field.bind(form="signup_account", name=name),
        )
        for name in ("email", "username")
    }
    form = w.form(
        r,
        name="signup_account",
        body="".join(fields[n] for n in field_order(portal, ("email", "username"), "signup")),
        submit_sid="form:signup_account",
        submit_text=c("signup.continue"),
        label=c("signup.step_account"),
        bind=choose_username.bind(),
    )
    login = w.link(r, sid="signup:/login", href="/login", text=c("nav.login"))
    return f'{form}<p class="muted">{esc(c("signup.have_account"))} {login}</p>'


def _back(portal: Portal, r: Renderer) -> str:
    previous = SIGNUP_STEPS[max(0, SIGNUP_STEPS.index(portal.state.signup.step) - 1)]
    return w.button(
        r,
        sid="signup-back",
        text=portal.copy("signup.back"),
        attrs_={"role": "back"},
        variant="secondary",
        bind=step_back.bind(step=previous),
    )


def _new_password_fields(portal: Portal, r: Renderer, form: str, errors: dict[str, str]) -> str:
    """A new password and its confirmation (sign-up and reset), under the rules."""
    c = portal.copy
    prefix = "signup" if form == "signup_password" else "reset"
    first = "password" if form == "signup_password" else "new_password"
    return (
        rules_list(portal)
        + w.password_field(
            r,
            sid=f"field:{prefix}.{first}",
            label=c(f"{prefix}.{first}"),
            autocomplete="new-password",
            error=errors_text(portal, errors.get(first, "")),
            bind=set_secret.bind(form=form, name=first),
        )
        + w.password_field(
            r,
            sid=f"field:{prefix}.confirm_password",
            label=c(f"{prefix}.confirm"),
            autocomplete="new-password",
            error=errors_text(portal, errors.get("confirm_password", "")),
            bind=set_secret.bind(form=form, name="confirm_password"),
        )
    )


def _signup_password(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    signup = portal.state.signup
    who = f'<p class="muted">{esc(c("signup.for_user", username=signup.username))}</p>'
    return w.form(
        r,
        name="signup_password",
        body=who + _new_password_fields(portal, r, "signup_password", signup.errors),
        submit_sid="form:signup_password",
        submit_text=c("signup.continue"),
        label=c("signup.step_password"),
        extra_buttons=_back(portal, r),
        bind=choose_password.bind(),
    )


def _signup_profile(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    errors = portal.state.signup.errors
    body = (
        w.text_field(
            r,
            sid="field:signup.display_name",
            label=c("profile.display_name"),
            error=_signup_error(portal, "display_name"),
            helper=c("profile.display_help"),
            bind=set_field.bind(form="signup_profile", name="display_name"),
        )
        + country_choice(
            portal,
            r,
            sid="choice:signup.country",
            form="signup_profile",
            label=c("profile.country"),
        )
        + birthday_picker(portal, r, sid="date:signup.birthday", form="signup_profile")
        + w.toggle(
            r,
            sid="toggle:signup.terms",
            kind="Toggle",
            label=c("signup.terms"),
            attrs_={"form": "signup_profile"},
            bind=set_field.bind(form="signup_profile", name="terms"),
        )
        + "".join(
            error_line(portal, errors[k])
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
        extra_buttons=_back(portal, r),
        bind=create_account.bind(),
    )


def _signup_done(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    go = w.link(
        r, sid="signup:/account", href="/account", text=c("signup.go_account"), class_="button"
    )
    created = portal.state.signup.created
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
def reset(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    progress = portal.state.reset
    title = c("reset.title")
    head = f'<div class="auth-card">{heading(title)}{w.toast(portal.ui.flash)}'
    if progress.stage == "request":
        field = w.text_field(
            r,
            sid="field:reset.email",
            label=c("reset.email"),
            input_type="email",
            autocomplete="email",
            error=errors_text(portal, progress.errors.get("email", "")),
            helper=c("reset.email_help"),
            bind=set_field.bind(form="reset_request", name="email"),
        )
        form = w.form(
            r,
            name="reset_request",
            body=field,
            submit_sid="form:reset_request",
            submit_text=c("reset.submit"),
            label=title,
            bind=request_reset.bind(),
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
            bind=restart_reset.bind(),
        )
        sent = c("reset.sent", email=progress.email)
        return title, f'{head}<p role="status">{esc(sent)}</p><p>{inbox} {again}</p></div>'
    if progress.stage == "verified":
        who = c("reset.for_user", username=progress.user)
        form = w.form(
            r,
            name="reset_password",
            body=f'<p class="muted">{esc(who)}</p>'
            + _new_password_fields(portal, r, "reset_password", progress.errors),
            submit_sid="form:reset_password",
            submit_text=c("reset.change"),
            label=c("reset.new_title"),
            bind=reset_password.bind(),
        )
        return title, f"{head}<h2>{esc(c('reset.new_title'))}</h2>{form}</div>"
    login = w.link(r, sid="reset:/login", href="/login", text=c("reset.sign_in"), class_="button")
    return title, f"{head}<p>{esc(c('reset.done'))}</p><p>{login}</p></div>"


# --------------------------------------------------------------- phone and mailbox
def inbox(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    items = []
    for m in portal.state.server.messages:
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
                bind=open_reset_link.bind(message=m.id),
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
    if portal.state.auth.pending:
        back = w.link(
            r,
            sid="inbox:/login",
            href="/login",
            text=c("inbox.back_to_code"),
            attrs_={"role": "back-to-sign-in"},
        )
    elif portal.state.reset.stage == "sent":
        back = w.link(
            r,
            sid="inbox:/reset",
            href="/reset",
            text=c("inbox.back_to_reset"),
            attrs_={"role": "back-to-reset"},
        )
    return c("inbox.title"), (
        f'{heading(c("inbox.title"))}<p class="muted">{esc(c("inbox.intro"))}</p>'
        f"{w.toast(portal.ui.flash)}{f'<p>{back}</p>' if back else ''}{body}"
        f"{promo(portal, r, 'app', 'many')}"
    )
