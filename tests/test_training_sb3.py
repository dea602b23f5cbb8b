"""Stable-Baselines3 on WebTask-v0: MaskablePPO learns an easy task and beats the random
agent on held-out level seeds; PPO trains, saves, and the saved zip loads for evaluation."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from webfactory_env.training.levels import SeedRange
from webfactory_env.training.sb3 import TrainConfig, main, read_curve, train

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The small, fixed-seed version of the README's run: one in-process env (the shared
# browser), 512 timesteps (8 PPO updates), 20 held-out levels, greedy policy only.
SMALL = dict(
    algo="maskable-ppo",
    family="shop",
    task="shop_open_cart",
    timesteps=512,
    envs=1,
    vec_env="dummy",
    eval_seeds=SeedRange(100_000, 20),
    eval_every=10**9,  # measure only before and after training
    eval_sampled=False,
    seed=0,
    verbose=False,
)


def test_maskable_ppo_beats_the_random_agent_on_held_out_levels(tmp_path: Path) -> None:
    result = train(TrainConfig(**SMALL, out=tmp_path))  # type: ignore[arg-type]

    random = result.baselines["random"].success_rate
    untrained = result.curve[0]["success_rate"]
    trained = result.final.success_rate
    # Measured with these seeds: random agent 0.40, untrained policy 0.30, trained 1.00.
    assert 0.0 < random < 0.6
    assert trained >= random + 0.3, (random, untrained, trained)
    assert trained > untrained
    # Learnt to go straight to the cart: fewer steps than the random agent wandering about.
    assert result.final.mean_steps < result.baselines["random"].mean_steps

    assert (tmp_path / "model.zip").is_file()
    rows = read_curve(tmp_path / "learning_curve.csv")
    assert [int(r["timesteps"]) for r in rows] == [0, 512]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["final"]["success_rate"] == trained
    assert summary["config"]["eval_seeds"] == "100000-100019"


def test_ppo_trains_saves_and_the_zip_loads_as_an_eval_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webfactory_env.evaluation.agents import parse_agent

    temp = tmp_path / "temp"  # where SB3 would make a directory for each model it trains
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    code = main(
        [
            "--algo=ppo",
            "--task=shop_open_cart",
            "--timesteps=64",
            "--envs=1",
            "--vec-env=dummy",
            "--eval-seeds=100000-100001",
            "--eval-every=1000000",
            "--no-baselines",
            "--quiet",
            f"--out={tmp_path}",
        ]
    )
    assert code == 0
    agent = parse_agent(f"sb3:{tmp_path / 'model.zip'}")
    assert agent.info.kind == "sb3"
    assert agent.info.algorithm == "PPO"
    rows = read_curve(tmp_path / "learning_curve.csv")
    assert rows[-1]["timesteps"] == 64
    # The summary says what the one PPO update saw and did (`training.ppo_log`).
    (update,) = json.loads((tmp_path / "summary.json").read_text())["ppo_updates"]
    assert update["timesteps"] == 64
    for key in ("approx_kl", "clip_fraction", "entropy", "policy_entropy", "value_explained"):
        assert key in update, key
    assert update["value_loss"] > 0 and update["advantage_std"] > 0
    assert np.isfinite(rows[-1]["success_rate"])
    assert not [p.name for p in temp.iterdir() if p.name.startswith("SB3-")]


def test_train_and_held_out_seed_ranges_must_be_disjoint(tmp_path: Path) -> None:
    from webfactory_env.core.errors import ConfigError

    with pytest.raises(ConfigError, match="overlap"):
        TrainConfig(train_seeds=SeedRange(0, 100), eval_seeds=SeedRange(50, 10), out=tmp_path)


def test_the_shipped_recipe_beats_the_random_baseline_on_a_question(tmp_path: Path) -> None:
    """The shipped recipe, small: clone 16 oracle demonstrations of a task (easy in the
    task list, 4 oracle steps) whose value (a tracking number) is drawn per level,
    fine-tune with MaskablePPO, and solve held-out levels that the random baseline (what
    an untrained masked policy samples) does not. Deterministic: fixed seeds, one
    in-process env, one torch thread."""
    config = TrainConfig(
        algo="maskable-ppo",
        policy="pointer",
        action_mode="discrete",
        family="shop",
        task="shop_track_parcel",
        demo_episodes=16,
        bc_updates=200,
        timesteps=32,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        learning_rate=1e-4,
        ent_coef=0.0,
        envs=1,
        vec_env="dummy",
        eval_seeds=SeedRange(100_000, 10),
        eval_every=10**9,
        eval_sampled=False,
        max_steps=8,
        seed=0,
        verbose=False,
        out=tmp_path,
    )
    result = train(config)
    random = result.baselines["random"].success_rate
    # Measured with these seeds: random 0.00; cloned 1.00, fine-tuned 1.00.
    assert random <= 0.1
    assert result.curve[0]["success_rate"] >= random + 0.6  # cloning alone
    assert result.final.success_rate >= random + 0.6
    # The zip carries its env settings for `webfactory eval`.
    from webfactory_env.evaluation.agents import parse_agent

    agent = parse_agent(f"sb3:{tmp_path / 'model.zip'}")
    assert agent.env_kwargs["action_mode"] == "discrete"
    assert agent.env_kwargs["max_steps"] == 8


def test_a_run_started_from_a_saved_model_begins_where_that_model_left_off(tmp_path: Path) -> None:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from webfactory_env.core.errors import ConfigError
    from webfactory_env.training.heldout import evaluate, policy_actor
    from webfactory_env.training.sb3 import make_model
    from webfactory_env.training.sb3_config import parse_args

    common = [
        "--algo=maskable-ppo", "--policy=pointer", "--action-mode=discrete",
        "--task=shop_track_parcel", "--envs=1", "--vec-env=dummy", "--n-steps=16",
        "--batch-size=16", "--eval-seeds=100000-100001", "--eval-every=1000000",
        "--no-baselines", "--quiet", "--max-steps=6",
    ]  # fmt: skip
    assert main([*common, "--timesteps=64", f"--out={tmp_path / 'first'}"]) == 0
    saved = tmp_path / "first" / "model.zip"
    second = [*common, f"--init-from={saved}", "--timesteps=16", f"--out={tmp_path / 'second'}"]
    config = parse_args(second)
    assert config.init_from == saved
    assert main(second) == 0

    # The second run's first point (before its PPO) measures the saved policy, not an
    # untrained one.
    env = gym.make("WebTask-v0", **config.env_kwargs())
    try:
        seeds = list(config.eval_plan())
        as_saved = evaluate(env, policy_actor(MaskablePPO.load(saved, device="cpu")), seeds)
        untrained = evaluate(env, policy_actor(make_model(config, env)), seeds)
    finally:
        env.close()
    start = read_curve(tmp_path / "second" / "learning_curve.csv")[0]
    assert (start["mean_return"], start["mean_steps"]) == (
        as_saved.mean_return,
        as_saved.mean_steps,
    )
    assert (untrained.mean_return, untrained.mean_steps) != (
        as_saved.mean_return,
        as_saved.mean_steps,
    )
    with pytest.raises(ConfigError, match="no such file"):
        TrainConfig(init_from=tmp_path / "missing.zip", out=tmp_path)


def test_a_curriculum_starts_from_a_saved_generalist_and_measures_it_first(tmp_path: Path) -> None:
    """A curriculum with `init_from` (the generalist's model.zip, say) loads it, measures it
    on the first stage before any training, and a model of another shape is refused with
    the setting that differs."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from webfactory_env.core.errors import ConfigError
    from webfactory_env.training.curriculum import CurriculumConfig, Stage, run_curriculum
    from webfactory_env.training.heldout import evaluate, policy_actor
    from webfactory_env.training.sb3 import make_model
    from webfactory_env.training.sb3_config import parse_args

    generalist = parse_args(
        ["--policy=pointer", "--action-mode=discrete", "--task=shop_track_parcel",
         "--no-task-embedding", "--seed=3", f"--out={tmp_path}"]
    )  # fmt: skip
    env = gym.make("WebTask-v0", **generalist.env_kwargs())
    try:
        make_model(generalist, env).save(tmp_path / "generalist")
        saved = tmp_path / "generalist.zip"
        stage = Stage("shop", "shop_track_parcel")
        seeds = SeedRange(100_000, 2)
        loaded = MaskablePPO.load(saved, device="cpu")
        expected = evaluate(
            env, policy_actor(loaded), [(s, stage.reset_options()) for s in seeds.seeds]
        )
    finally:
        env.close()
    config = dict(
        stages=(stage,), chunk=16, stage_budget=16, n_steps=16, batch_size=16, max_steps=8,
        eval_seeds=seeds, init_from=saved, task_embedding=False, seed=0,
    )  # fmt: skip
    run = run_curriculum(CurriculumConfig(**config), say=None)
    first = run.rows[0]
    assert first["started"] and first["timesteps"] == 0
    assert (first["success_rate"], first["mean_steps"]) == (
        expected.success_rate,
        expected.mean_steps,
    )
    assert run.rows[-1]["timesteps"] == 16  # then it trained

    with pytest.raises(ConfigError, match="--no-task-embedding"):
        run_curriculum(CurriculumConfig(**{**config, "task_embedding": True}), say=None)
    with pytest.raises(ConfigError, match="no such file"):
        CurriculumConfig(**{**config, "init_from": tmp_path / "missing.zip"})
    with pytest.raises(ConfigError, match="pointer policy options"):
        CurriculumConfig(**{**config, "policy": "mlp"})
