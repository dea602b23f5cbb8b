"""The member area's settings and their tabs: notifications (with the contact order, a
sortable list), privacy, security and devices, API keys."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.content import (
    CHANNELS,
    NOTIFICATIONS,
    PRIVACY,
    SCOPES,
    TODAY,
)
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.state import Account
from webfactory_env.sitegen.families.account.transitions.drafts import (
    set_field,
    set_secret,
)
from webfactory_env.sitegen.families.account.transitions.member import (
    create_key,
    disable_two_factor,
    dismiss_key,
    enable_two_factor,
    move_channel,
    revoke_key,
    set_notification,
    set_privacy,
    sign_out_other_sessions,
    sign_out_session,
)
from webfactory_env.sitegen.families.account.views.parts import (
    Page,
    error_line,
    errors_text,
    heading,
    promo,
    secondary,
    signed_in,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

SETTINGS_TABS = ("notifications", "privacy", "security", "api")


def settings(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    active = portal.ui.tabs.get("settings", "notifications")
    if active not in SETTINGS_TABS:
        active = "notifications"
    tabs = w.tabs(
        r,
        group="settings",
        items=[(t, c(f"settings.tab_{t}")) for t in SETTINGS_TABS],
        active=active,
        panel=_TABS[active](portal, r),
        label=c("settings.title"),
    )
    return c("settings.title"), f"{heading(c('settings.title'))}{w.toast(portal.ui.flash)}{tabs}"


def _notifications(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    me = signed_in(portal)
    mine = portal.queries.settings_of(me.username)
    toggles = "".join(
        w.toggle(
            r,
            sid=f"toggle:notify.{n}",
            kind="Toggle",
            label=c(f"settings.notify_{n}"),
            checked=bool(getattr(mine, n)),  # a member without a record sees the defaults
            switch=True,
            attrs_={"group": "notifications"},
            bind=set_notification.bind(account=me.id, setting=n),
        )
        for n in NOTIFICATIONS
    )
    return (
        f'<p class="muted">{esc(c("settings.notify_intro"))}</p><div class="stack">{toggles}</div>'
        + _contact_order(portal, r, me)
    )


def _contact_order(portal: Portal, r: Renderer, me: Account) -> str:
    """The channels the site tries, in order: a sortable list. Each row is dragged with
    the mouse to its new place, or moved with its buttons (the keyboard's way); both send
    `move_channel`."""
    c = portal.copy
    order = portal.queries.channel_order(portal.queries.settings_of(me.username))
    rows = []
    for n, key in enumerate(order, 1):
        name = CHANNELS[key]
        moves = "".join(
            w.button(
                r,
                sid=f"channel:{key}:{place}",
                text=c(f"settings.channel_{place}"),
                variant="secondary",
                attrs_={"role": f"channel-{place}", "channel": name},
                disabled=(n == 1) if place != "down" else (n == len(order)),
                bind=move_channel.bind(account=me.id, channel=key, place=place),
            )
            for place in ("top", "up", "down")
        )
        drag = w.draggable(
            sid=f"channel:{key}", key=key, bind=move_channel.bind(account=me.id, channel=key)
        )
        rows.append(
            f'<li{drag} class="sortable"><span class="rank">{n}.</span> '
            f'<span class="name">{esc(name)}</span> <span class="moves">{moves}</span></li>'
        )
    zone = w.drop_zone(name="list", value="channels")
    return (
        f"<h2>{esc(c('settings.channels_title'))}</h2>"
        f'<p class="muted">{esc(c("settings.channels_intro"))}</p>'
        f'<ol{zone} class="sortable">{"".join(rows)}</ol>'
    )


def _privacy(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    me = signed_in(portal)
    mine = portal.queries.settings_of(me.username)
    menus = "".join(
        w.choice(
            r,
            sid=f"choice:privacy.{name}",
            kind="Choice",
            label=c(f"settings.privacy_{name}"),
            options=[Option(v, c(f"settings.privacy_{v}")) for v in values],
            selected=str(getattr(mine, name)),
            attrs_={"group": "privacy"},
            is_open=f"choice:privacy.{name}" in portal.ui.open,
            helper=c(f"settings.privacy_{name}_help"),
            bind=set_privacy.bind(account=me.id, setting=name),
        )
        for name, values in PRIVACY.items()
    )
    return f'<div class="stack">{menus}</div>'


def _security(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    me = signed_in(portal)
    action = "disable" if me.two_factor else "enable"

    def two_factor_form() -> str:
        field = w.password_field(
            r,
            label=c("settings.current_password"),
            autocomplete="current-password",
            error=errors_text(portal, portal.state.feedback.two_factor_error),
            bind=set_secret.bind(form="two_factor", name="current_password"),
        )
        return w.form(
            r,
            name="two_factor",
            body=field,
            submit_sid="form:two_factor",
            submit_text=c(f"settings.{action}_2fa"),
            label=c("settings.two_factor_title"),
            attrs_={"action": action},
            bind=(disable_two_factor if me.two_factor else enable_two_factor).bind(),
        )

    status = c("settings.two_factor_on_text" if me.two_factor else "settings.two_factor_off_text")
    two = secondary(
        portal,
        r,
        name="two-factor",
        title=c(f"settings.{action}_2fa"),
        body=two_factor_form,
        form="two_factor",
    )
    return (
        f"<h2>{esc(c('settings.two_factor_title'))}</h2><p>{esc(status)}</p>{two}"
        f"<h2>{esc(c('settings.sessions_title'))}</h2>{_devices(portal, r, me)}"
    )


def _devices(portal: Portal, r: Renderer, me: Account) -> str:
    """The member's signed-in devices: this one, and the others with a sign-out button."""
    c = portal.copy
    rows = []
    mine = portal.queries.sessions_of(me.username)
    for s in mine:
        if s.current:
            act = f'<span class="badge">{esc(c("settings.this_device"))}</span>'
        else:
            act = w.button(
                r,
                sid=f"session:{s.id}:sign-out",
                text=c("settings.sign_out_session"),
                variant="secondary",
                attrs_={
                    "role": "sign-out-session",
                    "device": s.device,
                    "city": s.city,
                    "session": s.id,
                },
                bind=sign_out_session.bind(session=s.id),
            )
        rows.append(
            f"<tr><td>{esc(s.device)}</td><td>{esc(s.city)}, {esc(s.country)}</td>"
            f"<td>{esc(s.last_active)}</td><td>{act}</td></tr>"
        )
    heads = "".join(
        f'<th scope="col">{esc(c(f"settings.session_{k}"))}</th>'
        for k in ("device", "location", "last_active", "action")
    )
    others = w.button(
        r,
        sid="sessions:sign-out-others",
        text=c("settings.sign_out_others"),
        variant="secondary",
        attrs_={"role": "sign-out-others"},
        disabled=all(s.current for s in mine),
        bind=sign_out_other_sessions.bind(),
    )
    return (
        f'<table class="data"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table><p>{others}</p>"
    )


def _api(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    me = signed_in(portal)
    shown = ""
    new_key = portal.state.server.new_key
    if new_key:
        dismiss = w.button(
            r,
            sid="api:dismiss",
            text=c("settings.key_dismiss"),
            attrs_={"role": "dismiss"},
            variant="secondary",
            bind=dismiss_key.bind(),
        )
        shown = (
            f'<div class="notice" role="status">{esc(c("settings.key_created"))} '
            f"<code>{esc(new_key)}</code> {dismiss}</div>"
        )
    rows = []
    for k in portal.queries.keys_of(me.username):
        revoke = w.button(
            r,
            sid=f"key:{k.id}:revoke",
            text=c("settings.key_revoke"),
            variant="secondary",
            attrs_={"role": "revoke-key", "key_name": k.name, "scope": k.scope, "key": k.id},
            bind=revoke_key.bind(key=k.id),
        )
        rows.append(
            f"<tr><td>{esc(k.name)}</td><td><code>{esc(k.prefix)}…</code></td>"
            f"<td>{esc(c('settings.scope_' + k.scope))}</td>"
            f"<td>{esc(k.created)}</td><td>{esc(k.last_used)}</td><td>{revoke}</td></tr>"
        )
    heads = "".join(
        f'<th scope="col">{esc(c(f"settings.key_{h}"))}</th>'
        for h in ("name", "prefix", "scope", "created_on", "last_used", "action")
    )
    table = (
        f'<table class="data"><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        if rows
        else f"<p>{esc(c('settings.keys_none'))}</p>"
    )
    create = secondary(
        portal,
        r,
        name="api-key",
        title=c("settings.key_new"),
        body=lambda: _key_form(portal, r),
        form="api_key",
    )
    return (
        f'<p class="muted">{esc(c("settings.keys_intro"))}</p>{shown}{table}{create}'
        f"{promo(portal, r, 'export', 'many')}"
    )


def _key_form(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    errors = portal.state.feedback.key_errors
    scope = set_field.bind(form="api_key", name="scope")
    expires = set_field.bind(form="api_key", name="expires")
    fields = (
        w.text_field(
            r,
            label=c("settings.key_name"),
            error=errors_text(portal, errors.get("key_name", "")),
            helper=c("settings.key_name_help"),
            bind=set_field.bind(form="api_key", name="key_name"),
        )
        + w.choice(
            r,
            kind="Choice",
            label=c("settings.key_scope"),
            options=[Option(s, c(f"settings.scope_{s}")) for s in SCOPES],
            attrs_={"form": "api_key"},
            is_open=scope.sid("choice") in portal.ui.open,
            bind=scope,
        )
        + w.date_picker(
            r,
            label=c("settings.key_expires"),
            month=portal.month_of("expires"),
            is_open=expires.sid("date") in portal.ui.open,
            today=TODAY,
            bind=expires,
        )
        + error_line(portal, errors.get("expires", ""))
    )
    return w.form(
        r,
        name="api_key",
        body=fields,
        submit_sid="form:api_key",
        submit_text=c("settings.key_create"),
        label=c("settings.key_new"),
        bind=create_key.bind(),
    )


_TABS = {
    "notifications": _notifications,
    "privacy": _privacy,
    "security": _security,
    "api": _api,
}
