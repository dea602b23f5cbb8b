"""Rows of the README's "Bad input and what it gets" table that no other test keeps (pure:
no browser)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.replay import verify_bundle
from webfactory_env.service import drop_privileges, parse_bind
from webfactory_env.sitegen import generate_site


def test_bad_variation_values_and_seeds_are_user_errors():
    with pytest.raises(ConfigError, match=r"'theme' cannot be 'neon'; choose one of: light"):
        generate_site("shop", 1, variation={"theme": "neon"})
    with pytest.raises(UnknownNameError, match=r"Did you mean 'theme'\?"):
        generate_site("shop", 1, variation={"themes": "dark"})
    for seed in (-3, 1.5, True):
        with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
            generate_site("shop", seed)  # type: ignore[arg-type]


def test_a_truncated_bundle_fails_verification_by_name(tmp_path):
    broken = tmp_path / "b.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 40)  # a gzip header, then nothing
    verdict = verify_bundle(broken)
    assert not verdict.ok and verdict.file == "b.tar.gz"
    assert "not a readable .tar.gz" in verdict.message


def test_stepping_before_reset_is_a_user_error():
    env = gym.make("WebTask-v0", obs_mode="tokens")
    with pytest.raises(ConfigError, match=r"call reset\(\) before step\(\)"):
        env.unwrapped.step([0, 0, 0])
    env.close()


@pytest.mark.parametrize("value", ["localhost", "127.0.0.1:http", ":8091", "127.0.0.1:"])
def test_a_bad_executor_bind_address_says_what_it_should_look_like(value):
    with pytest.raises(ConfigError, match="must look like host:port"):
        parse_bind(value)


def test_executor_bind_address_defaults_to_loopback():
    assert parse_bind(None) == ("127.0.0.1", 8091)
    assert parse_bind("[::1]:9000") == ("::1", 9000)


def test_dropping_to_a_missing_user_is_a_user_error(monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 0)  # as if root; fails before any change
    with pytest.raises(ConfigError, match="no user 'no-such-user-wf'; create it"):
        drop_privileges("no-such-user-wf")


def test_dropping_to_a_user_who_cannot_read_the_install_says_which_directory(monkeypatch):
    import os
    import pwd
    import shutil
    import tempfile
    from pathlib import Path

    import webfactory_env.service.privileges as service

    nobody = pwd.getpwnam("nobody")
    base = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's tmp_path is itself closed (0700)
    base.chmod(0o755)
    closed = base / "closed"
    (closed / "driver").mkdir(parents=True)
    node = closed / "driver" / "node"
    node.write_text("")
    node.chmod(0o755)
    (closed / "driver").chmod(0o755)
    closed.chmod(0o700)
    assert service.closed_to(nobody, node, os.R_OK | os.X_OK) == closed
    monkeypatch.setattr("os.geteuid", lambda: 0)  # as if root; fails before any change
    monkeypatch.setattr(service, "_needed_after_drop", lambda: [(node, os.R_OK | os.X_OK)])
    with pytest.raises(ConfigError, match=rf"{closed} is closed to it \(mode 700\).*--user root"):
        drop_privileges("nobody")
    closed.chmod(0o755)
    assert service.closed_to(nobody, node, os.R_OK | os.X_OK) is None
    node.chmod(0o700)  # the file itself: readable and runnable by its owner only
    assert service.closed_to(nobody, node, os.R_OK | os.X_OK) == node
    shutil.rmtree(base)


# ------------------------------------------- issue 27: the library's own errors, not Python's
@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"variation": "x"}, r"'variation' must map axis names to values"),
        ({"variation": {"theme": 3}}, r"'variation' must map axis names to values"),
        ({"task": None}, r"reset option 'task' must be a name \(a string\), got None"),
        ({"family": None}, r"reset option 'family' must be a name \(a string\), got None"),
        ({"difficulty": 2}, r"reset option 'difficulty' must be a name"),
        ({"level_seed": "7"}, r"level_seed must be a non-negative integer, got '7'"),
        ({"level_seed": 1.5}, r"level_seed must be a non-negative integer"),
        ("shop", r"reset options must be a dict"),
        ({1: 2}, r"unknown reset option\(s\) \['1'\]"),
    ],
)
def test_bad_reset_options_are_config_errors(options, says):
    env = gym.make("WebTask-v0", obs_mode="tokens")
    try:
        with pytest.raises(ConfigError, match=says):
            env.reset(options=options)
    finally:
        env.close()


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_a_bad_reset_seed_is_a_config_error(seed):
    env = gym.make("WebTask-v0", obs_mode="tokens")
    try:
        with pytest.raises(ConfigError, match="seed must be a non-negative integer or None"):
            env.reset(seed=seed)
    finally:
        env.close()


@pytest.mark.parametrize(
    "action",
    [float("inf"), float("-inf"), float("nan"), np.float64("inf"), 2.5, "3", True, [1, 2], None],
)
def test_a_discrete_action_that_is_no_integer_is_an_invalid_action_error(action):
    from webfactory_env.actions import ActionConfig, InvalidActionError, decode

    config = ActionConfig(8, 4, "discrete", 16, "auto")
    with pytest.raises(InvalidActionError, match="takes one integer action"):
        decode(action, config, (), ())
    assert decode(np.float32(20.0), config, (), ()) == "action 20 is out of range 0..15"
    assert decode(10**30, config, (), ()) == f"action {10**30} is out of range 0..15"


def test_two_threads_making_their_first_envs_find_every_family():
    """The registry loads once, whole, whichever thread comes first (a fresh interpreter:
    this one has loaded it already)."""
    import subprocess
    import sys

    code = """
import threading
import gymnasium as gym
import webfactory_env
from webfactory_env.sitegen import generate_site
names = ["shop", "travel", "kanban", "forum", "account", "gallery"]
envs = [("shop", "buy_red_mug"), ("travel", "book_flight_roundtrip")]
barrier, errors = threading.Barrier(len(names) + len(envs)), []
def make(name, task=None):
    barrier.wait()
    try:
        if task:
            gym.make("WebTask-v0", family=name, task=task, obs_mode="tokens").close()
        else:
            generate_site(name, 1)
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=make, args=a) for a in [(n,) for n in names] + envs]
for t in threads: t.start()
for t in threads: t.join()
print(errors)
"""
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        )
        assert out.stdout.strip() == "[]", out.stdout
