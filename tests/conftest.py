"""Shared fixtures. Browser tests all use the one Chromium the process shares."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import webfactory_env  # noqa: F401  (registers WebTask-v0)


@pytest.fixture(scope="session", autouse=True)
def session_browser() -> Iterator[None]:
    """Browser tests share one Chromium: the last `env.close()` would otherwise close it
    (as it should in a program) and the next test would launch another."""
    from webfactory_env.executor.browser import shared_browser

    with shared_browser().keep_open():
        yield


@pytest.fixture
def make_env() -> Iterator[Any]:
    """`make_env(**kwargs)` → a WebTask-v0 env that is closed after the test."""
    made: list[gym.Env[Any, Any]] = []

    def factory(**kwargs: Any) -> gym.Env[Any, Any]:
        env = gym.make("WebTask-v0", **kwargs)
        made.append(env)
        return env

    yield factory
    for env in made:
        env.close()


@pytest.fixture(scope="session")
def shop_site():
    from webfactory_env.sitegen import generate_site
    from webfactory_env.sitegen.variation import Variation

    return generate_site("shop", 42, variation=Variation.plain())
