"""The three-step new-board wizard: details, lists and visibility, then the team."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.kanban.queries import TEMPLATES, Kanban
from webfactory_env.sitegen.families.kanban.transitions.workspace import (
    create_board,
    next_wizard_step,
    pick_board_member,
    previous_wizard_step,
    restart_wizard,
    set_field,
)
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    draft_choice,
    error_text,
    fix_banner,
    hint,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def new_board(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    step = kanban.state.wizard.step
    steps = w.wizard_steps(
        [c("wizard.details"), c("wizard.columns"), c("wizard.team")], min(step, 4) - 1
    )
    body = {1: details, 2: lists, 3: team}.get(step, created)(kanban, r)
    title = c("wizard.title")
    banner = fix_banner(kanban, kanban.state.feedback.board_errors)
    return title, f"<h1>{esc(title)}</h1>{steps}{banner}{body}"


def details(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    error = error_text(
        kanban, kanban.state.feedback.board_errors, "name", n=kanban.queries.board_name_min()
    )
    body = w.text_field(
        r,
        label=c("wizard.name"),
        form="board_details",
        error=error,
        helper=c("wizard.name_help"),
        maxlength=60,
        bind=set_field.bind(form="new_board", name="name"),
    ) + w.text_field(
        r,
        label=c("wizard.description"),
        multiline=True,
        form="board_details",
        bind=set_field.bind(form="new_board", name="description"),
    )
    return w.form(
        r,
        name="board_details",
        body=body,
        submit_sid="form:board_details",
        submit_text=c("wizard.next"),
        label=c("wizard.details"),
        bind=next_wizard_step.bind(step=1),
    )


def lists(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    body = draft_choice(
        kanban,
        r,
        "new_board",
        "template",
        label=c("wizard.template"),
        options=[Option(t, c(f"wizard.{t}"), aliases=(t,)) for t in TEMPLATES],
        html_form="board_lists",
    ) + draft_choice(
        kanban,
        r,
        "new_board",
        "visibility",
        label=c("wizard.visibility"),
        options=[Option("team", c("wizard.team_visible")), Option("private", c("wizard.private"))],
        html_form="board_lists",
    )
    return w.form(
        r,
        name="board_lists",
        body=body,
        submit_sid="form:board_lists",
        submit_text=c("wizard.next"),
        label=c("wizard.columns"),
        extra_buttons=back(kanban, r, 2),
        bind=next_wizard_step.bind(step=2),
    )


def team(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    toggles = "".join(
        w.toggle(
            r,
            sid=f"team:{m.id}",
            kind="Toggle",
            label=c("wizard.invite", name=m.name),
            attrs_={"member": m.name},
            bind=pick_board_member.bind(member=m.id),
        )
        for m in kanban.queries.members
        if m.teammate
    )
    return w.form(
        r,
        name="board_team",
        body=f'{hint(kanban, "wizard.team_help")}<div class="labels" role="group">{toggles}</div>',
        submit_sid="form:board_team",
        submit_text=c("wizard.create"),
        label=c("wizard.team"),
        extra_buttons=back(kanban, r, 3),
        bind=create_board.bind(),
    )


def created(kanban: Kanban, r: Renderer) -> str:
    c = kanban.copy
    board = kanban.state.boards[kanban.state.wizard.made]
    open_ = w.link(r, sid="wizard:open", href=f"/board/{board.id}", text=c("wizard.open"))
    again = w.button(
        r,
        sid="wizard:restart",
        text=c("wizard.again"),
        variant="secondary",
        attrs_={"role": "restart-wizard"},
        bind=restart_wizard.bind(),
    )
    return (
        f'<p class="notice" role="status">{esc(c("wizard.created", name=board.name))}'
        f'</p><p class="actions">{open_}{again}</p>'
    )


def back(kanban: Kanban, r: Renderer, step: int) -> str:
    return w.button(
        r,
        sid="wizard:back",
        text=kanban.copy("wizard.back"),
        variant="secondary",
        attrs_={"role": "wizard-back"},
        bind=previous_wizard_step.bind(step=step),
    )
