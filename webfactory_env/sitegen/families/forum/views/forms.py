"""The sign-in page, the new-thread form and the Pro advert."""

from __future__ import annotations

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.rules import body_minimum, title_minimum
from webfactory_env.sitegen.families.forum.transitions.forms import (
    set_choice,
    set_field,
    sign_in,
    toggle_format,
)
from webfactory_env.sitegen.families.forum.transitions.posts import start_thread
from webfactory_env.sitegen.families.forum.views.common import (
    Page,
    error_region,
    error_text,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def signin(forum: Forum, r: Renderer, route: str) -> Page:
    c, q = forum.copy, forum.queries
    if forum.queries.user:
        home = w.link(r, sid="signin:home", href="/", text=c("not_found.home"))
        return c("signin.title"), (
            f"<h1>{esc(c('signin.title'))}</h1>{w.toast(forum.ui.flash)}"
            f"<p>{esc(c('signin.already', name=q.name_of(q.user)))}</p><p>{home}</p>"
        )
    errs = forum.state.feedback.signin_errors
    username = w.text_field(
        r,
        label=c("signin.username"),
        error=error_text(forum, errs.get("username", "")),
        helper=c("signin.username_help"),
        autocomplete="username",
        bind=set_field.bind(form="signin", name="username"),
    )
    password = w.password_field(
        r,
        label=c("signin.password"),
        error=error_text(forum, errs.get("password", "")),
        autocomplete="current-password",
        bind=set_field.bind(form="signin", name="password"),
    )
    banner = (
        f'<p class="error-summary" role="alert">{esc(c("errors.credentials"))}</p>'
        if "_form" in errs
        else ""
    )
    form = w.form(
        r,
        name="signin",
        body=username + password,
        submit_sid="form:signin",
        submit_text=c("signin.submit"),
        label=c("signin.title"),
        banner=banner,
        bind=sign_in.bind(),
    )
    return c("signin.title"), (
        f'<div class="narrow"><h1>{esc(c("signin.title"))}</h1>'
        f'<p class="muted">{esc(c("signin.intro"))}</p>{form}</div>'
    )


def _field_order(forum: Forum, names: tuple[str, ...], key: str) -> list[str]:
    ordered = list(names)
    if forum.v.field_order == "shuffled":
        SeedStream(forum.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def new_thread(forum: Forum, r: Renderer, route: str) -> Page:
    c, q = forum.copy, forum.queries
    if not forum.queries.user:
        link = w.link(
            r, sid="signin:new", href="/signin", text=c("new.signin"), attrs_={"role": "signin"}
        )
        return c("new.title"), f"<h1>{esc(c('new.title'))}</h1><p>{link}</p>"
    errs = forum.state.feedback.new_thread_errors
    parts = {
        "title": w.text_field(
            r,
            label=c("new.thread_title"),
            error=error_text(forum, errs.get("title", "")),
            helper=c("new.title_help", n=title_minimum(forum.queries.strict)),
            bind=set_field.bind(form="new_thread", name="title"),
        ),
        "category": _choice(
            forum,
            r,
            "category",
            [
                Option("", c("new.pick_category"), aliases=("none",)),
                *(Option(x.slug, x.name) for x in forum.queries.categories),
            ],
        ),
        "tag": _choice(
            forum,
            r,
            "tag",
            [
                Option("", c("new.no_tag"), aliases=("none",)),
                *(Option(x, x) for x in forum.queries.tag_slugs),
            ],
            helper=c("new.tag_required" if forum.queries.strict else "new.tag_help"),
        ),
    }
    fields = "".join(
        parts[n] for n in _field_order(forum, ("title", "category", "tag"), "new_thread")
    )
    sid = "editor:body"
    style = forum.state.editors.body
    editor = w.rich_text(
        r,
        sid=sid,
        label=c("new.body"),
        format=toggle_format.bind(editor="body"),
        bold=style.bold,
        italic=style.italic,
        bind=set_field.bind(form="new_thread", name="body"),
    )
    hint = (
        f'<small class="hint">{esc(c("new.body_help", n=body_minimum(q.strict)))}</small>'
        if forum.v.helper_text == "on"
        else ""
    )
    body_err = error_region(r, f"err:{sid}", error_text(forum, errs.get("body", "")))
    banner = f'<p class="error-summary" role="alert">{esc(c("new.fix"))}</p>' if errs else ""
    form = w.form(
        r,
        name="new_thread",
        body=fields + editor + hint + body_err,
        submit_sid="form:new_thread",
        submit_text=c("new.submit"),
        label=c("new.title"),
        banner=banner,
        bind=start_thread.bind(),
    )
    return c("new.title"), (
        f'<div class="narrow"><h1>{esc(c("new.title"))}</h1>'
        f'<p class="muted">{esc(c("new.intro"))}</p>{form}</div>'
    )


def _choice(forum: Forum, r: Renderer, name: str, options: list[Option], helper: str = "") -> str:
    """The new thread's category or tag, with its error beneath."""
    chosen = set_choice.bind(name=name)
    sid = chosen.sid("choice")
    error = error_text(forum, forum.state.feedback.new_thread_errors.get(name, ""))
    return w.choice(
        r,
        kind="Choice",
        label=forum.copy(f"new.{name}"),
        options=options,
        attrs_={"form": "new_thread"},
        is_open=sid in forum.ui.open,
        helper=helper,
        bind=chosen,
    ) + error_region(r, f"err:{sid}", error)


def pro(forum: Forum, r: Renderer, route: str) -> Page:
    """Where the sponsored row leads: an advert, nothing to do."""
    c = forum.copy
    product = str(forum.spec.extra.get("product", ""))
    home = w.link(r, sid="pro:home", href="/", text=c("not_found.home"))
    title = c("pro.title", product=product)
    return title, f"<h1>{esc(title)}</h1><p>{esc(c('pro.body', product=product))}</p><p>{home}</p>"
