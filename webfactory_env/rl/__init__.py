"""Reinforcement learning for language-model agents: the episode host (many concurrent
text episodes on one Chromium, outcomes frozen at the first ending, unscorable rollouts
never scored 0) and adapters for the stacks that train on it: an OpenEnv server
(`rl.openenv`, extra `[openenv]`), TRL's `environment_factory` (`rl.trl`, extra `[trl]`)
and a verifiers taskset (`rl.vf`, extra `[verifiers]`). This package imports none of
them; each adapter module imports its own.

Public API (stable: adapters build on exactly this):

    host = EpisodeHost(HostConfig(max_sessions=16, idle_timeout_s=600, call_timeout_s=60,
                                  episode=EpisodeSettings(max_steps=30, max_chars=6000,
                                                          reward_mode="success")))
    host = shared_host(config)          # the process's default host (made on first use)

    sid = host.open()                   # HostCapacityError when max_sessions are open
    spec = EpisodeSpec(family, task, difficulty="easy", level_seed=0, variation=None)
    spec = EpisodeSpec.from_suite(suite_episode)      # a `webfactory_env.suites` episode
    reply = host.reset(sid, spec, op_id=None, timeout_s=None)
    reply = host.step(sid, "click(3)", op_id=None, timeout_s=None)
    reply = await host.areset(sid, spec) / await host.astep(sid, action)   # same, async
    host.outcome(sid) -> EpisodeOutcome | None      # frozen at the first ending
    host.close_session(sid) / await host.aclose_session(sid)
    with host.session_sync() as sid: ...  /  async with host.session() as sid: ...
    host.stats() -> HostStats(sessions, contexts, resets, steps, replayed, reaped,
                              timeouts, closed)
    host.reap_idle() -> int;  host.session_ids() -> list[str];  host.close()

- `StepReply`: text, goal, url, step, max_steps, reward (this step's, in the reward mode;
  None when unscorable), done, action_error, success, scorable, episode_return, subgoals,
  outcome (set once ended), metrics (`reward/<component>`: summed reward components).
- `EpisodeOutcome`: success, scorable, reward (1/0 in `success` mode, the shaped sum in
  `return` mode, None when unscorable), episode_return, components, steps, outcome
  (success, soft_fail, hard_fail or unscorable), reason, truncated.
- After the first ending a step does nothing: `text == ENDED`, reward 0 (None when
  unscorable), `done`, the frozen outcome.
- Errors: `ConfigError` (a user mistake: unknown family or task; the session stays
  usable), `HostCapacityError`, `HostTimeoutError` (`.withdrawn`: a queued call taken
  back, nothing done; else a running one that left the episode unscorable),
  `UnknownSessionError` (closed or reaped), all `HostError` but the first.
- `oracle_run(spec, settings) -> OracleRun(actions, texts, rewards, success)`: the
  in-process reference a hosted, served or trained run is compared with.
"""

from webfactory_env.rl.episode import (
    ENDED,
    REWARD_MODES,
    EpisodeOutcome,
    EpisodeSettings,
    EpisodeSpec,
    HostedEpisode,
    StepReply,
)
from webfactory_env.rl.host import (
    EpisodeHost,
    HostCapacityError,
    HostConfig,
    HostError,
    HostStats,
    HostTimeoutError,
    UnknownSessionError,
    shared_host,
)
from webfactory_env.rl.oracle import OracleRun, oracle_run

__all__ = [
    "ENDED",
    "REWARD_MODES",
    "EpisodeHost",
    "EpisodeOutcome",
    "EpisodeSettings",
    "EpisodeSpec",
    "HostCapacityError",
    "HostConfig",
    "HostError",
    "HostStats",
    "HostTimeoutError",
    "HostedEpisode",
    "OracleRun",
    "StepReply",
    "UnknownSessionError",
    "oracle_run",
    "shared_host",
]
