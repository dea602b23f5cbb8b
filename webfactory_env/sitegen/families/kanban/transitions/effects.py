"""The effects the workspace's transitions declare: predicate templates over its state,
bound by the task compiler to a step's values (`Ref("value")` is what the event sent)."""

from __future__ import annotations

from collections.abc import Callable

from webfactory_env.core.predicates import All, Eq, Exists, Predicate, Ref


def card_field(name: str) -> Callable[..., Predicate]:
    return lambda card: Eq(("cards", card, name), Ref("value"))


def assignment(card: str, member: str | None) -> Predicate:
    """The assignee is the value chosen, or the member a button names ("Assign to me")."""
    return Eq(("cards", card, "assignee"), Ref("value") if member is None else member)


def form_field(form: str, name: str) -> Predicate:
    return Eq(("forms", form, name), Ref("value"))


def label_on(card: str, label: str) -> Predicate:
    return Eq(("cards", card, "labels", label), Ref("value|bool"))


def saved(card: str) -> Predicate:
    draft = f"state:forms.cards.{card}"
    return All(
        tuple(
            Eq(("cards", card, name), Ref(f"{draft}.{name}|strip"))
            for name in ("title", "description", "due")
        )
    )


def _record_with(table: str, **values: object) -> Predicate:
    """Some record of `table` has these values: what a form that creates one declares."""
    return Exists((table,), All(tuple(Eq((name,), v) for name, v in values.items())))


def new_card(board: str) -> Predicate:
    return _record_with(
        "cards",
        board=board,
        title=Ref("state:forms.new_card.title|strip"),
        column=Ref("state:forms.new_card.column"),
    )


def new_comment(card: str) -> Predicate:
    return _record_with("comments", card=card, text=Ref(f"state:forms.comments.{card}|strip"))


def new_invite() -> Predicate:
    return _record_with(
        "invites",
        name=Ref("state:forms.invite.name|strip"),
        role=Ref("state:forms.invite.role"),
    )


def new_board() -> Predicate:
    return _record_with(
        "boards",
        name=Ref("state:forms.new_board.name|strip"),
        template=Ref("state:forms.new_board.template"),
    )
