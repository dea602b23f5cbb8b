"""The OpenEnv server: the oracle's actions replayed over the WebSocket score as they do
in-process, sessions are capped and never leak, a step after the end is neutral, and the
server passes `openenv validate`. Runs in the openenv venv (`scripts/setup --openenv`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("openenv", reason="needs the [openenv] extra: ./scripts/setup --openenv")

import uvicorn
from fastapi.testclient import TestClient
from openenv.core.generic_client import GenericEnvClient
from websockets.sync.client import connect

from webfactory_env.rl import ENDED, EpisodeSettings, EpisodeSpec, oracle_run
from webfactory_env.rl.openenv import (
    ServeConfig,
    WebTaskAction,
    WebTaskClient,
    make_app,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = EpisodeSettings(reward_mode="return")  # per-step rewards compare with the oracle's
SPECS = [EpisodeSpec("shop", "buy_red_mug", level_seed=seed) for seed in range(4)]


class Server:
    """`make_app(config)` on a loopback port, in a thread, for one test module."""

    def __init__(self, config: ServeConfig) -> None:
        self.app = make_app(config)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(cfg)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> Server:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(20)

    def stats(self):
        host = self.app.state.host.host
        assert host is not None, "no reset has made the host yet"
        return host.stats()

    def wait_until_empty(self, within_s: float) -> tuple[int, int]:
        deadline = time.monotonic() + within_s
        while True:
            stats = self.stats()
            if (stats.sessions, stats.contexts) == (0, 0) or time.monotonic() > deadline:
                return stats.sessions, stats.contexts
            time.sleep(0.05)


@pytest.fixture(scope="module")
def server():
    with Server(ServeConfig(max_sessions=4, episode=SETTINGS)) as made:
        yield made


@pytest.fixture(scope="module")
def oracles():
    return [oracle_run(spec, SETTINGS) for spec in SPECS]


def run_async(main):
    """`asyncio.run(main())` on a thread of its own (this one runs the oracle's Playwright)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


def reset_args(spec: EpisodeSpec) -> dict:
    return {"family": spec.family, "task": spec.task, "level_seed": spec.level_seed}


def test_the_oracle_replayed_over_the_websocket_scores_as_in_process(server, oracles):
    for spec, oracle in zip(SPECS, oracles, strict=True):
        with WebTaskClient(base_url=server.url).sync() as env:
            first = env.reset(**reset_args(spec))
            texts, rewards = [first.observation.text], []
            for action in oracle.actions:
                result = env.step(WebTaskAction(action=action))
                texts.append(result.observation.text)
                rewards.append(result.reward)
            assert texts == list(oracle.texts)
            assert rewards == pytest.approx(oracle.rewards)
            assert result.done and result.observation.success == oracle.success
            assert result.observation.outcome == "success" and result.observation.scorable
            state = env.state()
            assert (state.level_seed, state.step_count, state.reward) == (
                spec.level_seed,
                len(oracle.actions),
                pytest.approx(sum(oracle.rewards)),
            )
    assert server.wait_until_empty(2.0) == (0, 0)


def test_a_step_after_the_end_is_neutral(server, oracles):
    # OpenEnv's generic client, with plain dictionaries, as a user without our package has.
    with GenericEnvClient(base_url=server.url).sync() as env:
        env.reset(**reset_args(SPECS[0]))
        for action in oracles[0].actions:
            last = env.step({"action": action})
        after = env.step({"action": "click(1)"})
        assert after.done and after.reward == 0.0
        assert after.observation["text"] == ENDED
        assert after.observation["step"] == last.observation["step"]
        assert after.observation["outcome"] == "success"


def test_four_clients_play_at_once_and_a_fifth_is_turned_away(server, oracles):
    oracle = oracles[3]

    async def main() -> tuple[list[bool], str]:
        clients = [WebTaskClient(base_url=server.url) for _ in range(4)]
        for client in clients:
            await client.reset(**reset_args(SPECS[3]))
        fifth = WebTaskClient(base_url=server.url)
        with pytest.raises(RuntimeError) as refused:
            await fifth.reset(**reset_args(SPECS[3]))
        await fifth.close()

        async def play(client: WebTaskClient) -> bool:
            for action in oracle.actions:
                result = await client.step(WebTaskAction(action=action))
            await client.close()
            return result.observation.success and result.reward is not None

        return list(await asyncio.gather(*(play(c) for c in clients))), str(refused.value)

    successes, refusal = run_async(main)
    assert successes == [True] * 4
    assert "CAPACITY_REACHED" in refusal
    assert server.wait_until_empty(2.0) == (0, 0)


def test_a_dropped_socket_leaves_no_session_and_no_context(server, oracles):
    ws_url = server.url.replace("http://", "ws://") + "/ws"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"type": "reset", "data": reset_args(SPECS[1])}))
        assert json.loads(ws.recv())["type"] == "observation"
        ws.send(json.dumps({"type": "step", "data": {"action": oracles[1].actions[0]}}))
        assert json.loads(ws.recv())["data"]["observation"]["step"] == 1
        assert server.stats().contexts == 1
        ws.socket.shutdown(socket.SHUT_RDWR)  # the trainer died: no close frame
        ws.socket.close()
        assert server.wait_until_empty(2.0) == (0, 0)


def test_a_retried_step_with_the_same_op_id_acts_once(server, oracles):
    with WebTaskClient(base_url=server.url).sync() as env:
        env.reset(**reset_args(SPECS[2]))
        first = env.step(WebTaskAction(action=oracles[2].actions[0], op_id="turn-1"))
        again = env.step(WebTaskAction(action=oracles[2].actions[0], op_id="turn-1"))
        assert again.observation == first.observation and again.observation.step == 1
        nxt = env.step(WebTaskAction(action=oracles[2].actions[1], op_id="turn-2"))
        assert nxt.observation.step == 2 and nxt.observation.text == oracles[2].texts[2]


def test_an_idle_session_is_closed_after_the_session_timeout():
    # OpenEnv's reaper looks every max(timeout / 4, 5) s: a 1 s timeout closes within ~6 s.
    with Server(ServeConfig(max_sessions=1, session_timeout_s=1.0)) as idle_server:
        env = WebTaskClient(base_url=idle_server.url).sync()
        env.connect()
        env.reset(**reset_args(SPECS[0]))
        assert idle_server.stats().contexts == 1
        assert idle_server.wait_until_empty(10.0) == (0, 0)
        env.close()


def test_metadata_and_schema_start_no_browser():
    app = make_app(ServeConfig(max_sessions=2))
    with TestClient(app) as client:
        assert client.get("/metadata").json()["name"] == "webfactory_env"
        schema = client.get("/schema").json()
        assert schema["action"]["properties"]["action"]["type"] == "string"
        assert "episode_return" in schema["observation"]["properties"]
        assert "level_seed" in schema["state"]["properties"]
        assert client.get("/health").json()["status"] == "healthy"
    assert app.state.host.host is None  # no host, so no Chromium either


def openenv_validate(*args: str) -> tuple[int, str]:
    """`openenv validate ARGS`, OpenEnv's own command line, run in this process (its import
    alone costs seconds: once is enough)."""
    from openenv.cli.__main__ import app
    from typer.testing import CliRunner

    done = CliRunner().invoke(app, ["validate", *args])
    return done.exit_code, done.output


def test_openenv_validate_passes_against_the_running_server(server):
    code, output = openenv_validate("--url", server.url, "--json")
    report = json.loads(output)
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert code == 0 and report["passed"], failed


def test_openenv_validate_passes_on_the_package_manifest():
    package = str(ROOT / "deploy" / "openenv")
    code, output = openenv_validate(package, "--level", "static", "--skip-build")
    assert code == 0 and "Verdict: PASS" in output, output


def test_a_step_past_its_deadline_ends_the_episode_unscorable(oracles):
    from webfactory_env.rl import EpisodeHost, HostConfig
    from webfactory_env.rl.openenv import WebTaskEnvironment

    with EpisodeHost(HostConfig(max_sessions=1, idle_timeout_s=None, episode=SETTINGS)) as host:
        env = WebTaskEnvironment(host)
        env.reset(**reset_args(SPECS[0]))
        episode = host._sessions[host.session_ids()[0]].episode
        real_step = episode.step

        def slow_step(action: str):
            time.sleep(0.6)
            return real_step(action)

        episode.step = slow_step
        late = env.step(WebTaskAction(action=oracles[0].actions[0]), timeout_s=0.2)
        assert late.done and late.reward is None and not late.scorable
        assert late.outcome == "unscorable" and "deadline" in (late.action_error or "")
        episode.step = real_step
        after = env.step(WebTaskAction(action=oracles[0].actions[1]))
        assert after.done and after.reward is None and after.outcome == "unscorable"
        assert env.state.scorable is False
        env.close()
        assert (host.stats().sessions, host.stats().contexts) == (0, 0)
