"""Member profiles (their posts and threads) and the member directory."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.forum.queries import Forum
from webfactory_env.sitegen.families.forum.state import Member
from webfactory_env.sitegen.families.forum.transitions.lists import sort_members
from webfactory_env.sitegen.families.forum.views.common import Page, badges, user_link
from webfactory_env.sitegen.html import Renderer, esc


def profile(forum: Forum, r: Renderer, route: str) -> Page:
    c = forum.copy
    u = forum.queries.member_at(route)
    assert u is not None
    posts = forum.queries.posts_by(u.username)
    details = w.detail_view(
        [
            (c("profile.username"), f"@{u.username}"),
            (c("profile.role"), c(f"roles.{u.role}")),
            (c("profile.joined"), u.joined),
            (c("profile.reputation"), str(u.reputation)),
            (c("profile.posts"), str(u.posts)),
            (c("profile.threads"), str(u.threads)),
        ]
    )
    tab = forum.ui.tabs.get("profile", "posts")
    rows = []
    if tab == "threads":
        started = [t for pid, t, _ in posts if pid == t.id]
        for i, t in enumerate(started):
            link = w.link(
                r,
                sid=f"thread:{t.id}",
                href=f"/t/{t.id}",
                text=t.title,
                kind="Item",
                attrs_={
                    "type": "thread",
                    "id": t.id,
                    "title": t.title,
                    "category": forum.queries.cat_by_slug[t.category].name,
                    "author": t.author,
                    "solved": bool(t.accepted),
                    "locked": t.locked,
                    "rank": i + 1,
                },
            )
            rows.append(
                f'<li>{link} <span class="muted">{esc(t.created)}</span> {badges(forum, t)}</li>'
            )
        empty = c("profile.no_threads")
    else:
        for i, (pid, t, created) in enumerate(posts):
            kind = "question" if pid == t.id else "reply"
            link = w.link(
                r,
                sid=f"post:{pid}",
                href=f"/t/{t.id}",
                text=t.title,
                kind="Item",
                attrs_={
                    "type": "post",
                    "post": pid,
                    "kind": kind,
                    "title": t.title,
                    "thread": t.title,
                    "thread_id": t.id,
                    "created": created,
                    "rank": i + 1,
                },
            )
            rows.append(
                f'<li><span class="muted">{esc(c(f"profile.{kind}"))}</span> '
                f'{link} <span class="muted">{esc(created)}</span></li>'
            )
        empty = c("profile.no_posts")
    panel = (
        f'<ol class="activity">{"".join(rows)}</ol>'
        if rows
        else f'<p class="muted">{esc(empty)}</p>'
    )
    tabs = w.tabs(
        r,
        group="profile",
        items=[("posts", c("profile.tab_posts")), ("threads", c("profile.tab_threads"))],
        active=tab,
        panel=panel,
        label=c("profile.activity"),
    )
    return u.name, (
        f'<div class="profile"><div class="avatar" aria-hidden="true">'
        f"{esc(u.name[:1])}</div><div><h1>{esc(u.name)}</h1>"
        f"{w.toast(forum.ui.flash)}{details}</div></div>{tabs}"
    )


def members(forum: Forum, r: Renderer, route: str) -> Page:
    c = forum.copy
    col, _, order = forum.state.browsing.members_sort.partition("-")
    key = {
        "name": lambda u: (u.name.lower(),),
        "joined": lambda u: (u.joined, u.name.lower()),
        "reputation": lambda u: (u.reputation, u.name.lower()),
        "posts": lambda u: (u.posts, u.name.lower()),
    }[col]
    people: list[Member] = sorted(forum.state.members.values(), key=key, reverse=order == "desc")
    rows = []
    for i, u in enumerate(people):
        link = user_link(
            forum,
            r,
            u.username,
            sid=f"user:{u.username}",
            extra={
                "rank": i + 1,
                "reputation": u.reputation,
                "posts": u.posts,
                "joined": u.joined,
                "role": u.role,
            },
        )
        role = (
            f' <span class="badge">{esc(c(f"roles.{u.role}"))}</span>' if u.role != "member" else ""
        )
        rows.append([link + role, esc(u.joined), str(u.reputation), str(u.posts)])
    table = w.data_table(
        r,
        key="members",
        columns=[
            ("name", c("members.name"), True),
            ("joined", c("members.joined"), True),
            ("reputation", c("members.reputation"), True),
            ("posts", c("members.posts"), True),
        ],
        rows=rows,
        sort=(col, order),
        caption=c("members.caption", n=len(people)),
        bind=sort_members.bind(),
    )
    return c("members.title"), f"<h1>{esc(c('members.title'))}</h1>{table}"
