"""The account portal's app: its state, queries, transitions and pages tied to the shared
`SiteApp`, with the login wall in front of the member area."""

from __future__ import annotations

from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import transitions_in
from webfactory_env.sitegen.families.account import views
from webfactory_env.sitegen.families.account.queries import (
    CITIES,
    DEVICES,
    PRIVATE_KINDS,
    AccountQueries,
    facts,
)
from webfactory_env.sitegen.families.account.state import AccountFacts, AccountState
from webfactory_env.sitegen.families.account.transitions import auth, drafts, member
from webfactory_env.sitegen.html import Renderer
from webfactory_env.sitegen.spec import AppEvent, Patch


class AccountApp(SiteApp):
    """The running portal: sign-in with codes, sign-up, reset, profile, settings, history."""

    family = "account"
    State = AccountState
    Queries = AccountQueries
    Facts = AccountFacts
    TRANSITIONS = transitions_in(drafts, auth, member)
    PAGES = views.PAGES
    # The member signed in, and the sign-in whose page is open, are records of the site.
    OPEN = {"account": "users", "viewed_login": "logins"}
    ANSWERS = {
        "login.city": CITIES,
        "login.device": DEVICES,
        "viewed_login.city": CITIES,
        "viewed_login.device": DEVICES,
    }
    model: AccountState
    queries: AccountQueries

    def facts(self) -> AccountFacts:
        return facts(self.context())

    def header(self, r: Renderer) -> str:
        return views.header(self.context(), r)

    def _page_kind(self, route: str) -> str:
        kind = self.queries.route_kind(route)
        if kind in PRIVATE_KINDS and not self.queries.signed_in():
            return "login"  # the login wall
        return kind

    def dispatch(self, event: AppEvent) -> Patch:
        """Pages behind the login wall send a signed-out visitor to /login, and there back
        to the page they wanted once they are in."""
        if event.type == "nav":
            path = (event.path or "/").split("?", 1)[0]
            status = self.model.login
            status.wall = False
            if not self.queries.signed_in() and self.queries.route_kind(path) in PRIVATE_KINDS:
                status.next_route, status.wall = path, True
                event = event.model_copy(update={"path": "/login"})
        return super().dispatch(event)
