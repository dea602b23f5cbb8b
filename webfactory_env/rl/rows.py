"""Episodes for trainers' datasets: the episodes of suites and splits (`suite_specs`), and a
dataset row read back as the `EpisodeSpec` it names (`row_spec`; a row is the spec's
`options()`: family, task, difficulty, level seed, variation, plus any other columns).

A row holds nothing a browser makes: building a dataset of a million episodes starts no
Chromium and compiles no task. Rows are deterministic: the same suites, split and count give
the same rows, in the same order, on every machine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import islice
from typing import Any

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.rl.episode import EpisodeSpec
from webfactory_env.suites import SPLITS, Suite, get_suite, suites


def select_suites(names: str | Sequence[str] | None = None, split: str = "train") -> list[Suite]:
    """The suites named (one name or several), or every registered suite of `split`."""
    if names is None:
        if split not in SPLITS:
            raise UnknownNameError("split", split, SPLITS)
        return [s for _, s in sorted(suites().items()) if s.split == split]
    chosen = [get_suite(n) for n in ([names] if isinstance(names, str) else names)]
    if not chosen:
        raise ConfigError("name at least one suite, or none to take every suite of the split")
    return chosen


def suite_specs(
    names: str | Sequence[str] | None = None,
    *,
    split: str = "train",
    episodes: int = 100,
) -> list[EpisodeSpec]:
    """The first `episodes` episodes of each suite (see `select_suites`), taken in turn from
    each suite so that a mixed list stays balanced however it is cut."""
    if episodes < 1:
        raise ConfigError(f"episodes must be at least 1, got {episodes}")
    streams = [_specs(s, episodes) for s in select_suites(names, split)]
    out: list[EpisodeSpec] = []
    while streams:
        for stream in list(streams):
            spec = next(stream, None)
            if spec is None:
                streams.remove(stream)
            else:
                out.append(spec)
    return out


def row_spec(row: Mapping[str, Any]) -> EpisodeSpec:
    """The episode a dataset row (`EpisodeSpec.options()`) names. Other columns (a prompt,
    an id) are ignored; the variation may be a mapping (axes a table filled with None are
    dropped), a JSON object or nothing."""
    missing = [k for k in ("family", "task") if not row.get(k)]
    if missing:
        raise ConfigError(
            f"a row needs {' and '.join(missing)} (it has {', '.join(sorted(row)) or 'nothing'});"
            " make rows with EpisodeSpec.options() or a dataset helper"
        )
    variation = row.get("variation")
    if isinstance(variation, str):
        variation = json.loads(variation) if variation.strip() else None
    axes = {str(k): str(v) for k, v in (variation or {}).items() if v is not None}
    return EpisodeSpec(
        family=str(row["family"]),
        task=str(row["task"]),
        difficulty=str(row.get("difficulty") or "easy"),
        level_seed=int(row.get("level_seed") or 0),
        variation=axes or None,
    )


def _specs(suite: Suite, episodes: int) -> Iterator[EpisodeSpec]:
    for ep in islice(suite.episode_specs(), episodes):
        yield EpisodeSpec.from_suite(ep)
