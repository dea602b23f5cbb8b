"""The kanban family: generation invariants, the app's transitions (no browser), conformance."""

from __future__ import annotations

import dataclasses

import pytest

from webfactory_env.core.seeding import stable_digest
from webfactory_env.sitegen import AppEvent, generate_site
from webfactory_env.sitegen.families.kanban import (
    ARCHIVED_CARDS,
    CARDS_PER_BOARD,
    COLUMNS,
    FAMILY_VERSION,
    MINE_PER_BOARD,
    PAGE_SIZE,
    TODAY,
    check_due,
    check_title,
    validate_invite,
)
from webfactory_env.sitegen.variation import Variation
from webfactory_env.testing import check_family, check_family_in_browser

SEEDS = range(40)
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
    (0, "easy"): "1289ce5af28651bbd2589846c0bd5075eb436c8153d48f2a525a505798edcbb0",
    (7, "hard"): "63e4da15dae3223bdc7ffd4188beeec7e9549f000aff6748dad6eb976c60cc00",
}


# ------------------------------------------------------------------- conformance
def test_family_conformance():
    check_family("kanban", seeds=range(6))


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


def _ev(
    type_: str,
    handler: str,
    arg: str | None = None,
    value: str | None = None,
    values: dict[str, str] | None = None,
) -> AppEvent:
    return AppEvent(type=type_, handler=handler, arg=arg, value=value, values=values)


def test_filters_sort_and_search_on_a_board():
    site, app = _app()
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    total = app.state_view()["board"]["count"]
    app.dispatch(_ev("change", "view_filter", f"{board.id}:label", "Blocked"))
    shown = app._visible(app.boards[board.id])
    assert shown and all("Blocked" in c.labels for c in shown)
    assert app.state_view()["views"][board.id]["label"] == "Blocked"
    app.dispatch(_ev("change", "view_filter", f"{board.id}:label", ""))
    app.dispatch(_ev("change", "view_sort", board.id, "due-asc"))
    dues = [c.due for c in app._visible(app.boards[board.id])]
    assert dues == sorted(dues) and app.state_view()["board"]["count"] == total
    ranks = [a.attr_map() for a in app.page().affordances if a.kind == "Item"]
    review = [a for a in ranks if a["column"] == "review"]
    assert [a["rank"] for a in review] == list(range(1, len(review) + 1))
    app.dispatch(_ev("input", "view_q", board.id, shown[0].title[:6].upper()))
    assert shown[0] in app._visible(app.boards[board.id])
    # what the page never offers is ignored
    app.dispatch(_ev("change", "view_filter", f"{board.id}:label", "Nonexistent"))
    app.dispatch(_ev("change", "view_sort", board.id, "DROP TABLE"))
    app.dispatch(_ev("change", "view_filter", "b-nope:label", "Blocked"))
    view = app.state_view()["views"][board.id]
    assert view["label"] == "" and view["sort"] == "due-asc"


def test_create_card_validates_then_creates():
    site, app = _app(validation="async")
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    taken = next(c.title for c in site.spec.entities["cards"] if c.board_id == board.id)
    app.dispatch(_ev("input", "field", "new_card.title", taken))
    assert app.state_view()["validation"]["new_card"]["errors"] == {}, "async: no error yet"
    app.dispatch(_ev("change", "new_card_due", "new_card.due", "2020-01-01"))
    app.dispatch(_ev("submit", "create_card", values={"title": taken}))
    errors = app.state_view()["validation"]["new_card"]["errors"]
    assert errors == {"title": "title_taken", "due": "due_past"}
    assert app.state_view()["created"]["count"] == 0
    app.dispatch(_ev("change", "choice", "new_card.column", "review"))
    app.dispatch(_ev("change", "choice", "new_card.priority", "urgent"))
    app.dispatch(_ev("change", "choice", "new_card.priority", "whenever"))  # ignored
    app.dispatch(_ev("change", "new_card_due", "new_card.due", "2026-03-20"))
    app.dispatch(_ev("submit", "create_card", values={"title": "  Plan the offsite  "}))
    state = app.state_view()
    last = state["created"]["last"]
    assert (last["title"], last["column"], last["priority"], last["due"], last["board"]) == (
        "Plan the offsite",
        "review",
        "urgent",
        "2026-03-20",
        board.id,
    )
    assert last["assignee"] == state["user"]["id"] and state["created"]["count"] == 1
    assert state["cards"][last["id"]]["column"] == "review"
    assert state["forms"]["new_card"]["title"] == "", "the form is cleared for the next card"
    assert app.known_route(f"/card/{last['id']}")


def test_sync_validation_follows_typing_through_the_error_region():
    site, app = _app(validation="sync")
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path=f"/board/{board.id}"))
    app.mount_payload()
    patch = app.dispatch(
        AppEvent(
            type="input",
            handler="field",
            arg="new_card.title",
            value="x",
            sid="field:new_card.title",
        )
    )
    assert app.form_errors["new_card"] == {"title": "title_short"}
    assert set(patch.regions) == {"err:field:new_card.title"}
    patch = app.dispatch(
        AppEvent(
            type="input",
            handler="field",
            arg="new_card.title",
            value="Long enough",
            sid="field:new_card.title",
        )
    )
    assert app.form_errors["new_card"] == {} and set(patch.regions) == {"err:field:new_card.title"}


def test_validation_rules():
    assert check_title("", 2, []) == "required"
    assert check_title("ab", 3, []) == "title_short"
    assert check_title("x" * 81, 3, []) == "title_long"
    assert check_title(" Fix bug ", 3, ["fix BUG"]) == "title_taken"
    assert check_title("Fix bug", 5, ["Other"]) == ""
    assert check_due("", required=False, allow_past=False) == ""
    assert check_due("", required=True, allow_past=False) == "due_required"
    assert check_due("2026-02-30", required=False, allow_past=False) == "due_format"
    assert check_due("next week", required=False, allow_past=False) == "due_format"
    assert check_due("2026-03-01", required=False, allow_past=False) == "due_past"
    assert check_due("2026-03-01", required=False, allow_past=True) == ""
    ok = {"name": "Jordan Avery", "email": "jordan@example.org", "role": "observer"}
    assert validate_invite(ok, [], strict=True) == {}
    assert validate_invite({**ok, "name": "Jordan"}, [], strict=True) == {"name": "name"}
    assert validate_invite({**ok, "name": "Jordan"}, [], strict=False) == {}
    assert validate_invite({**ok, "email": "jordan@"}, [], strict=False) == {"email": "email"}
    assert validate_invite(ok, ["jordan@example.org"], strict=False) == {"email": "email_taken"}
    assert validate_invite({**ok, "role": "owner"}, [], strict=False) == {"role": "required"}


def test_card_edits_take_effect_and_bad_values_are_ignored():
    site, app = _app()
    card = _card(site, "todo")
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    me = app.state_view()["user"]["id"]
    for handler, value in (
        ("move_card", "review"),
        ("set_assignee", me),
        ("set_priority", "urgent"),
        ("attach", site.spec.entities["files"][0].name),
    ):
        app.dispatch(_ev("change", handler, card.id, value))
    app.dispatch(_ev("change", "toggle_label", f"{card.id}:Blocked", "true"))
    got = app.state_view()["cards"][card.id]
    assert (got["column"], got["assignee"], got["priority"]) == ("review", me, "urgent")
    assert "Blocked" in got["labels"] and got["label_state"]["Blocked"] == "true"
    assert site.spec.entities["files"][0].name in got["attachments"]
    before = app.state_view()["cards"][card.id]
    for handler, value in (
        ("move_card", "limbo"),
        ("set_assignee", "m-nobody"),
        ("set_priority", "asap"),
        ("attach", "../../etc/passwd"),
    ):
        app.dispatch(_ev("change", handler, card.id, value))
    app.dispatch(_ev("change", "toggle_label", f"{card.id}:NoSuchLabel", "true"))
    app.dispatch(_ev("change", "move_card", "c-nothing", "done"))
    assert app.state_view()["cards"][card.id] == before
    gone = next(m for m in site.spec.entities["members"] if not m.active)
    app.dispatch(_ev("change", "set_assignee", card.id, gone.id))
    assert app.state_view()["cards"][card.id]["assignee"] == me, "deactivated: not assignable"
    # title, description and due date are drafts until saved
    app.dispatch(_ev("input", "card_field", f"{card.id}:title", "Renamed card"))
    app.dispatch(_ev("input", "card_field", f"{card.id}:description", "New notes"))
    app.dispatch(_ev("change", "card_due", card.id, "2026-04-01"))
    assert app.state_view()["cards"][card.id]["title"] == card.title
    app.dispatch(_ev("submit", "save_card", values={"title": "Renamed card"}))
    got = app.state_view()["cards"][card.id]
    assert (got["title"], got["description"], got["due"]) == (
        "Renamed card",
        "New notes",
        "2026-04-01",
    )
    app.dispatch(_ev("input", "card_field", f"{card.id}:title", ""))
    app.dispatch(_ev("submit", "save_card"))
    assert app.state_view()["validation"]["card"]["errors"] == {f"{card.id}:title": "required"}
    assert app.state_view()["cards"][card.id]["title"] == "Renamed card"


def test_comment_then_delete_with_confirmation():
    site, app = _app()
    card = _card(site, "todo")
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    n = app.state_view()["card"]["comments"]
    app.dispatch(_ev("submit", "add_comment", values={"comment": "   "}))
    assert app.state_view()["card"]["comments"] == n
    app.dispatch(_ev("input", "comment_field", card.id, "On it."))
    app.dispatch(_ev("submit", "add_comment", values={"comment": "On it."}))
    state = app.state_view()
    assert state["card"]["comments"] == n + 1 and state["card"]["last_comment"] == "On it."
    assert card.id not in state["forms"]["comments"], "the comment box is cleared"
    delete = app.page().affordance(f"delete:{card.id}")
    assert delete is not None and app.page().affordance(f"confirm-delete:{card.id}") is None
    app.dispatch(delete.click_event())
    confirm = app.page().affordance(f"confirm-delete:{card.id}")
    assert confirm is not None and app.state_view()["ui"]["modal"] == "delete-card"
    patch = app.dispatch(confirm.click_event())
    state = app.state_view()
    assert card.id not in state["cards"] and state["deleted"] == {
        "count": 1,
        "titles": [card.title],
    }
    assert patch.route == f"/board/{card.board_id}" and state["ui"]["modal"] == ""
    assert app.render(f"/card/{card.id}").status == 404


def test_archive_and_restore():
    site, app = _app()
    card = _card(site, "review")
    app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
    app.dispatch(_ev("click", "archive_card", card.id))
    assert app.state_view()["card"]["archived"] and app.state_view()["card"]["read_only"]
    assert card.id not in {c.id for c in app._visible(app.boards[card.board_id])}
    app.dispatch(_ev("change", "move_card", card.id, "done"))  # archived: read-only
    assert app.state_view()["cards"][card.id]["column"] == "review"
    app.dispatch(_ev("click", "restore_card", card.id))
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
    for handler, value in (
        ("move_card", "todo"),
        ("set_priority", "low"),
        ("archive_card", None),
        ("delete_card", None),
    ):
        app.dispatch(_ev("change", handler, card.id, value))
    app.dispatch(_ev("submit", "create_card", values={"title": "Sneaky"}))
    assert app.state_view()["cards"][card.id] == before
    assert app.state_view()["created"]["count"] == 0


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
    app.dispatch(_ev("click", "my_page", "99"))
    assert app.state_view()["my_tasks"]["page"] == 1


def test_calendar_filters_by_board_and_pages_months():
    site, app = _app()
    board = _board(site)
    app.dispatch(AppEvent(type="nav", path="/calendar"))
    app.dispatch(_ev("change", "cal_board", None, board.id))
    agenda = [a.attr_map() for a in app.page().affordances if a.kind == "Item"]
    assert agenda and all(a["board"] == board.name and a["due"] >= TODAY for a in agenda)
    assert [a["due"] for a in agenda] == sorted(a["due"] for a in agenda)
    app.dispatch(_ev("change", "cal_board", None, _board(site, archived=True).id))  # ignored
    assert app.state_view()["calendar"]["board"] == board.id
    app.dispatch(_ev("click", "cal_month", "+1"))
    app.dispatch(_ev("click", "cal_month", "+7"))  # ignored
    assert app.state_view()["calendar"]["month"] == "2026-04"


def test_invite_a_teammate():
    site, app = _app(difficulty="hard", form_mode="modal")
    app.dispatch(AppEvent(type="nav", path="/members"))
    app.dispatch(_ev("click", "ui.modal", "invite"))
    taken = site.spec.entities["members"][1].email
    app.dispatch(_ev("submit", "invite", values={"name": "Jordan", "email": taken.upper()}))
    assert app.state_view()["validation"]["invite"]["errors"] == {
        "name": "name",
        "email": "email_taken",
    }
    assert app.state_view()["ui"]["modal"] == "invite"
    app.dispatch(_ev("change", "choice", "invite.role", "observer"))
    app.dispatch(
        _ev(
            "submit",
            "invite",
            values={"name": "Jordan Avery", "email": "Jordan.Avery@example.org "},
        )
    )
    state = app.state_view()
    assert state["members"]["invited"] == ["jordan.avery@example.org"]
    assert state["ui"]["modal"] == "" and state["forms"]["invite"]["email"] == ""


def test_new_board_wizard():
    site, app = _app()
    app.dispatch(AppEvent(type="nav", path="/boards/new"))
    taken = _board(site).name
    app.dispatch(_ev("submit", "wizard_next", values={"name": taken, "description": ""}))
    assert app.state_view()["wizard"]["step"] == 1
    assert app.state_view()["validation"]["new_board"]["errors"] == {"name": "board_taken"}
    app.dispatch(_ev("submit", "wizard_next", values={"name": "Partner program"}))
    app.dispatch(_ev("change", "choice", "new_board.template", "basic"))
    app.dispatch(_ev("submit", "wizard_next"))
    assert app.state_view()["wizard"]["step"] == 3
    other = next(m for m in site.spec.entities["members"] if m.active and not m.me)
    app.dispatch(_ev("change", "wizard_member", other.id, "true"))
    patch = app.dispatch(_ev("submit", "create_board"))
    state = app.state_view()
    last = state["new_board"]["last"]
    assert (last["name"], last["template"]) == ("Partner program", "basic")
    assert other.id in last["members"] and state["wizard"]["step"] == 4
    assert patch.route == f"/board/{last['id']}" and state["board"]["columns"] == [
        "todo",
        "in_progress",
        "done",
    ]
    app.dispatch(_ev("submit", "wizard_next"))  # nothing to advance once created
    assert app.state_view()["wizard"]["step"] == 4


def test_unknown_routes_and_events_never_crash():
    site, app = _app()
    for route in ("/board/b-nope", "/card/", "/member/x", "/boards/new/extra", "/nope"):
        assert app.render(route).status == 404
    card = _card(site, "todo")
    for ev in (
        _ev("click", "archive_card", None),
        _ev("change", "move_card", card.id, None),
        _ev("submit", "save_card", values={"title": "x" * 5000}),
        _ev("change", "wizard_member", "m-x", "maybe"),
        _ev("click", "my_page", "-1"),
        _ev("click", "members_sort", "email=asc"),
        _ev("change", "choice", "x.y", "z"),
    ):
        app.dispatch(ev)
    assert not app.errors


def test_injected_error_keeps_dialog_closed_until_retry():
    site, app = _app(errors="some")
    board = _board(site)
    for card in [c for c in site.spec.entities["cards"] if c.board_id == board.id]:
        app.dispatch(AppEvent(type="nav", path=f"/card/{card.id}"))
        app.dispatch(_ev("click", "ui.modal", "delete-card"))
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
    app.dispatch(_ev("input", "comment_field", cards[1].id, evil))
    app.dispatch(_ev("submit", "add_comment"))
    html = "".join(app.render(f"/card/{cards[1].id}").regions.values())
    assert "<script>" not in html and "&lt;script&gt;" in html
