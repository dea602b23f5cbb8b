"""What trainers run, timed with the CPU each process spends on it: throughput per obs mode
and env count, and the reset to a new level per family.

Wall time moves with whatever else the machine runs; the CPU a process spends per step
barely does. So every figure here comes with the CPU seconds our Python (the bench's own
process and its env workers), the Playwright driver and Chromium (all its processes) spent
in the same window, read from `/proc` before and after. The physical limit is the
machine's cores divided by Chromium's CPU per step: the throughput the browser allows if
nothing else ran and every core were busy; beside it, the cores divided by the CPU all
three spend per step, the throughput with our Python and the driver as they are.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.agents.random_agent import sample_masked
from webfactory_env.tasks.compile_cache import compile_cache, fresh_compile_cache
from webfactory_env.tasks.library import forget_levels

KINDS = ("python", "driver", "chromium")
TRAINER_MODES = ("tokens", "tokens+pixels", "text")
TRAINER_ENVS = (1, 2, 4)
EPISODE_STEPS = 20  # episodes capped here, as the trainers do
# Steps played before the meters start, over all envs: a trainer runs for millions of steps,
# and the first hundred or so cost the Playwright driver twice what later ones do (its
# JavaScript is compiled by V8 as it runs: 1.6-2.0 ms a step metered from the 4th step,
# 0.8-0.9 from the 200th), so the table measures the steady state a run spends its time in.
WARM_STEPS = 200
PIXELS = (128, 128)
TRAINER_TASK = {"family": "shop", "task": "buy_red_mug"}
# A task per family, for the reset to a new level.
RESET_TASKS = {
    "shop": "buy_red_mug",
    "travel": "book_flight_roundtrip",
    "kanban": "kanban_move_and_comment",
    "account": "account_update_profile",
    "forum": "forum_reply_and_edit",
}
_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ CPU per process
def _children(pid: int) -> list[int]:
    """`pid`'s children, from each of its threads' `children` file: no scan of /proc, whose
    other processes (a busy one's `stat` can cost milliseconds) are none of ours."""
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # gone meanwhile
        return []
    for tid in tasks:
        try:
            out += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            continue
    return out


def _cpu_s(pid: int) -> tuple[float, int] | None:
    """CPU seconds `pid` has used (all its threads, user and system, and its children that
    ended and were waited for), and when it started (clock ticks since boot: a pid used
    again by a new process starts later); None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # after the command: state ppid ... utime stime cutime cstime (fields 14-17 overall)
    # ... starttime (field 22)
    return sum(int(f) for f in fields[11:15]) * _TICK_S, int(fields[19])


def process_kind(pid: int) -> str:
    """What a process of the bench's tree is: `python`, `driver` (Playwright's node),
    `chromium` (any of its processes) or `other`."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "other"
    args = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
    program = os.path.basename(args[0]) if args else ""
    if pid == os.getpid() or program.startswith("python"):
        return "python"
    if program == "node" or any("playwright" in a for a in args[1:3]):
        return "driver"
    if "chrom" in program or "headless_shell" in program:
        return "chromium"
    return "other"


Process = tuple[int, int]  # (pid, start time): a pid given again is another process


class CpuMeter:
    """CPU seconds spent by each kind of process under this one (itself included) between
    `start` and `stop`, read from /proc at both ends (reading costs CPU too, so no more
    often). A process's reading includes its children that ended and were waited for, so
    a process that ends in between counts through its parent: all it ever spent, less what
    it had spent at `start` (a renderer a recycled page leaves, say: without that, its
    whole life lands in the window)."""

    def __init__(self, root: int | None = None) -> None:
        self.root = os.getpid() if root is None else root
        self._first: dict[Process, tuple[float, Process | None]] = {}

    def _tree(self) -> dict[Process, tuple[float, Process | None]]:
        """{process: (CPU seconds, parent)} of the tree under `root`; a process is its pid
        and start time, so a pid the system gave again is another process."""
        out: dict[Process, tuple[float, Process | None]] = {}
        todo: list[tuple[int, Process | None]] = [(self.root, None)]
        while todo:
            pid, parent = todo.pop()
            read = _cpu_s(pid)
            if read is not None:
                cpu, started = read
                out[(pid, started)] = (cpu, parent)
                todo += [(child, (pid, started)) for child in _children(pid)]
        return out

    def start(self) -> None:
        self._first = self._tree()

    def stop(self) -> dict[str, float]:
        """CPU seconds per kind (`KINDS`, plus `other` if any) since `start`."""
        out = dict.fromkeys(KINDS, 0.0)
        now = self._tree()
        kinds = {proc: process_kind(proc[0]) for proc in now}  # read once each has started
        for proc, (cpu, _) in now.items():
            kind = kinds[proc]
            first = self._first.get(proc, (0.0, None))[0]
            out[kind] = out.get(kind, 0.0) + cpu - first
        for proc, (first, parent) in self._first.items():
            if proc not in now and parent is not None and parent in now:
                # Ended: its parent's reading has all it ever spent.
                out[kinds[parent]] = out.get(kinds[parent], 0.0) - first
        return out


def per_step(cpu: dict[str, float], steps: int) -> dict[str, float]:
    """CPU milliseconds per step of each kind, and the limits in steps per second: the
    machine's cores divided by Chromium's CPU per step (`limit_steps_per_s`) and by that of
    all processes (`limit_all_steps_per_s`)."""
    ms = {kind: 1000 * s / max(steps, 1) for kind, s in cpu.items()}
    cores_ms = (os.cpu_count() or 1) * 1000
    spent, browser = sum(ms.values()), ms.get("chromium", 0.0)
    ms["limit_steps_per_s"] = cores_ms / browser if browser else float("nan")
    ms["limit_all_steps_per_s"] = cores_ms / spent if spent else float("nan")
    return ms


# ------------------------------------------------------------------ what trainers run
def trainer_kwargs(mode: str) -> dict[str, Any]:
    """The env a trainer of `mode` makes: defaults, the task's own done rule, 20 steps."""
    kwargs: dict[str, Any] = {**TRAINER_TASK, "obs_mode": mode, "max_steps": EPISODE_STEPS}
    if "pixels" in mode:
        kwargs["screenshot_size"] = PIXELS
    return kwargs


def trainer_run(
    mode: str, num_envs: int, steps: int, seed: int = 0, warm_steps: int = WARM_STEPS
) -> dict[str, Any]:
    """A random masked policy on `WebTaskVectorEnv(num_envs)` (one shared Chromium, resets
    in the step that ends an episode) for about `steps` steps in all, after `warm_steps`
    unmetered ones: aggregate steps per second, episodes, and CPU milliseconds per step of
    each kind of process."""
    from webfactory_env.vector import WebTaskVectorEnv

    envs = WebTaskVectorEnv(num_envs, autoreset_mode="SameStep", **trainer_kwargs(mode))
    rng = np.random.default_rng(seed)
    nvec = np.asarray(envs.single_action_space.nvec)  # type: ignore[attr-defined]
    meter = CpuMeter()
    try:
        envs.reset(seed=seed)
        for _ in range(max(3, warm_steps // num_envs)):
            envs.step(sample_masked(envs.action_masks(), nvec, rng))
        rounds = max(1, steps // num_envs)
        episodes = 0
        meter.start()
        start = time.perf_counter()
        for _ in range(rounds):
            _, _, terminated, truncated, _ = envs.step(
                sample_masked(envs.action_masks(), nvec, rng)
            )
            episodes += int(np.sum(terminated | truncated))
        elapsed = time.perf_counter() - start
        cpu = meter.stop()
    finally:
        envs.close()
    total = num_envs * rounds
    return {
        "steps_per_s": total / elapsed,
        "steps": total,
        "warm_steps": max(3, warm_steps // num_envs) * num_envs,
        "episodes": episodes,
        "cpu_ms_per_step": per_step(cpu, total),
    }


def trainer_table(
    steps: int,
    envs: Sequence[int] = TRAINER_ENVS,
    modes: Iterable[str] = TRAINER_MODES,
    warm_steps: int = WARM_STEPS,
) -> dict[str, dict[str, Any]]:
    """`trainer_run` for every mode and env count: {mode: {str(envs): run}}."""
    return {
        mode: {str(n): trainer_run(mode, n, steps, warm_steps=warm_steps) for n in envs}
        for mode in modes
    }


# ------------------------------------------------------------- reset to a new level
def reset_run(family: str, task: str, resets: int) -> dict[str, Any]:
    """Resets of one `tokens` env (in this process) to new levels: the wall median and the
    CPU milliseconds per reset of each kind of process (our Python includes the thread
    that compiles the task while Chromium mounts the site). Then the same levels again
    (`seen`): what a trainer's reset costs on a fixed set of levels it has visited, whose
    sites and compiled tasks the process keeps (`sitegen.registry`, `tasks.library`). Then
    once more, as another process meets them (`on_disk`): each site generated again, each
    task loaded from the compile cache (`tasks.compile_cache`; None if none can be made), each
    mounted on a page that never showed it.

    The first visits are first visits however often this runs: the levels are forgotten
    in memory and compiled into a new, empty compile cache (an earlier run's, or the
    user's, would turn them into loads from disk)."""
    seeds = range(10_000, 10_000 + resets)
    forget_levels()
    with fresh_compile_cache():
        with _warm_env(family, task) as env:
            new = _metered_resets(env, seeds)
            seen = _metered_resets(env, seeds)
        if compile_cache() is None:
            return {**new, "resets": resets, "seen": seen, "on_disk": None}
        # As another process meets them: sites generated anew, tasks read from disk,
        # mounted on a page that never showed them.
        forget_levels()
        with _warm_env(family, task) as env:
            kept = _metered_resets(env, seeds)
    return {**new, "resets": resets, "seen": seen, "on_disk": kept}


@contextlib.contextmanager
def _warm_env(family: str, task: str) -> Iterator[gym.Env[Any, Any]]:
    """A `tokens` env that has reset twice (the family's modules, the page's runtime)."""
    env = gym.make("WebTask-v0", family=family, task=task, obs_mode="tokens")
    try:
        env.reset(seed=0)
        env.reset(seed=1)
        yield env
    finally:
        env.close()


def _metered_resets(env: Any, seeds: range) -> dict[str, Any]:
    meter = CpuMeter()
    wall = []
    meter.start()
    for seed in seeds:
        t0 = time.perf_counter()
        env.reset(seed=seed)
        wall.append((time.perf_counter() - t0) * 1000)
    out = per_step(meter.stop(), len(seeds))
    del out["limit_steps_per_s"], out["limit_all_steps_per_s"]
    return {"wall_ms": statistics.median(wall), "cpu_ms": out}


def reset_table(resets: int) -> dict[str, dict[str, Any]]:
    return {family: reset_run(family, task, resets) for family, task in RESET_TASKS.items()}


# ------------------------------------------------------------------------ tables
def format_trainer(trainer: dict[str, dict[str, Any]]) -> list[str]:
    runs = [run for by_n in trainer.values() for run in by_n.values()]
    warm = max((run.get("warm_steps", 0) for run in runs), default=0)
    lines = [
        f"What trainers run: WebTaskVectorEnv (one shared Chromium), {TRAINER_TASK['task']}"
        f" with its own done rule, a random masked policy, episodes capped at {EPISODE_STEPS}"
        f" steps, metered after {warm} unmetered steps (the steady state of a long run);"
        " CPU ms per step of each kind of process; the physical limit"
        f" ({os.cpu_count()} cores / Chromium's CPU per step) and the limit with all of them"
        f" ({os.cpu_count()} cores / all CPU per step), steps/s:",
        f"{'obs mode':<14}{'envs':>5}{'steps/s':>9}{'episodes':>9}"
        f"{'python':>8}{'driver':>8}{'chromium':>9}{'(py+drv)/chr':>13}{'limit':>8}"
        f"{'all':>7}",
    ]
    for mode, by_n in trainer.items():
        for n, run in by_n.items():
            cpu = run["cpu_ms_per_step"]
            ratio = (cpu["python"] + cpu["driver"]) / cpu["chromium"] if cpu["chromium"] else 0
            lines.append(
                f"{mode:<14}{n:>5}{run['steps_per_s']:9.1f}{run['episodes']:9d}"
                f"{cpu['python']:8.2f}{cpu['driver']:8.2f}{cpu['chromium']:9.2f}"
                f"{ratio:13.2f}{cpu['limit_steps_per_s']:8.1f}"
                f"{cpu['limit_all_steps_per_s']:7.1f}"
            )
    return lines


def format_resets(resets: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "Reset to a new level (new site and task), one `tokens` env: CPU ms per reset; then"
        " to the same levels again (seen: a fixed set of training levels, sites and"
        " compiled tasks kept by the process); then as another process meets them (on"
        " disk: each site generated again, each task read from the compile cache)",
        f"{'family':<10}{'task':<26}{'python':>8}{'driver':>8}{'chromium':>9}{'wall ms':>9}"
        f"{'seen: python':>14}{'chromium':>9}{'wall ms':>9}"
        f"{'on disk: python':>17}{'chromium':>9}{'wall ms':>9}",
    ]
    for family, run in resets.items():
        cpu = run["cpu_ms"]
        row = (
            f"{family:<10}{RESET_TASKS[family]:<26}{cpu['python']:8.2f}{cpu['driver']:8.2f}"
            f"{cpu['chromium']:9.2f}{run['wall_ms']:9.1f}"
        )
        for key in ("seen", "on_disk"):
            again = run.get(key)
            if again is not None:
                cpu = again["cpu_ms"]
                row += f"{cpu['python']:14.2f}{cpu['chromium']:9.2f}{again['wall_ms']:9.1f}"
        lines.append(row)
    return lines
