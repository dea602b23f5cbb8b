"""Step/reset medians of MiniWoB++ (`miniwob` 1.x, Selenium + chromedriver), headless.

    benchmarks/.venv-miniwob/bin/python benchmarks/peers/miniwob_bench.py [--repeats N]

Runs inside `benchmarks/.venv-miniwob` (made by `benchmarks/setup_peers`) against Debian's
`chromium` and `chromedriver`. Prints one JSON object on stdout:

    {"peer": "miniwob", "version": ..., "median_ms": {"step", "step_pixels", "reset",
     "reset_pixels"}, ...}

A step is one `CLICK_COORDS` on a blank point beside the task (a real click that changes
nothing), followed by miniwob's own observation: utterance + full DOM walk (`core.getDOMInfo`)
+ reward metadata and, with screenshots on, a PNG capture cropped and resized to the
160x210 task area. A reset is `core.endEpisode` + a new seed + `core.startEpisodeReal`, then
the same observation. The page is never reloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from typing import NoReturn

TASK = "click-button"
ENV_ID = f"miniwob/{TASK}-v1"
# a blank point right of MiniWoB's 160 px task column (page px), the same point the
# BrowserGym benchmark clicks
BLANK_POINT = (250.0, 100.0)
# miniwob ends an episode after 10 s of wall time; reset (untimed) well before that
STEPS_PER_EPISODE = 20
STEP_INCLUDES = (
    "CLICK_COORDS via W3C actions + utterance + core.getDOMInfo DOM walk + reward metadata"
    " (+ PNG screenshot, crop, resize to 160x210)"
)
RESET_INCLUDES = "endEpisode + seed + startEpisodeReal (no page load) + the same observation"


def fail(msg: str) -> NoReturn:
    print(f"miniwob_bench: {msg}", file=sys.stderr)
    sys.exit(2)


def resolve_binaries() -> tuple[str, str]:
    chrome = os.environ.get("MINIWOB_CHROME_BINARY") or shutil.which("chromium")
    driver = os.environ.get("MINIWOB_CHROMEDRIVER") or shutil.which("chromedriver")
    if not chrome or not os.access(chrome, os.X_OK):
        fail(
            "no Chromium binary (looked for $MINIWOB_CHROME_BINARY, then `chromium` on PATH); "
            "run benchmarks/setup_peers as root or `apt-get install chromium`"
        )
    if not driver or not os.access(driver, os.X_OK):
        fail(
            "no chromedriver (looked for $MINIWOB_CHROMEDRIVER, then `chromedriver` on PATH); "
            "run benchmarks/setup_peers as root or `apt-get install chromium-driver`"
        )
    return chrome, driver


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()

    try:
        import gymnasium as gym
        import miniwob
        import numpy as np
        import selenium
    except ImportError as exc:
        fail(
            f"{exc}; run this with benchmarks/.venv-miniwob/bin/python "
            "(create it with benchmarks/setup_peers)"
        )

    chrome, driver = resolve_binaries()
    # miniwob's SeleniumInstance reads these two together: with both set it passes the
    # driver path to Selenium's ChromeService and never looks for a managed browser
    os.environ["MINIWOB_CHROME_BINARY"] = chrome
    os.environ["MINIWOB_CHROMEDRIVER"] = driver

    gym.register_envs(miniwob)
    env = gym.make(ENV_ID, render_mode=None)  # None = headless
    base = env.unwrapped
    seeds = iter(range(10**9))
    click = base.create_action("CLICK_COORDS", coords=np.array(BLANK_POINT, dtype=np.float32))

    def reset(pixels: bool) -> None:
        env.reset(seed=next(seeds), options={"record_screenshots": pixels})

    def measure_steps(pixels: bool) -> float:
        reset(pixels)
        times: list[float] = []
        taken = ended = 0
        warmup = args.warmup
        while len(times) < args.repeats:
            if taken >= STEPS_PER_EPISODE:
                reset(pixels)
                taken = 0
            t0 = time.perf_counter()
            obs, _, terminated, _, _ = env.step(click)
            dt = (time.perf_counter() - t0) * 1000
            taken += 1
            if terminated:  # miniwob's 10 s episode timer fired: an empty, cheap step
                ended += 1
                if ended > args.repeats:
                    fail("episodes keep ending during the benchmark clicks")
                reset(pixels)
                taken = 0
                continue
            if pixels and not obs["screenshot"].any():
                fail("screenshots were requested but the observation is blank")
            if warmup:
                warmup -= 1
            else:
                times.append(dt)
        return statistics.median(times)

    def measure_resets(pixels: bool) -> float:
        for _ in range(args.warmup):
            reset(pixels)
        return statistics.median(timed(lambda: reset(pixels)) for _ in range(args.repeats))

    try:
        env.reset(seed=next(seeds))
        hit = base.instance.driver.execute_script(
            "return document.elementFromPoint(arguments[0], arguments[1])?.tagName ?? null;",
            *BLANK_POINT,
        )
        if hit in ("BUTTON", "INPUT", "TEXTAREA", "SELECT", "A"):
            fail(f"the benchmark click at {BLANK_POINT} lands on a <{hit}>")
        medians = {
            "step": measure_steps(False),
            "step_pixels": measure_steps(True),
            "reset": measure_resets(False),
            "reset_pixels": measure_resets(True),
        }
        browser_version = base.instance.driver.capabilities.get("browserVersion")
    finally:
        env.close()

    out = {
        "peer": "miniwob",
        "version": miniwob.__version__,
        "task": ENV_ID,
        "repeats": args.repeats,
        "median_ms": {k: round(v, 2) for k, v in medians.items()},
        "driver": f"selenium {selenium.__version__}, chromedriver {driver}",
        "browser": f"{chrome} {browser_version}",
        "step_includes": STEP_INCLUDES,
        "reset_includes": RESET_INCLUDES,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
