"""Shared fixtures. Browser tests all use the one Chromium the process shares.

The fast tier (`./scripts/test --fast`, i.e. `-m "not browser and not slow"`) must never start
Chromium: a test that does without the `browser` marker fails there with a message saying
so, instead of quietly making the fast tier slow.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import pytest

# Every state view checks the entity tables it reuses against the tables themselves
# (`sitegen.app.CHECK_VIEWS`): set before the package is imported, and inherited by the
# env workers the tests start.
os.environ.setdefault("WEBFACTORY_CHECK_VIEWS", "1")
# Tests compile every task afresh: no compiled task is read from or left in the user's cache
# (`tasks.compile_cache`; its own tests point it at a temporary directory).
os.environ.setdefault("WEBFACTORY_COMPILE_CACHE", "off")

import webfactory_env  # noqa: F401  (registers WebTask-v0)

try:
    from hypothesis import settings
except ImportError:  # the adapters' own virtualenvs run their few tests without it
    pass
else:
    # Property tests check what holds, never how fast: a per-example deadline fails them on
    # a busy machine (two test workers and their browsers on two cores), so there is none.
    settings.register_profile("webfactory", deadline=None)
    settings.load_profile("webfactory")

NO_BROWSER = "/nonexistent/chromium (this test starts a browser: mark it @pytest.mark.browser)"


def _browser_deselected(config: pytest.Config) -> bool:
    expr = (config.option.markexpr or "").replace(" ", "")
    return "notbrowser" in expr


def pytest_configure(config: pytest.Config) -> None:
    if not _browser_deselected(config):
        return
    # Subprocesses (the CLI, a child interpreter) inherit the variable; this process is
    # stopped where it looks for Chromium.
    os.environ["WEBFACTORY_CHROMIUM"] = NO_BROWSER
    from webfactory_env.core.errors import BrowserNotFoundError
    from webfactory_env.executor import browser

    def refuse(explicit: str | None = None) -> str:
        raise BrowserNotFoundError(
            "this test starts Chromium but is not marked @pytest.mark.browser, so it ran in "
            "the fast tier: mark it (or its module, with pytestmark)"
        )

    browser.find_chromium = refuse  # type: ignore[assignment]


@pytest.fixture(scope="session", autouse=True)
def session_browser(request: pytest.FixtureRequest) -> Iterator[None]:
    """Browser tests share one Chromium: the last `env.close()` would otherwise close it
    (as it should in a program) and the next test would launch another."""
    from webfactory_env.executor.browser import shared_browser

    if _browser_deselected(request.config):
        yield
        return
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


@pytest.fixture
def secret_postcode(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Mark the shop's postal code field secret, as a card number field would be: what is
    typed into it must be redacted in traces and still replay.

    Generated sites are remembered per process, each with the pages its fresh apps rendered
    (`Site.new_app(shared_start=True)`), and so are the tasks compiled for them and what
    their plans type into secret fields (by site digest, which a widget does not change):
    all are forgotten before and after, or the secret field would outlive the test in the
    next one's pages and traces."""
    import importlib

    from webfactory_env.sitegen import widgets
    from webfactory_env.trace import redact

    library = importlib.import_module("webfactory_env.tasks.library")  # not the function

    def forget() -> None:
        library.forget_levels()
        with redact._PLANS_LOCK:
            redact._PLANS.clear()

    text_field = widgets.text_field

    def secret(r: Any, **kw: Any) -> str:
        if kw["bind"].args.get("name") == "postal_code":
            kw["redact"] = True
        return text_field(r, **kw)

    forget()
    monkeypatch.setattr(widgets, "text_field", secret)
    yield
    monkeypatch.undo()
    forget()


@pytest.fixture(scope="session")
def shop_site():
    from webfactory_env.sitegen import generate_site
    from webfactory_env.sitegen.variation import Variation

    return generate_site("shop", 42, variation=Variation.plain())


@dataclass(frozen=True)
class PartlyCompilable:
    """A shop task file that compiles on some levels and not on others (its product is
    missing from some catalogs), and two neighbouring easy seeds: `bad` does not compile,
    `bad + 1` does."""

    path: str
    bad: int

    @property
    def good(self) -> int:
        return self.bad + 1


@pytest.fixture(scope="session")
def partly_compilable(tmp_path_factory: pytest.TempPathFactory) -> PartlyCompilable:
    from webfactory_env.sitegen import generate_site
    from webfactory_env.tasks import CompileError, compile_for_site

    path = tmp_path_factory.mktemp("tasks") / "open_blanket.task"
    path.write_text(
        "// Goal: Open the page of the throw blanket.\n"
        "task open_blanket {\n"
        '  goto route("/shop");\n'
        '  click Item(type="product", title~="Throw Blanket");\n'
        "}\n",
        encoding="utf-8",
    )

    def compiles(seed: int) -> bool:
        try:
            compile_for_site(str(path), generate_site("shop", seed))
        except CompileError:
            return False
        return True

    bad = next(s for s in range(200) if not compiles(s) and compiles(s + 1))
    return PartlyCompilable(str(path), bad)


@pytest.fixture
def partly_compilable_suite(monkeypatch: pytest.MonkeyPatch, partly_compilable: PartlyCompilable):
    """Suite `partly`, registered for one test: `partly_compilable`'s task on level seeds
    `bad` (episode 0, does not compile) and `good` (episode 1)."""
    from webfactory_env.suites import _SUITES, Suite

    suite = Suite(
        "partly",
        "",
        "shop",
        (partly_compilable.path,),
        seed_start=partly_compilable.bad,
        seed_count=2,
    )
    monkeypatch.setitem(_SUITES, suite.name, suite)
    return suite
