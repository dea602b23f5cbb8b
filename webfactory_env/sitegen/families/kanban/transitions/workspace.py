"""The workspace's transitions besides the cards': how boards and lists are looked at, the
invitation and new-board forms, the team, the wizard and the distractors.

Every event the pages send is one transition, named like the event, with its effect
declared once in its decorator: the only place the workspace's business rules live.
"""

from __future__ import annotations

import re
from typing import Literal

from webfactory_env.core.predicates import Contains, Eq, Gt, Lt, Ref
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.kanban.content import TODAY, slug_id, vocab
from webfactory_env.sitegen.families.kanban.queries import (
    SORTS,
    TEMPLATES,
    Kanban,
    route_board,
    set_error,
)
from webfactory_env.sitegen.families.kanban.state import (
    Board,
    BoardDraft,
    BoardView,
    Invite,
    InviteDraft,
)
from webfactory_env.sitegen.families.kanban.transitions.effects import (
    form_field,
    new_board,
    new_invite,
)

MONTHS_AROUND = 24  # how far the calendar pages from today's month
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
TEXT_FIELDS = {
    "new_card": ("title", "due"),
    "invite": ("name", "email"),
    "new_board": ("name", "description"),
}
_TEXT_LIMITS = {"description": 500}  # form fields: everything else is cut at 200


def _revalidate(kanban: Kanban, form: str, name: str) -> None:
    """Sync validation: a field's error follows its value while the user edits it."""
    if kanban.v.validation != "sync" or form not in ("new_card", "invite", "new_board"):
        return
    errors = kanban.queries.errors_of(form)
    typed = str(getattr(getattr(kanban.state.forms, form), name, "")).strip()
    if not typed and name not in errors:
        return  # an untouched empty field is not an error yet
    if form == "new_card":
        board = route_board(kanban)
        found = kanban.queries.check_new_card(board) if board else {}
    elif form == "invite":
        found = kanban.queries.check_invite()
    else:
        found = kanban.queries.check_board()
    set_error(errors, name, found.get(name, ""))


# ------------------------------------------------------------- browsing
@transition(effect=lambda board, name: Eq(("views", board, name), Ref("value")))
def set_filter(
    kanban: Kanban,
    *,
    board: str,
    name: Literal["label", "assignee", "due"],
    value: str | None = None,
) -> str | None:
    found, value = kanban.state.boards.get(board), value or ""
    if found is None:
        return None
    allowed = {
        "label": found.labels,
        "assignee": [m.id for m in kanban.queries.assignable()],
        "due": ["overdue"],
    }[name]
    if value == "" or value in allowed:
        setattr(kanban.state.views[board], name, value)
    return None


@transition(effect=lambda board: Eq(("views", board, "sort"), Ref("value")))
def set_sort(kanban: Kanban, *, board: str, value: str | None = None) -> str | None:
    if board in kanban.state.views and value in SORTS:
        kanban.state.views[board].sort = value or ""
    return None


@transition(
    effect=lambda board: Eq(("views", board, "q"), Ref("value")),
    field=lambda board: FormField("board", "q", ("views", board, "q")),
)
def search_board(kanban: Kanban, *, board: str, value: str | None = None) -> str | None:
    if board in kanban.state.views:
        kanban.state.views[board].q = (value or "")[:100]
    return None


@transition(
    effect=lambda: Eq(("search", "q"), Ref("value")),
    field=lambda: FormField("search", "q", ("search", "q")),
)
def search_cards(kanban: Kanban, *, value: str | None = None) -> str | None:
    kanban.state.search.q = (value or "")[:100]
    return None


@transition(effect=lambda page: Eq(("my_tasks", "page"), page))
def turn_page(kanban: Kanban, *, page: int) -> str | None:
    if 1 <= page <= kanban.queries.my_pages():
        kanban.state.my_tasks.page = page
    return None


@transition(effect=lambda month: Eq(("calendar", "month"), month))
def show_month(kanban: Kanban, *, month: str) -> str | None:
    """Page the calendar to `month` (YYYY-MM, within two years of today)."""
    m = _MONTH.match(month)
    if m and 1 <= int(m.group(2)) <= 12:
        months = int(m.group(1)) * 12 + int(m.group(2)) - 1
        now = int(TODAY[:4]) * 12 + int(TODAY[5:7]) - 1
        if abs(months - now) <= MONTHS_AROUND:
            kanban.state.calendar.month = month
    return None


@transition(effect=lambda: Eq(("calendar", "board"), Ref("value")))
def filter_calendar(kanban: Kanban, *, value: str | None = None) -> str | None:
    value = value or ""
    board = kanban.state.boards.get(value)
    if value == "" or (board is not None and not board.archived):
        kanban.state.calendar.board = value
    return None


@transition(effect=lambda column, order: Eq(("team", "sort"), f"{column}-{order}"))
def sort_team(kanban: Kanban, *, column: Literal["name", "open"], order: SortOrder) -> str | None:
    kanban.state.team.sort = f"{column}-{order}"
    return None


# ------------------------------------------------------------------ forms
@transition(
    effect=form_field, field=lambda form, name: FormField(form, name, ("forms", form, name))
)
def set_field(
    kanban: Kanban,
    *,
    form: Literal["new_card", "invite", "new_board"],
    name: str,
    value: str | None = None,
) -> str | None:
    """A field of the new-card, invitation or new-board form: text, a choice, a date."""
    value = value or ""
    allowed = kanban.queries.choices(form, name)
    if allowed is None and name not in TEXT_FIELDS.get(form, ()):
        return None
    if allowed is not None and value not in allowed:
        return None
    setattr(getattr(kanban.state.forms, form), name, value[: _TEXT_LIMITS.get(name, 200)])
    _revalidate(kanban, form, name)
    return None


# ------------------------------------------------------------------ team
@transition(mutating=True, effect=new_invite)
def invite_member(kanban: Kanban, *, values: dict[str, str] | None = None) -> str | None:
    f = kanban.state.forms.invite
    for name in ("name", "email"):
        if values is not None and name in values:
            setattr(f, name, values[name][:200])
    errors = kanban.queries.check_invite()
    kanban.state.feedback.invite_errors = errors
    if errors:
        return None
    email = f.email.strip().lower()
    kanban.state.invites[email] = Invite(id=email, name=f.name.strip(), email=email, role=f.role)
    kanban.ui.flash = kanban.copy("members.invite_ok", email=email)
    kanban.state.forms.invite = InviteDraft()
    kanban.ui.modal = None
    return None


# ------------------------------------------------------- new-board wizard
@transition(effect=lambda step: Gt(("wizard", "step"), step))
def next_wizard_step(
    kanban: Kanban, *, step: int, values: dict[str, str] | None = None
) -> str | None:
    """On to the wizard's next step (`step` is the one its page showed)."""
    wizard, f = kanban.state.wizard, kanban.state.forms.new_board
    if wizard.step == 1:
        for name in ("name", "description"):
            if values is not None and name in values:
                setattr(f, name, values[name][: _TEXT_LIMITS.get(name, 200)])
        kanban.state.feedback.board_errors = kanban.queries.check_board()
        if kanban.state.feedback.board_errors:
            return None
    if wizard.step in (1, 2):
        wizard.step += 1
    return None


@transition(effect=lambda step: Lt(("wizard", "step"), step))
def previous_wizard_step(kanban: Kanban, *, step: int) -> str | None:
    """Back to the wizard's previous step (`step` is the one its page showed)."""
    if kanban.state.wizard.step in (2, 3):
        kanban.state.wizard.step -= 1
    return None


@transition(
    effect=lambda member: Eq(("forms", "new_board", "members", member), Ref("value|bool")),
    field=lambda member: FormField(
        "board_members", "member", ("forms", "new_board", "members", member)
    ),
)
def pick_board_member(kanban: Kanban, *, member: str, value: str | None = None) -> str | None:
    team = kanban.state.forms.new_board.members
    if member in team and value in ("true", "false"):
        team[member] = value == "true"
    return None


@transition(mutating=True, effect=new_board)
def create_board(kanban: Kanban) -> str | None:
    wizard = kanban.state.wizard
    if wizard.step != 3:
        return None
    errors = kanban.queries.check_board()
    kanban.state.feedback.board_errors = errors
    if errors:
        wizard.step = 1
        return None
    f, boards = kanban.state.forms.new_board, kanban.state.boards
    board = Board(
        id=slug_id("b", f"{kanban.spec.seed}|new-board|{len(boards)}", set(boards)),
        name=f.name.strip(),
        description=f.description.strip(),
        template=f.template,
        visibility=f.visibility,
        members={kanban.queries.me.id, *(mid for mid, joins in f.members.items() if joins)},
        columns=list(TEMPLATES[f.template]),
        labels=[vocab()["common_label"]],
    )
    boards[board.id] = board
    kanban.state.views[board.id] = BoardView()
    wizard.step, wizard.made = 4, board.id
    kanban.ui.flash = kanban.copy("wizard.created", name=board.name)
    return f"/board/{board.id}"


@transition(effect=lambda: Eq(("wizard", "step"), 1))
def restart_wizard(kanban: Kanban) -> str | None:
    if kanban.state.wizard.step == 4:
        kanban.state.wizard.step = 1
        kanban.state.forms.new_board = BoardDraft(members=kanban.queries.fresh_team())
    return None


# ------------------------------------------ distractors: no task needs them
@transition(mutating=True, effect=lambda board: Contains(("starred",), board))
def star_board(kanban: Kanban, *, board: str) -> str | None:
    if board in kanban.state.boards:
        kanban.state.starred ^= {board}
    return None


@transition(mutating=True, effect=lambda target: Contains(("power_ups",), target))
def add_power_up(kanban: Kanban, *, target: str) -> str | None:
    """Power up a board (`target` is its id) or the templates."""
    if target in kanban.state.boards or target == "templates":
        kanban.state.power_ups.add(target)
    return None
