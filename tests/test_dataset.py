"""Datasets: bundles + arrays for offline RL, loaded back exactly as the env produced them."""

from __future__ import annotations

import io
import json

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env.core.errors import BundleError, ConfigError
from webfactory_env.progress import ProgressBar
from webfactory_env.replay import load_dataset, read_index
from webfactory_env.replay.bundle import bundle_trace, open_bundle


@pytest.mark.browser
def test_dataset_command_writes_bundles_and_arrays_that_match_the_env(tmp_path, capsys):
    from webfactory_env.cli import main

    out = tmp_path / "ds"
    argv = ["dataset", "--suite", "shop-test", "--agent", "random", "--episodes", "2"]
    assert main([*argv, "--max-steps", "3", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # not a terminal: no progress bar
    assert captured.out.strip() == f"wrote 2 episodes (0 successful) to {out}"

    rows = read_index(out)
    assert [(r["task"], r["seed"]) for r in rows] == [
        ("buy_red_mug", 100000),
        ("buy_red_mug", 100001),
    ]
    meta = json.loads((out / "dataset.json").read_text())
    assert meta["suite"]["name"] == "shop-test" and meta["agent"] == "random"
    for row in rows:
        assert {"family", "task", "seed", "success", "steps", "return", "site_digest"} <= set(row)
        with open_bundle(out / row["bundle"]) as root:
            assert len(bundle_trace(root).steps) == row["steps"] == 3

    episodes = list(load_dataset(out))
    assert len(episodes) == 2
    ep = episodes[0]
    assert ep.actions.shape == (3, 3) and ep.actions.dtype == np.int64
    assert ep.rewards.shape == ep.terminated.shape == ep.truncated.shape == (3,)
    assert ep.truncated[-1] and not ep.terminated.any()
    assert ep.info["return"] == pytest.approx(ep.rewards.sum())

    # Re-running the recorded actions reproduces every array exactly.
    env = gym.make("WebTask-v0", family="shop", task="buy_red_mug", obs_mode="tokens", max_steps=3)
    try:
        obs, _ = env.reset(seed=ep.info["seed"])
        assert set(obs) == set(ep.observations)
        for key in obs:
            assert ep.observations[key].shape == (4, *obs[key].shape)
            np.testing.assert_array_equal(ep.observations[key][0], obs[key])
        for t, action in enumerate(ep.actions):
            obs, reward, terminated, truncated, _ = env.step(action)
            assert reward == ep.rewards[t] and terminated == ep.terminated[t]
            assert truncated == ep.truncated[t]
            for key in obs:
                np.testing.assert_array_equal(ep.observations[key][t + 1], obs[key])
    finally:
        env.close()

    # A modified array file is caught before anyone trains on it.
    npz = out / rows[1]["arrays"]
    npz.write_bytes(npz.read_bytes()[:-10])
    with pytest.raises(BundleError, match="checksum mismatch"):
        list(load_dataset(out))


def test_dataset_refuses_a_non_empty_directory_and_too_many_episodes(tmp_path):
    from webfactory_env.replay import write_dataset
    from webfactory_env.suites import Suite

    (tmp_path / "x").write_text("keep me")
    suite = Suite("tiny", "", "shop", ("buy_red_mug",), seed_start=0, seed_count=2)
    with pytest.raises(ConfigError, match="not empty; choose a new --out"):
        write_dataset(suite, "oracle", 1, tmp_path)
    with pytest.raises(ConfigError, match="has only 2 episodes"):
        write_dataset(suite, "oracle", 3, tmp_path / "new")
    with pytest.raises(ConfigError, match=r"no index\.jsonl"):
        read_index(tmp_path)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_on_a_terminal_and_stays_quiet_in_a_pipe():
    tty, pipe = _Tty(), io.StringIO()
    for stream in (tty, pipe):
        with ProgressBar(4, label="dataset", unit="episodes", stream=stream) as bar:
            bar.update(1, ok=True)
            bar.update(4, ok=False)
    assert pipe.getvalue() == ""
    drawn = tty.getvalue()
    assert "\r" in drawn and "4/4 episodes, 1 ok" in drawn and drawn.endswith("\n")
    assert "[" + "#" * 30 + "]" in drawn


@pytest.mark.browser
def test_a_level_that_does_not_compile_is_skipped_and_listed(
    tmp_path, capsys, partly_compilable, partly_compilable_suite
):
    from webfactory_env.cli import main
    from webfactory_env.replay import read_skipped

    out = tmp_path / "ds"
    argv = ["dataset", "--suite", "partly", "--agent", "random", "--episodes", "2"]
    assert main([*argv, "--max-steps", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote 1 episodes (0 successful) to {out}" in printed
    assert "skipped 1 episode whose task cannot be compiled on its level" in printed
    assert [(r["episode"], r["seed"]) for r in read_index(out)] == [(1, partly_compilable.good)]
    (skipped,) = read_skipped(out)
    assert (skipped["episode"], skipped["seed"]) == (0, partly_compilable.bad)
    assert skipped["family"] == "shop" and "Throw Blanket" in skipped["reason"]
    assert len(list(load_dataset(out))) == 1  # what was written loads as usual
