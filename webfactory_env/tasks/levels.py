"""Levels a task cannot be compiled on: the error that names the level, the record of a
skipped one, and resetting on the next level when a sampler drew one that does not compile.

A level is (family, difficulty, level seed, variation). The library's tasks compile on every
level of the train range (`benchmarks/compile_every_seed.py` checks), but a task file of
one's own, or a level outside that range, may not. Who chose the level decides what
happens: a level seed the user gave is an error (`UncompilableLevelError`, naming the seed
and the task); a suite or a sampler that drew it skips it, logs why and counts it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from webfactory_env.core.errors import ConfigError
from webfactory_env.core.gc_hold import gc_held
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks.compile import CompileError

log = logging.getLogger(__name__)

# A sampler that draws this many uncompilable levels in a row gives up: the task, not the
# level, is at fault.
MAX_LEVEL_SKIPS = 16


@dataclass(frozen=True)
class SkippedLevel:
    """A level that was skipped because its task cannot be compiled on it, and why."""

    family: str
    difficulty: str
    seed: int
    task: str
    reason: str  # the compiler's message, one line

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.task} on {self.family} level seed {self.seed} ({self.difficulty})"


class UncompilableLevelError(CompileError):
    """`task` cannot be compiled on one level; the message names the seed and the task,
    then gives the compiler's located reason. `level` holds the same as a `SkippedLevel`."""

    level: SkippedLevel


def uncompilable(task: str, site: Site, cause: CompileError) -> UncompilableLevelError:
    """The error for `task` failing to compile on `site`'s level, from the compiler's own."""
    spec = site.spec
    level = SkippedLevel(spec.family, spec.difficulty, spec.seed, task, cause.message)
    err = UncompilableLevelError(
        f"task {task!r} cannot be compiled on {spec.family} level seed {spec.seed}"
        f" ({spec.difficulty}): {cause.message}",
        filename=cause.filename,
        source=cause.source,
        span=cause.span,
        hint=cause.hint,
    )
    err.level = level  # kept in __dict__, so it survives pickling (see DslError.__reduce__)
    return err


Reset = tuple[Any, dict[str, Any]]  # (observation, info)


def reset_level(
    start: Callable[[dict[str, Any]], Reset], choice: dict[str, Any], *, drawn: bool
) -> Reset:
    """`start(choice)`, an episode on the level `choice["level_seed"]`. A level the user gave
    that the task cannot be compiled on raises `UncompilableLevelError`; a level the env
    drew itself is skipped for the next seed (see `reset_skipping`)."""
    with gc_held():  # a reset's burst of objects (see `gc_hold`)
        if not drawn:
            return start(choice)
        on_level = lambda seed: start({**choice, "level_seed": seed})  # noqa: E731
        return reset_skipping(on_level, choice["level_seed"], lambda s: (s + 1) % (2**31 - 1))[0]


def reset_skipping(
    reset: Callable[[int], Reset], first: int, next_seed: Callable[[int], int]
) -> tuple[Reset, list[SkippedLevel]]:
    """`reset(first)`; while the level cannot be compiled, `reset(next_seed(seed))` instead,
    at most `MAX_LEVEL_SKIPS` times. Returns the reset's result and the levels skipped
    (each logged as a warning); `info["skipped_levels"]` lists them when there are any."""
    skipped: list[SkippedLevel] = []
    seed = first
    for _ in range(MAX_LEVEL_SKIPS + 1):
        try:
            result = reset(seed)
        except UncompilableLevelError as exc:
            skipped.append(exc.level)
            log.warning("skipped level: %s cannot be compiled: %s", exc.level, exc.level.reason)
            seed = next_seed(seed)
            continue
        if skipped:
            result[1]["skipped_levels"] = [s.to_json() for s in skipped]
        return result, skipped
    raise ConfigError(
        f"task {skipped[0].task!r} cannot be compiled on {len(skipped)} levels in a row"
        f" (level seeds {', '.join(str(s.seed) for s in skipped)}); the last reason:"
        f" {skipped[-1].reason}"
    )
