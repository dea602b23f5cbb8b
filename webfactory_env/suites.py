"""Evaluation and dataset suites: named, versioned sets of (family, task, seed) episodes.

A suite fixes what an episode list is, procgen-style: a family, its tasks, a contiguous
range of level seeds and a difficulty. Train and test suites use disjoint seed ranges, so a
score on `shop-test` is a score on sites the agent never trained on. Episode `i` of a suite
is always the same (task, seed), on every machine.

Add a suite with `register_suite(Suite(...))`; bump `version` whenever its episodes change.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from webfactory_env.core.errors import ConfigError, UnknownNameError


@dataclass(frozen=True)
class Suite:
    """A named, versioned list of episodes.

    Episode `i` uses task `tasks[i % len(tasks)]` on level seed
    `seed_start + i // len(tasks)`, so every task sees the same seeds in turn.
    """

    name: str
    description: str
    family: str
    tasks: tuple[str, ...]
    seed_start: int
    seed_count: int
    difficulty: str = "easy"
    version: str = "1"

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ConfigError(f"suite {self.name!r} needs at least one task")
        if self.seed_start < 0 or self.seed_count < 1:
            raise ConfigError(
                f"suite {self.name!r}: seeds must start at >= 0 and number at least 1"
            )

    @property
    def seeds(self) -> range:
        return range(self.seed_start, self.seed_start + self.seed_count)

    @property
    def size(self) -> int:
        """How many distinct episodes the suite holds."""
        return self.seed_count * len(self.tasks)

    def episode(self, index: int) -> tuple[str, int]:
        """(task, level seed) of episode `index`."""
        if not 0 <= index < self.size:
            raise ConfigError(
                f"suite {self.name!r} has {self.size} episodes (0..{self.size - 1}),"
                f" so there is no episode {index}; ask for fewer episodes"
            )
        return self.tasks[index % len(self.tasks)], self.seed_start + index // len(self.tasks)

    def episodes(self, count: int | None = None) -> Iterator[tuple[str, int]]:
        """The first `count` episodes (default: all of them)."""
        n = self.size if count is None else count
        if n > self.size:
            raise ConfigError(
                f"suite {self.name!r} has only {self.size} episodes; ask for at most {self.size}"
            )
        for i in range(n):
            yield self.episode(i)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "description": self.description,
            "family": self.family,
            "tasks": list(self.tasks),
            "seed_start": self.seed_start,
            "seed_count": self.seed_count,
            "difficulty": self.difficulty,
            "version": self.version,
        }


_SUITES: dict[str, Suite] = {}


def register_suite(suite: Suite) -> Suite:
    """Add a suite to the registry (a name may be registered once)."""
    if suite.name in _SUITES and _SUITES[suite.name] != suite:
        raise ConfigError(f"a different suite named {suite.name!r} is already registered")
    _SUITES[suite.name] = suite
    return suite


def suites() -> dict[str, Suite]:
    """Every registered suite by name, in registration order."""
    return dict(_SUITES)


def get_suite(name: str) -> Suite:
    try:
        return _SUITES[name]
    except KeyError:
        raise UnknownNameError("suite", name, _SUITES) from None


register_suite(
    Suite(
        name="shop-train",
        description="shop sites, buy_red_mug, level seeds 0-9999 (training)",
        family="shop",
        tasks=("buy_red_mug",),
        seed_start=0,
        seed_count=10_000,
    )
)
register_suite(
    Suite(
        name="shop-test",
        description="shop sites, buy_red_mug, level seeds 100000-100999 (held out from shop-train)",
        family="shop",
        tasks=("buy_red_mug",),
        seed_start=100_000,
        seed_count=1_000,
    )
)
