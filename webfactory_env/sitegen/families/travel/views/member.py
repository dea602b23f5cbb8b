"""The member area: sign-in with a texted code, the member's trips, and one trip."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.travel.queries import Travel
from webfactory_env.sitegen.families.travel.state import Trip
from webfactory_env.sitegen.families.travel.transitions.drafts import (
    CANCEL_REASONS,
    set_field,
    set_secret,
)
from webfactory_env.sitegen.families.travel.transitions.trips import (
    cancel_trip,
    resend_code,
    sign_in,
    verify_code,
)
from webfactory_env.sitegen.families.travel.views.parts import (
    Page,
    banner,
    draft_choice,
    form_errors,
    money,
    secondary,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def login_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    if travel.queries.signed_in():
        trips = w.link(r, sid="login:trips", href="/trips", text=c("nav.trips"))
        return c("login.title"), (
            f"<h1>{esc(c('login.title'))}</h1>"
            f"<p>{esc(c('login.already', email=travel.state.auth.member))}</p><p>{trips}</p>"
        )
    errors = form_errors(travel, "login")
    email = w.text_field(
        r,
        label=c("login.email"),
        input_type="email",
        autocomplete="username",
        error=c(f"errors.{errors['email']}") if "email" in errors else "",
        bind=set_field.bind(form="login", name="email"),
    )
    password = w.password_field(
        r,
        label=c("login.password"),
        autocomplete="current-password",
        error=c(f"errors.{errors['password']}") if "password" in errors else "",
        bind=set_secret.bind(form="login"),
    )
    form = w.form(
        r,
        name="login",
        body=email + password,
        submit_sid="form:login",
        submit_text=c("login.submit"),
        label=c("login.title"),
        banner=banner(travel, "login"),
        bind=sign_in.bind(),
    )
    return c("login.title"), (
        f"<h1>{esc(c('login.title'))}</h1><p>{esc(c('login.intro'))}</p>{form}"
    )


def verify_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    title = c("verify.title")
    auth = travel.state.auth
    if not auth.pending:
        link = w.link(r, sid="verify:login", href="/login", text=c("verify.start"))
        return title, f"<h1>{esc(title)}</h1><p>{esc(c('verify.not_started'))}</p><p>{link}</p>"
    err = form_errors(travel, "otp").get("code", "")
    code = w.otp_field(
        r,
        label=c("verify.code"),
        error=c(f"errors.{err}") if err else "",
        helper=c("verify.help"),
        bind=set_secret.bind(form="otp"),
    )
    resend = w.button(
        r,
        sid="resend",
        text=c("verify.resend"),
        attrs_={"role": "resend-code"},
        variant="secondary",
        bind=resend_code.bind(),
    )
    form = w.form(
        r,
        name="otp",
        body=code,
        submit_sid="form:otp",
        submit_text=c("verify.submit"),
        label=title,
        extra_buttons=resend,
        bind=verify_code.bind(),
    )
    last4 = travel.queries.member.phone[-4:]
    messages = "".join(
        f'<li class="sms"><span class="from">{esc(travel.spec.brand)}</span>'
        f"{esc(c('verify.sms', code=travel.queries.otp_code(n), brand=travel.spec.brand))}</li>"
        for n in range(auth.codes_sent, 0, -1)
    )
    phone = (
        f'<aside class="phone" aria-label="{esc(c("verify.phone"))}">'
        f'<div class="phone-bar">{esc(c("verify.phone"))} · •••• {esc(last4)}</div>'
        f'<ul class="sms-list">{messages}</ul></aside>'
    )
    return title, (
        f'<div class="verify"><div><h1>{esc(title)}</h1>'
        f"<p>{esc(c('verify.intro', last4=last4))}</p>{w.toast(travel.ui.flash)}{form}</div>"
        f"{phone}</div>"
    )


def _login_wall(travel: Travel, r: Renderer) -> Page:
    c = travel.copy
    link = w.link(r, sid="wall:login", href="/login", text=c("trips.sign_in"), class_="button")
    return c("trips.title"), (
        f"<h1>{esc(c('trips.title'))}</h1><p>{esc(c('trips.wall'))}</p><p>{link}</p>"
    )


def trips_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    if not travel.queries.signed_in():
        return _login_wall(travel, r)
    rows = []
    for t in travel.queries.member_trips():
        link = w.link(
            r,
            sid=f"trip:{t.id}",
            href=f"/trips/{t.id}",
            text=t.id,
            kind="Item",
            attrs_={
                "type": "trip",
                "reference": t.id,
                "destination": t.destination,
                "status": t.status,
                "depart": t.depart,
                "total": t.total,
                "refundable": t.refundable,
                "cancellable": t.cancellable,
            },
        )
        rows.append(
            [
                link,
                esc(t.destination),
                esc(t.depart),
                esc(c(f"trip.status_{t.status}")),
                money(t.total),
            ]
        )
    table = w.data_table(
        r,
        key="trips",
        columns=[
            ("reference", c("trips.reference"), False),
            ("destination", c("trips.destination"), False),
            ("depart", c("trips.depart"), False),
            ("status", c("trips.status"), False),
            ("total", c("trips.total"), False),
        ],
        rows=rows,
        sort=("depart", "desc"),
        caption=c("trips.caption"),
    )
    return c("trips.title"), f"<h1>{esc(c('trips.title'))}</h1>{w.toast(travel.ui.flash)}{table}"


def trip_page(travel: Travel, r: Renderer, route: str) -> Page:
    c = travel.copy
    t = travel.queries.trip_at(route)
    if t is None:
        return _login_wall(travel, r)
    back = w.link(r, sid="trip:back", href="/trips", text=c("trips.title"))
    details = w.detail_view(
        [
            (c("trips.reference"), t.id),
            (c("trips.destination"), t.destination),
            (c("trips.depart"), t.depart),
            (c("trips.status"), c(f"trip.status_{t.status}")),
            (c("trips.total"), money(t.total)),
            (c("trip.policy"), c("hotel.refundable") if t.refundable else c("hotel.nonrefundable")),
        ]
    )
    cancel = ""
    if t.cancellable:
        cancel = secondary(
            travel,
            r,
            name="cancel_trip",
            title=c("trip.cancel"),
            body=lambda: _cancel_form(travel, r, t),
            opener_attrs={"form": "cancel_trip"},
        )
    elif t.status == "upcoming":
        cancel = f'<p class="muted">{esc(c("trip.locked"))}</p>'
    title = c("trip.title", ref=t.id)
    return title, (f"<p>{back}</p><h1>{esc(title)}</h1>{w.toast(travel.ui.flash)}{details}{cancel}")


def _cancel_form(travel: Travel, r: Renderer, t: Trip) -> str:
    c = travel.copy
    reason = draft_choice(
        travel,
        r,
        form="cancel_trip",
        name="reason",
        label=c("trip.reason"),
        options=[Option(x, c(f"trip.reason_{x}"), aliases=(x,)) for x in CANCEL_REASONS],
    )
    return w.form(
        r,
        name="cancel_trip",
        body=reason,
        submit_sid="form:cancel_trip",
        submit_text=c("trip.confirm"),
        label=c("trip.cancel"),
        attrs_={"reference": t.id},
        bind=cancel_trip.bind(trip=t.id),
    )
