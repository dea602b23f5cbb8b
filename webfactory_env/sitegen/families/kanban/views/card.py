"""A card's page: its edit form, labels, files, comments and activity, and the side panel
that moves, assigns, prioritises, archives or deletes it (read-only when archived)."""

from __future__ import annotations

from collections.abc import Sequence

from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import Binding
from webfactory_env.sitegen.families.kanban.content import TODAY
from webfactory_env.sitegen.families.kanban.queries import Kanban
from webfactory_env.sitegen.families.kanban.state import Board, Card
from webfactory_env.sitegen.families.kanban.transitions.cards import (
    add_comment,
    archive_card,
    assign_card,
    attach_file,
    choose_column,
    choose_place,
    delete_card,
    format_text,
    move_card,
    restore_card,
    save_card,
    set_card_field,
    set_label,
    set_priority,
    watch_card,
    write_comment,
)
from webfactory_env.sitegen.families.kanban.views.common import (
    Page,
    assignee_options,
    choice,
    column_options,
    error_line,
    error_text,
    fix_banner,
    modal_open,
    priority_options,
)
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.spec import Option


def card_page(kanban: Kanban, r: Renderer, route: str) -> Page:
    c = kanban.copy
    card = kanban.state.cards[route[len("/card/") :]]
    board = kanban.queries.board_of(card)
    crumbs = w.breadcrumbs(
        r,
        [(c("board.root"), "/"), (board.name, f"/board/{board.id}"), (card.title, None)],
        label=c("card.crumbs"),
    )
    notice = ""
    if board.archived:
        notice = f'<p class="error-summary" role="status">{esc(c("card.read_only"))}</p>'
    elif card.archived:
        notice = f'<p class="notice" role="status">{esc(c("card.archived"))}</p>'
    if board.archived or card.archived:
        body, side = read_only(kanban, card), actions(kanban, r, card, board)
    else:
        body = (
            edit_form(kanban, r, card)
            + labels(kanban, r, card, board)
            + files(kanban, r, card)
            + comments(kanban, r, card)
            + activity(kanban, card)
        )
        side = side_panel(kanban, r, card, board) + actions(kanban, r, card, board)
    return card.title, (
        f"{crumbs}<h1>{esc(card.title)}</h1>{notice}{w.toast(kanban.ui.flash)}"
        f'<div class="card-page"><div class="card-main">{body}</div>'
        f'<aside class="card-side">{side}</aside></div>{confirmation(kanban, r, card, board)}'
    )


def confirmation(kanban: Kanban, r: Renderer, card: Card, board: Board) -> str:
    """The dialog that confirms archiving or deleting the card (both ask first)."""
    c = kanban.copy
    for action, transition, key in (
        ("delete", delete_card, "card.confirm"),
        ("archive", archive_card, "card.confirm_archive"),
    ):
        if not modal_open(kanban, f"{action}-card") or board.archived:
            continue
        confirm = w.button(
            r,
            sid=f"confirm-{action}:{card.id}",
            text=c(key),
            attrs_={"role": f"confirm-{action}", "card": card.id},
            bind=transition.bind(card=card.id),
        )
        return w.modal(
            r,
            name=f"{action}-card",
            title=c(f"{key}_title"),
            close_text=c("card.cancel"),
            body=f'<p>{esc(c(f"{key}_body"))}</p><div class="actions">{confirm}</div>',
        )
    return ""


def read_only(kanban: Kanban, card: Card) -> str:
    c = kanban.copy
    details = w.detail_view(
        [
            (c("card.column"), c(f"columns.{card.column}")),
            (c("card.assignee"), kanban.queries.name(card.assignee) or c("card.unassigned")),
            (c("card.priority"), c(f"priority.{card.priority}")),
            (c("card.due"), card.due or c("card.none")),
            (c("card.labels"), ", ".join(kanban.queries.labels_on(card)) or c("card.none")),
            (c("card.attachments"), ", ".join(sorted(card.attachments)) or c("card.none")),
        ]
    )
    return (
        f"{details}<h2>{esc(c('card.description'))}</h2><p>{esc(card.description)}</p>"
        f"<h2>{esc(c('card.comments'))}</h2>{comment_list(kanban, card)}"
    )


def edit_form(kanban: Kanban, r: Renderer, card: Card) -> str:
    """Title, description and due date: drafts until saved."""
    c = kanban.copy
    draft = kanban.state.forms.cards.get(card.id)
    title_, description_, due_ = (
        (draft.title, draft.description, draft.due)
        if draft
        else (card.title, card.description, card.due)
    )
    errors = kanban.state.feedback.card_errors
    formatting = kanban.state.editors.description
    editing = set_card_field.bind(card=card.id)
    # Until it is edited, each field shows the card itself (no draft yet).
    title = w.text_field(
        r,
        label=c("card.title"),
        value=title_,
        maxlength=120,
        error=error_text(kanban, errors, f"{card.id}:title"),
        bind=editing.with_args(field="title"),
    )
    description = w.rich_text(
        r,
        label=c("card.description"),
        value=description_,
        format=format_text.bind(),
        bold=formatting.bold,
        italic=formatting.italic,
        bind=editing.with_args(field="description"),
    )
    due_date = editing.with_args(field="due")
    due = w.date_picker(
        r,
        label=c("card.due"),
        value=due_,
        month=kanban.month_of("due"),
        is_open=due_date.sid("date") in kanban.ui.open,
        today=TODAY,
        bind=due_date,
    ) + error_line(kanban, errors, f"{card.id}:due")
    return w.form(
        r,
        name="card",
        body=title + description + due,
        submit_sid="form:card",
        submit_text=c("card.save"),
        label=c("card.edit"),
        banner=fix_banner(kanban, errors, f"{card.id}:"),
        attrs_={"card": card.id, "role": "save-card"},
        bind=save_card.bind(card=card.id),
    )


def labels(kanban: Kanban, r: Renderer, card: Card, board: Board) -> str:
    toggles = "".join(
        w.toggle(
            r,
            sid=f"label:{x}",
            kind="Toggle",
            label=x,
            attrs_={"label": x, "card": card.id},
            bind=set_label.bind(card=card.id, label=x),
        )
        for x in board.labels
    )
    heading = esc(kanban.copy("card.labels"))
    return f'<h2>{heading}</h2><div class="labels" role="group">{toggles}</div>'


def files(kanban: Kanban, r: Renderer, card: Card) -> str:
    c = kanban.copy
    sizes = {f.name: f for f in kanban.queries.files}
    items = "".join(
        f"<li>{esc(name)}"
        + (f' <small class="muted">{sizes[name].size_kb} KB</small>' if name in sizes else "")
        + "</li>"
        for name in sorted(card.attachments)
    )
    listing = (
        f'<ul class="files">{items}</ul>'
        if items
        else f'<p class="muted">{esc(c("card.no_attachments"))}</p>'
    )
    upload = w.file_upload(
        r,
        sid="upload:attachment",
        name="attachment",
        label=c("card.attach"),
        files=[w.SyntheticFile(f.name, f.size_kb, f.kind) for f in kanban.queries.files],
        chosen="",
        is_open="upload:attachment" in kanban.ui.open,
        bind=attach_file.bind(card=card.id),
    )
    return f"<h2>{esc(c('card.attachments'))}</h2>{listing}{upload}"


def comment_list(kanban: Kanban, card: Card) -> str:
    c = kanban.copy
    found = kanban.queries.comments_on(card.id)
    if not found:
        return f'<p class="muted">{esc(c("card.no_comments"))}</p>'
    name = kanban.queries.name
    items = "".join(
        f'<li><small class="muted">{esc(c("card.by", name=name(cm.author), date=cm.date))}'
        f"</small><p>{esc(cm.text)}</p></li>"
        for cm in found
    )
    return f'<ol class="comments">{items}</ol>'


def comments(kanban: Kanban, r: Renderer, card: Card) -> str:
    c = kanban.copy
    n = len(kanban.queries.comments_on(card.id))
    text = w.text_field(
        r,
        sid="field:comment",
        label=c("card.comment"),
        multiline=True,
        error=error_text(kanban, kanban.state.feedback.comment_errors, card.id),
        bind=write_comment.bind(card=card.id),
    )
    form = w.form(
        r,
        name="comment",
        body=text,
        submit_sid="form:comment",
        submit_text=c("card.add_comment"),
        label=c("card.comments"),
        attrs_={"card": card.id, "role": "add-comment"},
        bind=add_comment.bind(card=card.id),
    )
    return (
        f'<h2>{esc(c("card.comments"))} <span class="muted">{n}</span></h2>'
        f"{comment_list(kanban, card)}{form}"
    )


def activity(kanban: Kanban, card: Card) -> str:
    c = kanban.copy
    entries = []
    for key, arg in card.activity:
        if key == "log_moved":
            text = c("card.log_moved", column=c(f"columns.{arg}"))
        elif key == "log_assigned":
            text = c("card.log_assigned", name=kanban.queries.name(arg) or c("card.unassigned"))
        elif key == "log_priority":
            text = c("card.log_priority", priority=c(f"priority.{arg}"))
        elif key in ("log_attached", "log_label_on", "log_label_off"):
            text = c(f"card.{key}", file=arg, label=arg)
        else:
            text = c(f"card.{key}")
        entries.append(f"<li>{esc(text)}</li>")
    body = (
        f'<ol class="activity">{"".join(entries)}</ol>'
        if entries
        else f'<p class="muted">{esc(c("card.no_activity"))}</p>'
    )
    return f"<h2>{esc(c('card.activity'))}</h2>{body}"


def side_panel(kanban: Kanban, r: Renderer, card: Card, board: Board) -> str:
    """Move the card (choose a column, then Move), assign it, set its priority."""
    c = kanban.copy

    def card_choice(label: str, options: Sequence[Option], bind: Binding) -> str:
        attrs_ = {"card": card.id}
        return choice(
            kanban, r, kind="Choice", label=label, options=options, attrs_=attrs_, bind=bind
        )

    # The column a card moves to is a draft until Move; it starts at the card's own.
    target = kanban.state.forms.moves.get(card.id, card.column)
    place = kanban.state.forms.places.get(card.id, "bottom")
    places = [
        Option("bottom", c("card.place_bottom"), aliases=("bottom", "last", "end")),
        Option("top", c("card.place_top"), aliases=("top", "first")),
    ]
    move = w.form(
        r,
        name="move",
        body=choice(
            kanban,
            r,
            kind="Choice",
            label=c("card.move"),
            options=column_options(kanban, board.columns),
            selected=target,
            attrs_={"card": card.id, "form": "move"},
            bind=choose_column.bind(card=card.id),
        )
        + choice(
            kanban,
            r,
            kind="Choice",
            label=c("card.place"),
            options=places,
            selected=place,
            attrs_={"card": card.id, "form": "move"},
            bind=choose_place.bind(card=card.id),
        ),
        submit_sid="form:move",
        submit_text=c("card.move_submit"),
        label=c("card.move"),
        attrs_={"card": card.id, "role": "move-card"},
        bind=move_card.bind(card=card.id),
    )
    take = w.button(
        r,
        sid=f"take:{card.id}",
        text=c("card.take"),
        variant="secondary",
        attrs_={"role": "assign-to-me", "card": card.id},
        bind=assign_card.bind(card=card.id, member=kanban.queries.me.id),
    )
    people, priorities = assignee_options(kanban), priority_options(kanban)
    return (
        move
        + card_choice(c("card.assignee"), people, assign_card.bind(card=card.id))
        + take
        + card_choice(c("card.priority"), priorities, set_priority.bind(card=card.id))
    )


def actions(kanban: Kanban, r: Renderer, card: Card, board: Board) -> str:
    """Archive or restore, delete (after a confirmation dialog), and watch."""
    if board.archived:
        return ""
    c = kanban.copy
    if card.archived:
        keep = w.button(
            r,
            sid=f"restore:{card.id}",
            text=c("card.restore"),
            variant="secondary",
            attrs_={"role": "restore-card", "card": card.id},
            bind=restore_card.bind(card=card.id),
        )
    else:
        keep = dialog_opener(kanban, r, card, "archive")
    delete = dialog_opener(kanban, r, card, "delete")
    watch = ""
    if kanban.v.distractors != "none" and not card.archived:
        watch = w.button(
            r,
            sid=f"watch:{card.id}",
            text=c("distractors.watch"),
            variant="secondary",
            attrs_={"role": "watch", "card": card.id, "distractor": True},
            bind=watch_card.bind(card=card.id),
        )
    return (
        f"<h2>{esc(c('card.actions'))}</h2>"
        f'<div class="actions vertical">{keep}{delete}{watch}</div>'
    )


def dialog_opener(kanban: Kanban, r: Renderer, card: Card, action: str) -> str:
    """The button that asks to archive or delete the card: it opens the confirmation."""
    return w.button(
        r,
        sid=f"{action}:{card.id}",
        text=kanban.copy(f"card.{action}"),
        variant="secondary",
        attrs_={"role": f"{action}-card", "card": card.id},
        bind=w.UI_MODAL.bind(name=f"{action}-card"),
    )
