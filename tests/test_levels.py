"""Levels a task cannot be compiled on: a seed the user gave is a clear error naming the seed
and the task; a level a sampler drew is skipped for the next one, logged and counted."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env.core.errors import ConfigError
from webfactory_env.dsl import NO_SPAN
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import CompileError, compile_for_site
from webfactory_env.tasks.levels import (
    MAX_LEVEL_SKIPS,
    SkippedLevel,
    UncompilableLevelError,
    reset_skipping,
    uncompilable,
)
from webfactory_env.training.curriculum import Curriculum, Stage
from webfactory_env.training.levels import LevelSeeds, SeedRange
from webfactory_env.training.sb3 import evaluate, random_actor


def _error(level: int) -> UncompilableLevelError:
    cause = CompileError("no Item on page /shop", filename="t.task", source="", span=NO_SPAN)
    return uncompilable("t", generate_site("shop", level), cause)


def test_the_error_names_the_level_and_the_task_and_keeps_the_compilers_reason(
    partly_compilable,
):
    site = generate_site("shop", partly_compilable.bad)
    with pytest.raises(CompileError) as info:
        compile_for_site(partly_compilable.path, site)
    err = uncompilable("open_blanket", site, info.value)
    assert isinstance(err, CompileError)
    text = str(err)
    bad = partly_compilable.bad
    assert f"task 'open_blanket' cannot be compiled on shop level seed {bad} (easy)" in text
    assert text.startswith(f"{partly_compilable.path}:4:")  # located in the task file
    assert "Throw Blanket" in text
    assert err.level == SkippedLevel(
        "shop", "easy", partly_compilable.bad, "open_blanket", info.value.message
    )
    again = pickle.loads(pickle.dumps(err))  # vector envs send errors between processes
    assert str(again) == text and again.level == err.level


def test_a_level_that_does_not_compile_is_skipped_for_the_next_logged_and_listed(caplog):
    tried: list[int] = []

    def reset(level: int) -> tuple[Any, dict[str, Any]]:
        tried.append(level)
        if level in (7, 8):
            raise _error(level)
        return "obs", {"level_seed": level}

    (obs, info), skipped = reset_skipping(reset, 7, lambda s: s + 1)
    assert tried == [7, 8, 9] and (obs, info["level_seed"]) == ("obs", 9)
    assert [s.seed for s in skipped] == [7, 8]
    assert info["skipped_levels"] == [s.to_json() for s in skipped]
    assert info["skipped_levels"][0]["reason"] == "no Item on page /shop"
    assert "skipped level: t on shop level seed 7" in caplog.text


def test_a_task_that_compiles_nowhere_stops_the_sampler_with_a_clear_error():
    def reset(level: int) -> tuple[Any, dict[str, Any]]:
        raise _error(level)

    with pytest.raises(ConfigError, match=f"on {MAX_LEVEL_SKIPS + 1} levels in a row"):
        reset_skipping(reset, 0, lambda s: s + 1)


class _Levels(gym.Env[int, int]):
    """Shows a level per reset; the levels in `bad` cannot be compiled."""

    observation_space = gym.spaces.Discrete(1)
    action_space = gym.spaces.Discrete(1)

    def __init__(self, bad: set[int]) -> None:
        self.bad = bad
        self.shown: list[int] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        level = int((options or {})["level_seed"])
        if level in self.bad:
            raise _error(level)
        self.shown.append(level)
        return 0, {"level_seed": level}


def _level_seeds(env: gym.Env[Any, Any]) -> LevelSeeds:
    return LevelSeeds(env, SeedRange(10, 5), seed=3)


def _curriculum(env: gym.Env[Any, Any]) -> Curriculum:
    return Curriculum(env, (Stage("shop", "t"),), seeds=SeedRange(10, 5), seed=3)


@pytest.mark.parametrize("wrap", [_level_seeds, _curriculum], ids=["LevelSeeds", "Curriculum"])
def test_samplers_skip_a_drawn_level_that_does_not_compile_to_the_next_seed(wrap):
    plain = _Levels(set())
    sampler = wrap(plain)
    for _ in range(6):
        sampler.reset()
    drawn = plain.shown
    first = drawn[0]
    following = 10 + (first - 10 + 1) % 5  # the next seed of the range, wrapping
    env = _Levels({first})
    sampler = wrap(env)
    _, info = sampler.reset()
    assert info["level_seed"] == following and sampler.levels_skipped == 1
    assert info["skipped_levels"][0]["seed"] == first
    for _ in range(5):
        sampler.reset()
    # The skip draws nothing: the levels after it are the ones the sampler always shows.
    assert env.shown[1:] == [following if s == first else s for s in drawn[1:]]
    with pytest.raises(UncompilableLevelError, match=f"level seed {first}"):
        sampler.reset(options={"level_seed": first})  # the caller's own level: an error


@pytest.mark.browser
def test_reset_on_a_given_seed_that_does_not_compile_raises_naming_it(make_env, partly_compilable):
    bad, good = partly_compilable.bad, partly_compilable.good
    # Level 0 may not compile either: making the env still works (reset says which levels).
    env = make_env(family="shop", task=partly_compilable.path, obs_mode="tokens", max_steps=2)
    env.reset(seed=good)
    with pytest.raises(UncompilableLevelError, match=f"level seed {bad} "):
        env.reset(seed=bad)
    with pytest.raises(ConfigError, match="reset"):
        env.step(env.action_space.sample())  # no half-made episode left to step in
    # A sampler whose first draw is the bad level shows the next one instead.
    first_draw_bad = next(s for s in range(20) if np.random.default_rng(s).integers(2) == 0)
    sampler = LevelSeeds(env, SeedRange(bad, 2), seed=first_draw_bad)
    _, info = sampler.reset()
    assert info["level_seed"] == good and sampler.levels_skipped == 1
    assert info["skipped_levels"][0]["seed"] == bad
    # Held-out evaluation during training plays the levels that compile and counts the rest.
    held_out = evaluate(env, random_actor(env), [bad, good])
    assert (held_out.episodes, held_out.skipped) == (1, 1)
