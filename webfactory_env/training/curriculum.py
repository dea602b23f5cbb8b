"""A success-gated curriculum for MaskablePPO: easy tasks first, harder families and
difficulty levels once the policy solves the current stage on held-out levels.

`notebooks/curriculum.ipynb` runs it and plots the results; from Python:

    stages = [Stage("shop", "shop_open_cart"), Stage("shop", "shop_open_cart", "medium")]
    run = run_curriculum(CurriculumConfig(stages=tuple(stages)))

One model trains throughout (every stage shares the env's observation and action spaces);
the `Curriculum` wrapper tells each reset which family, task and difficulty to show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.core.errors import ConfigError
from webfactory_env.training.levels import EVAL_SEEDS, TRAIN_SEEDS, SeedRange
from webfactory_env.training.sb3 import Evaluation, evaluate, policy_actor, random_actor


@dataclass(frozen=True)
class Stage:
    """One rung of the curriculum: a family, a library task and a difficulty."""

    family: str
    task: str
    difficulty: str = "easy"

    @property
    def label(self) -> str:
        return f"{self.family}/{self.task} ({self.difficulty})"

    def reset_options(self) -> dict[str, Any]:
        return {"family": self.family, "task": self.task, "difficulty": self.difficulty}


class Curriculum(gym.Wrapper[Any, Any, Any, Any]):
    """Resets show the current stage on a train-range level seed; `set_stage` moves on.

    SB3 vector envs reach it with `venv.env_method("set_stage", i)`.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        stages: tuple[Stage, ...],
        seeds: SeedRange = TRAIN_SEEDS,
        seed: int | None = None,
    ) -> None:
        super().__init__(env)
        self.stages = stages
        self.stage = 0
        self.seeds = seeds
        self._rng = np.random.default_rng(seed)

    def set_stage(self, index: int) -> None:
        if not 0 <= index < len(self.stages):
            raise ConfigError(f"stage {index} does not exist; there are {len(self.stages)}")
        self.stage = index

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        merged = {
            **self.stages[self.stage].reset_options(),
            "level_seed": int(self.seeds.start + self._rng.integers(self.seeds.count)),
            **(options or {}),
        }
        return self.env.reset(seed=seed, options=merged)


@dataclass(frozen=True)
class CurriculumConfig:
    """A curriculum run. `chunk` timesteps of training between held-out evaluations; a
    stage ends when its success rate reaches `advance_at` or after `stage_budget`."""

    stages: tuple[Stage, ...]
    chunk: int = 256
    stage_budget: int = 1024
    advance_at: float = 0.8
    eval_seeds: SeedRange = EVAL_SEEDS
    max_steps: int = 8
    seed: int = 0
    n_steps: int = 64
    batch_size: int = 64
    learning_rate: float = 1e-3
    ent_coef: float = 0.01

    def __post_init__(self) -> None:
        if not self.stages:
            raise ConfigError("a curriculum needs at least one stage")
        if self.chunk < 1 or self.stage_budget < self.chunk:
            raise ConfigError("chunk must be >= 1 and stage_budget >= chunk")


@dataclass
class CurriculumRun:
    """What `run_curriculum` measured: one row per evaluation, and the random agent."""

    config: CurriculumConfig
    model: Any
    rows: list[dict[str, Any]] = field(default_factory=list)
    random: dict[str, float] = field(default_factory=dict)

    def save(self, path: Path) -> Path:
        self.model.save(path)
        return Path(path).with_suffix(".zip")


def run_curriculum(
    config: CurriculumConfig, say: Callable[[str], None] | None = print
) -> CurriculumRun:
    """Train one MaskablePPO model through the stages; see the module doc."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    say = say or (lambda _text: None)
    first = config.stages[0]
    kwargs: dict[str, Any] = {
        "family": first.family,
        "task": first.task,
        "difficulty": first.difficulty,
        "obs_mode": "tokens",
        "max_steps": config.max_steps,
        "step_timeout_ms": 20_000,  # a busy machine should not cut episodes short
    }
    train_env = Curriculum(gym.make("WebTask-v0", **kwargs), config.stages, seed=config.seed)
    venv = DummyVecEnv([lambda: Monitor(train_env)])
    eval_env = gym.make("WebTask-v0", **kwargs)
    seeds = list(config.eval_seeds.seeds)
    try:
        model = MaskablePPO(
            "MultiInputPolicy",
            venv,
            n_steps=config.n_steps,
            batch_size=config.batch_size,
            learning_rate=config.learning_rate,
            ent_coef=config.ent_coef,
            gamma=0.95,
            seed=config.seed,
            device="cpu",
            verbose=0,
        )
        run = CurriculumRun(config, model)

        def held_out(stage: Stage, act: Any) -> Evaluation:
            return evaluate(eval_env, act, seeds, options=stage.reset_options())

        for stage in config.stages:
            run.random[stage.label] = held_out(
                stage, random_actor(eval_env, config.seed)
            ).success_rate
        timesteps = 0
        for index, stage in enumerate(config.stages):
            # The episode under way finishes on the old stage; every reset after shows this one.
            venv.env_method("set_stage", index)
            spent = 0
            while spent < config.stage_budget:
                model.learn(config.chunk, reset_num_timesteps=False)
                spent += config.chunk
                timesteps = int(model.num_timesteps)
                ev = held_out(stage, policy_actor(model))
                run.rows.append(
                    {
                        "timesteps": timesteps,
                        "stage": index,
                        "stage_label": stage.label,
                        "success_rate": ev.success_rate,
                        "mean_steps": ev.mean_steps,
                    }
                )
                say(f"{timesteps:>6} steps  {stage.label}: success {ev.success_rate:.2f}")
                if ev.success_rate >= config.advance_at:
                    break
        return run
    finally:
        venv.close()
        eval_env.close()
