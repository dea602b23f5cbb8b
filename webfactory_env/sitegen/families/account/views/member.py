"""The member area behind the login wall: the account overview and the profile form (the
settings and their tabs are `settings`)."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.account.content import (
    AVATAR_LIMIT_KB,
)
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.transitions.drafts import (
    drop_file,
    set_field,
)
from webfactory_env.sitegen.families.account.transitions.member import (
    save_profile,
)
from webfactory_env.sitegen.families.account.views.parts import (
    Page,
    birthday_picker,
    country_choice,
    error_line,
    errors_text,
    field_order,
    heading,
    promo,
    signed_in,
)
from webfactory_env.sitegen.html import Renderer, esc


def account(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    me = signed_in(portal)
    title = c("account.title", name=me.display_name or me.username)
    details = w.detail_view(
        [
            (c("account.username"), me.username),
            (c("account.email"), me.email),
            (c("profile.country"), me.country or "—"),
            (c("account.since"), me.member_since),
            (c("account.two_factor"), c("account.on") if me.two_factor else c("account.off")),
            (c("account.sessions"), str(len(portal.queries.sessions_of(me.username)))),
            (c("account.keys"), str(len(portal.queries.keys_of(me.username)))),
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
        f"{heading(title)}{w.toast(portal.ui.flash)}{details}"
        f'<ul class="links">{links}</ul>{promo(portal, r, "upgrade")}'
    )


# ------------------------------------------------------------------------ profile
def profile(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    errors = portal.state.feedback.profile_errors
    texts = {
        name: w.text_field(
            r,
            label=c(f"profile.{name}"),
            error=errors_text(portal, errors.get(name, "")),
            helper=c("profile.display_help") if name == "display_name" else "",
            autocomplete="name" if name == "full_name" else "nickname",
            bind=set_field.bind(form="profile", name=name),
        )
        for name in ("full_name", "display_name")
    }
    avatar = set_field.bind(form="profile", name="avatar")
    files = [w.SyntheticFile(f.name, f.size_kb, f.kind) for f in portal.queries.files.values()]
    upload = w.file_upload(
        r,
        label=c("profile.avatar"),
        files=files,
        is_open=avatar.sid("upload") in portal.ui.open,
        bind=avatar,
    ) + w.file_drop(
        field="avatar",
        label=c("profile.avatar_drop"),
        tray_label=c("profile.recent_files"),
        files=files,
        drop=lambda f: drop_file.bind(form="profile", name="avatar", file=f.name),
    )
    hint = c("profile.avatar_help", mb=AVATAR_LIMIT_KB // 1000)
    avatar_hint = f'<small class="hint">{esc(hint)}</small>' if portal.v.helper_text == "on" else ""
    body = (
        "".join(texts[n] for n in field_order(portal, ("full_name", "display_name"), "profile"))
        + birthday_picker(portal, r, form="profile")
        + error_line(portal, errors.get("birthday", ""))
        + country_choice(portal, r, form="profile", label=c("profile.country"))
        + upload
        + avatar_hint
        + error_line(portal, errors.get("avatar", ""))
    )
    banner = f'<p class="error-summary" role="alert">{esc(c("profile.fix"))}</p>' if errors else ""
    form = w.form(
        r,
        name="profile",
        body=body,
        submit_sid="form:profile",
        submit_text=c("profile.save"),
        label=c("profile.title"),
        banner=banner,
        bind=save_profile.bind(),
    )
    return c("profile.title"), f"{heading(c('profile.title'))}{w.toast(portal.ui.flash)}{form}"
