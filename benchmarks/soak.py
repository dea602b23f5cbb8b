"""Soak: many steps over four envs, watching the memory of Python and of Chromium.

    .venv/bin/python benchmarks/soak.py [--steps 20000] [--envs 4] [--every 1000] [--json OUT]

Four `WebTask-v0` envs live in this one process and share its one Chromium (each env has
its own browser context and page), stepped round robin by a random agent that mostly takes
valid actions (so the sites really change state) and sometimes invalid ones. Every episode
is short (`--max-steps`, 20 by default) and each reset moves the env to another family and
task, so the run goes through a thousand resets, every family and the screenshot path.

Why one process and not `AsyncVectorEnv`: this is the layout where leaks add up — every
env's contexts, routes and pages live in the same browser, and every site app, compiled
task and cache in the same Python heap — and where both are easy to measure (one Python
process, one Chromium process tree). A vector env runs one such process per env, each with
its own browser; on a 2-core machine it only adds process switching to the same figures.

Every `--every` steps it prints the RSS of this Python process and the summed RSS (and
PSS, which counts shared pages once) of the Chromium process tree, plus the count of open
browser contexts and pages and the resets so far. At the end it reports start, the value
after warm-up (step `--warmup`, 5,000 by default), end and peak of each, the growth from
warm-up to the end in per cent (the target: at most 10 % for each), the slope per 1,000
resets after warm-up (least squares), and the throughput. Nothing is asserted: read the
figures against the target printed with them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.agents import RandomAgent
from webfactory_env.core.errors import BrowserCrashedError, WebfactoryError
from webfactory_env.executor.browser import shared_browser
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.registry import families
from webfactory_env.tasks import library_tasks

INVALID_SHARE = 0.1  # of actions drawn from the whole action space (mostly invalid)
WARMUP_STEPS = 5_000  # growth is measured from this step on: caches fill during warm-up
TARGET_GROWTH = 0.10  # at most 10 % from warm-up to the end, for Python and for Chromium


def _kb(path: str, field: str) -> int:
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _descendants(pid: int) -> list[int]:
    tree, out, todo = _children(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip()
    except OSError:
        return ""


@dataclass
class Sample:
    steps: int
    resets: int
    seconds: float
    python_rss_mb: float
    browser_rss_mb: float
    browser_pss_mb: float
    driver_rss_mb: float
    browser_processes: int
    contexts: int
    pages: int


def sample(steps: int, seconds: float, resets: int = 0) -> Sample:
    me = os.getpid()
    browser_rss = browser_pss = driver_rss = 0
    n = 0
    for pid in _descendants(me):
        rss = _kb(f"/proc/{pid}/status", "VmRSS")
        if "chrom" in _comm(pid):
            browser_rss += rss
            browser_pss += _kb(f"/proc/{pid}/smaps_rollup", "Pss")
            n += 1
        else:  # the Playwright driver (node)
            driver_rss += rss
    browser = shared_browser().browser
    contexts = browser.contexts if browser is not None else []
    return Sample(
        steps=steps,
        resets=resets,
        seconds=round(seconds, 1),
        python_rss_mb=_kb("/proc/self/status", "VmRSS") / 1024,
        browser_rss_mb=browser_rss / 1024,
        browser_pss_mb=browser_pss / 1024,
        driver_rss_mb=driver_rss / 1024,
        browser_processes=n,
        contexts=len(contexts),
        pages=sum(len(c.pages) for c in contexts),
    )


def curriculum(tmp: Path) -> list[tuple[str, str]]:
    """(family, task) pairs to rotate through: every library task of every family whose
    site and tasks build here (a family mid-conversion is skipped, and said so); a family
    without library tasks gets a one-step navigation task."""
    pairs = []
    for family in families():
        tasks = [t.name for t in library_tasks(family)]
        if not tasks:
            path = tmp / f"{family}_visit.task"
            path.write_text('task visit { goto route("/other"); }\n', encoding="utf-8")
            tasks = [str(path)]
        try:
            _ = generate_site(family, 0).family.schema  # a family mid-conversion has none
        except Exception as exc:  # a family that does not build here
            print(f"skipping {family}: {type(exc).__name__}: {exc}", flush=True)
            continue
        pairs += [(family, t) for t in tasks]
    return pairs


def reset_next(
    env: gym.Env[Any, Any], pairs: list[tuple[str, str]], k: int, counts: dict[str, int]
) -> int:
    """Reset `env` to the next (family, task) that compiles on its seed; the next index."""
    while True:
        family, task = pairs[k % len(pairs)]
        k += 1
        try:
            env.reset(seed=k, options={"family": family, "task": task})
        except WebfactoryError as exc:  # this task does not fit this seed's site: the next one
            if isinstance(exc, BrowserCrashedError):
                raise
            continue
        counts[family] = counts.get(family, 0) + 1
        return k


def run(
    steps: int, n_envs: int, every: int, warmup: int = WARMUP_STEPS, max_steps: int = 20
) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="wf-soak-"))
    pairs = curriculum(tmp)
    rng = np.random.default_rng(0)
    envs, agents = [], []
    for i in range(n_envs):
        family, task = pairs[i % len(pairs)]
        env = gym.make(
            "WebTask-v0",
            family=family,
            task=task,
            obs_mode="tokens+pixels",
            screenshot_size=(64, 64),
            max_steps=max_steps,
        )
        envs.append(env)
        agents.append(RandomAgent(env, seed=i))
    next_pair = n_envs
    episodes = invalid = successes = failures = 0
    counts: dict[str, int] = {}
    for i, env in enumerate(envs):
        env.reset(seed=i)
    resets = n_envs
    t0 = time.perf_counter()
    samples = [sample(0, 0.0, resets)]
    print(_header(), flush=True)
    print(_row(samples[-1], 0.0), flush=True)
    last_t, last_steps = t0, 0
    for step in range(1, steps + 1):
        k = step % n_envs
        env = envs[k]
        explore = rng.random() < INVALID_SHARE
        action = env.action_space.sample() if explore else agents[k].act()
        _, _, terminated, truncated, info = env.step(action)
        invalid += info["action_error"] is not None
        if terminated or truncated:
            episodes += 1
            successes += bool(info.get("success"))
            failures += any(e["event_type"] == "browser" for e in info["record"]["error_events"])
            next_pair = reset_next(env, pairs, next_pair, counts)
            resets += 1
        if step % every == 0:
            gc.collect()
            now = time.perf_counter()
            samples.append(sample(step, now - t0, resets))
            print(_row(samples[-1], (step - last_steps) / (now - last_t)), flush=True)
            last_t, last_steps = now, step
    elapsed = time.perf_counter() - t0
    end = sample(steps, elapsed, resets)
    for env in envs:
        env.close()
    after_close = sample(steps, time.perf_counter() - t0, resets)
    return report(samples, end, after_close, elapsed, steps, episodes, invalid, successes,
                  failures, counts, warmup)  # fmt: skip


def _header() -> str:
    return (
        f"{'steps':>6} {'resets':>6} {'s':>7} {'steps/s':>7} {'py RSS':>8} {'chrome RSS':>10} "
        f"{'chrome PSS':>10} {'driver':>7} {'procs':>5} {'ctx':>4} {'pages':>5}"
    )


def _row(s: Sample, rate: float) -> str:
    return (
        f"{s.steps:>6} {s.resets:>6} {s.seconds:>7.1f} {rate:>7.1f} {s.python_rss_mb:>7.1f}M "
        f"{s.browser_rss_mb:>9.1f}M {s.browser_pss_mb:>9.1f}M {s.driver_rss_mb:>6.1f}M "
        f"{s.browser_processes:>5} {s.contexts:>4} {s.pages:>5}"
    )


def slope_per_1000_resets(samples: list[Sample], key: str) -> float:
    """Least-squares slope of `key` (MB) against resets, per 1,000 resets."""
    xs = [s.resets for s in samples]
    ys = [getattr(s, key) for s in samples]
    if len(xs) < 2 or max(xs) == min(xs):
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    den = sum((x - mx) ** 2 for x in xs)
    return 1000 * num / den


def report(
    samples: list[Sample],
    end: Sample,
    after_close: Sample,
    elapsed: float,
    steps: int,
    episodes: int,
    invalid: int,
    successes: int,
    failures: int,
    counts: dict[str, int],
    warmup: int = WARMUP_STEPS,
) -> dict[str, Any]:
    base = next((s for s in samples if s.steps >= warmup), samples[-1])
    after = [s for s in samples if s.steps >= base.steps]
    out: dict[str, Any] = {
        "steps": steps,
        "resets": end.resets,
        "seconds": round(elapsed, 1),
        "steps_per_s": round(steps / elapsed, 1),
        "episodes": episodes,
        "episodes_by_family": counts,
        "invalid_actions": invalid,
        "successes": successes,
        "browser_failures": failures,
        "load_average": os.getloadavg(),
        "warmup_step": base.steps,
        "target_growth": TARGET_GROWTH,
        "samples": [asdict(s) for s in samples],
        "after_close": asdict(after_close),
    }
    lines = [
        "",
        f"{steps} steps in {elapsed:.0f} s ({steps / elapsed:.1f} steps/s), {episodes} episodes"
        f" ({successes} successes), {end.resets} resets, {invalid} invalid actions,"
        f" {failures} browser failures; load average {os.getloadavg()[0]:.1f}",
    ]
    verdicts = []
    for key, label in (
        ("python_rss_mb", "python RSS"),
        ("browser_rss_mb", "chromium RSS"),
        ("browser_pss_mb", "chromium PSS"),
    ):
        values = [getattr(s, key) for s in samples]
        start, warm, last, peak = values[0], getattr(base, key), values[-1], max(values)
        growth = (last - warm) / warm if warm else 0.0
        slope = slope_per_1000_resets(after, key)
        out[key] = {
            "start": round(start, 1),
            "after_warmup": round(warm, 1),
            "end": round(last, 1),
            "peak": round(peak, 1),
            "growth_after_warmup_pct": round(100 * growth, 1),
            "slope_mb_per_1000_resets": round(slope, 2),
        }
        ok = growth <= TARGET_GROWTH
        verdicts.append(ok)
        lines.append(
            f"{label:>13}: start {start:7.1f} MB, step {base.steps} {warm:7.1f} MB, end"
            f" {last:7.1f} MB, peak {peak:7.1f} MB; growth since step {base.steps}:"
            f" {100 * growth:+.1f} % ({'within' if ok else 'OVER'} the"
            f" {100 * TARGET_GROWTH:.0f} % target); slope {slope:+.2f} MB per 1,000 resets"
        )
    lines.append(
        f"open contexts / pages: {end.contexts} / {end.pages} at the end"
        f" (one each per env), {after_close.contexts} / {after_close.pages} after close();"
        f" chromium processes: {end.browser_processes} at the end,"
        f" {after_close.browser_processes} after the last close()"
    )
    out["flat"] = all(verdicts)
    print("\n".join(lines), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--every", type=int, default=1000, help="sample every N steps")
    parser.add_argument(
        "--warmup", type=int, default=WARMUP_STEPS, help="growth is measured from this step"
    )
    parser.add_argument(
        "--max-steps", type=int, default=20, help="episode length: short, for many resets"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args(argv)
    result = run(args.steps, args.envs, args.every, args.warmup, args.max_steps)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
