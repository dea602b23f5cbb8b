"""The boards list and a board's page: its filters, columns of cards and the new-card form."""

from __future__ import annotations

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.families.kanban.content import TODAY
from webfactory_env.sitegen.families.kanban.queries import SORTS, Kanban
from webfactory_env.sitegen.families.kanban.state import Board, Card
from webfactory_env.sitegen.families.kanban.transitions.cards import create_card, move_card
from webfactory_env.sitegen.families.kanban.transitions.workspace import (
    add_power_up,
    search_board,
    set_field,
    set_filter,
    set_sort,
    star_board,
)
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    assignee_options,
    card_link,
    card_meta,
    chips,
    choice,
    column_options,
    draft_choice,
    error_line,
    error_text,
    field_order,
    fix_banner,
    hint,
    member_options,
    modal_open,
    priority_options,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option

SORT_ATTRS = {
    "position": {"key": "position", "order": "asc"},
    "due-asc": {"key": "due", "order": "asc"},
    "priority-desc": {"key": "priority", "order": "desc"},
}
SORT_ALIASES = {
    "position": ("default", "manual", "board order"),
    "due-asc": ("asc", "ascending", "soonest first", "earliest"),
    "priority-desc": ("desc", "descending", "highest first", "most urgent"),
}


# ------------------------------------------------------------------ boards list
def boards(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    tab = kanban.ui.tabs.get("boards", "active")
    shown = [b for b in kanban.state.boards.values() if b.archived == (tab == "archived")]
    tiles = "".join(board_tile(kanban, r, b, i + 1) for i, b in enumerate(shown))
    panel = (
        f'<div class="board-grid">{tiles}</div>'
        if tiles
        else f'<p class="muted">{esc(c("boards.none_archived"))}</p>'
    )
    tabs = w.tabs(
        r,
        group="boards",
        active=tab,
        panel=panel,
        label=c("boards.tabs"),
        items=[("active", c("boards.active")), ("archived", c("boards.archived"))],
    )
    new = w.link(r, sid="boards:new", href="/boards/new", text=c("boards.new"), class_="button")
    promo = ""
    if kanban.v.distractors == "many":
        promo = (
            '<aside class="promo distractor">'
            + w.button(
                r,
                sid="promo:templates",
                text=c("distractors.template"),
                variant="secondary",
                attrs_={"role": "templates", "distractor": True},
                bind=add_power_up.bind(target="templates"),
            )
            + "</aside>"
        )
    title = c("boards.title")
    return title, (
        f"<h1>{esc(title)}</h1>{w.toast(kanban.ui.flash)}{hint(kanban, 'boards.help')}"
        f'<p class="actions">{new}</p>{tabs}{promo}'
    )


def board_tile(kanban: Kanban, r: Renderer, b: Board, rank: int) -> str:
    c = kanban.copy
    n = len(kanban.queries.board_cards(b.id))
    link = w.link(
        r,
        sid=f"board:{b.id}",
        href=f"/board/{b.id}",
        text=b.name,
        kind="Item",
        class_="title",
        attrs_={
            "type": "board",
            "id": b.id,
            "name": b.name,
            "archived": b.archived,
            "cards": n,
            "rank": rank,
        },
    )
    count = c("boards.count_one") if n == 1 else c("boards.count_many", n=n)
    badge = f'<span class="badge">{esc(c("boards.archived_badge"))}</span>' if b.archived else ""
    star = ""
    if kanban.v.distractors != "none":
        star = w.button(
            r,
            sid=f"star:{b.id}",
            text=c("distractors.star"),
            variant="secondary",
            icon="☆",
            attrs_={"role": "star", "board": b.name, "distractor": True},
            bind=star_board.bind(board=b.id),
        )
    return (
        f'<article class="board-tile">{link}{badge}'
        f'<p class="muted">{esc(b.description)}</p>'
        f'<span class="muted">{esc(count)}</span>{star}</article>'
    )


# ------------------------------------------------------------------------ board
def board(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    b = kanban.state.boards[route[len("/board/") :]]
    crumbs = w.breadcrumbs(r, [(c("board.root"), "/"), (b.name, None)], label=c("board.crumbs"))
    add = ""
    if not b.archived and kanban.v.form_mode == "modal":
        add = (
            w.modal(
                r,
                name="new_card",
                title=c("new_card.heading"),
                body=new_card_form(kanban, r, b),
                close_text=c("new_card.close"),
            )
            if modal_open(kanban, "new_card")
            else w.modal_opener(
                r, name="new_card", text=c("new_card.open"), attrs_={"form": "new_card"}
            )
        )
    banner = (
        f'<p class="error-summary" role="status">{esc(c("board.archived_banner"))}</p>'
        if b.archived
        else ""
    )
    cards = r.subregion("cards", columns_html(kanban, r, b), class_="board-cards")
    inline = ""
    if not b.archived and kanban.v.form_mode == "inline":
        inline = (
            f'<section class="new-card"><h2>{esc(c("new_card.heading"))}</h2>'
            f"{new_card_form(kanban, r, b)}</section>"
        )
    return b.name, (
        f'{crumbs}<div class="board-head"><h1>{esc(b.name)}</h1>{add}{switch_menu(kanban, r, b)}'
        f'</div><p class="muted">{esc(b.description)}</p>{banner}{w.toast(kanban.ui.flash)}'
        f'<div class="toolbar">{toolbar(kanban, r, b)}</div>{cards}{inline}{power_up(kanban, r, b)}'
    )


def switch_menu(kanban: Kanban, r: Renderer, b: Board) -> str:
    others = [x for x in kanban.state.boards.values() if not x.archived and x.id != b.id]
    if not others:
        return ""
    return w.nested_menu(
        r,
        name="switch",
        open_keys=kanban.ui.open,
        label=kanban.copy("board.menu"),
        items=[
            w.MenuItem(
                "boards",
                kanban.copy("board.switch"),
                children=tuple(w.MenuItem(x.id, x.name, href=f"/board/{x.id}") for x in others),
            )
        ],
    )


def toolbar(kanban: Kanban, r: Renderer, b: Board) -> str:
    """The board's filters (label, assignee, overdue), its search box and its sort."""
    c, view = kanban.copy, kanban.state.views[b.id]

    def board_filter(name: str, label: str, options: list[Option], selected: str) -> str:
        return choice(
            kanban,
            r,
            sid=f"filter:{name}",
            kind="Filter",
            name=name,
            label=label,
            options=options,
            selected=selected,
            bind=set_filter.bind(board=b.id, name=name),
        )

    labels = board_filter(
        "label",
        c("board.label"),
        [Option("", c("board.all_labels"), aliases=("all", "any"))]
        + [Option(x, x) for x in b.labels],
        view.label,
    )
    who = board_filter(
        "assignee",
        c("board.assignee"),
        [Option("", c("board.anyone"), aliases=("all", "any", "anyone")), *member_options(kanban)],
        view.assignee,
    )
    due = board_filter(
        "due",
        c("board.due_filter"),
        [
            Option("", c("board.any_due"), aliases=("all", "any")),
            Option("overdue", c("board.overdue_only"), aliases=("overdue", "late")),
        ],
        view.due,
    )
    search = w.text_field(
        r,
        label=c("board.search"),
        form="board-filter",
        helper=c("board.search_help"),
        input_type="search",
        bind=search_board.bind(board=b.id),
    )
    sort = choice(
        kanban,
        r,
        sid="sort",
        kind="Sort",
        name="sort",
        label=c("board.sort"),
        options=[
            Option(s, c(f"sort.{s}"), tuple(sorted(SORT_ATTRS[s].items())), SORT_ALIASES[s])
            for s in SORTS
        ],
        selected=view.sort,
        bind=set_sort.bind(board=b.id),
    )
    return labels + who + due + search + sort


def columns_html(kanban: Kanban, r: Renderer, b: Board) -> str:
    """The board's columns of cards (the filtered, sorted ones), ranked within each."""
    c = kanban.copy
    visible = kanban.queries.visible(b)
    by_column: dict[str, list[Card]] = {col: [] for col in b.columns}
    for card in visible:
        by_column[card.column].append(card)
    cols = []
    for col in b.columns:
        cards = by_column[col]
        items = "".join(
            f'<article{card_drag(b, card)} class="kcard">'
            f"{chips(kanban.queries.labels_on(card))}"
            + card_link(kanban, r, card, rank, "card", class_="title")
            + f'<div class="meta">{card_meta(kanban, card)}</div></article>'
            for rank, card in enumerate(cards, 1)
        )
        body = items or f'<p class="muted">{esc(c("board.empty_column"))}</p>'
        zone = "" if b.archived else w.drop_zone(name="column", value=col)
        cols.append(
            f'<section{zone} class="kcol"><h2>{esc(c(f"columns.{col}"))} '
            f'<span class="muted">{len(cards)}</span></h2>{body}</section>'
        )
    n = len(visible)
    count = c("board.shown_one") if n == 1 else c("board.shown_many", n=n)
    return (
        f'<p class="muted" role="status">{esc(count)}</p><div class="kboard">{"".join(cols)}</div>'
    )


def card_drag(b: Board, card: Card) -> str:
    """A card of a board that is not archived can be dragged to a column and a place in
    it: the drop moves it as the card page's Move form does."""
    if b.archived:
        return ""
    return w.draggable(sid=f"card:{card.id}", key=card.id, bind=move_card.bind(card=card.id))


def power_up(kanban: Kanban, r: Renderer, b: Board) -> str:
    if kanban.v.distractors != "many" or b.archived:
        return ""
    return (
        '<aside class="promo distractor">'
        f"<p>{esc(kanban.copy('distractors.power_up_text'))}</p>"
        + w.button(
            r,
            sid=f"power-up:{b.id}",
            text=kanban.copy("distractors.power_up"),
            variant="secondary",
            attrs_={"role": "power-up", "distractor": True},
            bind=add_power_up.bind(target=b.id),
        )
        + "</aside>"
    )


def new_card_form(kanban: Kanban, r: Renderer, b: Board) -> str:
    c = kanban.copy
    errors = kanban.state.feedback.new_card_errors
    due = set_field.bind(form="new_card", name="due")
    fields = {
        "title": w.text_field(
            r,
            label=c("new_card.title"),
            error=error_text(kanban, errors, "title"),
            helper=c("new_card.title_help"),
            maxlength=120,
            bind=set_field.bind(form="new_card", name="title"),
        ),
        "column": draft_choice(
            kanban,
            r,
            "new_card",
            "column",
            label=c("new_card.column"),
            options=column_options(kanban, b.columns),
        ),
        "assignee": draft_choice(
            kanban,
            r,
            "new_card",
            "assignee",
            label=c("new_card.assignee"),
            options=assignee_options(kanban),
        ),
        "priority": draft_choice(
            kanban,
            r,
            "new_card",
            "priority",
            label=c("new_card.priority"),
            options=priority_options(kanban),
        ),
        "due": w.date_picker(
            r,
            label=c("new_card.due"),
            month=kanban.month_of("due"),
            is_open=due.sid("date") in kanban.ui.open,
            today=TODAY,
            bind=due,
        )
        + error_line(kanban, errors, "due"),
    }
    body = "".join(fields[n] for n in field_order(kanban, tuple(fields), "new_card"))
    return w.form(
        r,
        name="new_card",
        body=body,
        submit_sid="form:new_card",
        submit_text=c("new_card.submit"),
        label=c("new_card.heading"),
        banner=fix_banner(kanban, errors),
        attrs_={"board": b.id, "role": "create-card"},
        bind=create_card.bind(board=b.id),
    )
