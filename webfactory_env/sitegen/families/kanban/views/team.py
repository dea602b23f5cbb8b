"""The team: the members table with invitations and the invite form, and a member's page."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.kanban.queries import Kanban
from webfactory_env.sitegen.families.kanban.rules import ACCESS
from webfactory_env.sitegen.families.kanban.transitions.workspace import (
    invite_member,
    set_field,
    sort_team,
)
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    card_link,
    draft_choice,
    error_text,
    field_order,
    fix_banner,
    modal_open,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def members(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    rows = []
    for rank, m in enumerate(kanban.queries.team_rows(), 1):
        open_ = len(kanban.queries.open_cards_of(m.id))
        link = w.link(
            r,
            sid=f"member:{m.id}",
            href=f"/member/{m.id}",
            text=m.name,
            kind="Item",
            attrs_={
                "type": "member",
                "id": m.id,
                "name": m.name,
                "role": m.role,
                "email": m.email,
                "active": m.active,
                "open": open_,
                "rank": rank,
            },
        )
        status = c("members.active") if m.active else c("members.deactivated")
        rows.append([link, esc(m.role), esc(m.email), str(open_), esc(status)])
    for inv in kanban.state.invites.values():
        rows.append(
            [
                esc(inv.name),
                esc(c(f"roles.{inv.role}")),
                esc(inv.email),
                "—",
                esc(c("members.invited")),
            ]
        )
    col, _, order = kanban.state.team.sort.partition("-")
    table = w.data_table(
        r,
        key="members",
        rows=rows,
        sort=(col, order),
        caption=c("members.caption"),
        bind=sort_team.bind(),
        columns=[
            ("name", c("members.name"), True),
            ("role", c("members.role"), False),
            ("email", c("members.email"), False),
            ("open", c("members.open"), True),
            ("status", c("members.status"), False),
        ],
    )
    opener = invite = ""
    if kanban.v.form_mode == "modal":
        if modal_open(kanban, "invite"):
            invite = w.modal(
                r,
                name="invite",
                title=c("members.invite"),
                body=invite_form(kanban, r),
                close_text=c("members.close"),
            )
        else:
            opener = w.modal_opener(
                r, name="invite", text=c("members.invite_open"), attrs_={"form": "invite"}
            )
    else:
        invite = (
            f'<section class="invite"><h2>{esc(c("members.invite"))}</h2>'
            f"{invite_form(kanban, r)}</section>"
        )
    roles = w.accordion(
        r,
        group="roles",
        open_keys=kanban.ui.open,
        sections=[(a, c(f"roles.{a}"), f"<p>{esc(c(f'roles.{a}_help'))}</p>") for a in ACCESS],
    )
    title = c("members.title")
    return title, (
        f'<div class="board-head"><h1>{esc(title)}</h1>{opener}</div>'
        f"{w.toast(kanban.ui.flash)}{table}{invite}"
        f"<h2>{esc(c('members.roles'))}</h2>{roles}"
    )


def invite_form(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    errors = kanban.state.feedback.invite_errors
    fields = {
        "name": w.text_field(
            r,
            label=c("members.invite_name"),
            error=error_text(kanban, errors, "name"),
            autocomplete="name",
            bind=set_field.bind(form="invite", name="name"),
        ),
        "email": w.text_field(
            r,
            label=c("members.invite_email"),
            error=error_text(kanban, errors, "email"),
            input_type="email",
            autocomplete="email",
            helper=c("members.email_help"),
            bind=set_field.bind(form="invite", name="email"),
        ),
        "role": draft_choice(
            kanban,
            r,
            "invite",
            "role",
            label=c("members.invite_role"),
            options=[Option(a, c(f"roles.{a}")) for a in ACCESS],
        ),
    }
    body = "".join(fields[n] for n in field_order(kanban, tuple(fields), "invite"))
    return w.form(
        r,
        name="invite",
        body=body,
        submit_sid="form:invite",
        submit_text=c("members.invite_submit"),
        label=c("members.invite"),
        banner=fix_banner(kanban, errors),
        attrs_={"role": "invite"},
        bind=invite_member.bind(),
    )


def member(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    m = kanban.queries.by_member[route[len("/member/") :]]
    crumbs = w.breadcrumbs(
        r, [(c("member.back"), "/members"), (m.name, None)], label=c("card.crumbs")
    )
    status = c("members.active") if m.active else c("members.deactivated")
    details = w.detail_view(
        [(c("members.role"), m.role), (c("members.email"), m.email), (c("members.status"), status)]
    )
    notice = (
        ""
        if m.active
        else f'<p class="error-summary" role="status">{esc(c("member.deactivated"))}</p>'
    )
    items = "".join(
        "<li>"
        + card_link(kanban, r, x, i + 1, "mcard")
        + f' <span class="muted">{esc(kanban.queries.board_of(x).name)}</span></li>'
        for i, x in enumerate(kanban.queries.open_cards_of(m.id))
    )
    listing = (
        f'<ul class="tasks">{items}</ul>'
        if items
        else f'<p class="muted">{esc(c("member.none"))}</p>'
    )
    return m.name, (
        f"{crumbs}<h1>{esc(m.name)}</h1>{notice}{details}<h2>{esc(c('member.cards'))}</h2>{listing}"
    )
