"""What an agent saw in a few fixed episodes of every family: the step path's golden record.

    .venv/bin/python tests/golden/episodes.py     # rewrites tests/golden/episodes.json

Per family, the oracle's episode and a random agent's (every verb, valid or not); in the
shop also one on a page that re-renders under the agent, and one in `text` mode. Each step
is kept as the digest of its observation, its reward, its ending flags and the digest of
its `info`; each episode also as the digest of the trace's step lines.
`tests/test_step_equivalence.py` plays them again: a change to how a step reaches the
browser or builds what it returns must leave every one of these bytes as it was.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import webfactory_env  # noqa: F401  (registers WebTask-v0)
from webfactory_env.actions import VERBS
from webfactory_env.agents import OracleAgent
from webfactory_env.episode import observation_digest
from webfactory_env.trace import TraceRecorder

OUT = Path(__file__).resolve().parent / "episodes.json"
TASKS = {
    "shop": "buy_red_mug",
    "travel": "book_flight_roundtrip",
    "kanban": "kanban_move_and_comment",
    "account": "account_update_profile",
    "forum": "forum_reply_and_edit",
}
RANDOM_STEPS = 24
DONE = {"done_success", "done_fail"}


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _random_action(env: Any, rng: np.random.Generator) -> np.ndarray:
    """Mostly what the masks allow (never a done verb), now and then anything at all."""
    cfg = env.action_config
    if rng.random() < 0.15:
        verb = int(rng.integers(len(VERBS) - 2))
        return np.array([verb, rng.integers(cfg.max_elements), rng.integers(cfg.max_values)])
    masks = env.action_masks()
    parts = np.split(masks, np.cumsum([len(VERBS), cfg.max_elements]))
    verbs = [i for i in np.flatnonzero(parts[0]) if VERBS[i] not in DONE]
    elements, slots = np.flatnonzero(parts[1]), np.flatnonzero(parts[2])
    return np.array(
        [
            rng.choice(verbs) if verbs else 5,
            rng.choice(elements) if len(elements) else 0,
            rng.choice(slots) if len(slots) else 0,
        ]
    )


def play(family: str, agent: str, obs_mode: str = "tokens") -> dict[str, Any]:
    """One episode's record (see the module docstring)."""
    variation = {"drift": "on"} if agent == "random-drift" else None
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.jsonl"
        env = TraceRecorder(
            gym.make(
                "WebTask-v0",
                family=family,
                task=TASKS[family],
                obs_mode=obs_mode,
                max_steps=RANDOM_STEPS,
                variation=variation,
            ),
            trace,
            run_id=f"episodes/{family}/{agent}",
        )
        try:
            obs, info = env.reset(seed=3)
            steps = [[observation_digest(obs), 0.0, False, False, _digest(info)]]
            oracle, rng = OracleAgent(env), np.random.default_rng(11)
            oracle.reset()
            done = False
            while not done:
                if agent == "oracle":
                    action = oracle.act(obs, info)
                else:
                    action = _random_action(env.unwrapped, rng)
                obs, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
                row = [observation_digest(obs), reward, terminated, truncated, _digest(info)]
                steps.append(row)
        finally:
            env.close()
        lines = trace.read_bytes().splitlines()[1:]  # the header names package versions
    return {"steps": steps, "trace": hashlib.sha256(b"\n".join(lines)).hexdigest()[:16]}


def cases() -> list[tuple[str, str, str]]:
    """(family, agent, obs mode) of every recorded episode."""
    out = [(family, agent, "tokens") for family in TASKS for agent in ("oracle", "random")]
    return [*out, ("shop", "random-drift", "tokens"), ("shop", "random", "text")]


def main() -> int:
    record = {"/".join(case): play(*case) for case in cases()}
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
