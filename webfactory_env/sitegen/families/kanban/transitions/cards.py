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
from webfactory_env.sitegen.families.kanban.queries import (
    Kanban,
    route_board,
    route_id,
    set_error,
)
from webfactory_env.sitegen.families.kanban.rules import check_comment, check_due, check_title
from webfactory_env.sitegen.families.kanban.state import (
    Card,
    CardDraft,
    Comment,
    NewCardDraft,
)
from webfactory_env.sitegen.families.kanban.transitions.effects import (
    assignment,
    card_field,
    label_on,
    new_card,
    new_comment,
    saved,
)

PLACES = ("top", "bottom")  # where the Move button puts a card in its new column


@transition(mutating=True, effect=new_card)
def create_card(kanban: Kanban, *, board: str, values: dict[str, str] | None = None) -> str | None:
    """The board's new-card form (on that board's page) makes a card of its draft."""
    here = route_board(kanban)
    if here is None or here.id != board or here.archived:
        return None
    f = kanban.state.forms.new_card
    for name in ("title", "due"):
        if values is not None and name in values:
            setattr(f, name, values[name][:200])
    errors = kanban.queries.check_new_card(here)
    kanban.state.feedback.new_card_errors = errors
    if errors:
        return None
    cards = kanban.state.cards
    card = Card(
        id=slug_id("c", f"{kanban.spec.seed}|new-card|{len(cards)}", set(cards)),
        board=here.id,
        title=f.title.strip(),
        column=f.column,
        assignee=f.assignee,
        priority=f.priority,
        due=canonical("date", f.due),  # kept in ISO: lists sort and compare it
        labels=dict.fromkeys(here.labels, False),
        position=kanban.queries.next_position(here.id, f.column),
    )
    cards[card.id] = card
    kanban.ui.flash = kanban.copy("new_card.created", title=card.title)
    kanban.state.forms.new_card = NewCardDraft()
    kanban.ui.modal = None
    return None


# ------------------------------------------------------------ card page
def _draft(kanban: Kanban, card: Card) -> CardDraft:
    drafts = kanban.state.forms.cards
    if card.id not in drafts:
        drafts[card.id] = CardDraft(card.title, card.description, card.due)
    return drafts[card.id]


@transition(
    effect=lambda card, field: Eq(("forms", "cards", card, field), Ref("value")),
    field=lambda card, field: FormField("card", field, ("forms", "cards", card, field)),
)
def set_card_field(
    kanban: Kanban,
    *,
    card: str,
    field: Literal["title", "description", "due"],
    value: str | None = None,
) -> str | None:
    """Typing in the card's title, description or due date (saved with `save_card`)."""
    found = kanban.queries.editable(card)
    if found is None:
        return None
    limit = {"title": 200, "description": 2000, "due": 20}[field]
    setattr(_draft(kanban, found), field, (value or "")[:limit])
    if kanban.v.validation == "sync" and field == "title":
        set_error(kanban.state.feedback.card_errors, f"{card}:title", _check_card(kanban, found)[0])
    return None


def _check_card(kanban: Kanban, card: Card) -> tuple[str, str]:
    """The error keys of the card's title and due date drafts."""
    draft = _draft(kanban, card)
    others = [c.title for c in kanban.queries.board_cards(card.board) if c.id != card.id]
    return (
        check_title(draft.title, kanban.queries.title_min(), others),
        check_due(draft.due, today=TODAY, required=False, allow_past=True),
    )


@transition(effect=lambda style, on: Eq(("editors", "description", style), on))
def format_text(kanban: Kanban, *, style: Literal["bold", "italic"], on: bool) -> str | None:
    """Turn bold or italic on or off in the card's description."""
    setattr(kanban.state.editors.description, style, on)
    return None


@transition(mutating=True, effect=saved)
def save_card(kanban: Kanban, *, card: str, values: dict[str, str] | None = None) -> str | None:
    """The card page's form saves the title, description and due date drafts."""
    found = kanban.queries.editable(route_id(kanban, "/card/"))
    if found is None or found.id != card:
        return None
    draft = _draft(kanban, found)
    for name, limit in (("title", 200), ("description", 2000), ("due", 20)):
        if values is not None and name in values:
            setattr(draft, name, values[name][:limit])
    title, due = _check_card(kanban, found)
    errors = kanban.state.feedback.card_errors
    set_error(errors, f"{found.id}:title", title)
    set_error(errors, f"{found.id}:due", due)
    if title or due:
        return None
    found.title, found.description = draft.title.strip(), draft.description.strip()
    found.due = canonical("date", draft.due)
    draft.title, draft.description, draft.due = found.title, found.description, found.due
    found.activity.append(("log_edited", ""))
    kanban.ui.flash = kanban.copy("card.saved")
    return None


@transition(
    effect=lambda card: Eq(("forms", "moves", card), Ref("value")),
    field=lambda card: FormField("card", "column", ("forms", "moves", card)),
)
def choose_column(kanban: Kanban, *, card: str, value: str | None = None) -> str | None:
    """Pick the column the card's Move button sends it to."""
    found = kanban.queries.editable(card)
    if found is not None and value in kanban.queries.board_of(found).columns:
        kanban.state.forms.moves[found.id] = value or ""
    return None


@transition(
    effect=lambda card: Eq(("forms", "places", card), Ref("value")),
    field=lambda card: FormField("card", "place", ("forms", "places", card)),
)
def choose_place(
    kanban: Kanban, *, card: str, value: Literal["top", "bottom"] | None = None
) -> str | None:
    """Pick where in the column the card's Move button puts it (at the top or the bottom)."""
    found = kanban.queries.editable(card)
    if found is not None and value in PLACES:
        kanban.state.forms.places[found.id] = value or ""
    return None


@transition(
    mutating=True,
    effect=lambda card: Eq(("cards", card, "column"), Ref(f"state:forms.moves.{card}")),
)
def move_card(kanban: Kanban, *, card: str, values: dict[str, str] | None = None) -> str | None:
    """The card page's Move form sends the card to the column chosen, at the bottom or at
    the top; a drop on the card's board sends `column` and `place`: "top", "last", or
    "before:<card id>" (the card it was dropped above)."""
    found = kanban.queries.editable(card)
    if found is None or not _movable_here(kanban, found):
        return None
    columns = kanban.queries.board_of(found).columns
    if values is not None and values.get("column") in columns:
        kanban.state.forms.moves[found.id] = values["column"]
    if values is not None and values.get("place"):
        kanban.state.forms.places[found.id] = values["place"]
    column = kanban.state.forms.moves.pop(found.id, found.column)
    place = kanban.state.forms.places.pop(found.id, "") or "bottom"
    if column not in columns or not _placed(kanban, found, column, place):
        return None
    found.activity.append(("log_moved", found.column))
    kanban.ui.flash = kanban.copy("card.moved", column=kanban.copy(f"columns.{found.column}"))
    return None


def _movable_here(kanban: Kanban, card: Card) -> bool:
    """A card moves from its own page (the Move form) or from its board (a drop)."""
    return route_id(kanban, "/card/") == card.id or route_id(kanban, "/board/") == card.board


def _placed(kanban: Kanban, card: Card, column: str, place: str) -> bool:
    """Put `card` in `column` at `place`; whether anything changed. "bottom" is the Move
    button's (after the column's highest position; nothing within its own column);
    the others renumber the column's live cards in their new order."""
    if place == "bottom":
        if column == card.column:
            return False
        card.column = column
        card.position = kanban.queries.next_position(card.board, column)
        return True
    others = [c for c in kanban.queries.column_cards(card.board, column) if c.id != card.id]
    before = {"top": 0, "last": len(others)}.get(place)
    if before is None:
        ids = [c.id for c in others]
        target = place.removeprefix("before:")
        if not place.startswith("before:") or target not in ids:
            return False
        before = ids.index(target)
    order = [*others[:before], card, *others[before:]]
    if column == card.column and order == kanban.queries.column_cards(card.board, column):
        return False
    card.column = column
    for n, c in enumerate(order, 1):
        c.position = n
    return True


@transition(
    mutating=True,
    effect=assignment,
    field=lambda card, member: FormField("card", "assignee", ("cards", card, "assignee")),
)
def assign_card(
    kanban: Kanban, *, card: str, member: str | None = None, value: str | None = None
) -> str | None:
    """Assign the card to the member chosen (`value`: an active member, or "" for
    nobody), or to the `member` its button names ("Assign to me")."""
    found, who = kanban.queries.editable(card), value or "" if member is None else member
    people = ("", *(m.id for m in kanban.queries.assignable()))
    if found is not None and who in people and who != found.assignee:
        found.assignee = who
        found.activity.append(("log_assigned", who))
    return None


@transition(
    mutating=True,
    effect=card_field("priority"),
    field=lambda card: FormField("card", "priority", ("cards", card, "priority")),
)
def set_priority(kanban: Kanban, *, card: str, value: str | None = None) -> str | None:
    found = kanban.queries.editable(card)
    if found is not None and value in PRIORITIES:
        found.priority = value or ""
        found.activity.append(("log_priority", found.priority))
    return None


@transition(
    mutating=True,
    effect=label_on,
    field=lambda card, label: FormField("card", "label", ("cards", card, "labels", label)),
)
def set_label(kanban: Kanban, *, card: str, label: str, value: str | None = None) -> str | None:
    """Put a label on the card (value "true") or take it off ("false")."""
    found = kanban.queries.editable(card)
    if found is None or label not in found.labels or value not in ("true", "false"):
        return None
    on = value == "true"
    if found.labels[label] != on:
        found.labels[label] = on
        found.activity.append(("log_label_on" if on else "log_label_off", label))
    return None


@transition(
    mutating=True, effect=lambda card: Contains(("cards", card, "attachments"), Ref("value"))
)
def attach_file(kanban: Kanban, *, card: str, value: str | None = None) -> str | None:
    found = kanban.queries.editable(card)
    names = {f.name for f in kanban.queries.files}
    if found is not None and value in names and value not in found.attachments:
        found.attachments.add(value or "")
        found.activity.append(("log_attached", value or ""))
    return None


@transition(
    effect=lambda card: Eq(("forms", "comments", card), Ref("value")),
    field=lambda card: FormField("comment", "comment", ("forms", "comments", card)),
)
def write_comment(kanban: Kanban, *, card: str, value: str | None = None) -> str | None:
    """Typing in the card's comment box (sent with `add_comment`)."""
    found = kanban.queries.editable(card)
    if found is None:
        return None
    text = (value or "")[:1000]
    kanban.state.forms.comments[card] = text
    if kanban.v.validation == "sync":
        errors = kanban.state.feedback.comment_errors
        error = check_comment(text)
        # An empty box is an error only once one was shown (after a submit).
        set_error(errors, card, "" if error == "required" and card not in errors else error)
    return None


@transition(mutating=True, effect=new_comment)
def add_comment(kanban: Kanban, *, card: str, values: dict[str, str] | None = None) -> str | None:
    """The card page's comment form adds the comment typed."""
    found = kanban.queries.editable(route_id(kanban, "/card/"))
    if found is None or found.id != card:
        return None
    drafts = kanban.state.forms.comments
    if values is not None and "comment" in values:
        drafts[found.id] = values["comment"][:1000]
    text = drafts.get(found.id, "")
    error = check_comment(text)
    set_error(kanban.state.feedback.comment_errors, found.id, error)
    if error:
        return None
    comments = kanban.state.comments
    cmid = slug_id("cm", f"{found.id}|new|{len(comments)}", set(comments))
    comments[cmid] = Comment(
        id=cmid,
        card=found.id,
        author=kanban.queries.me.id,
        text=text.strip(),
        date=kanban.spec.today,
    )
    drafts.pop(found.id, None)
    kanban.ui.flash = kanban.copy("card.commented")
    return None


@transition(mutating=True, effect=lambda card: Eq(("cards", card, "archived"), True))
def archive_card(kanban: Kanban, *, card: str) -> str | None:
    found = kanban.queries.editable(card)
    if found is not None:
        found.archived = True
        found.activity.append(("log_archived", ""))
    return None


@transition(mutating=True, effect=lambda card: Eq(("cards", card, "archived"), False))
def restore_card(kanban: Kanban, *, card: str) -> str | None:
    found = kanban.state.cards.get(card)
    if found is not None and found.archived and not kanban.queries.board_of(found).archived:
        found.archived = False
        found.position = kanban.queries.next_position(found.board, found.column)
        found.activity.append(("log_restored", ""))
    return None


@transition(mutating=True, effect=lambda card: Not(Has(("cards", card))))
def delete_card(kanban: Kanban, *, card: str) -> str | None:
    """Delete a card for good, with its comments and unsent drafts."""
    found = kanban.state.cards.get(card)
    kanban.ui.modal = None
    if found is None or kanban.queries.board_of(found).archived:
        return None
    del kanban.state.cards[found.id]
    for cm in kanban.queries.comments_on(found.id):
        del kanban.state.comments[cm.id]
    kanban.state.forms.cards.pop(found.id, None)
    kanban.state.forms.comments.pop(found.id, None)
    kanban.state.forms.moves.pop(found.id, None)
    kanban.state.forms.places.pop(found.id, None)
    kanban.state.watching.discard(found.id)
    kanban.ui.flash = kanban.copy("card.deleted", title=found.title)
    return f"/board/{found.board}"


@transition(mutating=True, effect=lambda card: Contains(("watching",), card))
def watch_card(kanban: Kanban, *, card: str) -> str | None:
    if card in kanban.state.cards:
        kanban.state.watching.add(card)
    return None
