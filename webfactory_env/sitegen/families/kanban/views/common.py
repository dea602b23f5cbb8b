"""What the workspace's pages share: how a card is described, its small print, the
choices of columns, people and priorities, and form plumbing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.families.kanban.content import PRIORITIES
from webfactory_env.sitegen.families.kanban.queries import Kanban
from webfactory_env.sitegen.families.kanban.state import Card
from webfactory_env.sitegen.families.kanban.transitions.workspace import set_field
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import AttrValue, Option

Page = tuple[str, str]  # title, main region
COLUMN_ALIASES = {
    "todo": ("to do", "to-do"),
    "in_progress": ("in progress", "doing"),
    "review": ("in review",),
    "done": ("completed", "finished"),
    "backlog": ("ideas",),
}


def card_attrs(kanban: Kanban, c: Card, rank: int) -> dict[str, AttrValue]:
    """What a card link tells an agent about its card (a list entry of `type="card"`)."""
    return {
        "type": "card",
        "id": c.id,
        "title": c.title,
        "board": kanban.queries.board_of(c).name,
        "column": c.column,
        "assignee": kanban.queries.name(c.assignee),
        "labels": ", ".join(kanban.queries.labels_on(c)),
        "priority": c.priority,
        "due": c.due,
        "overdue": kanban.queries.overdue(c),
        "rank": rank,
    }


def card_link(kanban: Kanban, r: Renderer, c: Card, rank: int, sid: str, **kw: Any) -> str:
    return w.link(
        r,
        sid=f"{sid}:{c.id}",
        href=f"/card/{c.id}",
        text=c.title,
        kind="Item",
        attrs_=card_attrs(kanban, c, rank),
        **kw,
    )


def card_meta(kanban: Kanban, c: Card) -> str:
    """The small print of a card: assignee, due date (overdue in red), priority."""
    co = kanban.copy
    due = ""
    if c.due:
        due = f'<span class="due">{esc(co("board.due", date=c.due))}</span>'
        if kanban.queries.overdue(c):
            due += f' <span class="overdue">{esc(co("board.overdue"))}</span>'
    who = kanban.queries.name(c.assignee) or co("card.unassigned")
    return (
        f'<span class="who">{esc(who)}</span>{due}'
        f'<span class="prio prio-{c.priority}">{esc(co(f"priority.{c.priority}"))}</span>'
    )


def chips(labels: Sequence[str]) -> str:
    if not labels:
        return ""
    return (
        '<div class="chips">'
        + "".join(f'<span class="chip">{esc(x)}</span>' for x in labels)
        + "</div>"
    )


def column_options(kanban: Kanban, columns: Sequence[str]) -> list[Option]:
    return [
        Option(col, kanban.copy(f"columns.{col}"), aliases=COLUMN_ALIASES[col]) for col in columns
    ]


def member_options(kanban: Kanban) -> list[Option]:
    return [
        Option(m.id, m.name, aliases=("me", "myself") if m.me else ())
        for m in kanban.queries.assignable()
    ]


def assignee_options(kanban: Kanban) -> list[Option]:
    """Nobody, or an active member."""
    nobody = Option("", kanban.copy("card.unassigned"), aliases=("nobody", "no one"))
    return [nobody, *member_options(kanban)]


def priority_options(kanban: Kanban) -> list[Option]:
    return [Option(p, kanban.copy(f"priority.{p}")) for p in PRIORITIES]


def choice(kanban: Kanban, r: Renderer, *, bind: Binding, sid: str = "", **kw: Any) -> str:
    """A choice whose menu or picker is open when the UI state says so."""
    sid = sid or bind.sid("choice")
    return w.choice(r, sid=sid, is_open=sid in kanban.ui.open, bind=bind, **kw)


def draft_choice(
    kanban: Kanban,
    r: Renderer,
    form: str,
    name: str,
    *,
    label: str,
    options: Sequence[Option],
    html_form: str = "",
) -> str:
    """A choice of the draft field `form.name` (`set_field` keeps it), in the HTML form
    `html_form` (`form` unless a wizard step names its own)."""
    return choice(
        kanban,
        r,
        kind="Choice",
        label=label,
        options=options,
        attrs_={"form": html_form or form},
        bind=set_field.bind(form=form, name=name),
    )


def modal_open(kanban: Kanban, name: str) -> bool:
    # While a failed change waits for Retry, the banner (behind any dialog) must be
    # reachable: the dialog stays closed until the change goes through.
    return kanban.ui.modal == name and kanban.failed is None


def field_order(kanban: Kanban, names: Sequence[str], key: str) -> list[str]:
    ordered = list(names)
    if kanban.v.field_order == "shuffled":
        SeedStream(kanban.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def error_text(kanban: Kanban, errors: Mapping[str, str], name: str, n: int = 0) -> str:
    key = errors.get(name, "")
    return kanban.copy(f"errors.{key}", n=n or kanban.queries.title_min()) if key else ""


def error_line(kanban: Kanban, errors: Mapping[str, str], name: str) -> str:
    """An error under a widget that has no error region of its own (date pickers)."""
    msg = error_text(kanban, errors, name)
    return f'<p class="error" role="alert">{esc(msg)}</p>' if msg else ""


def fix_banner(kanban: Kanban, errors: Mapping[str, str], prefix: str = "") -> str:
    if not any(k.startswith(prefix) for k in errors):
        return ""
    return f'<p class="error-summary" role="alert">{esc(kanban.copy("new_card.fix"))}</p>'


def hint(kanban: Kanban, key: str) -> str:
    return f'<p class="hint">{esc(kanban.copy(key))}</p>' if kanban.v.helper_text == "on" else ""
