"""The account portal's app: its model, its pages and its routes wired together, with the
login wall in front of the member area."""

from __future__ import annotations

from webfactory_env.sitegen.families.account import views
from webfactory_env.sitegen.families.account.model import PRIVATE_KINDS, AccountModel
from webfactory_env.sitegen.html import Renderer


class AccountApp(AccountModel):
    """The running portal: sign-in with codes, sign-up, reset, profile, settings, history."""

    PAGES = views.PAGES

    def header(self, r: Renderer) -> str:
        return views.header(self, r)

    def _page_kind(self, route: str) -> str:
        kind = self.route_kind(route)
        if kind in PRIVATE_KINDS and not self.signed_in():
            return "login"  # the login wall
        return kind
