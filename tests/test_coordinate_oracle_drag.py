"""The coordinate oracle drags where the page offers a drag for what its plan's next form
does: it reads the form from the app's page, finds the page one link away whose item and
drop zone send the same change, drags there and comes back; with `prefer_drag=False` it
fills the form. Either way the task is solved with the same reward."""

from __future__ import annotations

from typing import Any

import pytest

from webfactory_env.agents import OracleAgent
from webfactory_env.agents.drag_plan import DragMove, drop_band, form_move, offers
from webfactory_env.core.dom import DragItem, DropZone
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site


def _on_card_page(task_name: str, seed: int = 0) -> tuple[Any, Any, str]:
    site = generate_site("kanban", seed)
    task = compile_for_site(task_name, site)
    card = next(s.sid for s in task.plan if s.sid.startswith("result:")).removeprefix("result:")
    app = site.new_app()
    app.route = f"/card/{card}"
    return task, app, card


def test_the_move_forms_steps_read_as_a_drop_on_the_column_at_the_place_asked():
    task, app, card = _on_card_page("kanban_move_to_top")
    start = next(i for i, s in enumerate(task.plan) if s.verb == "select")
    move = form_move(task.plan, start, app.page(), lambda i: False)
    assert move == DragMove("move_card", f"card={card}", "column", "done", "top", start + 2)
    # A place left alone is the form's "bottom": a drop below every card, "last".
    no_place = form_move(task.plan, start, app.page(), lambda i: i == start + 1)
    assert no_place is not None and no_place.place == "last"
    board = next(a.href for a in app.page().affordances if (a.href or "").startswith("/board/"))
    assert not offers(app.page(), move), "the card's page has no board to drop on"
    assert offers(app.render(board), move)
    other = DragMove("move_card", "card=c-none", "column", "done", "top", 0)
    assert not offers(app.render(board), other), "no such card on the board"


def test_a_plan_step_outside_the_submitted_form_is_no_drop():
    task, app, _ = _on_card_page("kanban_move_and_comment")
    comment = next(i for i, s in enumerate(task.plan) if s.sid == "field:comment")
    # The comment form sends one field and no place, but no page drags a comment.
    move = form_move(task.plan, comment, app.page(), lambda i: False)
    assert move is not None and not offers(app.page(), move)
    search = next(i for i, s in enumerate(task.plan) if s.verb == "type")
    assert form_move(task.plan, search, app.page(), lambda i: False) is None


def test_the_drop_band_lies_between_the_middles_of_the_items_around_the_place():
    zone = DropZone("column", "done", (0, 100, 200, 400))
    items = [DragItem("move_card", f"card={k}", None, k, (10, top, 180, 40)) for k, top in
             (("a", 140), ("b", 200), ("c", 260))]  # fmt: skip
    dragged = DragItem("move_card", "card=x", None, "x", (400, 140, 180, 40))
    assert drop_band(dragged, zone, items, "top") == (0, 100, 200, 60)  # above a's middle
    assert drop_band(dragged, zone, items, "before:c") == (0, 220, 200, 60)  # b's to c's
    assert drop_band(dragged, zone, items, "last") == (0, 280, 200, 220)  # below c's middle
    # The dragged item itself does not count, nor does an item outside the zone.
    assert drop_band(items[0], zone, items, "top") == (0, 100, 200, 120)


# ------------------------------------------------------------------------ in Chromium
def _solve(env: Any, seed: int, prefer_drag: bool) -> tuple[list[dict], list[dict], dict]:
    """One oracle episode (`OracleAgent`, which hands `prefer_drag` to its coordinate
    oracle): its actions and page events as recorded, and its last reward."""
    obs, info = env.reset(seed=seed)
    oracle = OracleAgent(env, prefer_drag=prefer_drag)
    actions, events = [], []
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        actions.append(info["record"]["action"])
        events += info["record"]["events"]
        if terminated or truncated:
            assert info["success"], (seed, prefer_drag, [a["described"] for a in actions])
            return actions, events, info["record"]["reward"]


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["coordinates_text", "coordinates"])
@pytest.mark.parametrize("task", ["kanban_move_to_top", "kanban_move_and_comment"])
def test_the_oracle_moves_cards_by_dragging_them_or_by_the_form(make_env, task, mode):
    env = make_env(family="kanban", task=task, obs_mode="tokens", action_mode=mode, max_steps=60)
    for seed in (0, 1, 2):
        actions, events, last = _solve(env, seed, prefer_drag=True)
        card = next(a["target"] for a in actions if a["verb"] == "drag")
        assert [a["verb"] for a in actions].count("drag") == 1 and card.startswith("card:")
        assert [e["sid"] for e in events if e.get("handler") == "move_card"] == [card]
        assert "form:move" not in [a["target"] for a in actions], "no click on Move"
        by_form, form_events, form_last = _solve(env, seed, prefer_drag=False)
        assert "drag" not in [a["verb"] for a in by_form]
        assert [e["sid"] for e in form_events if e.get("handler") == "move_card"] == ["form:move"]
        # The same goal reached and paid; shaping differs (the drag skips the form's drafts).
        assert last["components"]["success"] == form_last["components"]["success"]
