"""The forum's transitions of its forms: typing into the sign-in, reply and new-thread
drafts (with the validation that follows them), the editors' formatting, signing in and
out. The validation helpers are shared with `posts`, whose submits check the same drafts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from webfactory_env.core.predicates import Eq, Predicate, Ref
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.rules import (
    FIELD_LIMITS,
    validate_reply,
    validate_signin,
    validate_thread,
)

Style = Literal["bold", "italic"]


def _field_effect(form: str, name: str) -> Predicate:
    if (form, name) == ("signin", "password"):  # the right password, not any: the view says which
        return Eq(("forms", "signin", "password_ok"), True)
    return Eq(("forms", form, name), Ref("value"))


def _draft_field(form: str, name: str) -> FormField:
    return FormField(form, name, ("forms", form, name))


def validate_form(forum: Forum, form: str) -> dict[str, str]:
    forms = forum.state.forms
    if form == "signin":
        return validate_signin(
            {"username": forms.signin.username, "password": forms.signin.password}
        )
    if form == "reply":
        return validate_reply(forms.reply["body"], forum.queries.strict)
    if form == "edit_reply":
        return validate_reply(forms.edit_reply.body, forum.queries.strict)
    return validate_thread(
        forms.new_thread,
        titles={t.title.lower() for t in forum.state.threads.values()},
        categories=set(forum.queries.cat_by_slug),
        tags=set(forum.queries.tag_slugs),
        strict=forum.queries.strict,
    )


def revalidate(forum: Forum, form: str, name: str) -> None:
    """With sync validation a field's error follows what is typed into it."""
    if forum.v.validation != "sync":
        return
    found = validate_form(forum, form).get(name)
    errors = forum.queries.errors_of(form)
    if found:
        errors[name] = found
    else:
        errors.pop(name, None)


def set_errors(forum: Forum, form: str, errors: Mapping[str, str]) -> None:
    current = forum.queries.errors_of(form)
    current.clear()
    current.update(errors)


@transition(effect=_field_effect, field=_draft_field)
def set_field(
    forum: Forum,
    *,
    form: Literal["signin", "reply", "new_thread"],
    name: str,
    value: str | None = None,
) -> str | None:
    """Typing in a field of the sign-in, reply or new-thread form."""
    limit = FIELD_LIMITS.get(f"{form}.{name}")
    if limit is None:
        return None
    value = (value or "")[:limit]
    forms = forum.state.forms
    if form == "signin":
        if name == "password":
            forms.signin.password, forms.signin.password_given = value, bool(value)
        else:
            forms.signin.username = value
        if name == "password" or forms.signin.password:  # one signed in with stays
            _check_password(forum)
    else:
        getattr(forms, form)[name] = value
    revalidate(forum, form, name)
    return None


def _check_password(forum: Forum) -> None:
    """Whether the password typed is that of the account the username names."""
    draft = forum.state.forms.signin
    account = forum.queries.accounts.get(draft.username.strip().lower())
    draft.password_ok = bool(draft.password) and draft.password == getattr(
        account, "password", None
    )


@transition(
    effect=lambda name: Eq(("forms", "new_thread", name), Ref("value")),
    field=lambda name: _draft_field("new_thread", name),
)
def set_choice(
    forum: Forum, *, name: Literal["category", "tag"], value: str | None = None
) -> str | None:
    """Choosing the new thread's category or tag."""
    value = value or ""
    allowed = {"category": set(forum.queries.cat_by_slug), "tag": set(forum.queries.tag_slugs)}
    if value == "" or value in allowed[name]:
        forum.state.forms.new_thread[name] = value
        revalidate(forum, "new_thread", name)
    return None


@transition(effect=lambda editor, style, on: Eq(("editors", editor, style), on))
def toggle_format(
    forum: Forum, *, editor: Literal["reply", "body"], style: Style, on: bool
) -> str | None:
    """Turn bold or italic on or off in the reply's or the new thread's editor."""
    setattr(getattr(forum.state.editors, editor), style, on)
    return None


# ---------------------------------------------------- account transitions
@transition(
    mutating=True,
    effect=lambda: Eq(("auth", "user"), Ref("state:forms.signin.username|strip")),
)
def sign_in(forum: Forum, *, values: dict[str, str] | None = None) -> str | None:
    draft = forum.state.forms.signin
    if values is not None:
        if "username" in values:
            draft.username = values["username"][:60]
        # An empty submitted password keeps what was typed: a password input that was
        # re-rendered is empty, since a password is never echoed into the page.
        if values.get("password"):
            draft.password = values["password"][:200]
            draft.password_given = True
            _check_password(forum)
    errors = validate_form(forum, "signin")
    account = forum.queries.accounts.get(draft.username.strip().lower())
    if not errors and (account is None or account.password != draft.password):
        errors["_form"] = "credentials"
        draft.password, draft.password_given = "", False  # a wrong password is not kept
        draft.password_ok = False
    set_errors(forum, "signin", errors)
    if errors or account is None:
        return None
    forum.state.auth.user = account.username
    forum.ui.flash = forum.copy("signin.welcome", name=account.display_name)
    back = forum.state.browsing.return_to
    return back if forum.queries.known_route(back) and back != "/signin" else "/"


@transition(mutating=True, effect=lambda: Eq(("auth", "user"), ""))
def sign_out(forum: Forum) -> str | None:
    forum.state.auth.user = ""
    forum.ui.flash = forum.copy("signin.bye")
    return "/" if forum.route == "/new" else None
