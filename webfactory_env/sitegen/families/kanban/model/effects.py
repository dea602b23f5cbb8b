"""The effects the workspace's transitions declare: predicate templates over its state,
bound by the task compiler to a step's values (`Ref("value")` is what the event sent)."""

from __future__ import annotations

from collections.abc import Callable

from webfactory_env.core.predicates import All, Eq, Exists, Predicate, Ref


def split_arg(arg: str | None, sep: str) -> tuple[str, str]:
    head, _, tail = (arg or "").partition(sep)
    return head, tail


def card_field(name: str) -> Callable[[str | None], Predicate]:
    return lambda cid: Eq(("cards", cid or "", name), Ref("value"))


def assignment(arg: str | None) -> Predicate:
    """`<card>` (the assignee is the value chosen) or `<card>=<member>` (a button that
    assigns that member)."""
    cid, mid = split_arg(arg, "=")
    return Eq(("cards", cid, "assignee"), mid or Ref("value"))


def form_field(arg: str | None) -> Predicate:
    form, name = split_arg(arg, ".")
    return Eq(("forms", form, name), Ref("value"))


def label_on(arg: str | None) -> Predicate:
    cid, label = split_arg(arg, ":")
    return Eq(("cards", cid, "labels", label), Ref("value|bool"))


def saved(cid: str | None) -> Predicate:
    draft = f"state:forms.cards.{cid}"
    return All(
        tuple(
            Eq(("cards", cid or "", name), Ref(f"{draft}.{name}|strip"))
            for name in ("title", "description", "due")
        )
    )


def _record_with(table: str, **values: object) -> Predicate:
    """Some record of `table` has these values: what a form that creates one declares."""
    return Exists((table,), All(tuple(Eq((name,), v) for name, v in values.items())))


def new_card(board: str | None) -> Predicate:
    return _record_with(
        "cards",
        board=board or "",
        title=Ref("state:forms.new_card.title|strip"),
        column=Ref("state:forms.new_card.column"),
    )


def new_comment(cid: str | None) -> Predicate:
    return _record_with("comments", card=cid or "", text=Ref(f"state:forms.comments.{cid}|strip"))


def new_invite(_: str | None) -> Predicate:
    return _record_with(
        "invites",
        name=Ref("state:forms.invite.name|strip"),
        role=Ref("state:forms.invite.role"),
    )


def new_board(_: str | None) -> Predicate:
    return _record_with(
        "boards",
        name=Ref("state:forms.new_board.name|strip"),
        template=Ref("state:forms.new_board.template"),
    )
