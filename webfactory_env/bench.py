"""Speed of WebTask-v0 next to the raw browser floor, measured side by side in one process.

`webfactory bench [--json]` prints these figures; `benchmarks/bench_env.py --peers` adds the
MiniWoB++ and BrowserGym figures measured in the same run.

The floor is what any Playwright-driven step must pay on this machine: one `mouse.click`
plus one `evaluate` on the same page. Every figure is a median over `repeats` runs on the
shop listing page (seed 0), after a warm-up; the machine's load average is recorded with
them because on a busy machine every figure moves.
"""

from __future__ import annotations

import itertools
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env.actions import VERB_INDEX

FLOOR = "floor: mouse.click + evaluate"
MODES = ("tokens", "tokens+pixels")
PIXELS = (128, 128)  # the screenshot size the targets are stated for


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 3) -> float:
    for _ in range(min(warmup, repeats)):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_mode(mode: str, repeats: int) -> dict[str, float]:
    """Medians for one observation mode; the tokens run also measures the floor."""
    env = gym.make("WebTask-v0", obs_mode=mode, screenshot_size=PIXELS, max_steps=10**6)
    base: Any = env.unwrapped
    try:
        env.reset(seed=0)
        env.step(np.array([VERB_INDEX["click"], base.dom.index_of("nav:/shop"), 0]))
        if base.dom.route != "/shop":
            raise RuntimeError(f"expected the shop listing, got {base.dom.route}")
        out: dict[str, float] = {}
        if mode == "tokens":
            page = base.session.page

            def floor() -> None:
                page.mouse.click(640, 790)  # the footer: a real click that triggers nothing
                page.evaluate("1")

            out[FLOOR] = median_ms(floor, repeats)

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
        out[f"step {mode}: select (re-render grid)"] = median_ms(select, repeats)
        out[f"step {mode}: click link (navigate)"] = median_ms(click_link, repeats)
        out[f"step {mode}: invalid action"] = median_ms(invalid, repeats)
        out[f"reset {mode}: new seed (new site + task)"] = median_ms(
            lambda: env.reset(seed=next(seeds)), repeats
        )
        out[f"reset {mode}: same seed"] = median_ms(lambda: env.reset(seed=0), repeats)
        return out
    finally:
        env.close()


def run(repeats: int = 50) -> dict[str, Any]:
    """Every figure, plus the load average before and after and the CPU count."""
    before = os.getloadavg()
    medians: dict[str, float] = {}
    for mode in MODES:
        medians.update(measure_mode(mode, repeats))
    return {
        "median_ms": medians,
        "floor_ms": medians[FLOOR],
        "repeats": repeats,
        "loadavg": {"before": list(before), "after": list(os.getloadavg())},
        "cpus": os.cpu_count(),
    }


def table(result: dict[str, Any]) -> str:
    medians: dict[str, float] = result["median_ms"]
    floor = result["floor_ms"]
    width = max(len(k) for k in medians)
    lines = [f"{'operation':<{width}}  median ms  × floor"]
    lines += [f"{k:<{width}}  {ms:9.2f}  {ms / floor:7.2f}" for k, ms in medians.items()]
    load = result["loadavg"]
    lines.append(
        f"{result['repeats']} repeats; load average (1 min) before / after: "
        f"{load['before'][0]:.2f} / {load['after'][0]:.2f} on {result['cpus']} CPUs"
    )
    return "\n".join(lines)
