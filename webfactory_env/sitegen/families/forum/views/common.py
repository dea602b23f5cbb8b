"""What several forum pages draw alike: author links, badges, thread rows, menu buttons."""

from __future__ import annotations

from collections.abc import Mapping

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.forum.content import vocab
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.rules import (
    body_minimum,
    reply_minimum,
    title_minimum,
)
from webfactory_env.sitegen.families.forum.state import Discussion
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue

Page = tuple[str, str]  # title, main region


def menu_button(
    r: Renderer,
    *,
    sid: str,
    key: str,
    text: str,
    attrs_: Mapping[str, AttrValue],
    glyph: str | None = None,
    is_open: bool = False,
) -> str:
    """A button that opens or closes part of the page (a menu, an inline editor): UI state
    only, so it is structural, like the widgets' own openers."""
    inst = r.instrument(
        sid,
        "Button",
        "click",
        attrs_,
        label=text,
        structural=True,
        **w.sends(w.UI_TOGGLE.bind(key=key)),
    )
    aria = text if glyph and r.variation.aria == "on" else None
    tip = text if r.variation.tooltips == "on" else None
    return (
        f'<button type="button" class="secondary"'
        f"{attrs(aria_expanded='true' if is_open else 'false', aria_label=aria, title=tip)}"
        f"{inst}>{esc(glyph or text)}</button>"
    )


def user_link(
    forum: Forum,
    r: Renderer,
    username: str,
    *,
    sid: str,
    extra: Mapping[str, AttrValue] | None = None,
) -> str:
    name = forum.queries.name_of(username)
    return w.link(
        r,
        sid=sid,
        href=f"/u/{username}",
        text=name,
        kind="Item",
        class_="author",
        attrs_={"type": "user", "username": username, "name": name, **(extra or {})},
    )


def badges(forum: Forum, t: Discussion) -> str:
    c = forum.copy
    out = []
    if t.accepted:
        out.append(f'<span class="badge solved">✓ {esc(c("thread.solved"))}</span>')
    if t.locked:
        out.append(f'<span class="badge locked">{esc(c("thread.locked"))}</span>')
    return "".join(out)


def tag_chips(tags: tuple[str, ...]) -> str:
    if not tags:
        return ""
    return (
        '<span class="tags">'
        + "".join(f'<span class="tag">{esc(x)}</span>' for x in tags)
        + "</span>"
    )


def thread_row(forum: Forum, r: Renderer, t: Discussion, rank: int) -> str:
    c = forum.copy
    replies = len(forum.queries.replies_of(t.id))
    link = w.link(
        r,
        sid=f"thread:{t.id}",
        href=f"/t/{t.id}",
        text=t.title,
        kind="Item",
        class_="title",
        attrs_={
            "type": "thread",
            "id": t.id,
            "title": t.title,
            "category": forum.queries.cat_by_slug[t.category].name,
            "tags": ", ".join(t.tags),
            "author": t.author,
            "votes": t.votes,
            "replies": replies,
            "solved": bool(t.accepted),
            "locked": t.locked,
            "created": t.created,
            "rank": rank,
        },
    )
    meta = c("list.meta", author=forum.queries.name_of(t.author), date=t.created)
    return (
        f'<li class="thread-row"><div class="counts">'
        f"<span><strong>{t.votes}</strong> {esc(c('list.votes'))}</span>"
        f"<span><strong>{replies}</strong> {esc(c('list.replies'))}</span></div>"
        f'<div class="thread-main">{link} {badges(forum, t)}'
        f'<div class="muted">{esc(meta)}</div>{tag_chips(t.tags)}</div></li>'
    )


def sponsored(forum: Forum, r: Renderer) -> str:
    """A promoted row at the top of thread lists (a distractor: it leads to an ad)."""
    if forum.v.distractors == "none":
        return ""
    product = str(forum.spec.extra.get("product", ""))
    text = (
        SeedStream(forum.spec.seed)
        .child("copy")
        .child("promo")
        .choice(vocab()["promo"])
        .format(product=product)
    )
    link = w.link(
        r,
        sid="promo:pro",
        href="/pro",
        text=text,
        kind="Item",
        class_="title",
        attrs_={"type": "ad", "title": text, "distractor": True},
    )
    return (
        f'<li class="thread-row sponsored"><div class="counts">'
        f'<span class="badge">{esc(forum.copy("distractors.sponsored"))}</span></div>'
        f'<div class="thread-main">{link}</div></li>'
    )


def error_text(forum: Forum, key: str) -> str:
    """The message for a validation error key (with the length the rule asks for)."""
    if not key:
        return ""
    minimum = {
        "reply_short": reply_minimum(forum.queries.strict),
        "title_short": title_minimum(forum.queries.strict),
        "body_short": body_minimum(forum.queries.strict),
    }
    if key in minimum:
        return forum.copy(f"errors.{key}", n=minimum[key])
    return forum.copy(f"errors.{key}")


def error_region(r: Renderer, name: str, message: str) -> str:
    """A field's error as a region of its own, so typing can change it alone."""
    return r.subregion(
        name, f'<span class="error" role="alert">{esc(message)}</span>' if message else ""
    )
