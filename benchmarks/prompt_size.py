"""How much a language model reads per step: the system prompt and the text observations.

    .venv/bin/python benchmarks/prompt_size.py [--seeds 0-2] [--family F] [--difficulty D]
        [--max-chars 8000] [--json]

The oracle plays every library task of each family in text mode (`obs_mode="text"`,
`action_mode="text"`) and every observation it is shown is measured. Tokens are counted
with tiktoken's `cl100k_base` when it is installed with its data (no download is tried),
else estimated as characters / 4 (rounded up); the output says which, so two runs compare
only under the same measure. Per family: observations, median, 90th percentile and largest,
in tokens; the README quotes the system prompt and the medians.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Callable
from typing import Any

from oracle_solve_rate import parse_seeds  # the same --seeds syntax


def token_counter() -> tuple[str, Callable[[str], int]]:
    """(name of the measure, count) — tiktoken if it loads offline, else characters / 4."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base")
        return "tiktoken cl100k_base", lambda s: len(enc.encode(s))
    except Exception:  # not installed, or its data cannot be had without a download
        return "characters/4", lambda s: math.ceil(len(s) / 4)


def observations(family: str, task: str, seed: int, difficulty: str, max_chars: int) -> list[str]:
    """Every text observation the oracle is shown on one episode."""
    import gymnasium as gym

    from webfactory_env.agents import OracleAgent

    env = gym.make(
        "WebTask-v0",
        family=family,
        task=task,
        difficulty=difficulty,
        obs_mode="text",
        action_mode="text",
        max_chars=max_chars,
    )
    try:
        obs, info = env.reset(seed=seed)
        oracle = OracleAgent(env)
        oracle.reset()
        seen = [obs]
        while True:
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            if terminated or truncated:
                return seen
            seen.append(obs)
    finally:
        env.close()


def measure(
    seeds: list[int], families: list[str], difficulty: str, max_chars: int
) -> dict[str, Any]:
    from webfactory_env.llm import system_prompt
    from webfactory_env.tasks import library_tasks

    measure_name, count = token_counter()
    rows = {}
    for family in families:
        sizes = []
        for task in library_tasks(family):
            for seed in seeds:
                sizes += [
                    count(o) for o in observations(family, task.name, seed, difficulty, max_chars)
                ]
        sizes.sort()
        rows[family] = {
            "observations": len(sizes),
            "median": statistics.median(sizes),
            "p90": sizes[min(int(0.9 * len(sizes)), len(sizes) - 1)],
            "max": sizes[-1],
        }
    return {
        "measure": measure_name,
        "system_prompt": count(system_prompt()),
        "seeds": seeds,
        "difficulty": difficulty,
        "max_chars": max_chars,
        "families": rows,
    }


def main(argv: list[str] | None = None) -> int:
    from webfactory_env.tasks import library_tasks

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-2")
    p.add_argument("--family", action="append", help="repeatable (default: every family)")
    p.add_argument("--difficulty", default="easy")
    p.add_argument("--max-chars", type=int, default=8000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    result = measure(
        parse_seeds(args.seeds),
        args.family or sorted({t.family for t in library_tasks()}),
        args.difficulty,
        args.max_chars,
    )
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"tokens measured as {result['measure']}; system prompt: {result['system_prompt']}")
    print(f"{'family':<8} {'obs':>5} {'median':>7} {'p90':>6} {'max':>6}")
    for family, row in result["families"].items():
        sizes = f"{row['median']:>7} {row['p90']:>6} {row['max']:>6}"
        print(f"{family:<8} {row['observations']:>5} {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
