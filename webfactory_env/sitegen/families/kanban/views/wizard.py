"""The three-step new-board wizard: details, lists and visibility, then the team."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.kanban.model import TEMPLATES, KanbanModel
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    draft_choice,
    error_text,
    fix_banner,
    hint,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def new_board(app: KanbanModel, r: Renderer, route: str) -> Page:
    c = app.copy
    step = app.model.wizard.step
    steps = w.wizard_steps(
        [c("wizard.details"), c("wizard.columns"), c("wizard.team")], min(step, 4) - 1
    )
    body = {1: details, 2: lists, 3: team}.get(step, created)(app, r)
    title = c("wizard.title")
    banner = fix_banner(app, app.model.feedback.board_errors)
    return title, f"<h1>{esc(title)}</h1>{steps}{banner}{body}"


def details(app: KanbanModel, r: Renderer) -> str:
    c = app.copy
    error = error_text(app, app.model.feedback.board_errors, "name", n=app.board_name_min())
    body = w.text_field(
        r,
        label=c("wizard.name"),
        form="board_details",
        error=error,
        helper=c("wizard.name_help"),
        maxlength=60,
        bind=app.set_field.bind(form="new_board", name="name"),
    ) + w.text_field(
        r,
        label=c("wizard.description"),
        multiline=True,
        form="board_details",
        bind=app.set_field.bind(form="new_board", name="description"),
    )
    return w.form(
        r,
        name="board_details",
        body=body,
        submit_sid="form:board_details",
        submit_text=c("wizard.next"),
        label=c("wizard.details"),
        bind=app.next_wizard_step.bind(step=1),
    )


def lists(app: KanbanModel, r: Renderer) -> str:
    c = app.copy
    body = draft_choice(
        app,
        r,
        "new_board",
        "template",
        label=c("wizard.template"),
        options=[Option(t, c(f"wizard.{t}"), aliases=(t,)) for t in TEMPLATES],
        html_form="board_lists",
    ) + draft_choice(
        app,
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
        extra_buttons=back(app, r, 2),
        bind=app.next_wizard_step.bind(step=2),
    )


def team(app: KanbanModel, r: Renderer) -> str:
    c = app.copy
    toggles = "".join(
        w.toggle(
            r,
            sid=f"team:{m.id}",
            kind="Toggle",
            label=c("wizard.invite", name=m.name),
            attrs_={"member": m.name},
            bind=app.pick_board_member.bind(member=m.id),
        )
        for m in app.members
        if m.teammate
    )
    return w.form(
        r,
        name="board_team",
        body=f'{hint(app, "wizard.team_help")}<div class="labels" role="group">{toggles}</div>',
        submit_sid="form:board_team",
        submit_text=c("wizard.create"),
        label=c("wizard.team"),
        extra_buttons=back(app, r, 3),
        bind=app.create_board.bind(),
    )


def created(app: KanbanModel, r: Renderer) -> str:
    c = app.copy
    board = app.model.boards[app.model.wizard.made]
    open_ = w.link(r, sid="wizard:open", href=f"/board/{board.id}", text=c("wizard.open"))
    again = w.button(
        r,
        sid="wizard:restart",
        text=c("wizard.again"),
        variant="secondary",
        attrs_={"role": "restart-wizard"},
        bind=app.restart_wizard.bind(),
    )
    return (
        f'<p class="notice" role="status">{esc(c("wizard.created", name=board.name))}'
        f'</p><p class="actions">{open_}{again}</p>'
    )


def back(app: KanbanModel, r: Renderer, step: int) -> str:
    return w.button(
        r,
        sid="wizard:back",
        text=app.copy("wizard.back"),
        variant="secondary",
        attrs_={"role": "wizard-back"},
        bind=app.previous_wizard_step.bind(step=step),
    )
