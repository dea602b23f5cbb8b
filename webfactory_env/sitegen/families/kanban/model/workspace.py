"""The workspace's model: how boards and lists are looked at, the new-card, invitation and
new-board forms, the team, the wizard and the distractors, on top of what cards can do.

Every event the pages send is one transition, named like the event, with its effect
declared once in its decorator: the only place the workspace's business rules live.
"""

from __future__ import annotations

import re

from webfactory_env.core.predicates import Contains, Eq, Gt, Lt, Ref
from webfactory_env.sitegen.app import transition
from webfactory_env.sitegen.families.kanban.content import TODAY, slug_id, vocab
from webfactory_env.sitegen.families.kanban.model.cards import CardTransitions
from webfactory_env.sitegen.families.kanban.model.effects import (
    form_field,
    new_board,
    new_invite,
    split_arg,
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
    @transition("set_filter", effect=lambda arg: Eq(("views", *split_arg(arg, ":")), Ref("value")))
    def set_filter(self, ev: AppEvent) -> str | None:
        bid, name = split_arg(ev.arg, ":")
        board, value = self.model.boards.get(bid), ev.value or ""
        if board is None or name not in ("label", "assignee", "due"):
            return None
        allowed = {
            "label": board.labels,
            "assignee": [m.id for m in self.assignable()],
            "due": ["overdue"],
        }[name]
        if value == "" or value in allowed:
            setattr(self.model.views[bid], name, value)
        return None

    @transition("set_sort", effect=lambda bid: Eq(("views", bid or "", "sort"), Ref("value")))
    def set_sort(self, ev: AppEvent) -> str | None:
        if ev.arg in self.model.views and ev.value in SORTS:
            self.model.views[ev.arg or ""].sort = ev.value or ""
        return None

    @transition("search_board", effect=lambda bid: Eq(("views", bid or "", "q"), Ref("value")))
    def search_board(self, ev: AppEvent) -> str | None:
        if ev.arg in self.model.views:
            self.model.views[ev.arg or ""].q = (ev.value or "")[:100]
        return None

    @transition("search_cards", effect=lambda _: Eq(("search", "q"), Ref("value")))
    def search_cards(self, ev: AppEvent) -> str | None:
        self.model.search.q = (ev.value or "")[:100]
        return None

    @transition("turn_page")
    def turn_page(self, ev: AppEvent) -> str | None:
        arg = ev.arg or ""
        if arg.isdigit() and 1 <= int(arg) <= self.my_pages():
            self.model.my_tasks.page = int(arg)
        return None

    @transition("show_month", effect=lambda month: Eq(("calendar", "month"), month or ""))
    def show_month(self, ev: AppEvent) -> str | None:
        """Page the calendar to the month `arg` (YYYY-MM, within two years of today)."""
        m = _MONTH.match(ev.arg or "")
        if m and 1 <= int(m.group(2)) <= 12:
            months = int(m.group(1)) * 12 + int(m.group(2)) - 1
            now = int(TODAY[:4]) * 12 + int(TODAY[5:7]) - 1
            if abs(months - now) <= MONTHS_AROUND:
                self.model.calendar.month = ev.arg or ""
        return None

    @transition("filter_calendar", effect=lambda _: Eq(("calendar", "board"), Ref("value")))
    def filter_calendar(self, ev: AppEvent) -> str | None:
        value = ev.value or ""
        board = self.model.boards.get(value)
        if value == "" or (board is not None and not board.archived):
            self.model.calendar.board = value
        return None

    @transition("sort_team")
    def sort_team(self, ev: AppEvent) -> str | None:
        col, order = split_arg(ev.arg, "=")
        if col in ("name", "open") and order in ("asc", "desc"):
            self.model.team.sort = f"{col}-{order}"
        return None

    # ------------------------------------------------------------------ forms
    @transition("set_field", effect=form_field)
    def set_field(self, ev: AppEvent) -> str | None:
        """A field of the new-card, invitation or new-board form: text, a choice, a date."""
        form, name = split_arg(ev.arg, ".")
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
    @transition("invite_member", mutating=True, effect=new_invite)
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
    @transition("next_wizard_step", effect=lambda step: Gt(("wizard", "step"), int(step or 0)))
    def next_wizard_step(self, ev: AppEvent) -> str | None:
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

    @transition("previous_wizard_step", effect=lambda step: Lt(("wizard", "step"), int(step or 0)))
    def previous_wizard_step(self, ev: AppEvent) -> str | None:
        if self.model.wizard.step in (2, 3):
            self.model.wizard.step -= 1
        return None

    @transition(
        "pick_board_member",
        effect=lambda mid: Eq(("forms", "new_board", "members", mid or ""), Ref("value|bool")),
    )
    def pick_board_member(self, ev: AppEvent) -> str | None:
        team = self.model.forms.new_board.members
        if ev.arg in team and ev.value in ("true", "false"):
            team[ev.arg or ""] = ev.value == "true"
        return None

    @transition("create_board", mutating=True, effect=new_board)
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

    @transition("restart_wizard", effect=lambda _: Eq(("wizard", "step"), 1))
    def restart_wizard(self, ev: AppEvent) -> str | None:
        if self.model.wizard.step == 4:
            self.model.wizard.step = 1
            self.model.forms.new_board = BoardDraft(members=self._fresh_team())
        return None

    # ------------------------------------------ distractors: no task needs them
    @transition("star_board", mutating=True, effect=lambda bid: Contains(("starred",), bid))
    def star_board(self, ev: AppEvent) -> str | None:
        if ev.arg in self.model.boards:
            self.model.starred ^= {ev.arg or ""}
        return None

    @transition("add_power_up", mutating=True, effect=lambda what: Contains(("power_ups",), what))
    def add_power_up(self, ev: AppEvent) -> str | None:
        if ev.arg in self.model.boards or ev.arg == "templates":
            self.model.power_ups.add(ev.arg or "")
        return None
