"""Moving kanban cards to a column and a place in it: by a drop on the board, and by the
card page's Move form (its keyboard-accessible alternative), with one transition for both;
in Chromium, a real mouse drag moves a card and the trace names the card."""

from __future__ import annotations

import re
from typing import Any

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.families.kanban.app import KanbanApp
from webfactory_env.sitegen.families.kanban.transitions.cards import (
    choose_column,
    choose_place,
    move_card,
)
from webfactory_env.sitegen.variation import Variation


def _board_context(seed: int = 0):
    site = generate_site("kanban", seed, "easy", Variation.plain())
    board = next(b for b in site.spec.entities["boards"] if not b.archived)
    return site, board, KanbanApp.context_of(site.spec, route=f"/board/{board.id}")


def _ids(kanban, board: str, column: str) -> list[str]:
    return [c.id for c in kanban.queries.column_cards(board, column)]


def _positions(kanban, board: str, column: str) -> list[int]:
    return [c.position for c in kanban.queries.column_cards(board, column)]


# ------------------------------------------------------------------ the transition
def test_a_drop_puts_the_card_where_it_landed_in_the_other_column():
    _, board, kanban = _board_context()
    card, *_ = _ids(kanban, board.id, "todo")
    done = _ids(kanban, board.id, "done")
    move_card(kanban, card=card, values={"column": "done", "place": f"before:{done[1]}"})
    assert _ids(kanban, board.id, "done") == [done[0], card, *done[1:]]
    assert _positions(kanban, board.id, "done") == list(range(1, len(done) + 2))
    assert kanban.state.cards[card].activity[-1] == ("log_moved", "done")
    move_card(kanban, card=card, values={"column": "review", "place": "top"})
    assert _ids(kanban, board.id, "review")[0] == card
    move_card(kanban, card=card, values={"column": "review", "place": "last"})
    assert _ids(kanban, board.id, "review")[-1] == card


def test_a_drop_reorders_a_column_and_a_drop_that_changes_nothing_is_no_move():
    _, board, kanban = _board_context()
    first, second, *rest = _ids(kanban, board.id, "todo")
    move_card(kanban, card=first, values={"column": "todo", "place": "last"})
    assert _ids(kanban, board.id, "todo") == [second, *rest, first]
    log = list(kanban.state.cards[first].activity)
    move_card(kanban, card=first, values={"column": "todo", "place": "last"})
    move_card(kanban, card=first, values={"column": "todo", "place": "before:c-nowhere"})
    assert kanban.state.cards[first].activity == log, "no move, no log"


def test_a_card_moves_only_from_its_own_page_or_its_own_board():
    site, board, _ = _board_context()
    other = next(b for b in site.spec.entities["boards"] if b.id != board.id and not b.archived)
    kanban = KanbanApp.context_of(site.spec, route=f"/board/{other.id}")
    card, *_ = _ids(kanban, board.id, "todo")
    move_card(kanban, card=card, values={"column": "done", "place": "top"})
    assert kanban.state.cards[card].column == "todo"


def test_the_move_form_puts_a_card_at_the_top_or_as_before_at_the_bottom():
    site, board, kanban = _board_context()
    top, bottom = _ids(kanban, board.id, "todo")[:2]
    done = _ids(kanban, board.id, "done")
    highest = max(kanban.queries.next_position(board.id, "done") - 1, 0)
    on_page = KanbanApp.context_of(site.spec, route=f"/card/{bottom}")
    choose_column(on_page, card=bottom, value="done")
    move_card(on_page, card=bottom)  # the place left alone: the bottom, as it always was
    assert on_page.state.cards[bottom].position == highest + 1
    assert _ids(on_page, board.id, "done") == [*done, bottom]
    kanban = KanbanApp.context_of(site.spec, route=f"/card/{top}")
    choose_column(kanban, card=top, value="done")
    choose_place(kanban, card=top, value="top")
    assert kanban.state.cards[top].column == "todo", "moves on Move, not before"
    move_card(kanban, card=top)
    assert _ids(kanban, board.id, "done") == [top, *done]
    assert kanban.state.cards[top].position == 1
    assert not kanban.state.forms.places, "the draft is spent"


def test_the_board_marks_live_cards_draggable_and_columns_as_drop_zones():
    site = generate_site("kanban", 0, "easy", Variation.plain())
    for board in site.spec.entities["boards"]:
        app = site.new_app()
        app.route = f"/board/{board.id}"
        html = "".join(app.page().regions.values())
        cards = re.findall(r'<article data-wf-drag="move_card" data-wf-da="card=([^"]+)"', html)
        zones = re.findall(r'<section data-wf-drop="([^"]+)" data-wf-dn="column"', html)
        if board.archived:
            assert cards == [] and zones == [], "an archived board is read-only"
        else:
            shown = [c.id for c in site.spec.entities["cards"] if c.board_id == board.id]
            assert sorted(cards) == sorted(shown)
            assert zones == list(board.columns)


# ------------------------------------------------------------------------ in Chromium
def _center(env: Any, role: str, text: str) -> tuple[int, int]:
    dom = env.unwrapped.dom
    i = next(i for i in range(len(dom)) if dom.roles[i] == role and dom.texts[i].startswith(text))
    x, y = dom.center(i)
    return round(x), round(y)


@pytest.fixture
def board_env(make_env):
    env = make_env(
        family="kanban",
        task="kanban_move_and_comment",
        obs_mode="tokens",
        action_mode="coordinates_text",
        variation=Variation.plain().to_json(),
    )
    env.reset(seed=0)
    app = env.unwrapped.app
    board = next(b for b in app.model.boards.values() if not b.archived)
    env.step("click({}, {})".format(*_center(env, "link", board.name)))
    assert env.unwrapped.app.route == f"/board/{board.id}"
    return env, board


@pytest.mark.browser
def test_a_mouse_drag_moves_a_card_to_the_top_of_another_column(board_env):
    env, board = board_env
    app = env.unwrapped.app
    card, *_ = app.queries.column_cards(board.id, "todo")
    done = [c.id for c in app.queries.column_cards(board.id, "done")]
    x1, y1 = _center(env, "link", card.title)
    x2, y2 = _center(env, "heading", "Done")
    _, _, _, _, info = env.step(f"drag({x1}, {y1}, {x2}, {y2 + 4})")
    assert info["action_error"] is None
    assert [c.id for c in app.queries.column_cards(board.id, "done")] == [card.id, *done]
    (event,) = info["record"]["events"]
    assert event["type"] == "submit" and event["sid"] == f"card:{card.id}"
    assert event["handler"] == "move_card"
    assert info["route"] == f"/board/{board.id}", "a drag is not a click on the card's link"


@pytest.mark.browser
def test_a_drop_between_two_cards_lands_between_them_and_a_short_press_still_clicks(board_env):
    env, board = board_env
    app = env.unwrapped.app
    card = app.queries.column_cards(board.id, "todo")[0]
    first, second, *_ = app.queries.column_cards(board.id, "review")
    x1, y1 = _center(env, "link", card.title)
    x2, y2 = _center(env, "link", second.title)  # above the middle of the second card
    dom = env.unwrapped.dom
    top = next(dom.boxes[i][1] for i in range(len(dom)) if dom.texts[i] == second.title)
    env.step(f"drag({x1}, {y1}, {x2}, {top - 6})")
    assert [c.id for c in app.queries.column_cards(board.id, "review")][:3] == [
        first.id,
        card.id,
        second.id,
    ]
    env.step("click({}, {})".format(*_center(env, "link", first.title)))
    assert env.unwrapped.app.route == f"/card/{first.id}"
