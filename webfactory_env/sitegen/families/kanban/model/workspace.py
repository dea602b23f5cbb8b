"""The workspace's model: how boards and lists are looked at, the new-card, invitation and
new-board forms, the team, the wizard and the distractors, on top of what cards can do.

Every event the pages send is one transition, named like the event, with its effect
declared once in its decorator: the only place the workspace's business rules live.
"""

from __future__ import annotations

import re
from typing import Literal

from webfactory_env.core.predicates import Contains, Eq, Gt, Lt, Ref
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.kanban.content import TODAY, slug_id, vocab
from webfactory_env.sitegen.families.kanban.model.cards import CardTransitions
from webfactory_env.sitegen.families.kanban.model.effects import (
    form_field,
    new_board,
    new_invite,
)
from webfactory_env.sitegen.families.kanban.model.queries import SORTS, TEMPLATES
from webfactory_env.sitegen.families.kanban.model.state import (
    Board,
    BoardDraft,
    BoardView,
    Invite,
    InviteDraft,
)
from webfactory_env.sitegen.spec import AppEvent

MONTHS_AROUND = 24  # how far the calendar pages from today's month
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
TEXT_FIELDS = {
    "new_card": ("title", "due"),
    "invite": ("name", "email"),
    "new_board": ("name", "description"),
}
_TEXT_LIMITS = {"description": 500}  # form fields: everything else is cut at 200


class KanbanModel(CardTransitions):
    """The workspace's state, its queries and its transitions (no HTML here)."""

    # ------------------------------------------------------------- browsing
    @transition(effect=lambda board, name: Eq(("views", board, name), Ref("value")))
    def set_filter(
        self, ev: AppEvent, *, board: str, name: Literal["label", "assignee", "due"]
    ) -> str | None:
        found, value = self.model.boards.get(board), ev.value or ""
        if found is None:
            return None
        allowed = {
            "label": found.labels,
            "assignee": [m.id for m in self.assignable()],
            "due": ["overdue"],
        }[name]
        if value == "" or value in allowed:
            setattr(self.model.views[board], name, value)
        return None

    @transition(effect=lambda board: Eq(("views", board, "sort"), Ref("value")))
    def set_sort(self, ev: AppEvent, *, board: str) -> str | None:
        if board in self.model.views and ev.value in SORTS:
            self.model.views[board].sort = ev.value or ""
        return None

    @transition(
        effect=lambda board: Eq(("views", board, "q"), Ref("value")),
        field=lambda board: FormField("board", "q", ("views", board, "q")),
    )
    def search_board(self, ev: AppEvent, *, board: str) -> str | None:
        if board in self.model.views:
            self.model.views[board].q = (ev.value or "")[:100]
        return None

    @transition(
        effect=lambda: Eq(("search", "q"), Ref("value")),
        field=lambda: FormField("search", "q", ("search", "q")),
    )
    def search_cards(self, ev: AppEvent) -> str | None:
        self.model.search.q = (ev.value or "")[:100]
        return None

    @transition(effect=lambda page: Eq(("my_tasks", "page"), page))
    def turn_page(self, ev: AppEvent, *, page: int) -> str | None:
        if 1 <= page <= self.my_pages():
            self.model.my_tasks.page = page
        return None

    @transition(effect=lambda month: Eq(("calendar", "month"), month))
    def show_month(self, ev: AppEvent, *, month: str) -> str | None:
        """Page the calendar to `month` (YYYY-MM, within two years of today)."""
        m = _MONTH.match(month)
        if m and 1 <= int(m.group(2)) <= 12:
            months = int(m.group(1)) * 12 + int(m.group(2)) - 1
            now = int(TODAY[:4]) * 12 + int(TODAY[5:7]) - 1
            if abs(months - now) <= MONTHS_AROUND:
                self.model.calendar.month = month
        return None

    @transition(effect=lambda: Eq(("calendar", "board"), Ref("value")))
    def filter_calendar(self, ev: AppEvent) -> str | None:
        value = ev.value or ""
        board = self.model.boards.get(value)
        if value == "" or (board is not None and not board.archived):
            self.model.calendar.board = value
        return None

    @transition(effect=lambda column, order: Eq(("team", "sort"), f"{column}-{order}"))
    def sort_team(
        self, ev: AppEvent, *, column: Literal["name", "open"], order: SortOrder
    ) -> str | None:
        self.model.team.sort = f"{column}-{order}"
        return None

    # ------------------------------------------------------------------ forms
    @transition(
        effect=form_field, field=lambda form, name: FormField(form, name, ("forms", form, name))
    )
    def set_field(
        self, ev: AppEvent, *, form: Literal["new_card", "invite", "new_board"], name: str
    ) -> str | None:
        """A field of the new-card, invitation or new-board form: text, a choice, a date."""
        value = ev.value or ""
        allowed = self._choices(form, name)
        if allowed is None and name not in TEXT_FIELDS.get(form, ()):
            return None
        if allowed is not None and value not in allowed:
            return None
        setattr(getattr(self.model.forms, form), name, value[: _TEXT_LIMITS.get(name, 200)])
        self._revalidate(form, name)
        return None

    # ------------------------------------------------------------------ team
    @transition(mutating=True, effect=new_invite)
    def invite_member(self, ev: AppEvent) -> str | None:
        f = self.model.forms.invite
        for name in ("name", "email"):
            if ev.values is not None and name in ev.values:
                setattr(f, name, ev.values[name][:200])
        errors = self._check_invite()
        self.model.feedback.invite_errors = errors
        if errors:
            return None
        email = f.email.strip().lower()
        self.model.invites[email] = Invite(id=email, name=f.name.strip(), email=email, role=f.role)
        self.flash = self.copy("members.invite_ok", email=email)
        self.model.forms.invite = InviteDraft()
        self.ui.modal = None
        return None

    # ------------------------------------------------------- new-board wizard
    @transition(effect=lambda step: Gt(("wizard", "step"), step))
    def next_wizard_step(self, ev: AppEvent, *, step: int) -> str | None:
        """On to the wizard's next step (`step` is the one its page showed)."""
        wizard, f = self.model.wizard, self.model.forms.new_board
        if wizard.step == 1:
            for name in ("name", "description"):
                if ev.values is not None and name in ev.values:
                    setattr(f, name, ev.values[name][: _TEXT_LIMITS.get(name, 200)])
            self.model.feedback.board_errors = self._check_board()
            if self.model.feedback.board_errors:
                return None
        if wizard.step in (1, 2):
            wizard.step += 1
        return None

    @transition(effect=lambda step: Lt(("wizard", "step"), step))
    def previous_wizard_step(self, ev: AppEvent, *, step: int) -> str | None:
        """Back to the wizard's previous step (`step` is the one its page showed)."""
        if self.model.wizard.step in (2, 3):
            self.model.wizard.step -= 1
        return None

    @transition(
        effect=lambda member: Eq(("forms", "new_board", "members", member), Ref("value|bool")),
        field=lambda member: FormField(
            "board_members", "member", ("forms", "new_board", "members", member)
        ),
    )
    def pick_board_member(self, ev: AppEvent, *, member: str) -> str | None:
        team = self.model.forms.new_board.members
        if member in team and ev.value in ("true", "false"):
            team[member] = ev.value == "true"
        return None

    @transition(mutating=True, effect=new_board)
    def create_board(self, ev: AppEvent) -> str | None:
        wizard = self.model.wizard
        if wizard.step != 3:
            return None
        errors = self._check_board()
        self.model.feedback.board_errors = errors
        if errors:
            wizard.step = 1
            return None
        f, boards = self.model.forms.new_board, self.model.boards
        board = Board(
            id=slug_id("b", f"{self.spec.seed}|new-board|{len(boards)}", set(boards)),
            name=f.name.strip(),
            description=f.description.strip(),
            template=f.template,
            visibility=f.visibility,
            members={self.me.id, *(mid for mid, joins in f.members.items() if joins)},
            columns=list(TEMPLATES[f.template]),
            labels=[vocab()["common_label"]],
        )
        boards[board.id] = board
        self.model.views[board.id] = BoardView()
        wizard.step, wizard.made = 4, board.id
        self.flash = self.copy("wizard.created", name=board.name)
        return f"/board/{board.id}"

    @transition(effect=lambda: Eq(("wizard", "step"), 1))
    def restart_wizard(self, ev: AppEvent) -> str | None:
        if self.model.wizard.step == 4:
            self.model.wizard.step = 1
            self.model.forms.new_board = BoardDraft(members=self._fresh_team())
        return None

    # ------------------------------------------ distractors: no task needs them
    @transition(mutating=True, effect=lambda board: Contains(("starred",), board))
    def star_board(self, ev: AppEvent, *, board: str) -> str | None:
        if board in self.model.boards:
            self.model.starred ^= {board}
        return None

    @transition(mutating=True, effect=lambda target: Contains(("power_ups",), target))
    def add_power_up(self, ev: AppEvent, *, target: str) -> str | None:
        """Power up a board (`target` is its id) or the templates."""
        if target in self.model.boards or target == "templates":
            self.model.power_ups.add(target)
        return None
