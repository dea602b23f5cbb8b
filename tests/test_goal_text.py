"""Goals in plain language: every library task says, per seed, what its goal checks."""

from __future__ import annotations

import json
import re

import pytest

from webfactory_env.core.answers import dates, normalise
from webfactory_env.sitegen import generate_site
from webfactory_env.tasks import compile_for_site, library_tasks
from webfactory_env.tasks.instruction import goal_templates, render_goal, spoken

TASKS = sorted((t.family, t.name) for t in library_tasks())
LEAKS = re.compile(r"[A-Z][a-z]+\(|\w+=|\{|\}|_id\b|\bsid\b|SKU-")


def _said(value: str, text: str) -> bool:
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return any(d.isoformat() == value for d in dates(text, int(value[:4])))
    return normalise(value) in normalise(text)


@pytest.mark.parametrize(("family", "task"), TASKS, ids=[t for _, t in TASKS])
def test_the_goal_says_every_value_it_checks_and_no_syntax(family, task):
    for seed in range(12):
        compiled = compile_for_site(task, generate_site(family, seed))
        texts = compiled.goal_texts
        assert len(texts) >= 3, f"{task}: a goal and at least two paraphrases"
        checked = json.dumps([c.predicate.to_json() for c in compiled.goal if c.kind != "answer"])
        for value in compiled.values:
            if json.dumps(value) not in checked:
                continue  # typed or chosen, but not part of what success checks
            for text in texts:
                assert _said(value, text), f"{task} seed {seed}: {value!r} not in {text!r}"
        for text in texts:
            assert not LEAKS.search(text), f"{task} seed {seed}: {text!r}"


def test_templates_fill_placeholders_and_say_dates_in_words():
    (goal, other) = goal_templates("Goal: Fly on {day}\nwith {who}.\nOr: {who} flies {day}.")
    assert goal == "Fly on {day} with {who}."
    assert render_goal(other, {"who": "Sam", "day": "2026-02-23"}) == (
        "Sam flies Monday 23 February 2026."
    )
    assert spoken(True) == "yes"
    with pytest.raises(KeyError):
        render_goal("{nobody}", {})


def test_the_instruction_style_chooses_what_the_agent_is_told():
    compiled = compile_for_site("buy_red_mug", generate_site("shop", 0))
    goal = compiled.text_for("goal", seed=0)
    assert goal in compiled.goal_texts and "Alice Nguyen" in goal and "Go to the" not in goal
    assert compiled.text_for("goal", seed=1) != goal, "another wording on another seed"
    assert compiled.text_for("recipe") == compiled.instruction
    hinted = compiled.text_for("goal+hints", seed=0)
    assert hinted.startswith(goal) and compiled.instruction in hinted


def test_an_episode_s_goal_is_encoded_once_and_handed_out_as_copies():
    from types import SimpleNamespace

    from webfactory_env.observation import EpisodeGoal, ObservationConfig, encode_goal

    config = ObservationConfig("tokens", goal_tokens=8)
    asked: list = []

    def text(task, level: int) -> str:
        asked.append((task.name, level))
        return f"Level {level}: buy the red mug for {task.values[0]}"

    mug = SimpleNamespace(name="buy_red_mug", values=("Alice Nguyen",))
    goal = EpisodeGoal(config)
    first, second = goal.arrays(mug, 3, text), goal.arrays(mug, 3, text)
    want = encode_goal(text(mug, 3), mug.values, mug.name, config)
    assert all((first[k] == want[k]).all() and (second[k] == want[k]).all() for k in want)
    assert all(first[k] is not second[k] for k in want), "copies: a caller may change them"
    assert asked == [("buy_red_mug", 3)] * 2  # once for the episode, once for `want`
    other = goal.arrays(mug, 4, text)
    assert (other["goal"] != first["goal"]).any() and asked[-1] == ("buy_red_mug", 4)


@pytest.mark.browser
def test_every_step_carries_the_episode_s_goal_whatever_a_caller_did_to_an_earlier_one(
    make_env,
):
    import numpy as np

    from webfactory_env.agents.random_agent import sample_masked

    env = make_env(family="shop", task="buy_red_mug", obs_mode="tokens", max_steps=8)
    obs, _ = env.reset(seed=3)
    want = {key: obs[key].copy() for key in ("goal", "slots", "task_id")}
    assert want["goal"].any() and want["slots"].any()
    rng, nvec = np.random.default_rng(0), np.asarray(env.action_space.nvec)
    ran = 0
    for _ in range(8):
        for key in want:
            obs[key][...] = 0  # a caller that reuses the arrays it was handed
        obs, _, terminated, truncated, info = env.step(
            sample_masked(env.unwrapped.action_masks(), nvec, rng)[0]
        )
        ran += info["action_error"] is None
        assert all((obs[key] == array).all() for key, array in want.items())
        if terminated or truncated:
            break
    assert ran >= 3, "steps that reached the page, whose observation is new"
    other, _ = env.reset(seed=4)
    assert (other["goal"] != want["goal"]).any(), "a new level, a new goal"
