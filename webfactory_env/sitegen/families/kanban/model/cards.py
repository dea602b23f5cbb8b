"""What can happen to a card: created from the board's form, edited and saved, moved,
assigned, prioritised, labelled, given files and comments, archived, restored, deleted.

A card of an archived board, or an archived card, is read-only: every transition that
changes one asks `editable` first. Positions and activity logs are bookkeeping.
"""

from __future__ import annotations

from typing import Literal

from webfactory_env.core.predicates import Contains, Eq, Has, Not, Ref
from webfactory_env.core.typed import canonical
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.families.kanban.content import PRIORITIES, TODAY, slug_id
from webfactory_env.sitegen.families.kanban.model.effects import (
    assignment,
    card_field,
    label_on,
    new_card,
    new_comment,
    saved,
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

    @transition(mutating=True, effect=new_card)
    def create_card(self, ev: AppEvent, *, board: str) -> str | None:
        """The board's new-card form (on that board's page) makes a card of its draft."""
        here = self.route_board()
        if here is None or here.id != board or here.archived:
            return None
        f = self.model.forms.new_card
        for name in ("title", "due"):
            if ev.values is not None and name in ev.values:
                setattr(f, name, ev.values[name][:200])
        errors = self._check_new_card(here)
        self.model.feedback.new_card_errors = errors
        if errors:
            return None
        cards = self.model.cards
        card = Card(
            id=slug_id("c", f"{self.spec.seed}|new-card|{len(cards)}", set(cards)),
            board=here.id,
            title=f.title.strip(),
            column=f.column,
            assignee=f.assignee,
            priority=f.priority,
            due=canonical("date", f.due),  # kept in ISO: lists sort and compare it
            labels=dict.fromkeys(here.labels, False),
            position=self._next_position(here.id, f.column),
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
        effect=lambda card, field: Eq(("forms", "cards", card, field), Ref("value")),
        field=lambda card, field: FormField("card", field, ("forms", "cards", card, field)),
    )
    def set_card_field(
        self, ev: AppEvent, *, card: str, field: Literal["title", "description", "due"]
    ) -> str | None:
        """Typing in the card's title, description or due date (saved with `save_card`)."""
        found = self.editable(card)
        if found is None:
            return None
        limit = {"title": 200, "description": 2000, "due": 20}[field]
        setattr(self._draft(found), field, (ev.value or "")[:limit])
        if self.v.validation == "sync" and field == "title":
            set_error(self.model.feedback.card_errors, f"{card}:title", self._check_card(found)[0])
        return None

    def _check_card(self, card: Card) -> tuple[str, str]:
        """The error keys of the card's title and due date drafts."""
        draft = self._draft(card)
        others = [c.title for c in self.board_cards(card.board) if c.id != card.id]
        return (
            check_title(draft.title, self.title_min(), others),
            check_due(draft.due, today=TODAY, required=False, allow_past=True),
        )

    @transition(effect=lambda style, on: Eq(("editors", "description", style), on))
    def format_text(
        self, ev: AppEvent, *, style: Literal["bold", "italic"], on: bool
    ) -> str | None:
        """Turn bold or italic on or off in the card's description."""
        setattr(self.model.editors.description, style, on)
        return None

    @transition(mutating=True, effect=saved)
    def save_card(self, ev: AppEvent, *, card: str) -> str | None:
        """The card page's form saves the title, description and due date drafts."""
        found = self.editable(self.route_id("/card/"))
        if found is None or found.id != card:
            return None
        draft = self._draft(found)
        for name, limit in (("title", 200), ("description", 2000), ("due", 20)):
            if ev.values is not None and name in ev.values:
                setattr(draft, name, ev.values[name][:limit])
        title, due = self._check_card(found)
        errors = self.model.feedback.card_errors
        set_error(errors, f"{found.id}:title", title)
        set_error(errors, f"{found.id}:due", due)
        if title or due:
            return None
        found.title, found.description = draft.title.strip(), draft.description.strip()
        found.due = canonical("date", draft.due)
        draft.title, draft.description, draft.due = found.title, found.description, found.due
        found.activity.append(("log_edited", ""))
        self.flash = self.copy("card.saved")
        return None

    @transition(
        effect=lambda card: Eq(("forms", "moves", card), Ref("value")),
        field=lambda card: FormField("card", "column", ("forms", "moves", card)),
    )
    def choose_column(self, ev: AppEvent, *, card: str) -> str | None:
        """Pick the column the card's Move button sends it to."""
        found = self.editable(card)
        if found is not None and ev.value in self.board_of(found).columns:
            self.model.forms.moves[found.id] = ev.value or ""
        return None

    @transition(
        mutating=True,
        effect=lambda card: Eq(("cards", card, "column"), Ref(f"state:forms.moves.{card}")),
    )
    def move_card(self, ev: AppEvent, *, card: str) -> str | None:
        """The card page's Move form sends the card to the column chosen."""
        found = self.editable(self.route_id("/card/"))
        if found is None or found.id != card:
            return None
        if ev.values is not None and ev.values.get("column") in self.board_of(found).columns:
            self.model.forms.moves[found.id] = ev.values["column"]
        column = self.model.forms.moves.pop(found.id, found.column)
        if column not in self.board_of(found).columns or column == found.column:
            return None
        found.column = column
        found.position = self._next_position(found.board, found.column)
        found.activity.append(("log_moved", found.column))
        self.flash = self.copy("card.moved", column=self.copy(f"columns.{found.column}"))
        return None

    @transition(
        mutating=True,
        effect=assignment,
        field=lambda card, member: FormField("card", "assignee", ("cards", card, "assignee")),
    )
    def assign_card(self, ev: AppEvent, *, card: str, member: str | None = None) -> str | None:
        """Assign the card to the member chosen (`value`: an active member, or "" for
        nobody), or to the `member` its button names ("Assign to me")."""
        found, who = self.editable(card), ev.value or "" if member is None else member
        people = ("", *(m.id for m in self.assignable()))
        if found is not None and who in people and who != found.assignee:
            found.assignee = who
            found.activity.append(("log_assigned", who))
        return None

    @transition(
        mutating=True,
        effect=card_field("priority"),
        field=lambda card: FormField("card", "priority", ("cards", card, "priority")),
    )
    def set_priority(self, ev: AppEvent, *, card: str) -> str | None:
        found = self.editable(card)
        if found is not None and ev.value in PRIORITIES:
            found.priority = ev.value or ""
            found.activity.append(("log_priority", found.priority))
        return None

    @transition(
        mutating=True,
        effect=label_on,
        field=lambda card, label: FormField("card", "label", ("cards", card, "labels", label)),
    )
    def set_label(self, ev: AppEvent, *, card: str, label: str) -> str | None:
        """Put a label on the card (value "true") or take it off ("false")."""
        found = self.editable(card)
        if found is None or label not in found.labels or ev.value not in ("true", "false"):
            return None
        on = ev.value == "true"
        if found.labels[label] != on:
            found.labels[label] = on
            found.activity.append(("log_label_on" if on else "log_label_off", label))
        return None

    @transition(
        mutating=True, effect=lambda card: Contains(("cards", card, "attachments"), Ref("value"))
    )
    def attach_file(self, ev: AppEvent, *, card: str) -> str | None:
        found = self.editable(card)
        names = {f.name for f in self.files}
        if found is not None and ev.value in names and ev.value not in found.attachments:
            found.attachments.add(ev.value or "")
            found.activity.append(("log_attached", ev.value or ""))
        return None

    @transition(
        effect=lambda card: Eq(("forms", "comments", card), Ref("value")),
        field=lambda card: FormField("comment", "comment", ("forms", "comments", card)),
    )
    def write_comment(self, ev: AppEvent, *, card: str) -> str | None:
        """Typing in the card's comment box (sent with `add_comment`)."""
        found = self.editable(card)
        if found is None:
            return None
        text = (ev.value or "")[:1000]
        self.model.forms.comments[card] = text
        if self.v.validation == "sync":
            errors = self.model.feedback.comment_errors
            error = check_comment(text)
            # An empty box is an error only once one was shown (after a submit).
            set_error(errors, card, "" if error == "required" and card not in errors else error)
        return None

    @transition(mutating=True, effect=new_comment)
    def add_comment(self, ev: AppEvent, *, card: str) -> str | None:
        """The card page's comment form adds the comment typed."""
        found = self.editable(self.route_id("/card/"))
        if found is None or found.id != card:
            return None
        drafts = self.model.forms.comments
        if ev.values is not None and "comment" in ev.values:
            drafts[found.id] = ev.values["comment"][:1000]
        text = drafts.get(found.id, "")
        error = check_comment(text)
        set_error(self.model.feedback.comment_errors, found.id, error)
        if error:
            return None
        comments = self.model.comments
        cmid = slug_id("cm", f"{found.id}|new|{len(comments)}", set(comments))
        comments[cmid] = Comment(
            id=cmid, card=found.id, author=self.me.id, text=text.strip(), date=self.spec.today
        )
        drafts.pop(found.id, None)
        self.flash = self.copy("card.commented")
        return None

    @transition(mutating=True, effect=lambda card: Eq(("cards", card, "archived"), True))
    def archive_card(self, ev: AppEvent, *, card: str) -> str | None:
        found = self.editable(card)
        if found is not None:
            found.archived = True
            found.activity.append(("log_archived", ""))
        return None

    @transition(mutating=True, effect=lambda card: Eq(("cards", card, "archived"), False))
    def restore_card(self, ev: AppEvent, *, card: str) -> str | None:
        found = self.model.cards.get(card)
        if found is not None and found.archived and not self.board_of(found).archived:
            found.archived = False
            found.position = self._next_position(found.board, found.column)
            found.activity.append(("log_restored", ""))
        return None

    @transition(mutating=True, effect=lambda card: Not(Has(("cards", card))))
    def delete_card(self, ev: AppEvent, *, card: str) -> str | None:
        """Delete a card for good, with its comments and unsent drafts."""
        found = self.model.cards.get(card)
        self.ui.modal = None
        if found is None or self.board_of(found).archived:
            return None
        del self.model.cards[found.id]
        for cm in self.comments_on(found.id):
            del self.model.comments[cm.id]
        self.model.forms.cards.pop(found.id, None)
        self.model.forms.comments.pop(found.id, None)
        self.model.forms.moves.pop(found.id, None)
        self.model.watching.discard(found.id)
        self.flash = self.copy("card.deleted", title=found.title)
        return f"/board/{found.board}"

    @transition(mutating=True, effect=lambda card: Contains(("watching",), card))
    def watch_card(self, ev: AppEvent, *, card: str) -> str | None:
        if card in self.model.cards:
            self.model.watching.add(card)
        return None
