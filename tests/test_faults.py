"""Faults: a browser or page that dies or hangs mid-episode, a site app that throws, envs
that are never closed, and the owner of a vector env killed by a signal — none may crash
the env, hang it, or leave Chromium behind.

(`test_episode_end.py` covers the outcome classification after a killed browser; here the
trace, the relaunch count, a renderer-only crash and the other faults.)
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import gymnasium as gym
import pytest
from processes import (
    browser_roots,
    chromium,
    descendants,
    kill,
    listening_tcp,
    owner,
    still_running,
)

from webfactory_env.agents import OracleAgent
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor import ObserveConfig, PageSession
from webfactory_env.executor.browser import shared_browser
from webfactory_env.executor.session import ORIGIN, SessionConfig
from webfactory_env.sitegen import generate_site
from webfactory_env.trace import TraceRecorder, read_trace

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ processes (/proc)
def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    # Chromium's helpers rewrite their command line as one space-separated string.
    return raw.replace(b"\0", b" ").decode(errors="replace").split()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _is_chromium(pid: int) -> bool:
    """Chromium or one of its helpers (crash handler, zygote, renderer, ...)."""
    cmd = _cmdline(pid)
    return bool(cmd) and "chrom" in Path(cmd[0]).name


def _is_browser(pid: int) -> bool:
    cmd = _cmdline(pid)
    return (
        _is_chromium(pid)
        and "crashpad" not in Path(cmd[0]).name
        and not any(a.startswith("--type=") for a in cmd)
    )


def _our_chromium(kind: str | None = None) -> list[int]:
    """Chromium processes started by this test process: the browser itself (`kind=None`)
    or its helpers of one `--type` (never another session's browser on this machine)."""
    if kind is None:
        return [p for p in _descendants(os.getpid()) if _is_browser(p)]
    return [
        p for p in _descendants(os.getpid()) if _is_chromium(p) and f"--type={kind}" in _cmdline(p)
    ]


def _with_marker(marker: str) -> list[int]:
    """Processes whose environment carries WF_FAULT_MARKER=marker (they inherit it)."""
    needle = f"WF_FAULT_MARKER={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _alive_chromium(pids: list[int]) -> list[int]:
    return [p for p in pids if _is_chromium(p)]


def _wait_gone(pids: list[int], marker: str, deadline_s: float = 30.0) -> list[int]:
    """Chromium processes of `pids` (or carrying `marker`) still there after waiting for
    them to go (process teardown is asynchronous; nothing here measures time)."""
    end = time.monotonic() + deadline_s
    while True:
        left = sorted(set(_alive_chromium(pids)) | set(_alive_chromium(_with_marker(marker))))
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.2)


# --------------------------------------------------------------------- the episodes
def _play(env, oracle, seed):
    obs, info = env.reset(seed=seed)
    oracle.reset()
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        if terminated or truncated:
            return obs, info, terminated


def test_killed_browser_keeps_the_trace_readable_and_the_next_reset_relaunches(tmp_path):
    trace = tmp_path / "trace.jsonl"
    env = TraceRecorder(gym.make("WebTask-v0", obs_mode="tokens"), trace)
    try:
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=4)
        oracle.reset()
        for _ in range(3):
            obs, *_, info = env.step(oracle.act(obs, info))
        launches = shared_browser().launches
        (browser,) = _our_chromium()
        os.kill(browser, signal.SIGKILL)
        assert _wait_gone([browser], "-") == []
        obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
        assert truncated and not terminated
        assert env.observation_space.contains(obs)
        event = info["record"]["error_events"][-1]
        assert event["event_type"] == "browser" and event["step"] == 4
        assert info["reason"].startswith("the browser failed")
        # The trace holds every step, the failed one last, and reads back cleanly.
        (episode,) = read_trace(trace)
        assert [s.t for s in episode.steps] == [1, 2, 3, 4] and episode.complete
        last = episode.steps[-1]
        assert last.truncated and not last.valid and "browser" in (last.error or "")
        assert all(json.loads(line) for line in trace.read_text().splitlines())
        # The next episode relaunches Chromium once and runs to success.
        _, info, terminated = _play(env, oracle, 4)
        assert terminated and info["success"]
        assert shared_browser().launches == launches + 1
        assert len(read_trace(trace)) == 2
    finally:
        env.close()


def test_a_crashed_page_truncates_and_the_next_reset_opens_a_new_page(make_env):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=2)
    oracle.reset()
    obs, *_, info = env.step(oracle.act(obs, info))
    launches = shared_browser().launches
    old_page = env.unwrapped.session.page
    renderers = _our_chromium("renderer")
    assert renderers
    for pid in renderers:
        os.kill(pid, signal.SIGKILL)
    assert _wait_gone(renderers, "-") == []
    obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
    assert truncated and not terminated
    assert info["record"]["error_events"][-1]["event_type"] == "browser"
    _, info, terminated = _play(env, oracle, 2)
    assert terminated and info["success"]
    assert env.unwrapped.session.page is not old_page
    assert shared_browser().launches == launches  # only the page was replaced


def test_a_page_closed_between_episodes_is_replaced_at_reset(make_env):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    _, info, terminated = _play(env, oracle, 0)
    assert terminated and info["success"]
    old_page = env.unwrapped.session.page
    old_page.close()  # no crash event, no failed step: the page is simply gone
    _, info, terminated = _play(env, oracle, 1)
    assert terminated and info["success"]
    assert env.unwrapped.session.page is not old_page


def _after_first_oracle_step(env):
    """Seed 0, the oracle's first step taken: (oracle, obs, info) to go on with."""
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0)
    oracle.reset()
    obs, *_, info = env.step(oracle.act(obs, info))
    return oracle, obs, info


def test_a_hung_page_hits_the_step_timeout_and_the_page_is_recycled(make_env):
    env = make_env(obs_mode="tokens+pixels", screenshot_size=(32, 32), step_timeout_ms=1000)
    oracle, obs, info = _after_first_oracle_step(env)
    session = env.unwrapped.session
    hung_page = session.page
    # A page script that never yields: every later call into the page waits on it.
    session.evaluate("() => { setTimeout(() => { for (;;) {} }, 0); }")
    obs, reward, terminated, truncated, info = env.step(oracle.act(obs, info))
    assert truncated and not terminated
    assert env.observation_space.contains(obs)
    assert "step_timeout_ms=1000" in info["reason"]
    assert info["record"]["error_events"][-1]["event_type"] == "browser"
    assert "step_timeout_ms" in info["record"]["error_events"][-1]["message"]
    assert hung_page.is_closed()
    _, info, terminated = _play(env, oracle, 0)
    assert terminated and info["success"]
    assert session.page is not hung_page


def test_a_script_error_in_the_runtime_truncates_and_the_next_reset_opens_a_new_page(make_env):
    """The runtime's calls go through the page's CDP session, which reports a thrown error
    in its reply instead of raising: it must still end the step like a crash, with the
    error's first line, and the page must be replaced."""
    env = make_env(obs_mode="tokens")
    oracle, obs, info = _after_first_oracle_step(env)
    session = env.unwrapped.session
    broken_page = session.page
    broken = "() => { JSON.stringify = () => { throw new Error('runtime broke\\nstack'); }; }"
    session.evaluate(broken)
    obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
    assert truncated and not terminated
    assert env.observation_space.contains(obs)
    assert "Error: runtime broke" in info["reason"] and "stack" not in info["reason"]
    assert info["record"]["error_events"][-1]["event_type"] == "browser"
    _, info, terminated = _play(env, oracle, 0)
    assert terminated and info["success"]
    assert session.page is not broken_page


def _all_our_chromium() -> list[int]:
    """Every Chromium process this test process started (browser, renderers, helpers)."""
    return [p for p in _descendants(os.getpid()) if _is_chromium(p)]


def test_a_frozen_browser_truncates_the_step_and_the_next_reset_relaunches(make_env):
    """Issue 19, case 7: SIGSTOP on every Chromium process. The step returns (bounded by
    the step timeout; the watchdog kills Chromium and the driver by pid), truncated with a
    browser error event, and the next reset relaunches both."""
    env = make_env(obs_mode="tokens", step_timeout_ms=2000)
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=1)
    oracle.reset()
    obs, *_, info = env.step(oracle.act(obs, info))
    shared = shared_browser()
    starts, old_driver = shared.driver_starts, shared.processes.driver
    frozen = _all_our_chromium()
    assert frozen
    # Not a timing: if the step never returned, this resumes Chromium after 5 minutes so
    # the test fails instead of hanging the suite.
    rescued = threading.Event()

    def resume() -> None:
        rescued.set()
        for pid in frozen:
            _signal(pid, signal.SIGCONT)

    rescue = threading.Timer(300, resume)
    rescue.start()
    try:
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
    finally:
        rescue.cancel()
        for pid in frozen:
            _signal(pid, signal.SIGCONT)
    assert not rescued.is_set(), "the step returned only when Chromium was resumed"
    assert truncated and not terminated
    assert env.observation_space.contains(obs)
    event = info["record"]["error_events"][-1]
    assert event["event_type"] == "browser" and "step_timeout_ms=2000" in event["message"]
    assert "killed" in event["message"]
    assert info["reason"].startswith("the browser failed")
    assert _wait_gone(frozen, "-") == []  # killed by pid, not left stopped
    _, info, terminated = _play(env, oracle, 1)
    assert terminated and info["success"]
    assert shared.driver_starts == starts + 1 and shared.processes.driver != old_driver


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, sig)


def test_a_dead_driver_is_started_again_at_the_next_reset(make_env):
    """Issue 19, case 8: the Playwright driver killed mid-episode, then between episodes:
    the step is truncated, and every later reset works (never "raises forever")."""
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=2)
    oracle.reset()
    obs, *_, info = env.step(oracle.act(obs, info))
    shared = shared_browser()
    for round_ in range(2):
        driver = shared.processes.driver
        assert driver in _descendants(os.getpid()) and "node" in _cmdline(driver)[0]
        os.kill(driver, signal.SIGKILL)
        if round_ == 0:  # mid-episode: the next step fails and ends the episode
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            assert truncated and not terminated
            assert info["record"]["error_events"][-1]["event_type"] == "browser"
        for seed in (2, 3):
            _, info, terminated = _play(env, oracle, seed)
            assert terminated and info["success"]
        assert shared.processes.driver not in (None, driver)


def test_a_crash_while_recording_screenshots_truncates_and_keeps_the_step(tmp_path):
    """Issue 19, case 9: with a trace recording screenshots, the browser dies while the
    recorder takes a step's screenshot. `step` does not raise: the episode ends truncated,
    the trace holds that step with its browser error event, and the next reset works."""
    trace = tmp_path / "trace.jsonl"
    env = TraceRecorder(gym.make("WebTask-v0", obs_mode="tokens"), trace, screenshots=True)
    try:
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=4)
        oracle.reset()
        obs, *_, info = env.step(oracle.act(obs, info))
        base = env.unwrapped
        real = base.screenshot_png

        def crash_then_shoot() -> bytes:
            for pid in _our_chromium():
                os.kill(pid, signal.SIGKILL)
            _wait_gone(_our_chromium(), "-")
            return real()

        base.screenshot_png = crash_then_shoot
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        base.screenshot_png = real
        assert truncated and not terminated
        assert info["reason"].startswith("the browser failed")
        with pytest.raises(ConfigError, match="episode has ended"):
            env.step(oracle.act(obs, info))
        (episode,) = read_trace(trace)
        last = episode.steps[-1]
        assert [s.t for s in episode.steps] == [1, 2] and last.truncated
        assert last.error_events[-1]["event_type"] == "browser"
        assert last.obs.screenshot is None
        # A browser that is already dead when the step runs: the same, no exception.
        obs, info = env.reset(seed=4)
        oracle.reset()
        obs, *_, info = env.step(oracle.act(obs, info))
        for pid in _our_chromium():
            os.kill(pid, signal.SIGKILL)
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        assert truncated and not terminated
        assert read_trace(trace)[-1].steps[-1].truncated
        _, info, terminated = _play(env, oracle, 4)
        assert terminated and info["success"]
    finally:
        env.close()


def test_a_failing_app_handler_shows_an_error_page_and_an_error_event(make_env, monkeypatch):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0)
    oracle.reset()
    app = env.unwrapped.app

    def broken(ctx, **args):
        raise RuntimeError("the cart service is down")

    monkeypatch.setattr(type(app).TRANSITIONS["add_to_cart"], "fn", broken)
    errors = []
    for _ in range(8):
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        errors += info["record"]["error_events"]
        assert env.observation_space.contains(obs)
        if errors:
            break
    assert errors[0]["event_type"] == "app"
    assert errors[0]["message"] == "RuntimeError: the cart service is down"
    assert "Something went wrong" in env.unwrapped.dom.texts
    assert info["record"]["app_errors"][0]["kind"] == "app_exception"
    # The env goes on: the agent can navigate away and act again.
    obs, *_, info = env.step(env.action_space.sample())
    assert env.observation_space.contains(obs)


def test_a_page_that_fails_to_render_is_an_error_page_not_an_exception(make_env):
    env = make_env(obs_mode="tokens")
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0)
    oracle.reset()
    app = env.unwrapped.app
    render = app.render

    def render_or_fail(route):
        if route.startswith("/product/"):
            raise KeyError("missing product image")
        return render(route)

    app.render = render_or_fail  # rendering fails after the handler has run
    events = []
    for _ in range(8):
        obs, *_, info = env.step(oracle.act(obs, info))
        events += info["record"]["error_events"]
        if events:
            break
    assert events[0]["event_type"] == "app" and "missing product image" in events[0]["message"]
    assert "Something went wrong" in env.unwrapped.dom.texts
    assert env.observation_space.contains(obs)


def test_fetch_transport_answers_500_when_the_app_fails():
    site = generate_site("shop", 1)
    session = PageSession(SessionConfig(), transport="fetch")
    try:
        app = site.new_app()
        session.load(app, seed=1, observe=ObserveConfig())

        def broken(route):
            raise ValueError("template bug")

        app.render = broken
        response = session.page.goto(f"{ORIGIN}/shop")
        assert response is not None and response.status == 500
        assert app.errors[-1]["kind"] == "app_exception"
        assert "template bug" in app.errors[-1]["message"]
    finally:
        session.close()


def test_an_env_dropped_without_close_gives_its_context_back(make_env):
    browser_contexts = lambda: set(shared_browser().browser.contexts)  # noqa: E731
    env = gym.make("WebTask-v0", obs_mode="tokens")
    before = browser_contexts()
    env.reset(seed=0)
    env.step(env.action_space.sample())
    (dropped,) = browser_contexts() - before
    del env
    # Playwright keeps the frames of its last call alive until its next one: make one.
    other = make_env(obs_mode="tokens")
    other.reset(seed=1)
    gc.collect()
    other.reset(seed=2)  # contexts collected inside Playwright's dispatcher close here
    assert dropped not in browser_contexts()


# ----------------------------------------------------- no Chromium left behind (subprocesses)
CHILD = textwrap.dedent(
    """
    import gc, json, os, sys, time
    import gymnasium as gym
    import webfactory_env
    from webfactory_env.executor.browser import shared_browser
    from webfactory_env.executor.browser_server import BrowserServer

    mode = sys.argv[1]
    if mode == "server":
        server = BrowserServer()
        envs = [gym.make("WebTask-v0", obs_mode="tokens", browser=server.config)]
    else:
        envs = [gym.make("WebTask-v0", obs_mode="tokens") for _ in range(2)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
        env.step(env.action_space.sample())

    def chromium():
        tree = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = open(f"/proc/{entry}/stat").read()
                except OSError:
                    continue
                tree.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
        out, todo = [], [os.getpid()]
        while todo:
            for child in tree.get(todo.pop(), []):
                todo.append(child)
                try:
                    exe = open(f"/proc/{child}/cmdline", "rb").read().split(b"\\0")[0]
                except OSError:
                    continue
                if b"chrom" in os.path.basename(exe):
                    out.append(child)
        return out

    report = {"pids": chromium()}
    if mode == "del":
        del envs, env
        gc.collect()
        fresh = gym.make("WebTask-v0", obs_mode="tokens")
        fresh.reset(seed=5)
        gc.collect()
        fresh.reset(seed=6)
        report["contexts"] = len(shared_browser().browser.contexts)
    elif mode == "close":
        # The last env.close() closes the shared browser while the interpreter runs on.
        for env in envs:
            env.close()
        report["browser_after_close"] = shared_browser().browser is not None
        deadline = time.monotonic() + 60
        while chromium() and time.monotonic() < deadline:
            time.sleep(0.2)
        report["chromium_after_close"] = chromium()
        again = gym.make("WebTask-v0", obs_mode="tokens")  # and a new env launches it again
        again.reset(seed=3)
        report["relaunched"] = bool(chromium())
        again.close()
    print(json.dumps(report), flush=True)
    if mode == "hang":
        time.sleep(600)  # killed by the test
    """
)


def _child(mode: str, marker: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        cwd=ROOT,
        env={**os.environ, "WF_FAULT_MARKER": marker},
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("mode", ["exit", "del", "close", "server"])
def test_no_chromium_survives_the_interpreter(mode):
    """Envs left open at exit, dropped, or closed (and a `BrowserServer` never closed):
    once the Python process has exited, none of its Chromium processes remain."""
    marker = uuid.uuid4().hex
    child = _child(mode, marker)
    out, _ = child.communicate(timeout=300)
    assert child.returncode == 0
    report = json.loads(out.strip().splitlines()[-1])
    assert report["pids"]  # it did run Chromium
    assert _wait_gone(report["pids"], marker) == []
    if mode == "del":
        assert report["contexts"] == 1  # the dropped envs' contexts were closed
    if mode == "close":  # issue 19, case 12
        assert not report["browser_after_close"] and report["chromium_after_close"] == []
        assert report["relaunched"]


def test_no_chromium_survives_a_killed_interpreter():
    marker = uuid.uuid4().hex
    child = _child("hang", marker)
    try:
        assert child.stdout is not None
        report = json.loads(child.stdout.readline())
        assert _alive_chromium(report["pids"]) == report["pids"]
    finally:
        child.kill()
        child.wait()
    assert _wait_gone(report["pids"], marker) == []


# --------------------------- issue 27: nothing outlives the process that owns a vector env
VECTOR_OWNER = """
import json, os, sys, time
import gymnasium as gym
import numpy as np
import webfactory_env
envs = gym.make_vec("WebTask-v0", num_envs=2, obs_mode="tokens")
envs.reset(seed=0)
envs.step(np.array([envs.single_action_space.sample() for _ in range(2)]))
print(json.dumps({"pid": os.getpid()}), flush=True)
time.sleep(600)  # killed by the test
"""


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_no_process_outlives_a_killed_owner_of_a_vector_env(how):
    """Issue 27: `make_vec(num_envs=2)` in a process killed by SIGTERM or SIGKILL left the
    shared Chromium (7 processes) running, its DevTools endpoint answering on 127.0.0.1.
    Now its browser listens on no TCP port while it runs, and every process the owner
    started is gone within seconds of its death."""
    with owner(VECTOR_OWNER) as (process, _):
        tree = descendants(process.pid)
        assert len(browser_roots(chromium(tree))) == 1  # the shared Chromium
        assert listening_tcp({process.pid, *tree}) == []
        private = [d for d in Path(tempfile.gettempdir()).glob("wf-browser-*") if d.is_dir()]
        assert private and all(d.stat().st_mode & 0o077 == 0 for d in private)
        kill(process, how)
    assert still_running(tree) == set(), "processes of the killed owner are still running"


def test_a_page_that_dies_while_being_opened_is_opened_again(make_env, monkeypatch):
    """A renderer that crashes as its page opens (seen once in 2,000 tests) costs a
    retry, not the reset: opening is where a session recovers."""
    from playwright.sync_api import BrowserContext, Error

    real = BrowserContext.new_cdp_session
    failures = []

    def dies_once(self, page):
        if not failures:
            failures.append(page)
            raise Error("Target page, context or browser has been closed")
        return real(self, page)

    monkeypatch.setattr(BrowserContext, "new_cdp_session", dies_once)
    env = make_env(obs_mode="tokens")
    obs, info = env.reset(seed=0)
    assert failures and env.observation_space.contains(obs)
    obs, *_ = env.step(OracleAgent(env).act(obs, info))
    assert env.observation_space.contains(obs)


@pytest.mark.browser
@pytest.mark.slow
def test_a_browser_that_hangs_while_a_page_opens_is_relaunched_and_the_reset_goes_on(make_env):
    """A Chromium that stops answering as a new env opens its page (seen once in a full
    suite, after many tests in one browser) is killed by the watchdog; the reset then
    opens its page in a fresh one instead of failing."""
    first = make_env(obs_mode="tokens")
    first.reset(seed=1)
    shared = shared_browser()
    starts = shared.driver_starts
    frozen = _all_our_chromium()
    assert frozen
    rescue = threading.Timer(300, lambda: [_signal(pid, signal.SIGCONT) for pid in frozen])
    rescue.start()
    try:
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        env = make_env(obs_mode="tokens")
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=1)
    finally:
        rescue.cancel()
        for pid in frozen:
            _signal(pid, signal.SIGCONT)
    assert _wait_gone(frozen, "-") == []  # killed by pid, not left stopped
    assert shared.driver_starts == starts + 1
    assert env.observation_space.contains(obs) and info["level_seed"] == 1
    _, info, terminated = _play(env, oracle, 1)
    assert terminated and info["success"]
