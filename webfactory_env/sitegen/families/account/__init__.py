"""`account`: a SaaS account portal.

Description
    A sign-up wizard (account, password under a policy that tightens with difficulty,
    profile basics); sign-in by username or e-mail, with a code texted to the member's phone
    when they have two-step verification; a password reset through a link e-mailed to them;
    a simulated phone and mailbox (`/inbox`) that receive the codes and links the site sends.
    Behind a login wall: the account overview, the profile (with an avatar picked from
    synthetic files with the upload button, or dragged from a tray of recent files onto
    the drop zone beside it), settings (notifications, the contact order: the channels
    the site tries, dragged into order with the mouse or moved with each row's buttons;
    privacy, two-step verification, signed-in devices, API keys) and a searchable,
    sortable login history where a sign-in can be reported as not yours. Distractors:
    single sign-on, an upgrade, an export, the app.

Entities (`content.py`)
    User (members: password-only, with two-step codes, one locked), LoginEvent (each
    member's sign-ins), Session (their devices), ApiKey, PhoneCode (the codes the site will
    text, in order), ContactOrder (each member's channels, first first), AvatarFile,
    Country, Message (what the phone and mailbox already hold).

Pages (`views/`)
    home, login (and its code step), signup, reset, inbox; behind the wall: account,
    profile, settings (tabs notifications, privacy, security, api), history,
    login_detail (/history/<id>).

State paths (`state.py`; `webfactory schema --family account` lists them all)
    users.<id>.{username, email, display_name, country, birthday, full_name, avatar,
        two_factor, password_changed}                                  entities
    settings.<id>.{security_alerts, product_updates, weekly_digest, sms_alerts,
        profile_visibility, email_visibility, search_indexing,
        channels.<channel>}                                             entities
    sessions.<id>.{user, current}, logins.<id>.{user, result, device, reported},
        api_keys.<id>.{user, name, scope, expires}                      entities
    auth.user                                                           session
    forms.{login, otp, signup_account, signup_password, signup_profile, reset_request,
        reset_password, profile, settings, two_factor, api_key}         drafts
    login.*, signup.*, reset.*, history.{filter, query, sort, page}, feedback.*  view
    account, viewed_login, auth.{signed_in, stage}, signup.username_status, history.count,
        devices.*, inbox.*                                              page facts
    Members and their settings are keyed by an account id (`account_id(username)`);
    `account` is the member signed in and `viewed_login` the sign-in whose page is open:
    both stand for their records (`OPEN`). Passwords, codes and the mailbox are hidden.

Queries (`queries.py`: `AccountQueries`, and `facts` of the visitor's page)
    the member signed in, their devices, keys and sign-ins, the history as filtered.

Transitions (`transitions/`: `drafts`, `auth`, `member`; functions over the context)
    set_field, drop_file (a file dropped on a field's zone: set_field's choice),
    set_secret; sign_in, verify_code, resend_code, cancel_code, sign_out;
    choose_username, choose_password, create_account, step_back; request_reset,
    restart_reset, open_reset_link, reset_password; save_profile, set_notification,
    set_privacy, move_channel (a row's buttons, or a drop in the list), enable_two_factor,
    disable_two_factor, sign_out_session, sign_out_other_sessions, create_key,
    revoke_key, dismiss_key; filter_history, search_history, sort_history,
    turn_history_page, report_login; try_promo (the distractors).

Tasks
    `dsl/tasks/account/*.task`.

Who may import this package: the site registry (through `FAMILY`) and the tests.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.account.app import AccountApp
from webfactory_env.sitegen.families.account.content import FAMILY_VERSION, generate, otp_code
from webfactory_env.sitegen.registry import Family, register_family

FAMILY = Family(
    name="account",
    version=FAMILY_VERSION,
    description="An account portal: sign-up wizard, sign-in with two-step codes, password "
    "reset through a simulated inbox, profile, settings with sessions and API keys, and a "
    "sortable login history behind a login wall.",
    generate=generate,
    app_class=AccountApp,
    kinds=(
        "Button",
        "Choice",
        "DatePicker",
        "Field",
        "FileUpload",
        "Filter",
        "Form",
        "Item",
        "Link",
        "Option",
        "Sort",
        "Tab",
        "Toggle",
    ),
)
register_family(FAMILY)

__all__ = ["FAMILY", "FAMILY_VERSION", "AccountApp", "generate", "otp_code"]
