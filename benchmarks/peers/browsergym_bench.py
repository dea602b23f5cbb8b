"""Step/reset medians of BrowserGym's MiniWoB++ port (`browsergym-miniwob`, Playwright), headless.

    benchmarks/.venv-browsergym/bin/python benchmarks/peers/browsergym_bench.py [--repeats N]

Runs inside `benchmarks/.venv-browsergym` (made by `benchmarks/setup_peers`). Playwright cannot
download its own browser here, so every Chromium that BrowserGym launches (the task browser
and the separate chat browser) is pointed at Debian's `/usr/bin/chromium`. MINIWOB_URL is the
`file://` URL of the HTML shipped inside the `miniwob` package. Prints one JSON object:

    {"peer": "browsergym", "version": ..., "median_ms": {"step", "step_pixels", "reset",
     "reset_pixels"}, "median_ms_defaults": {...}, ...}

BrowserGym has no observation switch: every step and reset returns a screenshot (PNG over CDP,
at 1.5x zoom) *and* the DOM snapshot, the merged accessibility tree and per-element properties,
so `step` == `step_pixels` and `reset` == `reset_pixels`. A reset closes and relaunches both
browsers. Two configurations are measured:

* `median_ms` ("fast"): `slow_mo=0`, `pre_observation_delay=0` — BrowserGym at its quickest.
* `median_ms_defaults`: as shipped for MiniWoB (`slow_mo=100` ms per Playwright call, a fixed
  0.5 s sleep before each observation).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import NoReturn

TASK = "click-button"
ENV_ID = f"browsergym/miniwob.{TASK}"
# a blank point right of MiniWoB's 160 px task column (page px); BrowserGym's coordinate
# actions are in screenshot px, which it scales by the task's zoom factor (1.5 for MiniWoB)
BLANK_POINT = (250.0, 100.0)
ZOOM = 1.5
# BrowserGym's own step timestamps (`info`), reported as a per-phase breakdown
PHASES = {
    "action": ("action_exec_start", "action_exec_stop"),
    "settle": ("wait_for_page_loading_start", "wait_for_page_loading_stop"),
    "validate": ("validation_start", "validation_stop"),
    "observe": ("get_observation_start", "get_observation_stop"),
}
CONFIGS = {
    "fast": {"slow_mo": 0, "pre_observation_delay": 0.0},
    "defaults": {},
}


def fail(msg: str) -> NoReturn:
    print(f"browsergym_bench: {msg}", file=sys.stderr)
    sys.exit(2)


def resolve_chromium() -> str:
    chrome = (
        os.environ.get("BROWSERGYM_CHROMIUM")
        or os.environ.get("WEBFACTORY_CHROMIUM")
        or shutil.which("chromium")
    )
    if not chrome or not os.access(chrome, os.X_OK):
        fail(
            "no Chromium binary (looked for $BROWSERGYM_CHROMIUM, $WEBFACTORY_CHROMIUM, then "
            "`chromium` on PATH); run benchmarks/setup_peers as root or "
            "`apt-get install chromium`"
        )
    return chrome


def miniwob_html_url() -> str:
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        fail(
            "the `miniwob` package (which ships the task HTML) is not installed in this venv; "
            "re-run benchmarks/setup_peers"
        )
    html = Path(next(iter(spec.submodule_search_locations))) / "html" / "miniwob"
    if not (html / f"{TASK}.html").is_file():
        fail(f"{html / (TASK + '.html')} is missing from the miniwob package")
    return html.as_uri() + "/"


def use_system_chromium(chrome: str) -> None:
    """Make every Playwright `chromium.launch()` in this process default to `chrome`.

    BrowserGym forwards `pw_chromium_kwargs` to the task browser's launch, but its chat window
    launches a second browser with no such hook, so patch the method on the class.
    """
    from playwright.sync_api import BrowserType

    original = BrowserType.launch

    def launch(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("executable_path", chrome)
        return original(self, *args, **kwargs)

    BrowserType.launch = launch  # type: ignore[method-assign]


def _rounded(d: dict) -> dict:
    return {k: _rounded(v) if isinstance(v, dict) else round(v, 2) for k, v in d.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=50, help="timed steps per configuration")
    ap.add_argument(
        "--reset-repeats",
        type=int,
        default=None,
        help="timed resets per configuration (default: min(repeats, 10); each relaunches "
        "two browsers)",
    )
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--config", choices=[*CONFIGS, "both"], default="both")
    args = ap.parse_args()
    reset_repeats = args.reset_repeats or min(args.repeats, 10)

    try:
        import browsergym.core
        import browsergym.miniwob
        import gymnasium as gym
        from browsergym.core.action.highlevel import HighLevelActionSet
    except ImportError as exc:
        fail(
            f"{exc}; run this with benchmarks/.venv-browsergym/bin/python "
            "(create it with benchmarks/setup_peers)"
        )

    chrome = resolve_chromium()
    os.environ.setdefault("MINIWOB_URL", miniwob_html_url())
    use_system_chromium(chrome)
    # BrowserGym warns each time an env kwarg overrides the task's slow_mo
    logging.getLogger("browsergym").setLevel(logging.ERROR)

    gym.register_envs(browsergym.miniwob)
    x, y = BLANK_POINT
    action = f"mouse_click({x * ZOOM}, {y * ZOOM})"
    seeds = iter(range(10**9))

    def measure(config: dict) -> tuple[dict, str]:
        env = gym.make(
            ENV_ID,
            headless=True,
            pw_chromium_kwargs={"executable_path": chrome},
            action_mapping=HighLevelActionSet(subsets=["coord"]).to_python_code,
            **config,
        )
        try:
            env.reset(seed=next(seeds))
            base = env.unwrapped
            hit = base.page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.tagName ?? null", [x, y]
            )
            if hit not in ("BODY", "HTML", "DIV", None):
                fail(f"the benchmark click at {BLANK_POINT} lands on a <{hit}>")
            steps: list[float] = []
            phases: dict[str, list[float]] = {name: [] for name in PHASES}
            for i in range(args.warmup + args.repeats):
                t0 = time.perf_counter()
                obs, _, terminated, _, info = env.step(action)
                dt = (time.perf_counter() - t0) * 1000
                if obs["last_action_error"]:
                    fail(f"step failed: {obs['last_action_error']}")
                if terminated:
                    fail("the benchmark click ended the episode")
                if i >= args.warmup:
                    steps.append(dt)
                    for name, (start, stop) in PHASES.items():
                        phases[name].append((info[stop] - info[start]) * 1000)
            if not obs["screenshot"].any() or not obs["axtree_object"]:
                fail("BrowserGym returned an empty screenshot or accessibility tree")
            resets: list[float] = []
            for i in range(1 + reset_repeats):  # one warm-up reset
                t0 = time.perf_counter()
                env.reset(seed=next(seeds))
                if i:
                    resets.append((time.perf_counter() - t0) * 1000)
            version = base.browser.version
        finally:
            env.close()
        step, reset = statistics.median(steps), statistics.median(resets)
        medians = {"step": step, "step_pixels": step, "reset": reset, "reset_pixels": reset}
        medians["breakdown"] = {name: statistics.median(v) for name, v in phases.items()}
        return _rounded(medians), version

    chosen = list(CONFIGS) if args.config == "both" else [args.config]
    results = {}
    browser_version = ""
    try:
        for name in chosen:
            results[name], browser_version = measure(CONFIGS[name])
    finally:
        browsergym.core._get_global_playwright().stop()

    breakdowns = {name: r.pop("breakdown") for name, r in results.items()}
    out = {
        "peer": "browsergym",
        "version": browsergym.core.__version__,
        "task": ENV_ID,
        "repeats": args.repeats,
        "reset_repeats": reset_repeats,
        "median_ms": results.get("fast", results.get("defaults")),
        "config": "fast" if "fast" in results else "defaults",
        "driver": f"playwright {importlib.metadata.version('playwright')}",
        "browser": f"{chrome} {browser_version}",
        "pixels_always_on": True,
        "step_breakdown_ms": breakdowns,
        "step_includes": "mouse_click via Playwright + DOM snapshot + merged AXTree + element "
        "properties + PNG screenshot at 1.5x (no observation switch)",
        "reset_includes": "close + relaunch task and chat browsers, new context/page, goto, "
        "task setup, same observation",
        "configs": {
            name: ", ".join(f"{k}={v}" for k, v in CONFIGS[name].items())
            or "as shipped (slow_mo=100 ms per Playwright call, pre_observation_delay=0.5 s)"
            for name in results
        },
    }
    if "defaults" in results:
        out["median_ms_defaults"] = results["defaults"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
