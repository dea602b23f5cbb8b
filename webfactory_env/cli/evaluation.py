"""Commands about evaluation: suites, evaluating an agent, recording datasets, speed benchmarks."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

from webfactory_env.cli.common import (
    Command,
    command_group,
    difficulty_arg,
    instruction_style_arg,
    llm_args,
    llm_options,
    usage,
    write_or_print,
)
from webfactory_env.core.errors import UnknownNameError


def add_suites(command: Command) -> None:
    """Declare `webfactory suites list`."""
    ssub = command_group(command, "suites", "evaluation and dataset suites")
    c = ssub.add_parser("list", help="list suites")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_suites_list)


def add_bench(command: Command) -> None:
    """Declare `webfactory bench`."""
    c = command(
        "bench",
        "speed benchmarks: medians next to the browser floor, CPU per reset of each family,"
        " and what trainers run (steps/s and CPU per step of each process)",
    )
    c.add_argument("--json", action="store_true", help="print JSON with the medians in ms")
    c.add_argument(
        "--quick",
        action="store_true",
        help="every table in a few minutes, with fewer repeats, steps and resets",
    )
    c.add_argument("--repeats", type=int, help="timed runs per median (default 50; quick 7)")
    c.add_argument(
        "--envs",
        default="1,2,4",
        help="vector env sizes for the trainer table, comma-separated (0: skip the table)",
    )
    c.set_defaults(func=cmd_bench)


def add_dataset(command: Command) -> None:
    """Declare `webfactory dataset`."""
    c = command("dataset", "record episodes of a suite as replay bundles plus arrays")
    c.add_argument("--suite", required=True)
    c.add_argument("--agent", choices=["oracle", "random"], default="oracle")
    c.add_argument("--episodes", type=int, required=True)
    c.add_argument("--out", required=True, help="a new (or empty) directory")
    c.add_argument("--max-steps", type=int, default=64)
    c.add_argument("--obs-mode", default="tokens", help="tokens, pixels or tokens+pixels")
    c.add_argument("--screenshots", action="store_true", help="store a PNG per step")
    c.set_defaults(func=cmd_dataset)


def add_eval(command: Command) -> None:
    """Declare `webfactory eval`."""
    c = command("eval", "evaluate an agent on a suite: metrics file, Markdown summary, plot")
    c.add_argument(
        "--agent",
        help="random, oracle, sb3:PATH (an SB3/MaskablePPO .zip), or openai:MODEL (a model"
        " behind any OpenAI-compatible chat endpoint: vLLM, llama.cpp, Ollama, ...)",
    )
    c.add_argument("--suite", help="a suite name (see `webfactory suites list`)")
    c.add_argument(
        "--task",
        help="instead of --suite: one task on held-out level seeds 100000, 100001, ...",
    )
    c.add_argument("--family", help="with --task: its site family (default: the task's own)")
    c.add_argument("--episodes", type=int, help="run the suite's first N episodes")
    c.add_argument(
        "--out", help="the results file (e.g. results.json); results.md/.png go next to it"
    )
    c.add_argument(
        "--max-steps",
        type=int,
        help="step budget per episode (default: the model's own, else 64)",
    )
    c.add_argument(
        "--obs-mode", help="tokens, pixels or tokens+pixels (default: the model's, else tokens)"
    )
    c.add_argument(
        "--robustness",
        metavar="AXES",
        help="also run each episode on a plain site and once per axis perturbed"
        " (comma-separated AXIS or AXIS=VALUE, or all) for paired robustness indices",
    )
    c.add_argument(
        "--schema",
        action="store_true",
        help="print the JSON Schema of the results file (with --out, write it there)",
    )
    c.add_argument("--trace", help="also record the agent's episodes to this JSONL trace")
    difficulty_arg(c, None, "play the suite's episodes at this difficulty instead of its own")
    instruction_style_arg(c)
    llm_args(c)
    c.set_defaults(func=cmd_eval)


def cmd_bench(args: argparse.Namespace) -> int:
    from webfactory_env import bench

    repeats, steps, resets = bench.SIZES["quick" if args.quick else "full"]
    repeats = repeats if args.repeats is None else args.repeats
    if repeats < 1:
        raise usage("--repeats must be at least 1")
    envs = bench.parse_envs(args.envs)
    load = os.getloadavg()
    print(
        f"webfactory bench: load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        f" on {os.cpu_count()} CPUs",
        file=sys.stderr,
        flush=True,
    )
    result = bench.run(repeats, envs, trainer_steps=steps, resets=resets)
    print(json.dumps(result, indent=2) if args.json else bench.table(result))
    return 0


def cmd_suites_list(args: argparse.Namespace) -> int:
    from webfactory_env.suites import suites

    found = list(suites().values())
    if args.json:
        print(json.dumps([s.to_json() for s in found]))
        return 0
    width = max((len(s.name) for s in found), default=4)
    for s in found:
        size = f"{s.size:>7} episodes"
        print(f"{s.name:<{width}}  v{s.version}  {s.split:<5}  {size}  {s.description}")
    return 0


def _task_suite(task: str, family: str | None, episodes: int | None) -> Any:
    """A one-task suite on held-out level seeds (100000 on), for `eval --task`."""
    from webfactory_env.suites import Suite
    from webfactory_env.tasks import library_tasks

    if family is None:
        known = {t.name: t.family for t in library_tasks()}
        if task not in known:
            raise UnknownNameError("task", task, sorted(known))
        family = known[task]
    return Suite(
        name=f"{task}-held-out",
        description=f"{task} on held-out level seeds",
        family=family,
        tasks=(task,),
        seed_start=100_000,
        seed_count=max(int(episodes or 1), 1),
        split="test",
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from webfactory_env.evaluation import (
        episode_obs_mode,
        evaluate,
        parse_agent,
        parse_perturbations,
        results_paths,
        schema_text,
        summary_lines,
        write_results,
    )
    from webfactory_env.progress import ProgressBar
    from webfactory_env.suites import get_suite

    if args.schema:
        write_or_print(schema_text(), args.out)
        return 0
    if args.task and args.suite:
        raise usage("give --suite or --task, not both")
    if args.family and not args.task:
        raise usage("--family goes with --task (a suite names its own families)")
    wanted = ("agent", "episodes", "out") if args.task else ("agent", "suite", "episodes", "out")
    missing = [f"--{k}" for k in wanted if getattr(args, k) is None]
    if missing:
        raise usage(f"webfactory eval needs {', '.join(missing)} (see webfactory eval --help)")
    # Every mistake is reported before the first (slow) episode.
    suite = (
        _task_suite(args.task, args.family, args.episodes) if args.task else get_suite(args.suite)
    )
    if args.difficulty is not None:
        suite = dataclasses.replace(suite, difficulty=args.difficulty)
    if args.episodes < 1:
        raise usage("--episodes must be at least 1")
    list(suite.episode_specs(args.episodes))  # more than the suite holds: says so
    perturbations = parse_perturbations(args.robustness)
    results_paths(args.out)
    agent = parse_agent(args.agent, llm_options(args))
    episode_obs_mode(agent, args.obs_mode)
    bar = ProgressBar(args.episodes, label=f"eval {suite.name}", unit="episodes")
    with bar:
        results = evaluate(
            suite,
            agent,
            args.episodes,
            max_steps=args.max_steps,
            obs_mode=args.obs_mode,
            perturbations=perturbations,
            on_episode=lambda done, total, row: bar.update(done, ok=row.success),
            trace=args.trace,
            instruction_style=args.instruction_style,
        )
    written = write_results(results, args.out)
    for line in summary_lines(results):
        print(line)
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    from webfactory_env.progress import ProgressBar
    from webfactory_env.replay import read_skipped, write_dataset
    from webfactory_env.replay.dataset import SKIPPED
    from webfactory_env.suites import get_suite

    suite = get_suite(args.suite)
    bar = ProgressBar(args.episodes, label=f"dataset {suite.name}", unit="episodes")
    with bar:
        rows = write_dataset(
            suite,
            args.agent,
            args.episodes,
            args.out,
            obs_mode=args.obs_mode,
            max_steps=args.max_steps,
            screenshots=args.screenshots,
            on_episode=lambda done, total, row: bar.update(done, ok=row["success"]),
        )
    wins = sum(r["success"] for r in rows)
    print(f"wrote {len(rows)} episodes ({wins} successful) to {args.out}")
    skipped = read_skipped(args.out)
    if skipped:
        first = skipped[0]
        print(
            f"skipped {len(skipped)} episode{'s' if len(skipped) != 1 else ''} whose task"
            " cannot be compiled on its level"
            f" (listed in {Path(args.out) / SKIPPED}; first: {first['task']} on level seed"
            f" {first['seed']}: {first['reason']})"
        )
    return 0
