"""A success-gated curriculum for MaskablePPO: short tasks first, then longer ones of
several families, once the policy solves the current stage on held-out levels.

`notebooks/curriculum.ipynb` runs it and plots the results; from Python:

    stages = (
        Stage("shop", "shop_open_cart", also=(("travel", "best_rated_hotel_in_city"),)),
        Stage("shop", "shop_track_parcel", also=(("travel", "trip_reference_after_2fa"),)),
    )
    run = run_curriculum(CurriculumConfig(stages=stages))

One goal-conditioned policy (`policy="pointer"`, the default: it reads which task and
which values each episode wants from the observation) trains throughout; every stage
shares the env's spaces. A stage may hold several tasks of several families: the
`Curriculum` wrapper draws one per reset (and, with `review`, a task of an earlier stage).
With `demo_episodes`, each stage starts by cloning oracle demonstrations of its tasks
(`policies.bc`), then PPO fine-tunes. `policy="mlp"` is SB3's MultiInputPolicy.
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
from webfactory_env.training.heldout import Evaluation, evaluate, policy_actor, random_actor
from webfactory_env.training.levels import EVAL_SEEDS, TRAIN_SEEDS, SeedRange, reset_in_range


@dataclass(frozen=True)
class Stage:
    """One rung of the curriculum: a family, a library task and a difficulty, and `also`
    more (family, task) pairs trained and measured with it."""

    family: str
    task: str
    difficulty: str = "easy"
    also: tuple[tuple[str, str], ...] = ()

    @property
    def tasks(self) -> tuple[tuple[str, str], ...]:
        return ((self.family, self.task), *self.also)

    @property
    def label(self) -> str:
        names = " + ".join(f"{f}/{t}" for f, t in self.tasks)
        return f"{names} ({self.difficulty})"

    def reset_options(self, pick: int = 0) -> dict[str, Any]:
        family, task = self.tasks[pick % len(self.tasks)]
        return {"family": family, "task": task, "difficulty": self.difficulty}


class Curriculum(gym.Wrapper[Any, Any, Any, Any]):
    """Resets show the current stage on a train-range level seed; `set_stage` moves on.

    A drawn level that the task cannot be compiled on is skipped for the next seed of the
    range and counted in `levels_skipped` (see `reset_in_range`).

    SB3 vector envs reach it with `venv.env_method("set_stage", i)`.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        stages: tuple[Stage, ...],
        seeds: SeedRange = TRAIN_SEEDS,
        seed: int | None = None,
        review: float = 0.0,
    ) -> None:
        super().__init__(env)
        self.stages = stages
        self.stage = 0
        self.seeds = seeds
        self.review = review  # chance that a reset shows a task of an earlier stage
        self._rng = np.random.default_rng(seed)
        self.levels_skipped = 0  # drawn levels the task could not be compiled on

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()

    def set_stage(self, index: int) -> None:
        if not 0 <= index < len(self.stages):
            raise ConfigError(f"stage {index} does not exist; there are {len(self.stages)}")
        self.stage = index

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        stage = self.stages[self.stage]
        if self.stage and self._rng.random() < self.review:
            stage = self.stages[int(self._rng.integers(self.stage))]
        merged = {
            **stage.reset_options(int(self._rng.integers(len(stage.tasks)))),
            "level_seed": int(self.seeds.start + self._rng.integers(self.seeds.count)),
            **(options or {}),
        }
        if (options or {}).get("level_seed") is not None:  # the caller's level: no skipping
            return self.env.reset(seed=seed, options=merged)
        result, skipped = reset_in_range(self.env, self.seeds, merged["level_seed"], seed, merged)
        self.levels_skipped += len(skipped)
        return result


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
    policy: str = "pointer"  # or "mlp" (SB3's MultiInputPolicy)
    action_mode: str = "discrete"
    review: float = 0.25
    # Oracle demonstrations cloned at the start of each stage (0: PPO alone).
    demo_episodes: int = 0
    bc_updates: int = 300
    workdir: Path | None = None  # where demonstrations are recorded (default: a temp dir)
    # The pointer policy without a vector per task id (a task is its goal's words and the
    # page), as the generalist (`benchmarks/generalist.py`) is; and a saved model to start
    # from, such as that generalist's `model.zip`.
    task_embedding: bool = True
    init_from: Path | None = None

    def __post_init__(self) -> None:
        if not self.stages:
            raise ConfigError("a curriculum needs at least one stage")
        if self.policy not in ("pointer", "mlp"):
            raise ConfigError(f"policy is 'pointer' or 'mlp', not {self.policy!r}")
        if self.policy != "pointer" and (self.init_from or not self.task_embedding):
            raise ConfigError("init_from and task_embedding are pointer policy options")
        if self.init_from is not None and not Path(self.init_from).is_file():
            raise ConfigError(
                f"init_from {self.init_from}: no such file; give a saved model.zip (the"
                " generalist benchmark's --out directory holds one per column)"
            )
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
        "action_mode": config.action_mode if config.policy == "pointer" else "multidiscrete",
        "max_steps": config.max_steps,
        "step_timeout_ms": 20_000,  # a busy machine should not cut episodes short
    }
    train_env = Curriculum(
        gym.make("WebTask-v0", **kwargs), config.stages, seed=config.seed, review=config.review
    )
    venv = DummyVecEnv([lambda: Monitor(train_env)])
    eval_env = gym.make("WebTask-v0", **kwargs)
    seeds = list(config.eval_seeds.seeds)
    try:
        policy: Any = "MultiInputPolicy"
        policy_kwargs: dict[str, Any] = {}
        if config.policy == "pointer":
            from webfactory_env.policies.sb3 import PointerPolicy

            policy = PointerPolicy
            policy_kwargs["features_extractor_kwargs"] = {"task_embedding": config.task_embedding}
        model = MaskablePPO(
            policy,
            venv,
            policy_kwargs=policy_kwargs,
            n_steps=config.n_steps,
            batch_size=config.batch_size,
            learning_rate=config.learning_rate,
            ent_coef=config.ent_coef,
            gamma=0.95,
            seed=config.seed,
            device="cpu",
            verbose=0,
        )
        from webfactory_env.training.sb3 import quiet

        quiet(model)  # no empty SB3 directory in the temp dir
        model.webfactory_env = {"env_kwargs": kwargs}  # type: ignore[attr-defined]  # `webfactory eval` makes this env
        if config.init_from is not None:
            from webfactory_env.training.sb3 import start_from

            start_from(model, config.init_from)
            say(f"started from {config.init_from}")
        run = CurriculumRun(config, model)

        def held_out(stage: Stage, act: Any) -> Evaluation:
            # The stage's tasks take the held-out seeds in turn.
            plan = [(seed, stage.reset_options(i)) for i, seed in enumerate(seeds)]
            return evaluate(eval_env, act, plan)

        for stage in config.stages:
            run.random[stage.label] = held_out(
                stage, random_actor(eval_env, config.seed)
            ).success_rate
        timesteps = 0
        if config.init_from is not None:  # what the model it starts from does, untrained here
            ev = held_out(config.stages[0], policy_actor(model))
            run.rows.append(
                {
                    "timesteps": 0,
                    "stage": 0,
                    "stage_label": config.stages[0].label,
                    "success_rate": ev.success_rate,
                    "mean_steps": ev.mean_steps,
                    "started": True,
                }
            )
            say(f"     0 steps  {config.stages[0].label}: as loaded, success {ev.success_rate:.2f}")
        for index, stage in enumerate(config.stages):
            # The episode under way finishes on the old stage; every reset after shows this one.
            venv.env_method("set_stage", index)
            if config.demo_episodes and config.policy == "pointer":
                clone_stage(model, config, index)
                ev = held_out(stage, policy_actor(model))
                run.rows.append(
                    {
                        "timesteps": timesteps,
                        "stage": index,
                        "stage_label": stage.label,
                        "success_rate": ev.success_rate,
                        "mean_steps": ev.mean_steps,
                        "cloned": True,
                    }
                )
                say(f"{timesteps:>6} steps  {stage.label}: cloned, success {ev.success_rate:.2f}")
                if ev.success_rate >= config.advance_at:
                    continue
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


def clone_stage(model: Any, config: CurriculumConfig, index: int) -> None:
    """Record oracle demonstrations of stage `index`'s tasks (and the earlier stages', so
    that cloning does not forget them) and clone them into the model's policy."""
    import tempfile

    from webfactory_env.policies.bc import Demonstrations, clone
    from webfactory_env.training.sb3 import TrainConfig, record_demos

    root = Path(config.workdir or tempfile.mkdtemp(prefix="curriculum-demos-"))
    dirs = []
    for i, stage in enumerate(config.stages[: index + 1]):
        demo = TrainConfig(
            tasks=stage.tasks,
            difficulty=stage.difficulty,
            demo_episodes=config.demo_episodes,
            max_steps=config.max_steps,
            policy="pointer",
            verbose=False,
        )
        dirs.append(record_demos(demo, root / f"stage{i}"))
    clone(model.policy, Demonstrations.load(dirs), updates=config.bc_updates, seed=config.seed)
