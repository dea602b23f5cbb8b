"""Regenerate the golden replay bundles: one small oracle episode per site family.

    .venv/bin/python tests/golden/regenerate.py

Run it after a deliberate change to generation, rendering or compilation (the golden tests
then fail with "site digest differs" or "task digest differs"), and commit the new files
(`digests.json` and the bundles) with that change. Each bundle is the oracle on level
seed 0 of the family's first
library task, tokens observations, no screenshots: a few tens of KB. Families without a
library task are skipped.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.agents import OracleAgent
from webfactory_env.replay import verify_bundle, write_bundle
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.registry import families
from webfactory_env.tasks import compile_for_site, library_tasks
from webfactory_env.trace import TraceRecorder

OUT = Path(__file__).resolve().parent / "bundles"
SEED = 0


def golden_families() -> list[str]:
    """Families that have a library task, hence a golden bundle."""
    return sorted(f for f in families() if library_tasks(f))


def regenerate(family: str, out: Path) -> Path:
    task = library_tasks(family)[0].name
    target = out / f"{family}.tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        env = TraceRecorder(
            gym.make("WebTask-v0", family=family, task=task, obs_mode="tokens"),
            trace,
            run_id=f"golden/{family}/{task}/{SEED}",
        )
        try:
            obs, info = env.reset(seed=SEED)
            oracle = OracleAgent(env)
            oracle.reset()
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
                done = terminated or truncated
            if not info["success"]:
                raise SystemExit(f"the oracle failed {task} on {family} seed {SEED}")
            staged = Path(tmp) / target.name
            write_bundle(staged, env, trace)
        finally:
            env.close()
        verdict = verify_bundle(staged)
        if not verdict.ok:
            raise SystemExit(f"{family}: the fresh bundle does not verify: {verdict.message}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(staged.read_bytes())
    return target


DIGESTS = Path(__file__).resolve().parent / "digests.json"
DIGEST_SEEDS = ((0, "easy"), (42, "easy"), (7, "hard"))


def golden_digests() -> dict[str, Any]:
    """Site digests of a few seeds per family, and each family's first task digest."""
    sites = {
        f"{family}/{seed}/{difficulty}": generate_site(family, seed, difficulty).digest
        for family in sorted(families())
        for seed, difficulty in DIGEST_SEEDS
    }
    tasks = {
        f"{family}/{t.name}/0": compile_for_site(t.name, generate_site(family, 0)).digest
        for family in golden_families()
        for t in library_tasks(family)[:1]
    }
    return {"sites": sites, "tasks": tasks}


def main() -> int:
    DIGESTS.write_text(json.dumps(golden_digests(), indent=2, sort_keys=True) + "\n")
    print(f"wrote {DIGESTS}")
    for family in golden_families():
        print(f"wrote {regenerate(family, OUT)}")
    for family in sorted(set(families()) - set(golden_families())):
        print(f"skipped {family}: it has no library task yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
