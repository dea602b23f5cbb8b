"""The account portal's pages: functions of its context drawn with the widget library, one
module per area (`auth`: getting in; `member`: the member area; `settings`: its settings;
`history`: the login history). Pages only read: every element that changes something is
bound to a transition (`bind=revoke_key.bind(key=...)`). Imported by the app."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import PageFn
from webfactory_env.sitegen.families.account.queries import Portal
from webfactory_env.sitegen.families.account.transitions.auth import sign_out
from webfactory_env.sitegen.families.account.views import auth, history, member, settings
from webfactory_env.sitegen.families.account.views.parts import Page, promo
from webfactory_env.sitegen.families.account.views.settings import SETTINGS_TABS
from webfactory_env.sitegen.html import Renderer, esc

__all__ = ["PAGES", "SETTINGS_TABS", "header"]


def header(portal: Portal, r: Renderer) -> str:
    c = portal.copy
    me = portal.queries.me
    brand = f'<span class="brand">{esc(portal.spec.brand)}</span>'
    if me is None:
        entries = [
            ("/", c("nav.home")),
            ("/login", c("nav.login")),
            ("/signup", c("nav.signup")),
            ("/inbox", c("nav.inbox")),
        ]
        return brand + w.site_nav(r, entries, label=c("nav.label"))
    entries = [
        ("/account", c("nav.account")),
        ("/profile", c("nav.profile")),
        ("/settings", c("nav.settings")),
        ("/history", c("nav.history")),
        ("/inbox", c("nav.inbox")),
    ]
    out = w.button(
        r,
        sid="sign-out",
        text=c("nav.sign_out"),
        attrs_={"role": "sign-out"},
        variant="secondary",
        bind=sign_out.bind(),
    )
    who = esc(c("nav.signed_in_as", name=me.display_name or me.username))
    return (
        f"{brand}{w.site_nav(r, entries, label=c('nav.label'))}"
        f'<span class="whoami muted">{who}</span>{out}'
    )


def home(portal: Portal, r: Renderer, route: str) -> Page:
    c = portal.copy
    title = c("home.title", brand=portal.spec.brand)
    if portal.queries.me is not None:
        cta = w.link(
            r, sid="home:/account", href="/account", text=c("home.open_account"), class_="button"
        )
    else:
        cta = (
            w.link(r, sid="home:/login", href="/login", text=c("home.sign_in"), class_="button")
            + " "
            + w.link(r, sid="home:/signup", href="/signup", text=c("home.create"))
        )
    features = "".join(
        f"<li>{esc(c(f'home.feature_{k}'))}</li>" for k in ("security", "devices", "keys")
    )
    return title, (
        f'<section class="hero"><h1>{esc(title)}</h1><p>{esc(c("home.tagline"))}</p>'
        f'<p class="actions">{cta}</p>{promo(portal, r, "sso")}</section>'
        f'{w.toast(portal.ui.flash)}<ul class="features">{features}</ul>'
    )


PAGES: dict[str, PageFn] = {
    "home": home,
    "login": auth.login,
    "signup": auth.signup,
    "reset": auth.reset,
    "inbox": auth.inbox,
    "account": member.account,
    "profile": member.profile,
    "settings": settings.settings,
    "history": history.history,
    "login_detail": history.login_detail,
}
