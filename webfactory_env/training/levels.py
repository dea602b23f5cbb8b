"""Level-seed ranges for training and held-out evaluation (procgen's start_level/num_levels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.core.errors import ConfigError
from webfactory_env.tasks.levels import SkippedLevel, reset_skipping


@dataclass(frozen=True)
class SeedRange:
    """Level seeds `start .. start + count - 1`."""

    start: int
    count: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.count < 1:
            raise ConfigError(
                f"a seed range starts at >= 0 and holds at least one seed; got "
                f"start={self.start}, count={self.count}"
            )

    @property
    def seeds(self) -> range:
        return range(self.start, self.start + self.count)

    def after(self, seed: int) -> int:
        """The seed that follows `seed` in the range (the last is followed by the first)."""
        return self.start + (seed - self.start + 1) % self.count

    def overlaps(self, other: SeedRange) -> bool:
        return self.start < other.start + other.count and other.start < self.start + self.count

    @classmethod
    def parse(cls, text: str) -> SeedRange:
        """`"0:10000"` (start:count) or `"100000-100049"` (first-last, inclusive)."""
        try:
            if ":" in text:
                start, count = (int(x) for x in text.split(":"))
                return cls(start, count)
            first, last = (int(x) for x in text.split("-"))
            return cls(first, last - first + 1)
        except ValueError:
            raise ConfigError(
                f"cannot read seed range {text!r}; write start:count (0:10000) "
                "or first-last (100000-100049)"
            ) from None

    def __str__(self) -> str:
        return f"{self.start}-{self.start + self.count - 1}"


# Disjoint level-seed ranges, laid out like the `shop-train`/`shop-test` suites.
TRAIN_SEEDS = SeedRange(0, 10_000)
EVAL_SEEDS = SeedRange(100_000, 30)


def reset_in_range(
    env: gym.Env[Any, Any],
    seeds: SeedRange,
    first: int,
    seed: int | None,
    options: dict[str, Any],
) -> tuple[tuple[Any, dict[str, Any]], list[SkippedLevel]]:
    """Reset `env` on level seed `first`, drawn from `seeds`; a level the task cannot be
    compiled on is skipped for the next seed of the range (logged, and listed in
    `info["skipped_levels"]`), so that a training loop never dies on one level."""
    return reset_skipping(
        lambda level: env.reset(seed=seed, options={**options, "level_seed": level}),
        first,
        seeds.after,
    )


class LevelSeeds(gym.Wrapper[Any, Any, Any, Any]):
    """Each reset shows a level seed drawn from `seeds`, unless `options` name one.

    A plain `reset()` of `WebTask-v0` draws its level seed from all of 0..2**31-2; training
    code wraps the env in this so that the levels it trains on stay inside the train range
    and never touch the held-out ones. Observations, actions, rewards and `action_masks()`
    pass through unchanged. `reset(seed=N)` reseeds the draw (and the env), so a worker
    that is seeded once sees a fixed sequence of levels. A drawn level that the task cannot
    be compiled on is skipped for the next seed of the range and counted in
    `levels_skipped`; a level named in `options` that cannot be compiled raises.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        seeds: SeedRange,
        seed: int | None = None,
        tasks: Sequence[tuple[str, str]] = (),
    ):
        super().__init__(env)
        self.seeds = seeds
        self.tasks = tuple(tasks)  # (family, task) pairs to draw from, for a multi-task mix
        self._rng = np.random.default_rng(seed)
        self.levels_skipped = 0

    def action_masks(self) -> np.ndarray:
        """The env's action masks (so `wrapper.action_masks()` works too)."""
        return self.env.get_wrapper_attr("action_masks")()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        drawn = None
        if options.get("level_seed") is None:
            drawn = int(self.seeds.start + self._rng.integers(self.seeds.count))
        if self.tasks and "task" not in options:
            family, task = self.tasks[int(self._rng.integers(len(self.tasks)))]
            options.update(family=family, task=task)
        if drawn is None:
            return self.env.reset(seed=seed, options=options)
        result, skipped = reset_in_range(self.env, self.seeds, drawn, seed, options)
        self.levels_skipped += len(skipped)
        return result
