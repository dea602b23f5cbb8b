"""One Stable-Baselines3 training run's settings (`TrainConfig`), from Python or a command line."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.training.levels import EVAL_SEEDS, TRAIN_SEEDS, SeedRange

ALGOS = ("ppo", "maskable-ppo")
POLICIES = ("mlp", "pointer")
VEC_ENVS = ("subproc", "dummy")


@dataclass(frozen=True)
class TrainConfig:
    """One training run. The defaults are the README's few-minute CPU run."""

    algo: str = "maskable-ppo"
    # `mlp`: SB3's MultiInputPolicy; `pointer`: the goal-conditioned pointer policy
    # (webfactory_env.policies.sb3.PointerPolicy, MaskablePPO only).
    policy: str = "mlp"
    family: str = "shop"
    task: str = "shop_open_cart"
    # A multi-task mix: (family, task) pairs drawn per episode (overrides family/task).
    tasks: tuple[tuple[str, str], ...] = ()
    obs_mode: str = "tokens"
    action_mode: str = "multidiscrete"
    done_actions: str = "auto"
    # Behaviour cloning before PPO (pointer policy): oracle datasets to clone, or how many
    # oracle episodes on train seeds to record into `out/demos` first (0: none).
    demos: tuple[Path, ...] = ()
    demo_episodes: int = 0
    bc_updates: int = 600  # 0: the demonstrations only anchor PPO (`demo_anchor`)
    # Start from this saved model's policy (a `model.zip` of the same policy and spaces,
    # e.g. a clone trained before) instead of an untrained one.
    init_from: Path | None = None
    difficulty: str = "easy"
    variation: Mapping[str, str] | None = None
    timesteps: int = 6000
    envs: int = 2
    out: Path = Path("runs/sb3")
    seed: int = 0
    max_steps: int = 8
    max_elements: int = 128
    # Generous: on a busy machine a slow step should not cut an episode short.
    step_timeout_ms: int = 20_000
    train_seeds: SeedRange = TRAIN_SEEDS
    eval_seeds: SeedRange = EVAL_SEEDS
    eval_every: int = 1000
    vec_env: str = "subproc"
    # PPO's knobs, tuned for short episodes and few updates.
    n_steps: int = 64
    batch_size: int = 64
    n_epochs: int = 4
    learning_rate: float = 1e-3
    ent_coef: float = 0.01
    gamma: float = 0.95
    # PPO updates at the start that fit only the value head, the policy as cloned
    # (`finetune`: the critic learns the rollouts' returns before PPO moves the policy).
    value_warmup: int = 0
    # Minibatch steps on the demonstrations' log-likelihood after each PPO update past the
    # warm-up (`finetune`: PPO fixes what cloning got wrong without losing what it got right).
    demo_anchor: int = 0
    # PPO stops an update's epochs early once its approximate KL to the rollout's policy
    # passes 1.5 x this (None: never); a guard against one update undoing a clone.
    target_kl: float | None = None
    # SB3 rescales each minibatch's advantages to unit spread. When every rollout of a good
    # clone succeeds, its advantages are the critic's noise (spread ~0.005) and the rescale
    # turns that noise into full-size policy steps (`finetune`): off for fine-tuning.
    normalize_advantage: bool = True
    # The pointer policy's learned vector per task id: off for a policy meant to act on
    # tasks it never trained on (their ids' vectors would be untrained noise).
    task_embedding: bool = True
    baselines: bool = True
    # Also measure the sampled (stochastic) policy at each point of the curve.
    eval_sampled: bool = True
    torch_threads: int | None = 1  # the browser needs the other core
    verbose: bool = True

    def __post_init__(self) -> None:
        if self.algo not in ALGOS:
            raise UnknownNameError("algorithm", self.algo, ALGOS)
        if self.policy not in POLICIES:
            raise UnknownNameError("policy", self.policy, POLICIES)
        if self.policy == "pointer" and self.algo != "maskable-ppo":
            raise ConfigError("the pointer policy trains with --algo maskable-ppo")
        if (self.demos or self.demo_episodes) and self.policy != "pointer":
            raise ConfigError("behaviour cloning (--demos, --demo-episodes) needs --policy pointer")
        if self.action_mode == "text" or self.obs_mode not in ("tokens", "tokens+pixels"):
            raise ConfigError(
                "SB3 training takes --obs-mode tokens or tokens+pixels and --action-mode "
                f"multidiscrete or discrete (got {self.obs_mode}, {self.action_mode})"
            )
        if self.vec_env not in VEC_ENVS:
            raise UnknownNameError("vector env", self.vec_env, VEC_ENVS)
        if not self.task_embedding and self.policy != "pointer":
            raise ConfigError("--no-task-embedding is a pointer policy option (--policy pointer)")
        if self.bc_updates < 0:
            raise ConfigError(f"--bc-updates must be 0 or more, got {self.bc_updates}")
        if self.init_from is not None and not Path(self.init_from).is_file():
            raise ConfigError(
                f"--init-from {self.init_from}: no such file; give the model.zip of an "
                "earlier run (its --out directory holds one)"
            )
        if self.target_kl is not None and self.target_kl <= 0:
            raise ConfigError(f"--target-kl must be positive, got {self.target_kl}")
        if self.value_warmup < 0 or self.demo_anchor < 0:
            raise ConfigError("--value-warmup and --demo-anchor count updates: 0 or more")
        if self.demo_anchor and not (self.demos or self.demo_episodes):
            raise ConfigError("--demo-anchor needs demonstrations (--demos, --demo-episodes)")
        if self.timesteps < 0 or self.envs < 1 or self.eval_every < 1:
            raise ConfigError("timesteps must be >= 0; envs and eval_every at least 1")
        if self.timesteps == 0 and not (self.demos or self.demo_episodes):
            raise ConfigError("--timesteps 0 trains nothing; give demonstrations to clone")
        if self.train_seeds.overlaps(self.eval_seeds):
            raise ConfigError(
                f"the held-out seeds {self.eval_seeds} overlap the train seeds "
                f"{self.train_seeds}; choose disjoint ranges"
            )

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of `gymnasium.make("WebTask-v0", ...)` for this run."""
        family, task = self.tasks[0] if self.tasks else (self.family, self.task)
        return {
            "family": family,
            "task": task,
            "difficulty": self.difficulty,
            "variation": dict(self.variation) if self.variation else None,
            "obs_mode": self.obs_mode,
            "action_mode": self.action_mode,
            "done_actions": self.done_actions,
            "max_steps": self.max_steps,
            "max_elements": self.max_elements,
            "step_timeout_ms": self.step_timeout_ms,
        }

    @property
    def task_list(self) -> tuple[tuple[str, str], ...]:
        """The (family, task) pairs trained on."""
        return self.tasks or ((self.family, self.task),)

    def eval_plan(self) -> list[tuple[int, dict[str, Any]]]:
        """Held-out episodes: (level seed, reset options); a mix deals its tasks round-robin."""
        tasks = self.task_list
        return [
            (seed, {"family": tasks[i % len(tasks)][0], "task": tasks[i % len(tasks)][1]})
            for i, seed in enumerate(self.eval_seeds.seeds)
        ]

    @property
    def rollout(self) -> int:
        """Timesteps per PPO update: SB3 trains in whole rollouts of this many steps."""
        return self.n_steps * self.envs

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(
            out=str(self.out),
            demos=[str(p) for p in self.demos],
            init_from=str(self.init_from) if self.init_from else None,
            tasks=[list(t) for t in self.tasks],
            train_seeds=str(self.train_seeds),
            eval_seeds=str(self.eval_seeds),
            variation=dict(self.variation) if self.variation else None,
        )
        return out


def parse_args(argv: Sequence[str] | None = None) -> TrainConfig:
    d = TrainConfig()
    p = argparse.ArgumentParser(
        prog="python -m webfactory_env.training.sb3",
        description="Train PPO or MaskablePPO on WebTask-v0 and record a learning curve "
        "on held-out level seeds.",
    )
    p.add_argument("--algo", choices=ALGOS, default=d.algo)
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default=d.policy,
        help="mlp: SB3's MultiInputPolicy; pointer: the goal-conditioned pointer policy",
    )
    p.add_argument("--obs-mode", default=d.obs_mode, choices=("tokens", "tokens+pixels"))
    p.add_argument(
        "--action-mode",
        default=d.action_mode,
        choices=("multidiscrete", "discrete"),
        help="discrete: one index per valid action (joint masks)",
    )
    p.add_argument("--done-actions", default=d.done_actions, choices=("auto", "always"))
    p.add_argument(
        "--tasks",
        default="",
        metavar="FAMILY/TASK,...",
        help="a multi-task mix, drawn per episode (instead of --family/--task)",
    )
    p.add_argument(
        "--demos", action="append", default=[], type=Path, help="oracle dataset to clone"
    )
    p.add_argument(
        "--demo-episodes",
        type=int,
        default=d.demo_episodes,
        help="record this many oracle episodes on train seeds and clone them first",
    )
    p.add_argument(
        "--bc-updates", type=int, default=d.bc_updates, help="behaviour cloning minibatch steps"
    )
    p.add_argument(
        "--init-from",
        type=Path,
        default=None,
        help="start from this saved model.zip (same policy and spaces) instead of scratch",
    )
    p.add_argument("--family", default=d.family)
    p.add_argument("--task", default=d.task)
    p.add_argument("--difficulty", default=d.difficulty)
    p.add_argument(
        "--variation",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="fix a variation axis (repeatable), e.g. --variation theme=dark",
    )
    p.add_argument("--timesteps", type=int, default=d.timesteps)
    p.add_argument("--envs", type=int, default=d.envs, help="parallel envs")
    p.add_argument("--vec-env", choices=VEC_ENVS, default=d.vec_env)
    p.add_argument("--out", type=Path, default=d.out)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--max-steps", type=int, default=d.max_steps)
    p.add_argument("--train-seeds", default=str(d.train_seeds), help="first-last or start:count")
    p.add_argument("--eval-seeds", default=str(d.eval_seeds), help="held-out level seeds")
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--n-steps", type=int, default=d.n_steps, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--n-epochs", type=int, default=d.n_epochs)
    p.add_argument("--learning-rate", type=float, default=d.learning_rate)
    p.add_argument("--ent-coef", type=float, default=d.ent_coef)
    p.add_argument(
        "--value-warmup",
        type=int,
        default=d.value_warmup,
        help="PPO updates that fit only the value head first (the policy left as cloned)",
    )
    p.add_argument(
        "--demo-anchor",
        type=int,
        default=d.demo_anchor,
        help="cloning minibatch steps on the demonstrations after each PPO update",
    )
    p.add_argument(
        "--target-kl",
        type=float,
        default=d.target_kl,
        help="stop an update's epochs once its approximate KL passes 1.5 x this",
    )
    p.add_argument(
        "--no-normalize-advantage",
        action="store_true",
        help="use the advantages as they are, not rescaled per minibatch (fine-tuning a clone)",
    )
    p.add_argument(
        "--no-task-embedding",
        action="store_true",
        help="pointer policy without a vector per task id (for tasks it never trained on)",
    )
    p.add_argument("--no-baselines", action="store_true", help="skip the random baselines")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    tasks = []
    for item in filter(None, a.tasks.split(",")):
        family, sep, task = item.strip().partition("/")
        if not sep:
            p.error(f"--tasks takes FAMILY/TASK entries, got {item!r}")
        tasks.append((family, task))
    variation = {}
    for item in a.variation:
        axis, sep, value = item.partition("=")
        if not sep:
            p.error(f"--variation takes AXIS=VALUE, got {item!r}")
        variation[axis] = value
    return replace(
        d,
        algo=a.algo,
        policy=a.policy,
        obs_mode=a.obs_mode,
        action_mode=a.action_mode,
        done_actions=a.done_actions,
        tasks=tuple(tasks),
        demos=tuple(a.demos),
        demo_episodes=a.demo_episodes,
        bc_updates=a.bc_updates,
        init_from=a.init_from,
        family=a.family,
        task=a.task,
        difficulty=a.difficulty,
        variation=variation or None,
        timesteps=a.timesteps,
        envs=a.envs,
        vec_env=a.vec_env,
        out=a.out,
        seed=a.seed,
        max_steps=a.max_steps,
        train_seeds=SeedRange.parse(a.train_seeds),
        eval_seeds=SeedRange.parse(a.eval_seeds),
        eval_every=a.eval_every,
        n_steps=a.n_steps,
        batch_size=a.batch_size,
        n_epochs=a.n_epochs,
        learning_rate=a.learning_rate,
        ent_coef=a.ent_coef,
        value_warmup=a.value_warmup,
        demo_anchor=a.demo_anchor,
        target_kl=a.target_kl,
        normalize_advantage=not a.no_normalize_advantage,
        task_embedding=not a.no_task_embedding,
        baselines=not a.no_baselines,
        verbose=not a.quiet,
    )
