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

Every figure is taken three times: `tokens`, `tokens` in a browser that draws no frames
(`BrowserConfig(pixels=False)`), and `tokens+pixels`. Then what a trainer sees: a random
policy that samples each action dimension uniformly among the valid entries of
`action_masks()` (done verbs always allowed, so episodes end often and resets count), on
`buy_red_mug` with a new level seed each episode: its step median, its reset median and
its steps per second with the resets included; and the same policy on
`WebTaskVectorEnv`s of 1, 2, 4 and 8 envs sharing one Chromium (aggregate steps per
second, resets included).
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
from webfactory_env.agents.random_agent import RandomAgent, sample_masked
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.browser import BrowserConfig

FLOOR = "floor: mouse.click + evaluate"
CDP_ROUND_TRIP = "reference: CDP round trip"
# What every table runs: a name, the obs mode, whether the browser draws frames
# (`BrowserConfig.pixels`; a tokens env never reads them).
RUNS = (
    ("tokens", "tokens", True),
    ("tokens, pixels=False", "tokens", False),
    ("tokens+pixels", "tokens+pixels", True),
)
PIXELS = (128, 128)  # the screenshot size the targets are stated for
VECTOR_ENVS = (1, 2, 4, 8)
POLICY: dict[str, Any] = {
    "task": "buy_red_mug",
    "done_actions": "always",
    "screenshot_size": PIXELS,
}


def median_ms(fn: Callable[[], object], repeats: int, warmup: int = 3) -> float:
    for _ in range(min(warmup, repeats)):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure_mode(name: str, mode: str, pixels: bool, repeats: int) -> dict[str, float]:
    """Medians for one of `RUNS` (rows named after `name`); the first also measures the
    floor."""
    browser = BrowserConfig(pixels=pixels)
    env = gym.make("WebTask-v0", obs_mode=mode, max_steps=10**6, browser=browser, **POLICY)
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


def random_policy(mode: str, steps: int, seed: int = 0, pixels: bool = True) -> dict[str, float]:
    """The masked random policy on one env (in this process) for `steps` steps: medians of
    its steps and resets, and steps per second with the resets included."""
    env = gym.make("WebTask-v0", obs_mode=mode, browser=BrowserConfig(pixels=pixels), **POLICY)
    agent = RandomAgent(env, seed=seed, allow_done=True)
    step_ms, reset_ms, episodes = [], [], 0
    try:
        env.reset(seed=seed)
        start = time.perf_counter()
        for _ in range(steps):
            action = agent.act()
            t0 = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action)
            t1 = time.perf_counter()
            step_ms.append((t1 - t0) * 1000)
            if terminated or truncated:
                episodes += 1
                env.reset()  # the next level seed from the env's own generator
                reset_ms.append((time.perf_counter() - t1) * 1000)
        elapsed = time.perf_counter() - start
    finally:
        env.close()
    return {
        "step_ms": statistics.median(step_ms),
        "reset_ms": statistics.median(reset_ms) if reset_ms else float("nan"),
        "steps_per_s": steps / elapsed,
        "episodes": episodes,
    }


def vector_scaling(
    mode: str, counts: Sequence[int], steps: int, pixels: bool = True
) -> dict[int, float]:
    """Aggregate steps per second of the masked random policy on `WebTaskVectorEnv`s of
    each size in `counts` (one shared Chromium; resets in the same step, so included)."""
    from webfactory_env.vector import WebTaskVectorEnv

    out = {}
    browser = BrowserConfig(pixels=pixels)
    for n in counts:
        envs = WebTaskVectorEnv(
            n, autoreset_mode="SameStep", obs_mode=mode, browser=browser, **POLICY
        )
        rng = np.random.default_rng(n)
        nvec = np.asarray(envs.single_action_space.nvec)  # type: ignore[attr-defined]
        try:
            envs.reset(seed=0)
            for _ in range(3):  # every worker's first steps warm its page
                envs.step(sample_masked(envs.action_masks(), nvec, rng))
            rounds = max(1, steps // n)
            start = time.perf_counter()
            for _ in range(rounds):
                envs.step(sample_masked(envs.action_masks(), nvec, rng))
            out[n] = n * rounds / (time.perf_counter() - start)
        finally:
            envs.close()
    return out


def parse_envs(text: str) -> tuple[int, ...]:
    """`--envs`: "1,2,4,8" → (1, 2, 4, 8); "0" or "" → () (no scaling table)."""
    try:
        counts = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(
            f"--envs takes comma-separated env counts like 1,2,4,8 (got {text!r})"
        ) from None
    if any(n < 0 for n in counts):
        raise ConfigError(f"--envs takes counts of at least 1, or 0 to skip (got {text!r})")
    return tuple(n for n in counts if n > 0)


def run(
    repeats: int = 50, envs: Sequence[int] = VECTOR_ENVS, policy_steps: int | None = None
) -> dict[str, Any]:
    """Every figure, plus the load average before and after and the CPU count. The random
    policy takes `policy_steps` steps (default: 10 × repeats, at least 40) per run."""
    before = os.getloadavg()
    steps = policy_steps or max(40, 10 * repeats)
    medians: dict[str, float] = {}
    for name, mode, pixels in RUNS:
        medians.update(measure_mode(name, mode, pixels, repeats))
    policy = {name: random_policy(mode, steps, pixels=px) for name, mode, px in RUNS}
    vector = (
        {name: vector_scaling(mode, envs, steps, px) for name, mode, px in RUNS} if envs else {}
    )
    return {
        "median_ms": medians,
        "floor_ms": medians[FLOOR],
        "repeats": repeats,
        "random_policy": policy,
        "vector_steps_per_s": {
            mode: {str(n): v for n, v in by.items()} for mode, by in vector.items()
        },
        "policy_steps": steps,
        "loadavg": {"before": list(before), "after": list(os.getloadavg())},
        "cpus": os.cpu_count(),
    }


def table(result: dict[str, Any]) -> str:
    medians: dict[str, float] = result["median_ms"]
    floor = result["floor_ms"]
    width = max(len(k) for k in medians)
    lines = [f"{'operation':<{width}}  median ms  × floor"]
    lines += [f"{k:<{width}}  {ms:9.2f}  {ms / floor:7.2f}" for k, ms in medians.items()]
    lines += ["", f"random masked policy, done allowed ({result['policy_steps']} steps, one env):"]
    lines.append(f"{'obs mode':<22}  step ms  × floor  reset ms  steps/s (resets included)")
    for mode, p in result["random_policy"].items():
        lines.append(
            f"{mode:<22}  {p['step_ms']:7.2f}  {p['step_ms'] / floor:7.2f}  {p['reset_ms']:8.2f}"
            f"  {p['steps_per_s']:7.1f}  ({p['episodes']} episodes)"
        )
    vector = result["vector_steps_per_s"]
    if vector:
        counts = list(next(iter(vector.values())))
        lines += ["", "WebTaskVectorEnv, one shared Chromium: aggregate steps/s (resets included)"]
        lines.append(f"{'envs':<22}" + "".join(f"{n:>8}" for n in counts))
        for mode, by in vector.items():
            lines.append(f"{mode:<22}" + "".join(f"{by[n]:8.1f}" for n in counts))
    load = result["loadavg"]
    lines.append(
        f"{result['repeats']} repeats; load average (1 min) before / after: "
        f"{load['before'][0]:.2f} / {load['after'][0]:.2f} on {result['cpus']} CPUs"
    )
    return "\n".join(lines)
