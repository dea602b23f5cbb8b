"""The text observation for language models: the page as an indexed tree, the goal, the
values and the last action's result, within a size budget that keeps interactive elements."""

from __future__ import annotations

import re

import pytest

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.observation import StepContext, render_observation, render_text
from webfactory_env.observation.text import TEXT_CHARSET

COLOURS = tuple(f"Colour {k}" for k in range(40))
LONG = "Handmade in small batches from recycled stoneware, glazed twice. " * 6


def _page(n_items: int = 30) -> DomSnapshot:
    rows: list[tuple[str, str, str, str, int, tuple[str, ...] | None, int]] = [
        ("a", "link", "Home", "", f.CLICKABLE | f.LINK, None, 0),
        ("a", "link", "Cart", "", f.CLICKABLE | f.LINK, None, 0),
        ("h1", "heading", "Catalog", "", f.TEXT, None, 1),
        ("select", "combobox", "Colour", "Any", f.SELECTABLE, COLOURS, 2),
    ]  # fmt: skip
    for k in range(n_items):
        rows.append(("a", "link", f"Mug number {k}", "", f.CLICKABLE | f.LINK, None, 3))
        rows.append(("p", "text", LONG, "", f.TEXT, None, 3))
    rows.append(("button", "button", "Next page", "", f.CLICKABLE | f.DISABLED, None, 1))
    return DomSnapshot(
        tags=tuple(r[0] for r in rows),
        roles=tuple(r[1] for r in rows),
        texts=tuple(r[2] for r in rows),
        values=tuple(r[3] for r in rows),
        boxes=tuple((0, 10 * i, 100, 10) for i in range(len(rows))),
        flags=tuple(r[4] for r in rows),
        options=tuple(r[5] for r in rows),
        sids=tuple(None for _ in rows),
        secrets=tuple(False for _ in rows),
        offscreen={},
        scroll_y=0,
        scroll_height=5000,
        viewport=(1000, 800),
        route="/shop",
        title="Catalog · Shop",
        can_back=False,
        groups=(
            ("navigation", "Main", -1),
            ("main", "", -1),
            ("form", "Filters", 1),
            ("list", "Products", 1),
        ),
        group_of=tuple(r[6] for r in rows),
    )


def _indices(text: str) -> set[int]:
    return {int(m) for m in re.findall(r"^\s*\[(\d+)\]", text, re.M)}


def test_the_page_is_a_tree_of_its_containers():
    lines = render_text(_page(1), 100_000).splitlines()
    assert lines[:7] == [
        "Page: Catalog · Shop  (/shop, scrolled 0 of 4200 px)",
        'navigation "Main"',
        '  [0] link "Home"',
        '  [1] link "Cart"',
        "main",
        '  heading "Catalog"',
        '  form "Filters"',
    ]
    assert lines[7].startswith('    [3] combobox "Colour" value="Any" options=["Colour 0"')
    assert lines[8:11] == ['  list "Products"', '    [4] link "Mug number 0"', f'    text "{LONG}"']
    assert lines[11:] == ['  [6] button "Next page" (disabled)', "(more below: scroll(down))"]


@pytest.mark.parametrize("budget", [20_000, 6000, 3000, 2000, 1500])
def test_a_tight_budget_drops_text_before_interactive_elements(budget):
    page = _page()
    interactive = {i for i in range(len(page)) if not page.flags[i] & f.TEXT}
    full = render_text(page, 1_000_000)
    text = render_text(page, budget)
    assert len(text) <= budget and set(text) <= TEXT_CHARSET
    assert _indices(text) == interactive  # every element an action can name is still there
    if len(full) > budget:
        assert LONG not in text  # long text went first
    assert text.startswith("Page: ") and text.rstrip().endswith("(more below: scroll(down))")


def test_a_budget_too_small_for_every_element_says_so():
    text = render_text(_page(200), 800)
    assert len(text) <= 800 and text.endswith("(cut: the page is longer; scroll to see the rest)")
    assert {0, 1, 3} <= _indices(text)  # it cuts from the bottom


def test_the_observation_leads_with_goal_values_and_the_last_actions_result():
    context = StepContext(
        goal="Buy the cheapest red mug\nand ship it to Alice.",
        values=("Red", "Alice Nguyen"),
        step=3,
        max_steps=64,
        last_action="click [9] link 'Next page'",
        last_error="element 9 is disabled",
    )
    text = render_observation(_page(2), context, 8000)
    assert text.splitlines()[:4] == [
        "Goal: Buy the cheapest red mug and ship it to Alice.",
        'Values: "Red", "Alice Nguyen"',
        "Step 3 of 64. Last action: click [9] link 'Next page' -> refused: element 9 is disabled",
        "Page: Catalog · Shop  (/shop, scrolled 0 of 4200 px)",
    ]
    ok = StepContext(goal="g", step=1, max_steps=5, last_action="back")
    assert "Step 1 of 5. Last action: back -> done" in render_observation(_page(1), ok)
    assert "Last action: none yet" in render_observation(_page(1), StepContext(goal="g"))


def test_a_long_goal_cannot_crowd_out_the_page():
    context = StepContext(goal="word " * 5000, values=("v",) * 50)
    text = render_observation(_page(), context, 4000)
    assert len(text) <= 4000 and text.startswith("Goal: word word")
    assert "Page: " in text and {0, 1, 3} <= _indices(text)


@pytest.mark.browser
def test_the_envs_text_observation_reports_each_step(make_env):
    env = make_env(task="buy_red_mug", obs_mode="text", action_mode="text", max_chars=3000)
    obs, info = env.reset(seed=0)
    assert obs.startswith(f"Goal: {info['instruction']}\nValues: ")
    assert "Step 0 of 64. Last action: none yet" in obs and "\n  navigation" in obs
    obs, *_, info = env.step("click(999)")
    assert "Last action: (not an action) -> refused" not in obs
    assert "-> refused: element 999 is not on the page" in obs
    assert env.observation_space.contains(obs) and len(obs) <= 3000
    obs, *_ = env.step("fly(away)")
    assert "Last action: (not an action) -> refused: unknown action 'fly(away)'" in obs
    obs, *_ = env.step("click(2)")
    assert "Step 3 of 64. Last action: click [2] link 'Shop' -> done" in obs
