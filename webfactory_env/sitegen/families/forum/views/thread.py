"""A thread's page: its question and replies with votes, answers to accept, one's own reply
to edit or delete, and the reply box."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.rules import reply_minimum
from webfactory_env.sitegen.families.forum.state import Discussion, Reply
from webfactory_env.sitegen.families.forum.transitions.forms import set_field, toggle_format
from webfactory_env.sitegen.families.forum.transitions.lists import sort_replies
from webfactory_env.sitegen.families.forum.transitions.posts import (
    accept_answer,
    delete_reply,
    edit_reply,
    follow_thread,
    post_reply,
    report_post,
    type_edit,
    unaccept_answer,
    unfollow_thread,
    upvote,
    withdraw_vote,
)
from webfactory_env.sitegen.families.forum.views.common import (
    Page,
    badges,
    error_region,
    error_text,
    menu_button,
    tag_chips,
    user_link,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AttrValue, Option


def thread(forum: Forum, r: Renderer, route: str) -> Page:
    c = forum.copy
    t = forum.queries.thread_at(route)
    assert t is not None
    cat = forum.queries.cat_by_slug[t.category]
    crumbs = w.breadcrumbs(
        r,
        [(c("nav.home"), "/"), (cat.name, f"/c/{cat.slug}"), (t.title, None)],
        label=c("thread.crumbs"),
    )
    notice = ""
    if t.locked:
        notice = f'<p class="notice locked" role="status">{esc(c("thread.locked_note"))}</p>'
    question = _post(forum, r, t, t, rank=0, extra=tag_chips(t.tags), tools=_follow(forum, r, t))
    replies = forum.queries.sorted_replies(t.id)
    items = "".join(_post(forum, r, t, p, rank=i + 1) for i, p in enumerate(replies))
    sort = ""
    if replies:
        sort = w.choice(
            r,
            sid="sort:replies",
            kind="Sort",
            name="reply_sort",
            label=c("thread.sort"),
            options=[
                Option(
                    "oldest",
                    c("thread.oldest"),
                    (("key", "oldest"),),
                    ("oldest first", "date", "oldest"),
                ),
                Option(
                    "votes",
                    c("thread.top"),
                    (("key", "votes"),),
                    ("most votes", "top", "votes", "score"),
                ),
            ],
            selected=forum.state.browsing.reply_sort,
            is_open="sort:replies" in forum.ui.open,
            bind=sort_replies.bind(),
        )
    heading = c("thread.reply_one") if len(replies) == 1 else c("thread.reply_many", n=len(replies))
    return t.title, (
        f"{crumbs}<h1>{esc(t.title)} {badges(forum, t)}</h1>{w.toast(forum.ui.flash)}{notice}"
        f"{question}"
        f'<div class="replies-head"><h2>{esc(heading)}</h2>{sort}</div>'
        f'<ol class="replies">{items}</ol>'
        f"{_reply_box(forum, r, t)}{_dialogs(forum, r, t)}"
    )


def _follow(forum: Forum, r: Renderer, t: Discussion) -> str:
    if forum.v.distractors != "many":
        return ""
    following = t.id in forum.state.activity.following
    return w.button(
        r,
        sid=f"follow:{t.id}",
        text=forum.copy("distractors.unfollow" if following else "distractors.follow"),
        variant="secondary",
        attrs_={"role": "follow", "thread": t.id, "distractor": True},
        bind=(unfollow_thread if following else follow_thread).bind(thread=t.id),
    )


def _post(
    forum: Forum,
    r: Renderer,
    t: Discussion,
    post: Discussion | Reply,
    *,
    rank: int,
    extra: str = "",
    tools: str = "",
) -> str:
    """The question (`post` is the thread) or one reply, with its votes and actions."""
    c = forum.copy
    pid, author = post.id, post.author
    is_reply = isinstance(post, Reply)
    context = "reply" if is_reply else "question"
    accepted = is_reply and t.accepted == pid
    own = bool(forum.queries.user) and author == forum.queries.user
    voted = forum.queries.user in post.upvoters
    vote_attrs: dict[str, AttrValue] = {
        "role": "upvote",
        "post": pid,
        "author": author,
        "context": context,
        "voted": voted,
        "own": own,
        "accepted": accepted,
        "votes": post.votes,
    }
    if is_reply:
        vote_attrs["rank"] = rank
    vote = w.button(
        r,
        sid=f"upvote:{pid}",
        text=c("post.unvote") if voted else c("post.upvote"),
        attrs_=vote_attrs,
        icon="▲",
        variant="primary" if voted else "secondary",
        disabled=own or t.locked,
        bind=(withdraw_vote if voted else upvote).bind(post=pid),
    )
    who = user_link(forum, r, author, sid=f"author:{pid}", extra={"context": context, "post": pid})
    actions = [tools] if tools else []
    if is_reply and forum.queries.user and t.author == forum.queries.user and not t.locked:
        actions.append(_accept_button(forum, r, pid, author, rank, post.votes, accepted))
    if is_reply and own and not t.locked:
        actions.append(_own_actions(forum, r, pid, accepted))
    if forum.v.distractors != "none":
        actions.append(
            w.button(
                r,
                sid=f"report:{pid}",
                text=c("distractors.report"),
                variant="secondary",
                attrs_={"role": "report", "post": pid, "distractor": True},
                bind=report_post.bind(post=pid),
            )
        )
    badge = f'<span class="badge solved">✓ {esc(c("post.accepted"))}</span>' if accepted else ""
    text = esc(post.body)
    if post.bold:
        text = f"<strong>{text}</strong>"
    if post.italic:
        text = f"<em>{text}</em>"
    editing = ""
    if (
        isinstance(post, Reply)
        and own
        and forum.v.form_mode == "inline"
        and f"edit:{pid}" in forum.ui.open
    ):
        editing = _edit_form(forum, r, post, cancel=True)
    tag = "li" if is_reply else "article"
    cls = "post reply" + (" accepted" if accepted else "") if is_reply else "post question"
    return (
        f'<{tag} class="{cls}"><div class="vote">{vote}'
        f'<span class="score" aria-label="{esc(c("post.score"))}">{post.votes}</span></div>'
        f'<div class="post-main"><div class="post-meta">{who} · '
        f'<span class="muted">{esc(post.created)}</span> {badge}</div>'
        f'<div class="post-body">{text}</div>{extra}{editing}'
        f'<div class="actions">{"".join(actions)}</div></div></{tag}>'
    )


def _accept_button(
    forum: Forum, r: Renderer, pid: str, author: str, rank: int, votes: int, accepted: bool
) -> str:
    """The thread author's button on a reply: accept it, or take the mark back."""
    c = forum.copy
    if accepted:
        return w.button(
            r,
            sid=f"unaccept:{pid}",
            text=c("post.unaccept"),
            variant="secondary",
            attrs_={"role": "unaccept", "post": pid, "author": author, "rank": rank},
            bind=unaccept_answer.bind(reply=pid),
        )
    return w.button(
        r,
        sid=f"accept:{pid}",
        text=c("post.accept"),
        attrs_={"role": "accept", "post": pid, "author": author, "rank": rank, "votes": votes},
        bind=accept_answer.bind(reply=pid),
    )


def _own_actions(forum: Forum, r: Renderer, pid: str, accepted: bool) -> str:
    """The "…" menu of one's own reply: edit (inline or in a dialog), delete (confirmed)."""
    c = forum.copy
    key = f"actions:{pid}"
    is_open = key in forum.ui.open
    opener = menu_button(
        r,
        sid=key,
        key=key,
        text=c("post.more"),
        glyph="…",
        attrs_={"role": "post-actions", "post": pid},
        is_open=is_open,
    )
    if not is_open:
        return f'<span class="post-menu">{opener}</span>'
    if forum.v.form_mode == "modal":
        edit = w.modal_opener(
            r, name=f"edit:{pid}", text=c("post.edit"), attrs_={"role": "edit", "post": pid}
        )
    else:
        edit = menu_button(
            r,
            sid=f"edit:{pid}",
            key=f"edit:{pid}",
            text=c("post.edit"),
            attrs_={"role": "edit", "post": pid},
        )
    items = [f"<li>{edit}</li>"]
    if accepted:
        items.append(f'<li class="muted">{esc(c("post.no_delete"))}</li>')
    else:
        delete = w.modal_opener(
            r, name=f"delete:{pid}", text=c("post.delete"), attrs_={"role": "delete", "post": pid}
        )
        items.append(f"<li>{delete}</li>")
    return (
        f'<span class="post-menu">{opener}'
        f'<ul class="listbox" role="menu">{"".join(items)}</ul></span>'
    )


def _edit_form(forum: Forum, r: Renderer, reply: Reply, *, cancel: bool) -> str:
    c = forum.copy
    draft = forum.state.forms.edit_reply
    value = draft.body if draft.post == reply.id else reply.body
    field = w.text_field(
        r,
        sid="field:edit_reply.body",
        label=c("edit.body"),
        value=value,  # the reply itself until it is edited
        multiline=True,
        error=error_text(forum, forum.state.feedback.edit_errors.get("body", "")),
        helper=c("reply.help", n=reply_minimum(forum.queries.strict)),
        bind=type_edit.bind(reply=reply.id),
    )
    extra = ""
    if cancel:
        extra = menu_button(
            r,
            sid=f"edit:{reply.id}:cancel",
            key=f"edit:{reply.id}",
            text=c("edit.cancel"),
            attrs_={"role": "cancel-edit", "post": reply.id},
        )
    return w.form(
        r,
        name="edit_reply",
        body=field,
        submit_sid="form:edit_reply",
        submit_text=c("edit.save"),
        label=c("edit.title"),
        extra_buttons=extra,
        bind=edit_reply.bind(),
    )


def _dialogs(forum: Forum, r: Renderer, t: Discussion) -> str:
    """The open dialog about one's own reply: its editor, or "delete it?"."""
    c = forum.copy
    name = forum.ui.modal or ""
    kind, _, pid = name.partition(":")
    mine = forum.queries.my_reply(t.id)
    if mine is None or mine.id != pid or t.locked:
        return ""
    if kind == "edit" and forum.v.form_mode == "modal":
        return w.modal(
            r,
            name=name,
            title=c("edit.title"),
            close_text=c("edit.cancel"),
            body=_edit_form(forum, r, mine, cancel=False),
        )
    if kind == "delete" and t.accepted != pid:
        confirm = w.button(
            r,
            sid=f"confirm-delete:{pid}",
            text=c("delete.confirm"),
            # `form` names the dialog it answers: its controls are what can be used there
            attrs_={"role": "confirm-delete", "post": pid, "form": "delete_reply"},
            bind=delete_reply.bind(reply=pid),
        )
        return w.modal(
            r,
            name=name,
            title=c("delete.title"),
            close_text=c("delete.cancel"),
            body=f'<p>{esc(c("delete.body"))}</p><div class="actions">{confirm}</div>',
        )
    return ""


def _reply_box(forum: Forum, r: Renderer, t: Discussion) -> str:
    c = forum.copy
    if t.locked:
        return ""
    if not forum.queries.user:
        link = w.link(
            r,
            sid="signin:reply",
            href="/signin",
            text=c("thread.signin_to_reply"),
            attrs_={"role": "signin"},
        )
        return f'<p class="reply-box">{link}</p>'
    if forum.queries.my_reply(t.id) is not None:
        return f'<p class="reply-box muted">{esc(c("thread.already"))}</p>'
    err = forum.state.feedback.reply_errors.get("body", "")
    sid = "editor:reply"
    style = forum.state.editors.reply
    editor = w.rich_text(
        r,
        sid=sid,
        name="reply",
        label=c("reply.label"),
        format=toggle_format.bind(editor="reply"),
        bold=style.bold,
        italic=style.italic,
        bind=set_field.bind(form="reply", name="body"),
    )
    hint = (
        f'<small class="hint">{esc(c("reply.help", n=reply_minimum(forum.queries.strict)))}</small>'
        if forum.v.helper_text == "on"
        else ""
    )
    errors = error_region(r, f"err:{sid}", error_text(forum, err))
    banner = f'<p class="error-summary" role="alert">{esc(c("reply.fix"))}</p>' if err else ""
    form = w.form(
        r,
        name="reply",
        body=editor + hint + errors,
        submit_sid="form:reply",
        submit_text=c("reply.submit"),
        label=c("reply.title"),
        banner=banner,
        bind=post_reply.bind(),
    )
    return f'<section class="reply-box"><h2>{esc(c("reply.title"))}</h2>{form}</section>'
