"""Each instruction style is sufficient on its own: a recipe followed to the letter (with the
oracle's choice only where its words fit several elements) does the task, names the widget
each step needs (calendar, menu, tab), ends an infeasible task by stopping, and the Values
line lists exactly the strings the instruction states. Browserless (`AppDriver`)."""

from __future__ import annotations

import re

import pytest

from webfactory_env.adversarial import AppDriver
from webfactory_env.recipes import RecipeFollower, recipe_of, sentences
from webfactory_env.sitegen.registry import DIFFICULTIES, generate_site
from webfactory_env.sitegen.variation import Variation
from webfactory_env.tasks import compile_for_site, library_tasks
from webfactory_env.tasks.compiled import INSTRUCTION_STYLES, CompiledTask
from webfactory_env.tasks.instruction import INFEASIBLE_ENDING

TASKS = [(t.family, t.name) for t in library_tasks()]
RECIPE_STYLES = ("goal+hints", "recipe")
QUOTED = re.compile("\u201c([^\u201d]*)\u201d")


def _check_styles(family: str, name: str, seed: int, difficulty: str) -> None:
    site = generate_site(family, seed, difficulty)
    task = compile_for_site(name, site)
    for style in INSTRUCTION_STYLES:
        text, values = task.text_for(style, seed), task.values_for(style, seed)
        where = f"{name} seed {seed} {difficulty} {style}"
        # the Values line: strings the instruction states, never the oracle's own path
        assert all(v in text for v in values), (where, values, text)
        if style == "goal":
            assert set(QUOTED.findall(text)) <= set(values), (where, values)
        recipe = recipe_of(task, style, seed)
        if recipe is None:
            continue
        if any(p.verb == "done_fail" for p in task.plan):
            assert recipe.endswith(INFEASIBLE_ENDING), where
        followed = RecipeFollower(AppDriver(site, task), recipe).run()
        assert followed.success, (where, followed.problem, recipe)


@pytest.mark.parametrize(("family", "name"), TASKS)
def test_each_style_is_enough_on_one_seed(family, name):
    _check_styles(family, name, 0, "easy")


@pytest.mark.slow
@pytest.mark.parametrize(("family", "name"), TASKS)
def test_each_style_is_enough_on_ten_seeds(family, name):
    for seed in range(1, 11):
        _check_styles(family, name, seed, DIFFICULTIES[seed % len(DIFFICULTIES)])


def _compiled(name: str, family: str, seed: int = 0, **axes: str) -> CompiledTask:
    variation = Variation.plain(**axes) if axes else None
    return compile_for_site(name, generate_site(family, seed, "easy", variation))


def test_an_infeasible_tasks_recipe_ends_by_stopping_and_saying_why():
    task = _compiled("shop_sold_out", "shop")
    assert sentences(task.text_for("recipe"))[-1] == INFEASIBLE_ENDING
    assert task.text_for("goal+hints").endswith(INFEASIBLE_ENDING)


@pytest.mark.parametrize(
    ("widget", "says"),
    [
        ("popover", r"Pick Monday \d+ \w+ 2026 in the “Departure date” calendar\."),
        ("inline", r"Pick Monday \d+ \w+ 2026 in the “Departure date” calendar\."),
        ("text", r"Enter “2026-\d\d-\d\d” in the “Departure date” field\."),
    ],
)
def test_a_date_step_names_the_calendar_the_site_has(widget, says):
    recipe = _compiled("book_flight_roundtrip", "travel", date_widget=widget).instruction
    assert re.search(says, recipe), recipe


def test_the_recipe_opens_the_tab_a_field_is_behind_and_names_menus():
    recipe = _compiled("account_enable_two_factor", "account").instruction
    assert "Open the “Security” tab. Enter “" in recipe
    assert "“Notifications” tab" not in recipe  # only what must be opened
    menu = _compiled("account_update_profile", "account", choice_widget="menu").instruction
    assert re.search(r"Choose “[^”]+” from the “Country” menu\.", menu), menu


def test_a_repeated_control_is_named_with_the_entry_it_belongs_to():
    task = _compiled("account_sign_out_device", "account")
    device = task.params["device"]
    assert f"Click “Sign out” where the device is “{device}”." in task.instruction


def test_values_are_the_strings_the_goal_states_not_the_oracles_choices():
    task = _compiled("buy_red_mug", "shop")
    goal_values = task.values_for("goal")
    assert goal_values == ("Alice Nguyen", "123 Market St", "San Francisco", "94105")
    assert "Price: low to high" not in goal_values and "Price: low to high" in task.values
    assert "Price: low to high" in task.values_for("recipe")
    dated = _compiled("book_flight_roundtrip", "travel", date_widget="popover")
    assert re.fullmatch(r"Monday \d+ \w+ 2026", dated.values_for("goal")[2])  # as it says it
