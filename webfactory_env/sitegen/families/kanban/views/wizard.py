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
    no_arg,
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
    c, f = app.copy, app.model.forms.new_board
    error = error_text(app, app.model.feedback.board_errors, "name", n=app.board_name_min())
    body = w.text_field(
        r,
        sid="field:new_board.name",
        name="name",
        label=c("wizard.name"),
        value=f.name,
        form="board_details",
        error=error,
        helper=c("wizard.name_help"),
        maxlength=60,
        **app.on("set_field", "new_board.name"),
    ) + w.text_field(
        r,
        sid="field:new_board.description",
        name="description",
        label=c("wizard.description"),
        value=f.description,
        multiline=True,
        form="board_details",
        **app.on("set_field", "new_board.description"),
    )
    return w.form(
        r,
        name="board_details",
        body=body,
        submit_sid="form:board_details",
        submit_text=c("wizard.next"),
        label=c("wizard.details"),
        **no_arg(app.on("next_wizard_step", 1)),
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
        **no_arg(app.on("next_wizard_step", 2)),
    )


def team(app: KanbanModel, r: Renderer) -> str:
    c, joins = app.copy, app.model.forms.new_board.members
    toggles = "".join(
        w.toggle(
            r,
            sid=f"team:{m.id}",
            kind="Toggle",
            name="member",
            label=c("wizard.invite", name=m.name),
            checked=joins.get(m.id, False),
            attrs_={"member": m.name},
            **app.on("pick_board_member", m.id),
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
        **no_arg(app.on("create_board")),
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
        **app.on("restart_wizard"),
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
        **app.on("previous_wizard_step", step),
    )
