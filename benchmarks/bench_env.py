"""Speed of WebTask-v0 against the raw browser floor, measured side by side in one run.

    .venv/bin/python benchmarks/bench_env.py [--repeats N] [--json]

The floor is what any Playwright-driven step must pay on this machine: one `mouse.click`
plus one `evaluate` on the same page. Every figure is a median over `--repeats` runs,
taken in the same process, on the shop listing page (seed 0), after a warm-up.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import webfactory_env  # noqa: F401
from webfactory_env.actions import VERB_INDEX

FLOOR = "floor: mouse.click + evaluate"


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_mode(mode: str, repeats: int) -> dict[str, float]:
    env = gym.make("WebTask-v0", obs_mode=mode, screenshot_size=(128, 128), max_steps=10**6)
    base = env.unwrapped
    env.reset(seed=0)
    env.step(np.array([VERB_INDEX["click"], base.dom.index_of("nav:/shop"), 0]))
    assert base.dom.route == "/shop"
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
    env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results: dict[str, float] = {}
    for mode in ("tokens", "tokens+pixels"):
        results.update(measure_mode(mode, args.repeats))
    floor = results[FLOOR]
    if args.json:
        print(json.dumps({"median_ms": results, "floor_ms": floor}, indent=2))
        return
    width = max(len(k) for k in results)
    print(f"{'operation':<{width}}  median ms  × floor")
    for name, ms in results.items():
        print(f"{name:<{width}}  {ms:9.2f}  {ms / floor:7.2f}")


if __name__ == "__main__":
    main()
