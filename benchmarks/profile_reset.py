"""Where a reset's Python goes: each step of `WebTaskEnv._start`, without the browser.

    .venv/bin/python benchmarks/profile_reset.py [--seeds N] [--family F ...] [--json]
    .venv/bin/python benchmarks/profile_reset.py --trees /work/main . [--rounds R]

For each family's bench task (`RESET_TASKS`) and N new level seeds, runs what a reset to a
new level runs in Python, in the env's order, and prints the median CPU milliseconds
(`time.process_time`, so a loaded machine moves it little) of each step:

- generate: `generate_site` on a level no cache holds, and the site's digest;
- compile: `compile_level` (the task compiler walks the oracle's plan through an app; the
  compile cache is off: what a level never met costs);
- new_app, mount: the app and the payload the runtime mounts (as JSON text, as sent);
- dom: the runtime's answer parsed into a `DomSnapshot`;
- episode: the episode's state view and reward simulator;
- encode: the observation (goal, menu, page tokens) and the reset's `info`.

`--profile tottime` (or `cumulative`) prints where the time went, by function.

The runtime's answer comes from a real browser once (`--capture`, stored next to the
tree in a cache file); the timed loop needs none. `--trees` runs this script in each tree
given (a checkout's root), alternating family by family, and prints the medians side by
side: before and after a change, in one run.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STEPS = ("generate", "compile", "new_app", "mount", "dom", "episode", "encode")
FIRST_SEED = 20_000
CACHE = Path(os.environ.get("WEBFACTORY_RESET_DOMS", "/tmp/webfactory_reset_doms.json"))


def capture(families: list[str], seeds: int) -> dict[str, str]:
    """The runtime's mount answer (JSON text) per `family:seed`, from a real browser."""
    import gymnasium as gym

    import webfactory_env  # noqa: F401  (registers the env)
    from webfactory_env.bench_throughput import RESET_TASKS
    from webfactory_env.executor import session

    found: dict[str, str] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    answers: list[Any] = []
    original = session.PageSession._js

    def recording(self: Any, fn: str, args: list[Any]) -> Any:
        out = original(self, fn, args)
        if fn == "mount":
            answers.append(out)
        return out

    session.PageSession._js = recording  # type: ignore[method-assign]
    try:
        for family in families:
            todo = [s for s in _seeds(seeds) if f"{family}:{s}" not in found]
            if not todo:
                continue
            env = gym.make("WebTask-v0", family=family, task=RESET_TASKS[family], obs_mode="tokens")
            try:
                for seed in todo:
                    answers.clear()
                    env.reset(seed=seed)
                    found[f"{family}:{seed}"] = json.dumps(answers[-1])
            finally:
                env.close()
    finally:
        session.PageSession._js = original  # type: ignore[method-assign]
    CACHE.write_text(json.dumps(found))
    return found


def _seeds(n: int) -> range:
    return range(FIRST_SEED, FIRST_SEED + n)


def measure(family: str, seeds: int, answers: dict[str, str]) -> dict[str, float]:
    """Median CPU ms of each step of a reset to a new level of `family`."""
    from webfactory_env.bench_throughput import RESET_TASKS
    from webfactory_env.core.dom import DomSnapshot
    from webfactory_env.env import WebTaskEnv
    from webfactory_env.episode import Episode, fresh
    from webfactory_env.executor.session import EPOCH_MS
    from webfactory_env.sitegen import generate_site

    library = importlib.import_module("webfactory_env.tasks.library")  # the package shadows it

    task_name = RESET_TASKS[family]
    env = WebTaskEnv(family=family, task=task_name, obs_mode="tokens")
    observe = env._observe.to_json()
    # Warm: the family's modules, vocabularies and per-process tables.
    for seed in (0, 1):
        site = generate_site(family, seed)
        library.compile_level(task_name, site)
        site.new_app().mount_payload("queue")
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    for seed in _seeds(seeds):
        library.forget_levels()
        dom_json = answers[f"{family}:{seed}"]
        clock = time.process_time

        t = clock()
        site = generate_site(family, seed)
        site.digest  # noqa: B018  (computed lazily; every reset's info reads it)
        t, times["generate"] = _lap(t, times["generate"])
        task = library.compile_level(task_name, site)
        t, times["compile"] = _lap(t, times["compile"])
        app = _episode_app(site)
        t, times["new_app"] = _lap(t, times["new_app"])
        json.dumps(json.dumps([app.mount_payload("queue"), EPOCH_MS, seed, observe]))
        t, times["mount"] = _lap(t, times["mount"])
        dom = DomSnapshot.from_json(json.loads(dom_json))
        t, times["dom"] = _lap(t, times["dom"])
        env.site, env.level_seed, env.app, env._dom, env.task = site, seed, app, dom, task
        env.action_config.check_value_slots(task_name, len(task.values))
        cfg = env.config
        env.episode = Episode(
            task, app, env.reward_spec, env.max_steps, env.action_config.mode, cfg.end_screenshot
        )
        t, times["episode"] = _lap(t, times["episode"])
        env._obs = env._encode(dom, None)
        fresh(env._obs), env._info(record=None)
        t, times["encode"] = _lap(t, times["encode"])
    out = {step: statistics.median(v) for step, v in times.items()}
    out["total"] = statistics.median([sum(v[i] for v in times.values()) for i in range(seeds)])
    return out


def _cached(families: list[str], seeds: int) -> dict[str, str]:
    """The browser's answers stored by an earlier `--capture`, all of them there."""
    found = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    missing = [f"{f}:{s}" for f in families for s in _seeds(seeds) if f"{f}:{s}" not in found]
    if missing:
        sys.exit(
            f"no browser answer for {missing[0]} ({len(missing)} missing) in {CACHE}: "
            f"run once with --capture --seeds {seeds}"
        )
    return found


def _episode_app(site: Any) -> Any:
    """The episode's app, as the env makes it (a tree from before shared start renders
    makes it the plain way)."""
    try:
        return site.new_app(shared_start=True)
    except TypeError:
        return site.new_app()


def _lap(t0: float, into: list[float]) -> tuple[float, list[float]]:
    now = time.process_time()
    into.append((now - t0) * 1000)
    return now, into


def run_trees(trees: list[str], families: list[str], seeds: int, rounds: int) -> None:
    """This script in each tree, family by family, alternating trees; medians side by side."""
    results: dict[str, dict[str, list[dict[str, float]]]] = {t: {} for t in trees}
    for _ in range(rounds):
        for family in families:
            for tree in trees:
                root = str(Path(tree).resolve())
                env = {**os.environ, "PYTHONPATH": root}
                argv = [sys.executable, __file__, "--json", "--seeds", str(seeds)]
                cmd = [*argv, "--family", family]
                out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
                if out.returncode:
                    sys.exit(f"{root}: {out.stderr.strip().splitlines()[-1]}")
                results[tree].setdefault(family, []).append(json.loads(out.stdout)[family])
    print(f"load average {os.getloadavg()[0]:.1f}; CPU ms per reset step, median of {seeds}")
    head = f"{'family':<8}{'step':<10}" + "".join(f"{Path(t).resolve().name:>12}" for t in trees)
    print(head)
    for family in families:
        for step in (*STEPS, "total"):
            cells = [statistics.median(r[step] for r in results[t][family]) for t in trees]
            print(f"{family:<8}{step:<10}" + "".join(f"{c:12.2f}" for c in cells))


def main() -> None:
    from webfactory_env.bench_throughput import RESET_TASKS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--family", action="append", choices=sorted(RESET_TASKS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--capture", action="store_true", help="ask a browser for the DOMs")
    parser.add_argument("--trees", nargs="+", help="checkouts to compare, side by side")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--profile", metavar="SORT", help="cProfile the runs; print the top")
    args = parser.parse_args()
    # First visits: a task compiled by an earlier run must not be loaded from the user's
    # compile cache (the trees' runs inherit this; trees older than the cache ignore it).
    os.environ["WEBFACTORY_COMPILE_CACHE"] = "off"
    families = args.family or list(RESET_TASKS)
    if args.trees:
        run_trees(args.trees, families, args.seeds, args.rounds)
        return
    answers = capture(families, args.seeds) if args.capture else _cached(families, args.seeds)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    results = {family: measure(family, args.seeds, answers) for family in families}
    if profiler is not None:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats(args.profile).print_stats(40)
    if args.json:
        print(json.dumps(results))
        return
    print(f"load average {os.getloadavg()[0]:.1f}; CPU ms per reset step, median of {args.seeds}")
    print(f"{'family':<8}" + "".join(f"{s:>9}" for s in (*STEPS, "total")))
    for family, row in results.items():
        print(f"{family:<8}" + "".join(f"{row[s]:9.2f}" for s in (*STEPS, "total")))


if __name__ == "__main__":
    main()
