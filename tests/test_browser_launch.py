"""How Chromium is launched (pure: reads the argument list, starts nothing)."""

from __future__ import annotations

import pytest

from webfactory_env.config import EnvConfig
from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.browser import (
    DISABLED_FEATURES,
    NO_FRAMES,
    BrowserConfig,
    launch_args,
)


def test_one_disable_features_flag_carries_ours_and_the_users():
    # Chromium honours only the last --disable-features: a second one would silently undo
    # ours (and with it the idle omnibox renderer that costs every step CPU).
    args = launch_args(BrowserConfig(extra_args=("--disable-features=Foo,Bar", "--lang=fr")))
    flags = [a for a in args if a.startswith("--disable-features=")]
    assert len(flags) == 1 and args[-1] == flags[0]
    features = flags[0].split("=", 1)[1].split(",")
    assert set(DISABLED_FEATURES) | {"Foo", "Bar"} == set(features)
    assert len(features) == len(set(features))
    assert "WebUIOmniboxPopup" in features
    assert "--lang=fr" in args


def test_the_network_and_frame_flags_are_always_there():
    args = launch_args(BrowserConfig())
    assert any(a.startswith("--host-resolver-rules=MAP * ~NOTFOUND") for a in args)
    assert "--disable-gpu" in args and "--disable-frame-rate-limit" in args


def test_a_child_that_exited_is_dead_before_anyone_reaps_it_and_others_are_asked_of_proc():
    """`alive` (asked about the driver at every reset) must see a child that exited even
    while it is an unreaped zombie, without reaping it (asyncio's watcher owns that)."""
    import subprocess
    import sys
    import time

    from webfactory_env.executor.watchdog import alive

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)  # fmt: skip
    try:
        assert alive(child.pid)
    finally:
        assert child.stdin is not None
        child.stdin.close()
    deadline = time.monotonic() + 10
    while alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(child.pid)
    assert child.wait(timeout=5) == 0  # still ours to reap: `alive` did not take it
    assert not alive(child.pid)  # reaped and gone
    assert alive(1) and not alive(2**22 + 12345)  # not our children: /proc answers


def test_a_browser_without_pixels_is_launched_without_a_compositor_thread():
    assert NO_FRAMES in launch_args(BrowserConfig(pixels=False))
    assert NO_FRAMES not in launch_args(BrowserConfig())


def test_an_env_draws_frames_only_when_it_can_be_asked_for_pixels():
    """A new user's `tokens` or `text` env (and RLlib's runners of them) gets a browser
    that draws nothing; anything that can ask for a screenshot gets one that draws."""
    from webfactory_env.training.rllib import RLlibConfig, env_creator

    for kwargs, draws in (
        ({"obs_mode": "tokens"}, False),
        ({"obs_mode": "text", "action_mode": "text"}, False),
        ({"obs_mode": "pixels"}, True),
        ({"obs_mode": "tokens+pixels"}, True),
        ({"obs_mode": "tokens", "render_mode": "rgb_array"}, True),
        ({"obs_mode": "text", "end_screenshot": "full"}, True),
        ({"obs_mode": "tokens", "browser": BrowserConfig(pixels=True)}, True),
    ):
        browser = EnvConfig.parse(kwargs).session().browser
        assert browser.draws == draws, kwargs
        assert (NO_FRAMES in launch_args(browser)) == (not draws), kwargs
    assert not env_creator(RLlibConfig().env_config()).unwrapped.config.draws


def test_screenshots_ask_for_a_browser_that_draws():
    """Each way of asking for a screenshot names itself, and how to fix it."""
    nf = BrowserConfig(pixels=False)
    for kwargs, named in (
        ({"obs_mode": "pixels"}, "obs_mode='pixels'"),
        ({"obs_mode": "tokens+pixels"}, "obs_mode='tokens+pixels'"),
        ({"obs_mode": "tokens", "render_mode": "rgb_array"}, "render_mode='rgb_array'"),
        ({"obs_mode": "text", "end_screenshot": "full"}, "end_screenshot='full'"),
    ):
        with pytest.raises(ConfigError, match="pixels=False") as err:
            EnvConfig.parse({"browser": nf, **kwargs})
        assert named in str(err.value)
    for mode in ("tokens", "text"):  # a lazy end screenshot is simply not kept
        assert EnvConfig.parse({"browser": nf, "obs_mode": mode}).browser == nf
