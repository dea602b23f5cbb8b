"""Suites: named, versioned episode lists with disjoint train/test seeds, and the CLI listing."""

from __future__ import annotations

import json

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
