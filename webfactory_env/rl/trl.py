"""TRL's `GRPOTrainer(environment_factory=...)` on the factory: `WebTaskToolEnv`, whose
public methods are the model's tools, a factory that closes every session it opened, and
the dataset rows it resets from (extra `[trl]`).

    from trl import GRPOConfig, GRPOTrainer
    from webfactory_env.rl.trl import ToolEnvFactory, tool_dataset

    with ToolEnvFactory() as factory:
        trainer = GRPOTrainer(model=..., args=GRPOConfig(...), environment_factory=factory,
                              train_dataset=tool_dataset("shop-tasks-train", episodes=500))
        trainer.train()

Each tool builds one canonical text action (`click(3)`, `type(5, "Alice")`) and hands it to
the env, whose own parser is the only one that reads it; a tool returns the page the
action led to, as text, and nothing else: no reward, no success flag, no verify tool.
`get_reward()` is the episode's outcome, frozen at its first ending (`success` mode: 1 or
0; `return` mode: the shaped sum), and None when the browser or the host broke, which keeps
the rollout out of its group's baseline instead of scoring it 0. Once the episode has ended
a tool call reaches no browser at all: it says so and changes nothing.

This module imports neither TRL nor transformers; `tool_dataset` imports `datasets`.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from webfactory_env.actions.text import quote_text
from webfactory_env.rl.episode import ENDED, EpisodeSpec, StepReply
from webfactory_env.rl.host import EpisodeHost, HostConfig, HostError, shared_host
from webfactory_env.rl.rows import row_spec, suite_specs

if TYPE_CHECKING:
    from datasets import Dataset

TOOL_PROMPT = (
    "You are using a website through tools. Each tool carries out one action on the page"
    " and returns the page as text: elements you can act on carry a number in brackets,"
    " such as [12]. Do the task the Goal line states, one tool call at a time. The episode"
    " ends by itself once the task is done; call done(success=True, message=...) to finish"
    " a task that asks a question (the message is the answer), and done(success=False,"
    " message=...) only when the site cannot do what the task asks.\n\n"
)
ENDED_NOTE = "\n\n(The episode has ended: stop calling tools.)"


class EpisodeSessions(Protocol):
    """What the tool envs play on: an in-process `EpisodeHost`, or a server's sessions
    (`webfactory_env.rl.remote.ServerHost`)."""

    config: HostConfig

    def open(self) -> str: ...
    def reset(self, session: str, spec: EpisodeSpec) -> StepReply: ...
    def step(self, session: str, action: str) -> StepReply: ...
    def close_session(self, session: str) -> None: ...
    def close(self) -> None: ...


class WebTaskToolEnv:
    """One rollout's website, for TRL's `environment_factory` (see the module docstring).

    Its public methods are exactly the model's tools: `click`, `type_text`, `select`,
    `submit`, `press`, `scroll`, `back` and `done`, plus TRL's `reset(**row)` and
    `get_reward()`. It plays its episodes in one session of an `EpisodeHost` (the
    process's shared host unless given one; or of a server, through
    `rl.remote.ServerHost`), opened at the first reset and reused by every later one;
    the session closes when the env is collected, when its `ToolEnvFactory` closes, or
    when the host reaps it after `idle_timeout_s`.
    """

    def __init__(self, host: EpisodeSessions | None = None) -> None:
        self._host: EpisodeSessions = host if host is not None else shared_host()
        self._session: str | None = None
        self._last: StepReply | None = None
        self._broken: str | None = None
        self._closer: weakref.finalize | None = None

    # ------------------------------------------------------------------ TRL's hooks
    def reset(self, **row: Any) -> str:
        """Start the episode a dataset row names (`family`, `task`, `difficulty`,
        `level_seed`, `variation`; other columns are ignored) and return its first page."""
        spec = row_spec(row)
        if self._session is None:
            self._session = self._host.open()
            self._closer = weakref.finalize(self, _close_session, self._host, self._session)
        self._last, self._broken = None, None
        try:
            self._last = self._host.reset(self._session, spec)
        except HostError as exc:
            return self._fail(exc)
        return self._last.text

    def get_reward(self) -> float | None:
        """The episode's reward in the host's mode, frozen at its first ending; None when it
        cannot be scored (a broken browser or host, or no episode). An episode the model
        left unfinished scores what it earned: 0 in `success` mode."""
        last = self._last
        if self._broken is not None or last is None or not last.scorable:
            return None
        if last.outcome is not None:
            return last.outcome.reward
        return last.episode_return if self._host.config.episode.reward_mode == "return" else 0.0

    # ----------------------------------------------------------------- the tools
    def click(self, element: int) -> str:
        """Click an element: a link, button, checkbox, radio button, tab, menu item or option.

        Args:
            element: The number in brackets before the element on the page, e.g. 12 for [12].

        Returns:
            The page after the click.
        """
        return self._act(f"click({int(element)})")

    def type_text(self, element: int, text: str) -> str:
        """Replace the text of a text field with the given text.

        Args:
            element: The number in brackets before the field on the page.
            text: The whole text the field should hold.

        Returns:
            The page after typing.
        """
        return self._act(f"type({int(element)}, {quote_text(text)})")

    def select(self, element: int, option: str) -> str:
        """Choose an option of a dropdown by its text, as listed in its options=[...].

        Args:
            element: The number in brackets before the dropdown on the page.
            option: The text of the option to choose.

        Returns:
            The page after choosing.
        """
        return self._act(f"select({int(element)}, {quote_text(option)})")

    def submit(self, element: int) -> str:
        """Submit the form an element belongs to.

        Args:
            element: The number in brackets before any element of the form.

        Returns:
            The page after submitting.
        """
        return self._act(f"submit({int(element)})")

    def press(self, key: str, element: int | None = None) -> str:
        """Press a key on the page, or on one element.

        Args:
            key: The key: Enter, Escape, Tab, Backspace, Space, an arrow such as ArrowDown,
                or an Alt+Shift+<letter> shortcut.
            element: The number in brackets before the element to press it on; leave it
                out to press it on the page.

        Returns:
            The page after the key press.
        """
        target = "" if element is None else f"{int(element)}, "
        return self._act(f"press({target}{quote_text(key)})")

    def scroll(self, direction: Literal["up", "down"]) -> str:
        """Scroll the page by one screen; only what is in view is shown.

        Args:
            direction: Which way to scroll.

        Returns:
            The page after scrolling.
        """
        return self._act(f"scroll({direction})")

    def back(self) -> str:
        """Go back to the previous page.

        Returns:
            The previous page.
        """
        return self._act("back()")

    def done(self, success: bool, message: str = "") -> str:
        """End the episode. success=True claims the task is done (it succeeds only if the
        site shows it done); when the task asks a question, the message is the answer: one
        value, no hedging. success=False says the site cannot do what the task asks, and
        the message says why.

        Args:
            success: Whether the task is done.
            message: The answer to the task's question, or why it cannot be done.

        Returns:
            The last page.
        """
        return self._act(f"done({'true' if success else 'false'}, {quote_text(message)})")

    # ----------------------------------------------------------------- internals
    def _act(self, action: str) -> str:
        last = self._last
        if self._broken is not None or (last is not None and last.done):
            return ENDED  # the frozen outcome stays as it was, and no browser is touched
        if self._session is None or last is None:
            return "no episode is running: the trainer resets the env before its first tool call"
        try:
            self._last = self._host.step(self._session, action)
        except HostError as exc:
            return self._fail(exc)
        return self._last.text + (ENDED_NOTE if self._last.done else "")

    def _fail(self, exc: HostError) -> str:
        """The host could not do the call: the episode cannot be scored, and the model is
        told to stop."""
        self._broken = str(exc)
        return f"the environment failed ({exc}); this episode will not be scored.{ENDED_NOTE}"


class ToolEnvFactory:
    """An `environment_factory` for `GRPOTrainer` whose envs share one host, and that
    closes every session they opened (and the host, if it made it) when it closes.

    `ToolEnvFactory()` makes a host of its own with `config`; `ToolEnvFactory(host)` uses
    yours (an `EpisodeHost`, or a server's `ServerHost`) and leaves it open."""

    def __init__(self, host: EpisodeSessions | None = None, *, config: HostConfig | None = None):
        self._owns_host = host is None
        self.host: EpisodeSessions = host if host is not None else EpisodeHost(config)
        self._envs: weakref.WeakSet[WebTaskToolEnv] = weakref.WeakSet()
        self._lock = threading.Lock()

    def __call__(self) -> WebTaskToolEnv:
        env = WebTaskToolEnv(self.host)
        with self._lock:
            self._envs.add(env)
        return env

    def close(self) -> None:
        """Close every session the factory's envs opened, then the host if it is ours."""
        with self._lock:
            envs = list(self._envs)
            self._envs.clear()
        for env in envs:
            if env._closer is not None:
                env._closer()
        if self._owns_host:
            self.host.close()

    def __enter__(self) -> ToolEnvFactory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tool_rows(
    suites: str | Sequence[str] | None = None,
    *,
    split: str = "train",
    episodes: int = 100,
    prompt: str = TOOL_PROMPT,
) -> list[dict[str, Any]]:
    """Rows for `GRPOTrainer`: a conversational `prompt` (the page is appended to it by
    `reset`) and the episode's `family`, `task`, `difficulty`, `level_seed` and `variation`;
    the first `episodes` of each suite named, or of every suite of `split`, taken in turn."""
    specs = suite_specs(suites, split=split, episodes=episodes)
    return [episode_row(spec, prompt) for spec in specs]


def tool_dataset(
    suites: str | Sequence[str] | None = None,
    *,
    split: str = "train",
    episodes: int = 100,
    prompt: str = TOOL_PROMPT,
) -> Dataset:
    """`tool_rows` as a `datasets.Dataset`."""
    from datasets import Dataset

    return Dataset.from_list(tool_rows(suites, split=split, episodes=episodes, prompt=prompt))


def episode_row(spec: EpisodeSpec, prompt: str = TOOL_PROMPT) -> dict[str, Any]:
    """One row for `spec`, as `tool_rows` makes them."""
    return {"prompt": [{"role": "user", "content": prompt}], **spec.options()}


def _close_session(host: EpisodeSessions, session: str) -> None:
    with contextlib.suppress(Exception):  # closed already, or the host went first
        host.close_session(session)
