"""What the workspace's pages share: how a card is described, its small print, the
choices of columns, people and priorities, and form plumbing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.families.kanban.content import PRIORITIES
from webfactory_env.sitegen.families.kanban.model import KanbanModel
from webfactory_env.sitegen.families.kanban.model.state import Card
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


def card_attrs(app: KanbanModel, c: Card, rank: int) -> dict[str, AttrValue]:
    """What a card link tells an agent about its card (a list entry of `type="card"`)."""
    return {
        "type": "card",
        "id": c.id,
        "title": c.title,
        "board": app.board_of(c).name,
        "column": c.column,
        "assignee": app.name(c.assignee),
        "labels": ", ".join(app.labels_on(c)),
        "priority": c.priority,
        "due": c.due,
        "overdue": app.overdue(c),
        "rank": rank,
    }


def card_link(app: KanbanModel, r: Renderer, c: Card, rank: int, sid: str, **kw: Any) -> str:
    return w.link(
        r,
        sid=f"{sid}:{c.id}",
        href=f"/card/{c.id}",
        text=c.title,
        kind="Item",
        attrs_=card_attrs(app, c, rank),
        **kw,
    )


def card_meta(app: KanbanModel, c: Card) -> str:
    """The small print of a card: assignee, due date (overdue in red), priority."""
    co = app.copy
    due = ""
    if c.due:
        due = f'<span class="due">{esc(co("board.due", date=c.due))}</span>'
        if app.overdue(c):
            due += f' <span class="overdue">{esc(co("board.overdue"))}</span>'
    return (
        f'<span class="who">{esc(app.name(c.assignee) or co("card.unassigned"))}</span>{due}'
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


def column_options(app: KanbanModel, columns: Sequence[str]) -> list[Option]:
    return [Option(col, app.copy(f"columns.{col}"), aliases=COLUMN_ALIASES[col]) for col in columns]


def member_options(app: KanbanModel) -> list[Option]:
    return [
        Option(m.id, m.name, aliases=("me", "myself") if m.me else ()) for m in app.assignable()
    ]


def assignee_options(app: KanbanModel) -> list[Option]:
    """Nobody, or an active member."""
    nobody = Option("", app.copy("card.unassigned"), aliases=("nobody", "no one"))
    return [nobody, *member_options(app)]


def priority_options(app: KanbanModel) -> list[Option]:
    return [Option(p, app.copy(f"priority.{p}")) for p in PRIORITIES]


def choice(app: KanbanModel, r: Renderer, *, bind: Binding, sid: str = "", **kw: Any) -> str:
    """A choice whose menu or picker is open when the UI state says so."""
    sid = sid or bind.sid("choice")
    return w.choice(r, sid=sid, is_open=sid in app.ui.open, bind=bind, **kw)


def draft_choice(
    app: KanbanModel,
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
        app,
        r,
        kind="Choice",
        label=label,
        options=options,
        attrs_={"form": html_form or form},
        bind=app.set_field.bind(form=form, name=name),
    )


def modal_open(app: KanbanModel, name: str) -> bool:
    # While a failed change waits for Retry, the banner (behind any dialog) must be
    # reachable: the dialog stays closed until the change goes through.
    return app.ui.modal == name and app.failed is None


def field_order(app: KanbanModel, names: Sequence[str], key: str) -> list[str]:
    ordered = list(names)
    if app.v.field_order == "shuffled":
        SeedStream(app.spec.seed).child("layout").child(f"fields:{key}").shuffle(ordered)
    return ordered


def error_text(app: KanbanModel, errors: Mapping[str, str], name: str, n: int = 0) -> str:
    key = errors.get(name, "")
    return app.copy(f"errors.{key}", n=n or app.title_min()) if key else ""


def error_line(app: KanbanModel, errors: Mapping[str, str], name: str) -> str:
    """An error under a widget that has no error region of its own (date pickers)."""
    msg = error_text(app, errors, name)
    return f'<p class="error" role="alert">{esc(msg)}</p>' if msg else ""


def fix_banner(app: KanbanModel, errors: Mapping[str, str], prefix: str = "") -> str:
    if not any(k.startswith(prefix) for k in errors):
        return ""
    return f'<p class="error-summary" role="alert">{esc(app.copy("new_card.fix"))}</p>'


def hint(app: KanbanModel, key: str) -> str:
    return f'<p class="hint">{esc(app.copy(key))}</p>' if app.v.helper_text == "on" else ""
