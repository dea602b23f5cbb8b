"""What can happen to a card: created from the board's form, edited and saved, moved,
assigned, prioritised, labelled, given files and comments, archived, restored, deleted.

A card of an archived board, or an archived card, is read-only: every transition that
changes one asks `editable` first. Positions and activity logs are bookkeeping.
"""

from __future__ import annotations

from webfactory_env.core.predicates import Contains, Eq, Has, Not, Ref
from webfactory_env.core.typed import canonical
from webfactory_env.sitegen.app import transition
from webfactory_env.sitegen.families.kanban.content import PRIORITIES, TODAY, slug_id
from webfactory_env.sitegen.families.kanban.model.effects import (
    assignment,
    card_field,
    label_on,
    new_card,
    new_comment,
    saved,
    split_arg,
)
from webfactory_env.sitegen.families.kanban.model.queries import WorkspaceQueries, set_error
from webfactory_env.sitegen.families.kanban.model.state import (
    Card,
    CardDraft,
    Comment,
    NewCardDraft,
)
from webfactory_env.sitegen.families.kanban.rules import check_comment, check_due, check_title
from webfactory_env.sitegen.spec import AppEvent


class CardTransitions(WorkspaceQueries):
    """The transitions of the board's new-card form and of the card page."""

    @transition("create_card", mutating=True, effect=new_card)
    def create_card(self, ev: AppEvent) -> str | None:
        board = self.route_board()
        if board is None or board.archived:
            return None
        f = self.model.forms.new_card
        for name in ("title", "due"):
            if ev.values is not None and name in ev.values:
                setattr(f, name, ev.values[name][:200])
        errors = self._check_new_card(board)
        self.model.feedback.new_card_errors = errors
        if errors:
            return None
        cards = self.model.cards
        card = Card(
            id=slug_id("c", f"{self.spec.seed}|new-card|{len(cards)}", set(cards)),
            board=board.id,
            title=f.title.strip(),
            column=f.column,
            assignee=f.assignee,
            priority=f.priority,
            due=canonical("date", f.due),  # kept in ISO: lists sort and compare it
            labels=dict.fromkeys(board.labels, False),
            position=self._next_position(board.id, f.column),
        )
        cards[card.id] = card
        self.flash = self.copy("new_card.created", title=card.title)
        self.model.forms.new_card = NewCardDraft()
        self.ui.modal = None
        return None

    # ------------------------------------------------------------ card page
    def _draft(self, card: Card) -> CardDraft:
        drafts = self.model.forms.cards
        if card.id not in drafts:
            drafts[card.id] = CardDraft(card.title, card.description, card.due)
        return drafts[card.id]

    @transition(
        "set_card_field",
        effect=lambda arg: Eq(("forms", "cards", *split_arg(arg, ":")), Ref("value")),
    )
    def set_card_field(self, ev: AppEvent) -> str | None:
        """Typing in the card's title, description or due date (saved with `save_card`)."""
        cid, name = split_arg(ev.arg, ":")
        card = self.editable(cid)
        if card is None or name not in ("title", "description", "due"):
            return None
        limit = {"title": 200, "description": 2000, "due": 20}[name]
        setattr(self._draft(card), name, (ev.value or "")[:limit])
        if self.v.validation == "sync" and name == "title":
            set_error(self.model.feedback.card_errors, f"{cid}:title", self._check_card(card)[0])
        return None

    def _check_card(self, card: Card) -> tuple[str, str]:
        """The error keys of the card's title and due date drafts."""
        draft = self._draft(card)
        others = [c.title for c in self.board_cards(card.board) if c.id != card.id]
        return (
            check_title(draft.title, self.title_min(), others),
            check_due(draft.due, today=TODAY, required=False, allow_past=True),
        )

    @transition("format_text")
    def format_text(self, ev: AppEvent) -> str | None:
        _, style = split_arg(ev.arg, "=")
        formatting = self.model.editors.description
        if style in ("bold", "italic"):
            setattr(formatting, style, not getattr(formatting, style))
        return None

    @transition("save_card", mutating=True, effect=saved)
    def save_card(self, ev: AppEvent) -> str | None:
        card = self.editable(self.route_id("/card/"))
        if card is None:
            return None
        draft = self._draft(card)
        for name, limit in (("title", 200), ("description", 2000), ("due", 20)):
            if ev.values is not None and name in ev.values:
                setattr(draft, name, ev.values[name][:limit])
        title, due = self._check_card(card)
        errors = self.model.feedback.card_errors
        set_error(errors, f"{card.id}:title", title)
        set_error(errors, f"{card.id}:due", due)
        if title or due:
            return None
        card.title, card.description = draft.title.strip(), draft.description.strip()
        card.due = canonical("date", draft.due)
        draft.title, draft.description, draft.due = card.title, card.description, card.due
        card.activity.append(("log_edited", ""))
        self.flash = self.copy("card.saved")
        return None

    @transition("choose_column", effect=lambda cid: Eq(("forms", "moves", cid or ""), Ref("value")))
    def choose_column(self, ev: AppEvent) -> str | None:
        """Pick the column the card's Move button sends it to."""
        card = self.editable(ev.arg)
        if card is not None and ev.value in self.board_of(card).columns:
            self.model.forms.moves[card.id] = ev.value or ""
        return None

    @transition(
        "move_card",
        mutating=True,
        effect=lambda cid: Eq(("cards", cid or "", "column"), Ref(f"state:forms.moves.{cid}")),
    )
    def move_card(self, ev: AppEvent) -> str | None:
        card = self.editable(self.route_id("/card/"))
        if card is None:
            return None
        if ev.values is not None and ev.values.get("column") in self.board_of(card).columns:
            self.model.forms.moves[card.id] = ev.values["column"]
        column = self.model.forms.moves.pop(card.id, card.column)
        if column not in self.board_of(card).columns or column == card.column:
            return None
        card.column = column
        card.position = self._next_position(card.board, card.column)
        card.activity.append(("log_moved", card.column))
        self.flash = self.copy("card.moved", column=self.copy(f"columns.{card.column}"))
        return None

    @transition("assign_card", mutating=True, effect=assignment)
    def assign_card(self, ev: AppEvent) -> str | None:
        """Assign the card to the member chosen (`value`: an active member, or "" for
        nobody), or to the one its button names ("Assign to me": `arg` is card=member)."""
        cid, named = split_arg(ev.arg, "=")
        card, who = self.editable(cid), named or ev.value or ""
        people = ("", *(m.id for m in self.assignable()))
        if card is not None and who in people and who != card.assignee:
            card.assignee = who
            card.activity.append(("log_assigned", who))
        return None

    @transition("set_priority", mutating=True, effect=card_field("priority"))
    def set_priority(self, ev: AppEvent) -> str | None:
        card = self.editable(ev.arg)
        if card is not None and ev.value in PRIORITIES:
            card.priority = ev.value or ""
            card.activity.append(("log_priority", card.priority))
        return None

    @transition("set_label", mutating=True, effect=label_on)
    def set_label(self, ev: AppEvent) -> str | None:
        """Put a label on the card (value "true") or take it off ("false")."""
        cid, label = split_arg(ev.arg, ":")
        card = self.editable(cid)
        if card is None or label not in card.labels or ev.value not in ("true", "false"):
            return None
        on = ev.value == "true"
        if card.labels[label] != on:
            card.labels[label] = on
            card.activity.append(("log_label_on" if on else "log_label_off", label))
        return None

    @transition(
        "attach_file",
        mutating=True,
        effect=lambda cid: Contains(("cards", cid or "", "attachments"), Ref("value")),
    )
    def attach_file(self, ev: AppEvent) -> str | None:
        card = self.editable(ev.arg)
        names = {f.name for f in self.files}
        if card is not None and ev.value in names and ev.value not in card.attachments:
            card.attachments.add(ev.value or "")
            card.activity.append(("log_attached", ev.value or ""))
        return None

    @transition(
        "write_comment", effect=lambda cid: Eq(("forms", "comments", cid or ""), Ref("value"))
    )
    def write_comment(self, ev: AppEvent) -> str | None:
        card = self.editable(ev.arg)
        if card is None:
            return None
        text = (ev.value or "")[:1000]
        self.model.forms.comments[card.id] = text
        if self.v.validation == "sync":
            errors = self.model.feedback.comment_errors
            found = check_comment(text)
            # An empty box is an error only once one was shown (after a submit).
            set_error(
                errors, card.id, "" if found == "required" and card.id not in errors else found
            )
        return None

    @transition("add_comment", mutating=True, effect=new_comment)
    def add_comment(self, ev: AppEvent) -> str | None:
        card = self.editable(self.route_id("/card/"))
        if card is None:
            return None
        drafts = self.model.forms.comments
        if ev.values is not None and "comment" in ev.values:
            drafts[card.id] = ev.values["comment"][:1000]
        text = drafts.get(card.id, "")
        error = check_comment(text)
        set_error(self.model.feedback.comment_errors, card.id, error)
        if error:
            return None
        comments = self.model.comments
        cmid = slug_id("cm", f"{card.id}|new|{len(comments)}", set(comments))
        comments[cmid] = Comment(
            id=cmid, card=card.id, author=self.me.id, text=text.strip(), date=self.spec.today
        )
        drafts.pop(card.id, None)
        self.flash = self.copy("card.commented")
        return None

    @transition(
        "archive_card", mutating=True, effect=lambda cid: Eq(("cards", cid or "", "archived"), True)
    )
    def archive_card(self, ev: AppEvent) -> str | None:
        card = self.editable(ev.arg)
        if card is not None:
            card.archived = True
            card.activity.append(("log_archived", ""))
        return None

    @transition(
        "restore_card",
        mutating=True,
        effect=lambda cid: Eq(("cards", cid or "", "archived"), False),
    )
    def restore_card(self, ev: AppEvent) -> str | None:
        card = self.model.cards.get(ev.arg or "")
        if card is not None and card.archived and not self.board_of(card).archived:
            card.archived = False
            card.position = self._next_position(card.board, card.column)
            card.activity.append(("log_restored", ""))
        return None

    @transition("delete_card", mutating=True, effect=lambda cid: Not(Has(("cards", cid or ""))))
    def delete_card(self, ev: AppEvent) -> str | None:
        """Delete a card for good, with its comments and unsent drafts."""
        card = self.model.cards.get(ev.arg or "")
        self.ui.modal = None
        if card is None or self.board_of(card).archived:
            return None
        del self.model.cards[card.id]
        for cm in self.comments_on(card.id):
            del self.model.comments[cm.id]
        self.model.forms.cards.pop(card.id, None)
        self.model.forms.comments.pop(card.id, None)
        self.model.forms.moves.pop(card.id, None)
        self.model.watching.discard(card.id)
        self.flash = self.copy("card.deleted", title=card.title)
        return f"/board/{card.board}"

    @transition("watch_card", mutating=True, effect=lambda cid: Contains(("watching",), cid))
    def watch_card(self, ev: AppEvent) -> str | None:
        if ev.arg in self.model.cards:
            self.model.watching.add(ev.arg or "")
        return None
