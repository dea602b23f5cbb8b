"""The account portal's model: its declared state (`state.py`), the reads pages and facts
make (`queries.py`), and the transitions events cause: form drafts (`drafts.py`), getting
in (`auth.py`) and the member area (`member.py`). Imported by the family's views and app,
and by tests."""

from __future__ import annotations

from webfactory_env.sitegen.families.account.model.member import PROMOS, AccountModel
from webfactory_env.sitegen.families.account.model.queries import (
    HISTORY_COLUMNS,
    PAGE_SIZE,
    PRIVATE_KINDS,
    RESULTS,
    account_id,
)
from webfactory_env.sitegen.families.account.model.state import (
    SIGNUP_STEPS,
    Account,
    AccountState,
    Login,
)

__all__ = [
    "HISTORY_COLUMNS",
    "PAGE_SIZE",
    "PRIVATE_KINDS",
    "PROMOS",
    "RESULTS",
    "SIGNUP_STEPS",
    "Account",
    "AccountModel",
    "AccountState",
    "Login",
    "account_id",
]
