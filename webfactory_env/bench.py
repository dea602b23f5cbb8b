"""Speed of WebTask-v0 next to the raw browser floor, measured side by side in one process.

`webfactory bench [--json]` prints these figures; `benchmarks/bench_env.py --peers` adds the
MiniWoB++ and BrowserGym figures measured in the same run.

The floor is what a step driven through Playwright's page API pays on this machine: one
`mouse.click` plus one `page.evaluate` on the same page. The runtime's own calls go through
the page's CDP session instead (about half the cost of `page.evaluate`): the row
`reference: CDP round trip` shows that channel's cost next to the floor. Every operation's
figure is a median over `repeats` runs on the shop listing page (seed 0), after a warm-up;
the machine's load average is recorded with them because on a busy machine every figure
moves.

Every median is taken four times: `tokens` as a new user gets it (a browser that draws
no frames), `tokens` in a browser that draws them (`BrowserConfig(pixels=True)`),
`tokens+pixels`, and `tokens+pixels` with set-of-marks drawn onto the screenshot. Then
what trainers run (`bench_throughput`): a random masked policy on `WebTaskVectorEnv`s of
1, 2 and 4 envs per obs mode, with the task's own done rule and episodes capped at 20
steps, beside the CPU per step of our Python, the Playwright driver and Chromium; and the
reset to a new level of each family, in CPU per process.
"""

from __future__ import annotations

import itertools
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.actions import VERB_INDEX
from webfactory_env.bench_throughput import (
    PIXELS,
    TRAINER_ENVS,
    WARM_STEPS,
    format_resets,
    format_trainer,
    reset_table,
    trainer_table,
)
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor import shared_browser
from webfactory_env.executor.browser import BrowserConfig
from webfactory_env.tasks.compile_cache import fresh_compile_cache

FLOOR = "floor: mouse.click + evaluate"
CDP_ROUND_TRIP = "reference: CDP round trip"
# What every median runs: a name, the obs mode, whether the browser draws frames
# (`BrowserConfig.pixels`; None: the env's default, which for `tokens` draws nothing) and
# whether set-of-marks are drawn onto the screenshot.
RUNS: tuple[tuple[str, str, bool | None, bool], ...] = (
    ("tokens", "tokens", None, False),
    ("tokens, frames drawn", "tokens", True, False),
    ("tokens+pixels", "tokens+pixels", None, False),
    ("tokens+pixels, set-of-marks", "tokens+pixels", None, True),
)
POLICY: dict[str, Any] = {
    "task": "buy_red_mug",
    "done_actions": "always",
    "screenshot_size": PIXELS,
}
# How long a run takes: timed repeats per median, steps per trainer-table cell, resets per
# family. `quick` gives every table in a few minutes; its figures are rougher.
SIZES = {"full": (50, 300, 30), "quick": (7, 80, 10)}


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 3) -> float:
    for _ in range(min(warmup, repeats)):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_mode(
    name: str, mode: str, pixels: bool | None, repeats: int, marks: bool = False
) -> dict[str, float]:
    """Medians for one of `RUNS` (rows named after `name`); the first also measures the
    floor."""
    browser = BrowserConfig(pixels=pixels)
    env = gym.make(
        "WebTask-v0",
        obs_mode=mode,
        max_steps=10**6,
        browser=browser,
        set_of_marks=marks,
        **POLICY,
    )
    base: Any = env.unwrapped
    try:
        env.reset(seed=0)
        env.step(np.array([VERB_INDEX["click"], base.dom.index_of("nav:/shop"), 0]))
        if base.dom.route != "/shop":
            raise RuntimeError(f"expected the shop listing, got {base.dom.route}")
        out: dict[str, float] = {}
        if name == RUNS[0][0]:
            page = base.session.page

            def floor() -> None:
                page.mouse.click(640, 790)  # the footer: a real click that triggers nothing
                page.evaluate("1")

            out[FLOOR] = median_ms(floor, repeats)
            out[CDP_ROUND_TRIP] = median_ms(base.session.round_trip, repeats)

        flip = itertools.cycle([("sort", "Price: low to high"), ("filter:color", "Red")])

        def select() -> None:
            # alternately sort and filter: the whole product grid is re-rendered each time
            sid, value = next(flip)
            slot = base.task.values.index(value)
            env.step(np.array([VERB_INDEX["select"], base.dom.index_of(sid), slot]))

        def click_link() -> None:
            target = "nav:/cart" if base.dom.route == "/shop" else "nav:/shop"
            env.step(np.array([VERB_INDEX["click"], base.dom.index_of(target), 0]))

        def invalid() -> None:
            env.step(np.array([VERB_INDEX["type"], 0, 0]))

        seeds = itertools.count(1000)
        out[f"step {name}: select (re-render grid)"] = median_ms(select, repeats)
        out[f"step {name}: click link (navigate)"] = median_ms(click_link, repeats)
        out[f"step {name}: invalid action"] = median_ms(invalid, repeats)
        out[f"step {name}: done (the episode ends)"] = after_reset(env, seeds, repeats, "done")[0]
        # the same click (home -> listing) as the first step and again later
        first, _, later = after_reset(env, seeds, repeats, "nav:/shop", "nav:/", "nav:/shop")
        out[f"step {name}: click to the listing, first after a reset"] = first
        out[f"step {name}: click to the listing, later"] = later
        out[f"reset {name}: new seed (new site + task)"] = median_ms(
            lambda: env.reset(seed=next(seeds)), repeats
        )
        out[f"reset {name}: same seed"] = median_ms(lambda: env.reset(seed=0), repeats)
        return out
    finally:
        env.close()


def after_reset(env: Any, seeds: Iterator[int], repeats: int, *steps: str) -> list[float]:
    """Reset to a new seed (not timed), then take `steps` in turn: "done" (ends the
    episode) or the sid of a link to click. The median of each step, by position."""
    base: Any = env.unwrapped
    times: list[list[float]] = [[] for _ in steps]
    for i in range(repeats + 3):
        env.reset(seed=next(seeds))
        for n, step in enumerate(steps):
            if step == "done":
                action = [VERB_INDEX["done_fail"], 0, 0]
            else:
                action = [VERB_INDEX["click"], base.dom.index_of(step), 0]
            t0 = time.perf_counter()
            env.step(np.array(action))
            if i >= 3:  # after a warm-up
                times[n].append((time.perf_counter() - t0) * 1000)
    return [statistics.median(t) for t in times]


def parse_envs(text: str) -> tuple[int, ...]:
    """`--envs`: "1,2,4" → (1, 2, 4); "0" or "" → () (no trainer table)."""
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(
            f"--envs takes comma-separated env counts like 1,2,4 (got {text!r})"
        ) from None
    if any(n < 0 for n in counts):
        raise ConfigError(f"--envs takes counts of at least 1, or 0 to skip (got {text!r})")
    return tuple(n for n in counts if n > 0)


def run(
    repeats: int = 50,
    envs: Sequence[int] = TRAINER_ENVS,
    trainer_steps: int = 300,
    resets: int = 30,
    warm_steps: int = WARM_STEPS,
) -> dict[str, Any]:
    """Every figure, plus the load average before and after and the CPU count. Tasks are
    compiled into a new, empty compile cache (`tasks.compile_cache`), so every run measures
    first visits to its levels, whatever earlier runs left in the user's cache."""
    with fresh_compile_cache():
        return _run(repeats, envs, trainer_steps, resets, warm_steps)


def _run(
    repeats: int, envs: Sequence[int], trainer_steps: int, resets: int, warm_steps: int
) -> dict[str, Any]:
    before = os.getloadavg()
    medians: dict[str, float] = {}
    for name, mode, pixels, marks in RUNS:
        medians.update(measure_mode(name, mode, pixels, repeats, marks))
    reset_cpu = reset_table(resets) if resets else {}
    shared_browser().close()  # idle from here on: the trainer tables launch their own
    trainer = trainer_table(trainer_steps, envs, warm_steps=warm_steps) if envs else {}
    return {
        "median_ms": medians,
        "floor_ms": medians[FLOOR],
        "repeats": repeats,
        "reset_cpu": reset_cpu,
        "trainer": trainer,
        "loadavg": {"before": list(before), "after": list(os.getloadavg())},
        "cpus": os.cpu_count(),
    }


def table(result: dict[str, Any]) -> str:
    medians: dict[str, float] = result["median_ms"]
    floor = result["floor_ms"]
    width = max(len(k) for k in medians)
    lines = [f"{'operation':<{width}}  median ms  × floor"]
    lines += [f"{k:<{width}}  {ms:9.2f}  {ms / floor:7.2f}" for k, ms in medians.items()]
    if result["reset_cpu"]:
        lines += ["", *format_resets(result["reset_cpu"])]
    if result["trainer"]:
        lines += ["", *format_trainer(result["trainer"])]
    lines.append("")
    lines.append(load_line(result))
    return "\n".join(lines)


def load_line(result: dict[str, Any]) -> str:
    load = result["loadavg"]
    return (
        f"{result['repeats']} repeats; load average (1 min) before / after: "
        f"{load['before'][0]:.2f} / {load['after'][0]:.2f} on {result['cpus']} CPUs"
        " (wall-time figures move with the load; CPU per step and per reset barely do)"
    )
