"""Offline datasets: many replay bundles plus per-episode arrays for behaviour cloning / offline RL.

Layout of a dataset directory:

    dataset.json            the suite, agent and env settings it was made with
    index.jsonl             one row per episode, appended as each episode finishes
    skipped.jsonl           one row per suite episode skipped because its task cannot be
                            compiled on its level (family, task, seed, reason); absent if none
    episodes/NNNNNN-<task>-s<seed>.tar.gz   the episode's replay bundle
    episodes/NNNNNN-<task>-s<seed>.npz      its arrays

Observations are saved at record time (one `.npz` per episode) rather than re-created by
re-running the recorded actions at load time. Loading then needs no browser and costs
milliseconds instead of a Chromium episode per row, so a training job can read a dataset
on a machine without Chromium; and nothing is lost, because each observation's digest is
stored with it and `load_dataset` checks every array against the digest the env reported
when it produced it. The bundles still prove the episodes re-execute (`replay --verify`).

Array shapes, for an episode of T steps: `observations[key]` is (T+1, ...) — the reset
observation then one per step; `actions` (T, 3) int64; `rewards` (T,) float64;
`terminated` and `truncated` (T,) bool.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.__about__ import __version__
from webfactory_env.core.errors import BundleError, ConfigError
from webfactory_env.env import observation_digest
from webfactory_env.replay.bundle import ARCHIVE_SUFFIX, sha256_file, write_bundle
from webfactory_env.suites import Suite, SuiteEpisode
from webfactory_env.tasks.levels import UncompilableLevelError
from webfactory_env.trace.recorder import TraceRecorder

log = logging.getLogger(__name__)

DATASET_FORMAT = "1.0"
INDEX = "index.jsonl"
SKIPPED = "skipped.jsonl"
META = "dataset.json"
EPISODES_DIR = "episodes"
_OBS_PREFIX = "obs."


@dataclass(frozen=True)
class EpisodeArrays:
    """One episode as arrays; `info` is its index row (task, seed, digests, paths...)."""

    observations: dict[str, np.ndarray]
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: dict[str, Any]

    def __len__(self) -> int:
        return len(self.actions)


def write_dataset(
    suite: Suite,
    agent: str,
    episodes: int,
    out: str | Path,
    *,
    obs_mode: str = "tokens",
    max_steps: int = 64,
    screenshots: bool = False,
    on_episode: Callable[[int, int, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run `episodes` episodes of `suite` with `agent` and write bundles, arrays and index.

    `out` must be new or empty. Rows are appended to `index.jsonl` as episodes finish, so
    an interrupted run leaves a readable dataset of the episodes done so far. An episode
    whose task cannot be compiled on its level is skipped and listed in `skipped.jsonl`
    (`read_skipped`); episode numbers and file names keep the suite's indices.
    """
    from webfactory_env.agents import AGENTS

    if agent not in AGENTS:
        from webfactory_env.core.errors import UnknownNameError

        raise UnknownNameError("agent", agent, AGENTS)
    if episodes < 1:
        raise ConfigError("--episodes must be at least 1")
    plan = list(suite.episode_specs(episodes))
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out} already exists and is not empty; choose a new --out directory")
    (out / EPISODES_DIR).mkdir(parents=True, exist_ok=True)
    meta = {
        "format": DATASET_FORMAT,
        "package_version": __version__,
        "suite": suite.to_json(),
        "agent": agent,
        "episodes": episodes,
        "obs_mode": obs_mode,
        "max_steps": max_steps,
        "layout": "observations (T+1, ...), actions (T, 3), rewards/terminated/truncated (T,)",
    }
    (out / META).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    env = gym.make(
        "WebTask-v0",
        family=plan[0].family,
        task=plan[0].task,
        difficulty=suite.difficulty,
        obs_mode=obs_mode,
        max_steps=max_steps,
    )
    rows: list[dict[str, Any]] = []
    try:
        with (out / INDEX).open("a", encoding="utf-8") as index:
            for i, episode in enumerate(plan):
                try:
                    row = _record(env, out, i, suite, episode, agent, screenshots)
                except UncompilableLevelError as exc:  # one level never ends a dataset
                    _write_skipped(out, {"episode": i, **exc.level.to_json()})
                    log.warning("episode %d skipped: %s cannot be compiled", i, exc.level)
                    continue
                index.write(json.dumps(row, sort_keys=True) + "\n")
                index.flush()
                rows.append(row)
                if on_episode is not None:
                    on_episode(i + 1, len(plan), row)
    finally:
        env.close()
    return rows


def _record(
    env: gym.Env[Any, Any],
    out: Path,
    i: int,
    suite: Suite,
    episode: SuiteEpisode,
    agent: str,
    screenshots: bool,
) -> dict[str, Any]:
    from webfactory_env.agents import AGENTS

    task, seed = episode.task, episode.seed
    name = f"{i:06d}-{task}-s{seed}"
    bundle = out / EPISODES_DIR / f"{name}{ARCHIVE_SUFFIX}"
    arrays = out / EPISODES_DIR / f"{name}.npz"
    with tempfile.TemporaryDirectory(prefix="wf-episode-") as tmp:
        trace = Path(tmp) / "trace.jsonl"
        rec = TraceRecorder(env, trace, run_id=f"{suite.name}/{i}", screenshots=screenshots)
        policy = AGENTS[agent](rec, seed=seed)
        obs, info = rec.reset(seed=seed, options=episode.reset_options())
        policy.reset()
        observations, digests = [obs], [info["obs_digest"]]
        actions, rewards, terminated, truncated = [], [], [], []
        done = False
        while not done:
            action = np.asarray(policy.act(obs, info), dtype=np.int64)
            obs, reward, term, trunc, info = rec.step(action)
            observations.append(obs)
            digests.append(info["obs_digest"])
            actions.append(action)
            rewards.append(float(reward))
            terminated.append(bool(term))
            truncated.append(bool(trunc))
            done = bool(term or trunc)
        rec.close_trace()
        write_bundle(bundle, env, trace)
    data: dict[str, Any] = {
        f"{_OBS_PREFIX}{k}": np.stack([o[k] for o in observations]) for k in observations[0]
    }
    data.update(
        actions=np.stack(actions),
        rewards=np.asarray(rewards, dtype=np.float64),
        terminated=np.asarray(terminated, dtype=bool),
        truncated=np.asarray(truncated, dtype=bool),
        obs_digests=np.asarray(digests),
    )
    np.savez_compressed(arrays, **data)
    success = bool(info["success"])
    return {
        "episode": i,
        "family": episode.family,
        "task": info["task"],
        "seed": seed,
        "difficulty": suite.difficulty,
        "agent": agent,
        "success": success,
        "steps": len(actions),
        "return": round(float(sum(rewards)), 6),
        "outcome": "success" if success else "soft_fail",
        "site_digest": info["site_digest"],
        "task_digest": info["task_digest"],
        "bundle": bundle.relative_to(out).as_posix(),
        "arrays": arrays.relative_to(out).as_posix(),
        "arrays_sha256": sha256_file(arrays),
    }


def _write_skipped(out: Path, entry: dict[str, Any]) -> None:
    with (out / SKIPPED).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")


def read_index(path: str | Path) -> list[dict[str, Any]]:
    """The index rows of a dataset directory. A damaged row (a torn last one, say) is
    skipped with a warning naming its line; the rest are read. Rows end at "\n" only."""
    index = Path(path) / INDEX
    if not index.is_file():
        raise ConfigError(f"{path} is not a webfactory dataset: it has no {INDEX}")
    return _read_rows(index)


def read_skipped(path: str | Path) -> list[dict[str, Any]]:
    """The suite episodes a dataset skipped because their level does not compile: episode,
    family, difficulty, seed, task and reason (none: an empty list)."""
    read_index(path)  # a dataset directory, or a clear error
    skipped = Path(path) / SKIPPED
    return _read_rows(skipped) if skipped.is_file() else []


def _read_rows(file: Path) -> list[dict[str, Any]]:
    rows = []
    text = file.read_bytes().decode("utf-8", errors="replace")
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            row = None
        if isinstance(row, dict):
            rows.append(row)
        else:
            log.warning("%s:%d: skipped a damaged row", file, lineno)
    return rows


def load_dataset(path: str | Path, *, check: bool = True) -> Iterator[EpisodeArrays]:
    """Yield every episode of the dataset at `path` as arrays, in index order.

    With `check`, each `.npz` must match the checksum in the index and every observation
    the digest the env reported for it; a mismatch raises `BundleError` naming the file.
    """
    root = Path(path)
    for row in read_index(root):
        file = root / row["arrays"]
        if check and sha256_file(file) != row["arrays_sha256"]:
            raise BundleError(f"{row['arrays']}: checksum mismatch: the file was modified")
        with np.load(file, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        observations = {
            k[len(_OBS_PREFIX) :]: v for k, v in arrays.items() if k.startswith(_OBS_PREFIX)
        }
        if check:
            for t, digest in enumerate(arrays["obs_digests"]):
                if observation_digest({k: v[t] for k, v in observations.items()}) != digest:
                    raise BundleError(
                        f"{row['arrays']}: observation {t} does not match the digest the env"
                        " reported when it was recorded"
                    )
        yield EpisodeArrays(
            observations=observations,
            actions=arrays["actions"],
            rewards=arrays["rewards"],
            terminated=arrays["terminated"],
            truncated=arrays["truncated"],
            info=row,
        )
