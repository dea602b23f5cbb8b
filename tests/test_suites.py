"""Suites: named, versioned episode lists with disjoint train/test seeds, and the CLI listing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.suites import Suite, get_suite, register_suite, suites


def test_train_and_test_suites_are_disjoint():
    train, test = get_suite("shop-train"), get_suite("shop-test")
    assert train.seeds == range(0, 10_000) and test.seeds == range(100_000, 101_000)
    assert not set(train.seeds) & set(test.seeds)
    assert train.family == test.family == "shop" and "buy_red_mug" in train.tasks


def test_episode_i_is_always_the_same_task_and_seed():
    suite = Suite("two", "two tasks", "shop", ("a", "b"), seed_start=50, seed_count=3)
    assert list(suite.episodes()) == [
        ("a", 50),
        ("b", 50),
        ("a", 51),
        ("b", 51),
        ("a", 52),
        ("b", 52),
    ]
    assert suite.size == 6 and suite.episode(3) == ("b", 51)
    with pytest.raises(ConfigError, match="has only 6 episodes; ask for at most 6"):
        list(suite.episodes(7))


def test_unknown_suites_get_a_suggestion():
    with pytest.raises(UnknownNameError, match="Did you mean 'shop-test'"):
        get_suite("shop-tset")


def test_a_suite_name_cannot_be_registered_twice_with_other_contents():
    with pytest.raises(ConfigError, match="already registered"):
        register_suite(Suite("shop-test", "other", "shop", ("buy_red_mug",), 0, 1))
    with pytest.raises(ConfigError, match="at least one task"):
        Suite("empty", "", "shop", (), 0, 1)


def test_cli_lists_suites(capsys):
    from webfactory_env.cli import main

    assert main(["suites", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in listed] == list(suites())
    assert all({"name", "description"} <= set(s) for s in listed)
    assert main(["suites", "list"]) == 0
    assert "shop-train" in capsys.readouterr().out


# ------------------------------------------------------------------ the catalogue
from webfactory_env.sitegen.variation import AXES, Variation  # noqa: E402
from webfactory_env.suites import (  # noqa: E402
    FAMILY_TASKS,
    HELD_OUT_FAMILY,
    MIXED,
    TRAIN_FAMILIES,
    SuiteEpisode,
)


def _train() -> list[Suite]:
    return [s for s in suites().values() if s.split == "train"]


def _test() -> list[Suite]:
    return [s for s in suites().values() if s.split == "test"]


def test_the_catalogue_has_every_kind_of_held_out_suite():
    names = set(suites())
    for family in TRAIN_FAMILIES:
        assert {f"{family}-tasks-train", f"{family}-tasks-test"} <= names
    assert {"forum-heldout", "travel-menu-heldout", "paraphrase-copy"} <= names
    assert {"stress-distractors", "stress-latency"} <= names
    kinds = {h for s in _test() for h in s.holdout}
    assert kinds == {"seeds", "family", "combination"}


def test_every_suite_task_is_a_library_task_of_its_family():
    from webfactory_env.tasks import library

    lib = library()
    for suite in suites().values():
        for i, task in enumerate(suite.tasks):
            assert task in lib, f"{suite.name}: {task} is not in the task library"
            assert lib[task].family == suite.family_of(i), f"{suite.name}: {task}"


def test_test_suites_share_no_seed_with_any_training_suite_of_their_family():
    for test in _test():
        for train in _train():
            if set(test.family_names) & set(train.family_names):
                assert not set(test.seeds) & set(train.seeds), (test.name, train.name)
        for name in test.held_out_from:
            assert get_suite(name).split == "train", f"{test.name} names {name}"


def test_the_held_out_family_is_in_no_training_suite():
    heldout = [s for s in suites().values() if "family" in s.holdout]
    assert [s.name for s in heldout] == ["forum-heldout"]
    assert heldout[0].family_names == (HELD_OUT_FAMILY,)
    for train in _train():
        assert HELD_OUT_FAMILY not in train.family_names, train.name


def _combination_cases() -> list[tuple[str, str]]:
    return [
        (test.name, name)
        for test in _test()
        if "combination" in test.holdout
        for name in test.held_out_from
    ]


@pytest.mark.parametrize(("test_name", "train_name"), _combination_cases())
def test_held_out_combinations_never_occur_anywhere_in_the_training_range(test_name, train_name):
    test, train = get_suite(test_name), get_suite(train_name)
    fixed = test.fixed_axes()
    assert fixed, f"{test_name} holds out a combination but fixes no axis"
    first, *rest = fixed.items()
    for seed in train.seeds:  # the whole range: 10,000 seeds
        if train.axis_value(seed, first[0]) != first[1]:
            continue
        assert any(train.axis_value(seed, a) != v for a, v in rest), (
            f"{train_name} seed {seed} shows {fixed}, which {test_name} holds out"
        )


def test_menus_are_held_out_from_travel_but_seen_on_shop_in_training():
    # The combination is new, not the widget: shop trains with custom menus.
    shop = get_suite("shop-tasks-train")
    assert any(shop.axis_value(seed, "choice_widget") == "menu" for seed in range(50))
    travel = get_suite("travel-tasks-train")
    seen = {travel.axis_value(seed, "choice_widget") for seed in range(200)}
    assert seen == {"select", "radio"}
    assert get_suite("travel-menu-heldout").fixed_axes() == {"choice_widget": "menu"}


def test_axis_values_are_exactly_what_the_env_draws():
    for suite in (get_suite("shop-tasks-train"), get_suite("travel-tasks-train")):
        for difficulty in ("easy", "medium", "hard"):
            s = Suite(
                "probe",
                "",
                suite.family,
                ("t",),
                0,
                40,
                difficulty=difficulty,
                variation=suite.variation,
            )
            for seed in s.seeds:
                drawn = Variation.draw(seed, difficulty, s.variation_for(seed))
                assert {a.name: s.axis_value(seed, a.name) for a in AXES} == drawn.to_json()


def test_a_site_shows_the_variation_its_suite_episode_asks_for():
    from webfactory_env.sitegen import generate_site

    for name, index in (
        ("travel-menu-heldout", 0),
        ("stress-latency", 12),
        ("travel-tasks-test", 3),
    ):
        suite = get_suite(name)
        ep = suite.episode_spec(index)
        site = generate_site(ep.family, ep.seed, ep.difficulty, ep.variation)
        for axis in (a.name for a in AXES):
            assert site.spec.variation[axis] == suite.axis_value(ep.seed, axis), (name, axis)


def test_mixed_suites_give_each_episode_its_family_and_variation():
    suite = get_suite("stress-latency")
    assert suite.family == MIXED and suite.family_names == TRAIN_FAMILIES
    n_shop = len(FAMILY_TASKS["shop"])
    first, travel = suite.episode_spec(0), suite.episode_spec(n_shop)
    assert (first.family, first.task, first.seed) == ("shop", "buy_red_mug", 100_000)
    assert travel.family == "travel" and travel.task == FAMILY_TASKS["travel"][0]
    assert first.variation == {"latency": "high", "errors": "some", "drift": "on"}
    assert first.reset_options() == {
        "family": "shop",
        "task": "buy_red_mug",
        "difficulty": "easy",
        "variation": {"latency": "high", "errors": "some", "drift": "on"},
    }
    # The old (task, seed) view of episodes is unchanged.
    assert list(suite.episodes(2)) == [(first.task, 100_000), (FAMILY_TASKS["shop"][1], 100_000)]
    assert get_suite("shop-test").episode_spec(1) == SuiteEpisode(
        1, "shop", "buy_red_mug", 100_001, "easy", None
    )


def test_copy_only_suite_changes_nothing_but_copy():
    suite = get_suite("paraphrase-copy")
    for seed in range(100_000, 100_020):
        for axis in AXES:
            value = suite.axis_value(seed, axis.name)
            if axis.group != "copy":
                assert value == axis.values[0], axis.name
        assert suite.axis_value(seed, "paraphrase") == "alt"


def test_suite_variations_are_checked_and_normalised():
    base: dict[str, Any] = {
        "name": "v",
        "description": "",
        "family": "shop",
        "tasks": ("buy_red_mug",),
        "seed_start": 0,
        "seed_count": 5,
    }
    as_map = Suite(**base, variation={"theme": "dark", "nav": ("sidebar", "top")})
    as_pairs = Suite(**base, variation=(("nav", ("top", "sidebar")), ("theme", "dark")))
    assert as_map == as_pairs and hash(as_map) == hash(as_pairs)
    assert as_map.variation_spec == {"theme": "dark", "nav": ("top", "sidebar")}
    with pytest.raises(UnknownNameError, match="Did you mean 'theme'"):
        Suite(**base, variation={"theem": "dark"})
    with pytest.raises(ConfigError, match="cannot be 'purple'; choose one of: light, dark"):
        Suite(**base, variation={"theme": "purple"})
    with pytest.raises(ConfigError, match="non-empty subset"):
        Suite(**base, variation={"theme": ()})
    with pytest.raises(ConfigError, match="needs 1 entries"):
        Suite(**{**base, "family": MIXED}, families=("shop", "travel"))
    with pytest.raises(ConfigError, match="give each task's family"):
        Suite(**{**base, "family": MIXED})
    with pytest.raises(UnknownNameError, match="unknown split"):
        Suite(**base, split="validation")


def test_cli_lists_what_each_suite_holds(capsys):
    from webfactory_env.cli import main

    assert main(["suites", "list", "--json"]) == 0
    listed = {s["name"]: s for s in json.loads(capsys.readouterr().out)}
    heldout = listed["travel-menu-heldout"]
    assert heldout["variation"] == {"choice_widget": "menu"}
    assert heldout["held_out_from"] == ["travel-tasks-train"]
    assert heldout["holdout"] == ["seeds", "combination"] and heldout["split"] == "test"
    assert listed["stress-latency"]["families"] == list(TRAIN_FAMILIES)
    assert listed["travel-tasks-train"]["variation"] == {"choice_widget": ["select", "radio"]}
    assert listed["shop-test"]["size"] == 1000
    assert main(["suites", "list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("forum-heldout"))
    assert "v1" in line and "test" in line and "11000 episodes" in line
