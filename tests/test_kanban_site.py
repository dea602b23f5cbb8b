"""The kanban family: generation invariants, the model's rules and transitions (no browser),
what its state lets goals pin, and conformance."""

from __future__ import annotations

import dataclasses

import pytest

from webfactory_env.adversarial import AppDriver
from webfactory_env.core.seeding import stable_digest
from webfactory_env.sitegen import AppEvent, generate_site
from webfactory_env.sitegen.families.kanban.app import KanbanApp
from webfactory_env.sitegen.families.kanban.content import (
    ARCHIVED_CARDS,
    CARDS_PER_BOARD,
    COLUMNS,
    FAMILY_VERSION,
    MINE_PER_BOARD,
    TODAY,
    WITH_FILES,
)
from webfactory_env.sitegen.families.kanban.queries import PAGE_SIZE, route_card
from webfactory_env.sitegen.families.kanban.rules import (
    check_board_name,
    check_comment,
    check_due,
    check_title,
    validate_invite,
)
from webfactory_env.sitegen.families.kanban.transitions.cards import (
    add_comment,
    archive_card,
    assign_card,
    attach_file,
    choose_column,
    create_card,
    delete_card,
    move_card,
    restore_card,
    save_card,
    set_card_field,
    set_label,
    set_priority,
    write_comment,
)
from webfactory_env.sitegen.families.kanban.transitions.workspace import (
    create_board,
    filter_calendar,
    invite_member,
    next_wizard_step,
    pick_board_member,
    search_board,
    set_field,
    set_filter,
    set_sort,
    show_month,
    turn_page,
)
from webfactory_env.sitegen.variation import Variation
from webfactory_env.sitegen.widgets import UI_MODAL
from webfactory_env.tasks import compile_for_site
from webfactory_env.testing import check_family, check_family_in_browser

SEEDS = range(40)
# Seed 0 in the fast tier, five more in the full suite.
CONFORMANCE_SEEDS = [
    pytest.param((0,), id="seed0"),
    pytest.param((1, 2, 3, 4, 5), id="seeds1-5", marks=pytest.mark.slow),
]
CONTRAST = {
    "choice_widget": "menu",
    "form_mode": "modal",
    "date_widget": "inline",
    "list_mode": "infinite",
    "nav": "sidebar",
    "theme": "dark",
    "distractors": "many",
    "validation": "async",
    "field_order": "shuffled",
}
# What two seeds generate (entities, routes, variation: the spec without its generator
# version, which also hashes the shared runtime and CSS). A change here must be a deliberate
# FAMILY_VERSION bump: regenerate the digests and say why in the commit.
GOLDEN = {
    (0, "easy"): "783ee253ed131a479bae443c4a4acd4912b004fb600f717afdd14624f584ceb7",
    (7, "hard"): "5961e27511b9587254588a59eca5d576b9313f0fcd03ea64dbfeb4df6dd8cb9f",
}


# ------------------------------------------------------------------- conformance
@pytest.mark.parametrize("seeds", CONFORMANCE_SEEDS)
def test_family_conformance(seeds):
    check_family("kanban", seeds=seeds)


@pytest.mark.browser
def test_family_conformance_in_browser():
    check_family_in_browser("kanban", seeds=(0,), variations=({}, CONTRAST))


def _content_digest(seed: int, difficulty: str) -> str:
    spec = generate_site("kanban", seed, difficulty).spec
    assert f"+kanban.{FAMILY_VERSION}." in spec.generator_version
    return stable_digest({k: v for k, v in spec.to_json().items() if k != "generator_version"})


def test_golden_digests():
    for (seed, difficulty), digest in GOLDEN.items():
        assert _content_digest(seed, difficulty) == digest, (seed, difficulty)


def test_same_seed_same_site_different_seed_different_site():
    assert generate_site("kanban", 3).digest == generate_site("kanban", 3).digest
    assert len({generate_site("kanban", s).digest for s in range(12)}) == 12
    assert generate_site("kanban", 3, "hard").digest != generate_site("kanban", 3).digest


# -------------------------------------------------------------------- generation
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_referential_integrity_and_uniqueness(difficulty):
    for seed in SEEDS:
        ent = generate_site("kanban", seed, difficulty).spec.entities
        members = {m.id: m for m in ent["members"]}
        boards = {b.id: b for b in ent["boards"]}
        cards = {c.id: c for c in ent["cards"]}
        files = {f.name for f in ent["files"]}
        assert len(members) == len(ent["members"]) and len(cards) == len(ent["cards"])
        assert len({m.name for m in members.values()}) == len(members)
        assert len({m.email for m in members.values()}) == len(members)
        assert len({b.name for b in boards.values()}) == len(boards)
        assert len({c.title for c in cards.values()}) == len(cards), "titles unique per site"
        dues = [c.due for c in cards.values() if c.due]
        assert len(set(dues)) == len(dues), "no two cards are due the same day"
        for c in cards.values():
            board = boards[c.board_id]
            assert c.column in board.columns
            assert set(c.labels) <= set(board.labels)
            assert members[c.assignee].active, "cards are assigned to active members"
            assert c.mine == members[c.assignee].me
            assert c.priority in ("low", "medium", "high", "urgent")
        for cm in ent["comments"]:
            assert cm.card_id in cards and members[cm.author].active and cm.date < TODAY
        for a in ent["attachments"]:
            assert a.card_id in cards and a.file in files
            assert cards[a.card_id].column in WITH_FILES, "files only on cards in review or done"
        for col in COLUMNS:  # positions are 1..n within every column
            for b in boards:
                pos = sorted(
                    c.position for c in cards.values() if c.board_id == b and c.column == col
                )
                assert pos == list(range(1, len(pos) + 1))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_guarantees_the_task_library_relies_on(difficulty):
    for seed in SEEDS:
        ent = generate_site("kanban", seed, difficulty).spec.entities
        archived = [b for b in ent["boards"] if b.archived]
        assert len(archived) == 1, "exactly one read-only board on every site"
        me = [m for m in ent["members"] if m.me]
        gone = [m for m in ent["members"] if not m.active]
        assert len(me) == 1 and me[0].active and len(gone) == 1
        assert {m.id for m in ent["members"] if m.teammate} == {
            m.id for m in ent["members"] if m.active and not m.me
        }
        assert not any(c.assignee == gone[0].id for c in ent["cards"])
        mine = [c for c in ent["cards"] if c.mine]
        assert len(mine) > PAGE_SIZE, "my tasks span more than one page"
        for b in ent["boards"]:
            cards = [c for c in ent["cards"] if c.board_id == b.id]
            if b.archived:
                assert len(cards) == ARCHIVED_CARDS
                assert all(c.column == "done" and not c.mine for c in cards)
                continue
            assert len(cards) == CARDS_PER_BOARD[difficulty]
            for col in COLUMNS:
                assert sum(c.column == col for c in cards) >= 2
            open_ = [c for c in cards if c.column != "done"]
            assert all(c.due for c in open_), "every open card has a due date"
            assert any(c.due < TODAY for c in open_), "something is overdue"
            assert any(c.due >= TODAY for c in open_), "something is coming up"
            blocked = [c for c in cards if c.column == "todo" and "Blocked" in c.labels]
            assert len(blocked) == 1
            assert sum(c.mine for c in cards) == MINE_PER_BOARD[difficulty]


# -------------------------------------------------------------------- the rules
def test_validation_rules():
    assert check_title("", 2, []) == "required"
    assert check_title("ab", 3, []) == "title_short"
    assert check_title("x" * 81, 3, []) == "title_long"
    assert check_title(" Fix bug ", 3, ["fix BUG"]) == "title_taken"
    assert check_title("Fix bug", 5, ["Other"]) == ""
    due = {"today": TODAY, "allow_past": False}
    assert check_due("", required=False, **due) == ""
    assert check_due("", required=True, **due) == "due_required"
    assert check_due("2026-02-30", required=False, **due) == "due_format"
    assert check_due("next week", required=False, **due) == "due_format"
    assert check_due("2026-03-01", required=False, **due) == "due_past"
    assert check_due("2026-03-01", required=False, today=TODAY, allow_past=True) == ""
    assert check_comment("  ") == "required" and check_comment("x" * 501) == "comment_long"
    assert check_board_name("Ops", 4, []) == "board_short"
    assert check_board_name(" office MOVE ", 2, ["Office move"]) == "board_taken"
    ok = {"name": "Jordan Avery", "email": "jordan@example.org", "role": "observer"}
    assert validate_invite(ok, [], strict=True) == {}
    assert validate_invite({**ok, "name": "Jordan"}, [], strict=True) == {"name": "name"}
    assert validate_invite({**ok, "name": "Jordan"}, [], strict=False) == {}
    assert validate_invite({**ok, "email": "jordan@"}, [], strict=False) == {"email": "email"}
    assert validate_invite(ok, ["jordan@example.org"], strict=False) == {"email": "email_taken"}
    assert validate_invite({**ok, "role": "owner"}, [], strict=False) == {"role": "required"}


# --------------------------------------------------------------------- the app
def _app(seed: int = 3, difficulty: str = "easy", **axes: str):
    site = generate_site("kanban", seed, difficulty, Variation.plain(**axes))
    return site, site.new_app()


def _board(site, archived: bool = False):
    return next(b for b in site.spec.entities["boards"] if b.archived == archived)


def _card(site, column: str, archived_board: bool = False):
    board = _board(site, archived_board)
    return next(
        c for c in site.spec.entities["cards"] if c.board_id == board.id and c.column == column
    )


def _new_records(app, table: str, site) -> list[dict]:
    seeded = {x.id for x in site.spec.entities.get(table, ())}
    return [r for k, r in app.state_view()[table].items() if k not in seeded]


def test_filters_sort_and_search_on_a_board():
    site, app = _app()
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    total = app.state_view()["board"]["count"]
    app.fire(set_filter, board=board.id, name="label", value="Blocked")
    shown = app.queries.visible(app.model.boards[board.id])
    assert shown and all(c.labels["Blocked"] for c in shown)
    assert app.state_view()["views"][board.id]["label"] == "Blocked"
    app.fire(set_filter, board=board.id, name="label", value="")
    app.fire(set_sort, board=board.id, value="due-asc")
    dues = [c.due for c in app.queries.visible(app.model.boards[board.id])]
    assert dues == sorted(dues) and app.state_view()["board"]["count"] == total
    ranks = [a.attr_map() for a in app.page().affordances if a.kind == "Item"]
    review = [a for a in ranks if a["column"] == "review"]
    assert [a["rank"] for a in review] == list(range(1, len(review) + 1))
    app.fire(search_board, board=board.id, value=shown[0].title[:6].upper(), type="input")
    assert shown[0] in app.queries.visible(app.model.boards[board.id])
    # what the page never offers is ignored
    app.fire(set_filter, board=board.id, name="label", value="Nonexistent")
    app.fire(set_sort, board=board.id, value="DROP TABLE")
    app.fire(set_filter, board="b-nope", name="label", value="Blocked")
    view = app.state_view()["views"][board.id]
    assert view["label"] == "" and view["sort"] == "due-asc"


def test_create_card_validates_then_creates():
    site, app = _app(validation="async")
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    taken = next(c.title for c in site.spec.entities["cards"] if c.board_id == board.id)
    app.fire(set_field, form="new_card", name="title", value=taken, type="input")
    assert app.state_view()["feedback"]["new_card_errors"] == {}, "async: no error yet"
    app.fire(set_field, form="new_card", name="due", value="2020-01-01")
    app.fire(create_card, board=board.id, values={"title": taken})
    errors = app.state_view()["feedback"]["new_card_errors"]
    assert errors == {"title": "title_taken", "due": "due_past"}
    assert _new_records(app, "cards", site) == []
    me = app.state_view()["user"]["id"]
    app.fire(set_field, form="new_card", name="column", value="review")
    app.fire(set_field, form="new_card", name="priority", value="urgent")
    app.fire(set_field, form="new_card", name="priority", value="whenever")  # ignored
    app.fire(set_field, form="new_card", name="assignee", value=me)
    app.fire(set_field, form="new_card", name="due", value="2026-03-20")
    app.fire(create_card, board=board.id, values={"title": "  Plan the offsite  "})
    (card,) = _new_records(app, "cards", site)
    assert (card["title"], card["column"], card["priority"], card["due"], card["board"]) == (
        "Plan the offsite",
        "review",
        "urgent",
        "2026-03-20",
        board.id,
    )
    assert card["assignee"] == me and not any(card["labels"].values())
    state = app.state_view()
    assert state["forms"]["new_card"]["title"] == "", "the form is cleared for the next card"
    assert app.known_route(f"/card/{card['id']}")


def test_a_new_card_is_unassigned_unless_someone_is_chosen():
    site, app = _app()
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    app.fire(create_card, board=board.id, values={"title": "Order new chairs"})
    (card,) = _new_records(app, "cards", site)
    assert card["assignee"] == "" and card["priority"] == "medium" and card["column"] == "todo"
    app.dispatch(AppEvent(type="nav", path=f"/card/{card['id']}"))
    choice = app.page().affordance("choice:card.assignee")
    assert choice.options[0].value == "", "the card page offers nobody too"


def test_sync_validation_follows_typing_through_the_error_region():
    site, app = _app(validation="sync")
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    app.mount_payload()
    sid = "field:new_card.title"
    patch = app.fire(set_field, form="new_card", name="title", value="x", sid=sid, type="input")
    assert app.state_view()["feedback"]["new_card_errors"] == {"title": "title_short"}
    assert set(patch.regions) == {f"err:{sid}"}
    patch = app.fire(
        set_field, form="new_card", name="title", value="Long enough", sid=sid, type="input"
    )
    assert app.state_view()["feedback"]["new_card_errors"] == {}
    assert set(patch.regions) == {f"err:{sid}"}


def test_a_card_moves_by_its_transition_alone_on_its_own_page():
    site, _ = _app()
    card = _card(site, "todo")
    elsewhere = KanbanApp.context_of(site.spec)  # not on the card's page: nothing moves
    move_card(elsewhere, card=card.id, values={"column": "done"})
    assert elsewhere.state.cards[card.id].column == "todo"
    kanban = KanbanApp.context_of(site.spec, route=f"/card/{card.id}")
    choose_column(kanban, card=card.id, value="done")
    assert kanban.state.cards[card.id].column == "todo", "moves on Move, not before"
    move_card(kanban, card=card.id)
    moved = kanban.state.cards[card.id]
    assert moved.column == "done" and moved.activity[-1] == ("log_moved", "done")
    assert kanban.ui.flash


def test_card_edits_take_effect_and_bad_values_are_ignored():
    site, app = _app()
    card = _card(site, "todo")
    file = site.spec.entities["files"][0].name
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    me = app.state_view()["user"]["id"]
    app.fire(choose_column, card=card.id, value="review")
    assert app.state_view()["cards"][card.id]["column"] == "todo", "moves on Move, not before"
    app.fire(move_card, card=card.id, type="submit")
    for transition, value in (
        (assign_card, me),
        (set_priority, "urgent"),
        (attach_file, file),
    ):
        app.fire(transition, card=card.id, value=value)
    app.fire(set_label, card=card.id, label="Blocked", value="true")
    got = app.state_view()["cards"][card.id]
    assert (got["column"], got["assignee"], got["priority"]) == ("review", me, "urgent")
    assert got["labels"]["Blocked"] is True and file in got["attachments"]
    before = app.state_view()["cards"][card.id]
    for transition, value in (
        (choose_column, "limbo"),
        (assign_card, "m-nobody"),
        (set_priority, "asap"),
        (attach_file, "../../etc/passwd"),
        (set_label.bind(label="Blocked"), "maybe"),
    ):
        app.fire(transition, card=card.id, value=value)
    app.fire(move_card, card=card.id, type="submit")
    app.fire(set_label, card=card.id, label="NoSuchLabel", value="true")
    app.fire(choose_column, card="c-nothing", value="done")
    assert app.state_view()["cards"][card.id] == before
    gone = next(m for m in site.spec.entities["members"] if not m.active)
    app.fire(assign_card, card=card.id, value=gone.id)
    assert app.state_view()["cards"][card.id]["assignee"] == me, "deactivated: not assignable"
    # title, description and due date are drafts until saved
    app.fire(set_card_field, card=card.id, field="title", value="Renamed card", type="input")
    app.fire(set_card_field, card=card.id, field="description", value="New notes", type="input")
    app.fire(set_card_field, card=card.id, field="due", value="2026-04-01")
    assert app.state_view()["cards"][card.id]["title"] == card.title
    app.fire(save_card, card=card.id, values={"title": "Renamed card"})
    got = app.state_view()["cards"][card.id]
    assert (got["title"], got["description"], got["due"]) == (
        "Renamed card",
        "New notes",
        "2026-04-01",
    )
    app.fire(set_card_field, card=card.id, field="title", value="", type="input")
    app.fire(save_card, card=card.id, type="submit")
    assert app.state_view()["feedback"]["card_errors"] == {f"{card.id}:title": "required"}
    assert app.state_view()["cards"][card.id]["title"] == "Renamed card"


def test_assign_to_me_is_the_assignee_choice_in_one_click():
    site, app = _app()
    me = next(m for m in site.spec.entities["members"] if m.me)
    card = next(c for c in site.spec.entities["cards"] if c.column == "todo" and not c.mine)
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    button = app.page().affordance(f"take:{card.id}")
    assert button.handler == "assign_card", "one action, one transition, wherever it is offered"
    app.take_fired()
    app.dispatch(button.click_event())
    assert app.take_fired() == ("assign_card",)
    assert app.state_view()["cards"][card.id]["assignee"] == me.id
    app.fire(assign_card, card=card.id, value="")
    assert app.state_view()["cards"][card.id]["assignee"] == "", "or nobody"


def test_comment_then_delete_with_confirmation():
    site, app = _app()
    card = _card(site, "todo")
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    n = len(app.queries.comments_on(card.id))
    app.fire(add_comment, card=card.id, values={"comment": "   "})
    assert len(app.queries.comments_on(card.id)) == n
    app.fire(write_comment, card=card.id, value="On it.", type="input")
    app.fire(add_comment, card=card.id, values={"comment": "On it."})
    state = app.state_view()
    (mine,) = _new_records(app, "comments", site)
    me = state["user"]["id"]
    assert (mine["card"], mine["author"], mine["text"]) == (card.id, me, "On it.")
    assert len(app.queries.comments_on(card.id)) == n + 1
    assert card.id not in state["forms"]["comments"], "the comment box is cleared"
    delete = app.page().affordance(f"delete:{card.id}")
    assert delete is not None and app.page().affordance(f"confirm-delete:{card.id}") is None
    app.dispatch(delete.click_event())
    confirm = app.page().affordance(f"confirm-delete:{card.id}")
    assert confirm is not None and app.state_view()["ui"]["modal"] == "delete-card"
    patch = app.dispatch(confirm.click_event())
    state = app.state_view()
    assert card.id not in state["cards"]
    assert not [cm for cm in state["comments"].values() if cm["card"] == card.id], (
        "its comments go with it"
    )
    assert patch.route == f"/board/{card.board_id}" and state["ui"]["modal"] == ""
    assert app.render(f"/card/{card.id}").status == 404


def test_archive_asks_first_and_restore_brings_the_card_back():
    site, app = _app()
    card = _card(site, "review")
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    app.dispatch(app.page().affordance(f"archive:{card.id}").click_event())
    assert not app.state_view()["cards"][card.id]["archived"], "the dialog asks first"
    app.dispatch(app.page().affordance(f"confirm-archive:{card.id}").click_event())
    assert app.state_view()["card"]["archived"]
    assert card.id not in {c.id for c in app.queries.visible(app.model.boards[card.board_id])}
    app.fire(choose_column, card=card.id, value="done")  # archived: read-only
    app.fire(move_card, card=card.id, type="submit")
    assert app.state_view()["cards"][card.id]["column"] == "review"
    app.fire(restore_card, card=card.id)
    assert not app.state_view()["cards"][card.id]["archived"]


def test_archived_board_is_read_only():
    site, app = _app()
    board = _board(site, archived=True)
    card = _card(site, "done", archived_board=True)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    page = app.page()
    assert app.state_view()["board"]["archived"] is True
    assert not any(a.attr_map().get("form") == "new_card" for a in page.affordances)
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    kinds = {a.kind for a in app.page().affordances}
    assert kinds <= {"Link"}, "nothing on a card of an archived board can be changed"
    before = app.state_view()["cards"][card.id]
    for transition, value in (
        (choose_column, "todo"),
        (set_priority, "low"),
        (archive_card, None),
        (delete_card, None),
    ):
        app.fire(transition, card=card.id, value=value)
    app.fire(move_card, card=card.id, type="submit")
    app.fire(create_card, board=board.id, values={"title": "Sneaky"})
    assert app.state_view()["cards"][card.id] == before
    assert _new_records(app, "cards", site) == []


def test_my_tasks_pages_and_infinite_list_show_the_same_cards():
    seen = {}
    for mode in ("pages", "infinite"):
        site, app = _app(difficulty="hard", list_mode=mode)
        app.dispatch(AppEvent(type="nav", path="/my-tasks"))
        state = app.state_view()["my_tasks"]
        assert state["shown"] == PAGE_SIZE and state["count"] > PAGE_SIZE
        items = []
        while True:
            page = app.page()
            items += [a.attr_map()["title"] for a in page.affordances if a.kind == "Item"]
            nxt = page.affordance("pager:my-tasks:next") or page.affordance("more:my-tasks")
            if nxt is None or nxt.attr_map().get("disabled"):
                break
            app.dispatch(nxt.click_event())
        seen[mode] = list(dict.fromkeys(items))
        assert len(seen[mode]) == state["count"]
    assert seen["pages"] == seen["infinite"]
    site, app = _app(difficulty="hard", list_mode="pages")
    app.fire(turn_page, page=99)
    assert app.state_view()["my_tasks"]["page"] == 1


def test_calendar_filters_by_board_and_pages_months():
    site, app = _app()
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path="/calendar"))
    app.fire(filter_calendar, value=board.id)
    agenda = [a.attr_map() for a in app.page().affordances if a.kind == "Item"]
    assert agenda and all(a["board"] == board.name and a["due"] >= TODAY for a in agenda)
    assert [a["due"] for a in agenda] == sorted(a["due"] for a in agenda)
    assert app.state_view()["calendar"]["next"] == [a["title"] for a in agenda]
    app.fire(filter_calendar, value=_board(site, archived=True).id)  # no
    assert app.state_view()["calendar"]["board"] == board.id
    app.dispatch(app.page().affordance("calendar:next-month").click_event())
    for month in ("2026-13", "1999-01", "next"):  # ignored
        app.fire(show_month, month=month)
    assert app.state_view()["calendar"]["month"] == "2026-04"


def test_invite_a_teammate():
    site, app = _app(difficulty="hard", form_mode="modal")
    app.dispatch(AppEvent(type="nav", path="/members"))
    app.fire(UI_MODAL, name="invite")
    taken = site.spec.entities["members"][1].email
    app.fire(invite_member, values={"name": "Jordan", "email": taken.upper()})
    assert app.state_view()["feedback"]["invite_errors"] == {
        "name": "name",
        "email": "email_taken",
    }
    assert app.state_view()["ui"]["modal"] == "invite"
    app.fire(set_field, form="invite", name="role", value="observer")
    app.fire(invite_member, values={"name": "Jordan Avery", "email": "Jordan.Avery@example.org "})
    state = app.state_view()
    assert state["invites"] == {
        "jordan.avery@example.org": {
            "id": "jordan.avery@example.org",
            "name": "Jordan Avery",
            "email": "jordan.avery@example.org",
            "role": "observer",
        }
    }
    assert state["ui"]["modal"] == "" and state["forms"]["invite"]["email"] == ""
    app.fire(invite_member, values={"name": "J A", "email": "JORDAN.avery@example.org"})
    assert app.state_view()["feedback"]["invite_errors"]["email"] == "email_taken"


def test_new_board_wizard():
    site, app = _app()
    app.dispatch(AppEvent(type="nav", path="/boards/new"))
    taken = _board(site).name
    app.fire(next_wizard_step, step=1, values={"name": taken, "description": ""})
    assert app.state_view()["wizard"]["step"] == 1
    assert app.state_view()["feedback"]["board_errors"] == {"name": "board_taken"}
    app.fire(next_wizard_step, step=1, values={"name": "Partner program"})
    app.fire(set_field, form="new_board", name="template", value="basic")
    app.fire(next_wizard_step, step=2, type="submit")
    assert app.state_view()["wizard"]["step"] == 3
    other = next(m for m in site.spec.entities["members"] if m.teammate)
    app.fire(pick_board_member, member=other.id, value="true")
    patch = app.fire(create_board, type="submit")
    state = app.state_view()
    (made,) = _new_records(app, "boards", site)
    assert (made["name"], made["template"], made["visibility"]) == (
        "Partner program",
        "basic",
        "team",
    )
    assert made["members"] == sorted([other.id, state["user"]["id"]]), "you are always on it"
    assert state["wizard"]["step"] == 4 and patch.route == f"/board/{made['id']}"
    assert state["board"]["columns"] == ["todo", "in_progress", "done"]
    app.fire(next_wizard_step, step=3, type="submit")  # nothing to advance once created
    assert app.state_view()["wizard"]["step"] == 4


def test_unknown_routes_and_events_never_crash():
    site, app = _app()
    for route in ("/board/b-nope", "/card/", "/member/x", "/boards/new/extra", "/nope"):
        assert app.render(route).status == 404
    card = _card(site, "todo")
    for transition, args in (  # values the page never offers: ignored
        (choose_column, {"card": card.id}),
        (save_card, {"card": card.id, "values": {"title": "x" * 5000}}),
        (pick_board_member, {"member": "m-x", "value": "maybe"}),
        (set_field, {"form": "new_board", "name": "members", "value": "z"}),
        (turn_page, {"page": -1}),
    ):
        app.fire(transition, **args)
    assert not app.errors
    for handler, arg in (  # arguments the page never sends: refused
        ("archive_card", None),
        ("set_field", "form=x&name=y"),
        ("set_label", f"card={card.id}"),
        ("sort_team", "column=email&order=asc"),
    ):
        app.dispatch(AppEvent(type="click", handler=handler, arg=arg))
    assert [e["kind"] for e in app.errors] == ["bad_argument"] * 4


def test_injected_error_keeps_dialog_closed_until_retry():
    site, app = _app(errors="some")
    board = _board(site)
    for card in [c for c in site.spec.entities["cards"] if c.board_id == board.id]:
        app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
        app.fire(UI_MODAL, name="delete-card")
        confirm = app.page().affordance(f"confirm-delete:{card.id}")
        assert confirm is not None
        app.dispatch(confirm.click_event())
        if app.failed is not None:  # this deletion hit an injected server error
            break
    else:
        pytest.fail("no deletion failed: the errors axis injected nothing")
    page = app.page()
    retry = page.affordance("retry")
    assert retry is not None and card.id in app.state_view()["cards"]
    assert page.affordance(f"confirm-delete:{card.id}") is None, "no dialog over the banner"
    patch = app.dispatch(retry.click_event())
    assert card.id not in app.state_view()["cards"] and patch.route == f"/board/{card.board_id}"


def test_generated_text_is_escaped():
    site = generate_site("kanban", 1)
    evil = "<script>alert(1)</script>\"'&"
    cards = site.spec.entities["cards"]
    spec = dataclasses.replace(
        site.spec,
        brand=evil,
        entities={
            **site.spec.entities,
            "cards": (dataclasses.replace(cards[0], title=evil), *cards[1:]),
        },
    )
    app = dataclasses.replace(site, spec=spec).new_app()
    for route in ("/", f"/board/{cards[0].board_id}", f"/card/{cards[0].id}"):
        html = "".join(app.render(route).regions.values())
        assert "<script>" not in html
    app.dispatch(AppEvent(type="nav", path=f"/card/{cards[1].id}"))
    app.fire(write_comment, card=cards[1].id, value=evil, type="input")
    app.fire(add_comment, card=cards[1].id, type="submit")
    html = "".join(app.render(f"/card/{cards[1].id}").regions.values())
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_transitions_report_what_fired():
    site, app = _app()
    card = _card(site, "todo")
    app.take_fired()
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    app.fire(choose_column, card=card.id, value="done")
    app.fire(move_card, card=card.id, type="submit")
    assert app.take_fired() == ("nav", "choose_column", "move_card")
    assert app.take_fired() == ()


# ------------------------------------------------- what the state lets goals pin
def test_the_state_declares_what_goals_may_pin():
    schema = generate_site("kanban", 0).family.schema
    assert schema.pinned(("cards", "c-1", "column")) and schema.pinned(("cards", "c-1", "labels"))
    assert schema.pinned(("comments", "cm-1", "text")) and schema.pinned(("invites", "x", "role"))
    assert schema.pinned(("boards", "b-1", "members"))
    for bookkeeping in (
        ("cards", "c-1", "position"),
        ("cards", "c-1", "activity"),
        ("comments", "cm-1", "date"),
        ("cards", "c-1", "id"),
        ("boards", "b-1", "columns"),
    ):
        assert not schema.pinned(bookkeeping), bookkeeping
    assert not schema.pinned(("forms", "new_card")), "drafts are never pinned"
    assert not schema.pinned(("views", "b-1", "sort")), "how the page looks is never pinned"
    assert not schema.pinned(("board", "overdue")), "computed facts are derived"
    assert schema.node(("cards", "*", "priority")).source == "forms.new_card.priority"
    assert schema.node(("invites", "*", "role")).source == "forms.invite.role"


def _goal(task: str, seed: int = 0):
    site = generate_site("kanban", seed)
    compiled = compile_for_site(task, site)
    return site, compiled, {c.id: c.predicate.to_json() for c in compiled.goal}


def test_goals_pin_the_card_the_task_names():
    site, compiled, goal = _goal("kanban_move_and_comment")
    card = next(c for c in site.spec.entities["cards"] if c.title == compiled.params["card"])
    text = str(goal)
    assert f"cards.{card.id}.column" in text and "'value': 'done'" in text
    assert "'path': 'comments'" in text and card.id in text and "Reviewed and shipped." in text
    assert "position" not in text and "date" not in text and "activity" not in text
    _, compiled, goal = _goal("kanban_delete_card")
    card = next(c for c in site.spec.entities["cards"] if c.title == compiled.params["card"])
    assert {"op": "not", "item": {"op": "has", "path": f"cards.{card.id}"}} in goal.values()
    _, _, goal = _goal("kanban_create_card")
    assert [p["op"] for p in goal.values()] == ["exists"], "a new card: some card like this"


def _play(task: str, steps: int, seed: int = 0):
    site = generate_site("kanban", seed)
    compiled = compile_for_site(task, site)
    d = AppDriver(site, compiled)
    for step in compiled.plan[:steps]:
        aff = d.app.page().affordance(step.sid)
        verb = {"type": "fill"}.get(step.verb, step.verb)
        if verb == "click" and aff.kind == "Form":
            verb = "submit"
        value = step.value
        if verb == "select":
            value = next(o.value for o in aff.options if step.value in (o.label, o.value))
        d.act(aff, verb, value)
    return site, compiled, d


def test_moving_another_card_is_no_success():
    site, compiled, d = _play("kanban_move_and_comment", 3)  # search, type, open
    target = route_card(d.app.context())
    other = next(c for c in d.app.model.cards.values() if c.column == "review" and c is not target)
    d.navigate(f"/card/{other.id}")
    d.act(d.app.page().affordance("choice:card.column"), "select", "done")
    d.act(d.app.page().affordance("form:move"), "submit")
    d.act(d.app.page().affordance("field:comment"), "fill", "Reviewed and shipped.")
    out = d.act(d.app.page().affordance("form:comment"), "submit")
    assert not out.success, "the comment and the move belong on the card the task names"


def test_editing_a_card_needs_the_attachment_too():
    site = generate_site("kanban", 0)
    plan = compile_for_site("kanban_edit_card", site).plan
    attach = plan[-1].subgoal
    _, _, d = _play("kanban_edit_card", sum(step.subgoal != attach for step in plan))
    assert route_card(d.app.context()).title == "Ready for QA sign-off", "saved"
    assert not d.success, "but the file is not attached yet"


def test_the_goal_text_says_what_is_checked():
    _, compiled, _ = _goal("kanban_triage_blocked")
    assert "Blocked" in compiled.goal_text and "yourself" in compiled.goal_text
