"""verifiers (v1) plays the factory's episodes on the episode host: an OpenAI-compatible
stub on loopback answering with the oracle's actions scores 1 on every trace, one answering
gibberish scores 0 at the steps limit, four rollouts run at once, a broken browser is an
error (never a 0), and no browser context is left behind.

Runs in the verifiers venv (`./scripts/setup --verifiers`; `./scripts/test` runs it there);
the main venv, which has no verifiers, skips it.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="no verifiers here: ./scripts/setup --verifiers")

import verifiers.v1 as vf
from chat_server import Reply, ScriptedChatServer, ok

from webfactory_env.rl import oracle_run
from webfactory_env.rl.vf import (
    TASKSET_ID,
    WebEpisodeEnv,
    WebEpisodeEnvConfig,
    WebTask,
    WebTaskset,
    WebTasksetConfig,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# shop and account tasks whose oracle is short, on held-out seeds
SUITES = ["shop-tasks-test", "account-tasks-test"]
KEY_VAR = "WEBFACTORY_TEST_MODEL_KEY"


def tasks(episodes: int) -> list[WebTask]:
    return list(WebTaskset(WebTasksetConfig(id=TASKSET_ID, suites=SUITES, episodes=episodes)))


def run_rollouts(
    server: ScriptedChatServer, chosen: list[WebTask], serving: list[Any] | None = None, **env: Any
) -> list[vf.Episode]:
    """Every task's rollout at once, on one env that serves them all (appended to
    `serving` while it serves)."""
    config = WebEpisodeEnvConfig(call_timeout_s=180, **env)  # a loaded CI machine is slow
    ctx = vf.ModelContext(
        model="scripted", client=vf.EvalClientConfig(base_url=server.base_url, api_key_var=KEY_VAR)
    )

    async def play() -> list[vf.Episode]:
        made = vf.load_environment(config)
        assert isinstance(made, WebEpisodeEnv)
        async with made.serving():
            if serving is not None:
                serving.append(made)
            episodes = await asyncio.gather(
                *(made.run_slot(s, ctx) for t in chosen for s in made.slots(t))
            )
            assert made.host is not None
            stats = made.host.stats()
            assert stats.sessions == 0
            if serving is None:  # a killed browser's count is stale until it restarts
                assert stats.contexts == 0
        return list(episodes)

    # A thread of its own: this one runs Playwright's loop for the in-process oracle.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play()).result()


def test_loading_the_taskset_is_deterministic_and_starts_no_browser():
    first = tasks(3)
    assert [t.key for t in first] == [t.key for t in tasks(3)]
    assert len({t.key for t in first}) == 6 and all(t.data.system_prompt for t in first)
    assert {t.data.family for t in first} == {"shop", "account"}


def test_the_oracle_scores_one_on_every_trace_four_at_a_time(monkeypatch):
    monkeypatch.setenv(KEY_VAR, "not-a-secret")
    chosen = tasks(2)
    plans = {}
    for t in chosen:
        run = oracle_run(t.data.spec())
        plans[run.texts[0]] = run.actions

    def oracle(request: dict[str, Any]) -> Reply:
        users = [m["content"] for m in request["messages"] if m["role"] == "user"]
        actions = next(a for first, a in plans.items() if users[0].startswith(first))
        return ok(f"The next step.\n{actions[len(users) - 1]}")

    with ScriptedChatServer([], fallback=oracle) as server:
        episodes = run_rollouts(server, chosen)
    assert len(episodes) == 4
    for ep in episodes:
        (trace,) = ep.traces
        assert ep.ok and trace.ok, (ep.errors, trace.errors)
        assert trace.rewards["success"].value == 1.0
        assert trace.metrics["success"] == 1.0 and trace.metrics["reward/success"] == 1.0


def test_gibberish_scores_zero_at_the_steps_limit(monkeypatch):
    monkeypatch.setenv(KEY_VAR, "not-a-secret")
    with ScriptedChatServer([], fallback=lambda _: ok("I am not sure what to do here.")) as server:
        (episode,) = run_rollouts(server, tasks(1)[:1], max_steps=3)
    (trace,) = episode.traces
    assert episode.ok and trace.rewards["success"].value == 0.0
    assert trace.metrics["steps"] == 3 and trace.metrics["truncated"] == 1.0
    assert trace.num_turns == 3
    assert trace.info["outcome"] != "success"


def test_a_broken_browser_is_an_error_on_the_trace_never_a_zero(monkeypatch):
    monkeypatch.setenv(KEY_VAR, "not-a-secret")
    serving: list[WebEpisodeEnv] = []

    def kill_then_answer(request: dict[str, Any]) -> Reply:
        if sum(m["role"] == "user" for m in request["messages"]) == 2:
            assert serving[0].host is not None
            serving[0].host._browser.kill()  # Chromium dies mid-episode
        return ok("click(1)")

    with ScriptedChatServer([], fallback=kill_then_answer) as server:
        (episode,) = run_rollouts(server, tasks(1)[:1], serving)
    (trace,) = episode.traces
    assert not episode.ok and not trace.ok
    assert any("cannot be scored" in e.message for e in trace.errors + episode.errors)
    assert "success" not in trace.rewards or trace.rewards["success"] is None
