"""The oracle's text actions for an episode, played in-process: the reference that hosted,
served and trained runs of the same episode are checked against."""

from __future__ import annotations

from dataclasses import dataclass

from webfactory_env.agents.oracle import OracleAgent
from webfactory_env.rl.episode import EpisodeSettings, EpisodeSpec, text_env


@dataclass(frozen=True)
class OracleRun:
    """What the oracle did: each text action, the observation text after reset and after
    each step, each step's shaped reward, and whether it succeeded."""

    actions: tuple[str, ...]
    texts: tuple[str, ...]
    rewards: tuple[float, ...]
    success: bool


def oracle_run(spec: EpisodeSpec, settings: EpisodeSettings | None = None) -> OracleRun:
    """Play `spec` with the oracle in a text-mode env made as a hosted episode makes its
    own (same budget, same steps), in this thread's browser."""
    env = text_env(spec, settings or EpisodeSettings())
    try:
        obs, info = env.reset(options=spec.options())
        oracle = OracleAgent(env)
        actions, texts, rewards = [], [str(obs)], []
        done = False
        while not done:
            action = str(oracle.act(obs, info))
            obs, reward, terminated, truncated, info = env.step(action)
            actions.append(action)
            texts.append(str(obs))
            rewards.append(float(reward))
            done = terminated or truncated
        return OracleRun(tuple(actions), tuple(texts), tuple(rewards), bool(info["success"]))
    finally:
        env.close()
