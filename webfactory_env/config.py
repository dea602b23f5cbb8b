"""What a `WebTask-v0` env is made with: its keyword arguments, validated at the door.

`EnvConfig` is the one place the env's arguments are checked, whether they come from a
user's `gymnasium.make(...)`, a curriculum, or a trace or replay bundle written by someone
else (`env_kwargs`: hostile input). A mistake is one `ConfigError` line naming the
argument, what it got and what it takes; nothing else reaches the env.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from webfactory_env import actions as act
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.executor.browser import BrowserConfig
from webfactory_env.executor.session import SessionConfig
from webfactory_env.observation import ObservationConfig
from webfactory_env.observation.encode import OBS_MODES
from webfactory_env.reward import RewardSpec

Pair = tuple[StrictInt, StrictInt]
# Arguments about this machine, never recorded: a trace or bundle from elsewhere that sets
# them (which Chromium to run!) is refused.
LOCAL_ARGS = ("browser", "render_mode")


class EnvConfig(BaseModel):
    """Every argument of `WebTask-v0` (see `WebTaskEnv` for what each one does)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    family: StrictStr = "shop"
    task: StrictStr = "buy_red_mug"
    difficulty: StrictStr = "easy"
    obs_mode: StrictStr = "tokens+pixels"
    max_elements: StrictInt = Field(128, ge=1, le=4096)
    max_tokens: StrictInt = Field(12, ge=1, le=256)
    vocab_size: StrictInt = Field(4096, ge=16, le=2**24)
    screenshot_size: Pair = (128, 128)  # (height, width)
    viewport: Pair = (1280, 800)  # (width, height)
    max_steps: StrictInt = Field(64, ge=1, le=2**31 - 1)
    max_values: StrictInt = Field(16, ge=1, le=4096)
    reward: RewardSpec = Field(default_factory=RewardSpec)
    render_mode: Literal["rgb_array"] | None = None
    browser: BrowserConfig | None = None
    variation: dict[StrictStr, StrictStr] | None = None
    action_mode: StrictStr = "multidiscrete"
    max_chars: StrictInt = Field(8000, ge=200, le=1_000_000)
    max_actions: StrictInt = Field(512, ge=8, le=100_000)
    step_timeout_ms: StrictInt = Field(5_000, ge=0, le=600_000)
    instruction_style: Literal["goal", "goal+hints", "recipe"] = "goal"
    # Which text the `tokens` observation's goal arrays hold: `instruction` (what
    # info["instruction"] says, per `instruction_style`), `goal` (the goal in words),
    # `recipe` (the step-by-step instruction) or `none` (no goal arrays).
    goal_source: Literal["instruction", "goal", "recipe", "none"] = "instruction"
    goal_tokens: StrictInt = Field(48, ge=1, le=1024)
    # Whether done_success/done_fail are offered: `auto` only to tasks that end with an
    # answer or by declaring the task infeasible (always in `text` mode); `always`.
    done_actions: Literal["auto", "always"] = "auto"
    # The full-size screenshot among an ended episode's artifacts (`EpisodeArtifacts`):
    # `lazy`, taken on first read until the next reset; `full`, taken as the episode ends;
    # `none`. The page text and errors are kept in every case.
    end_screenshot: Literal["lazy", "full", "none"] = "lazy"
    # Pixel modes: numbered boxes of the actionable elements drawn onto the screenshot,
    # numbered by the element indices element actions take (`observation.marks`).
    set_of_marks: StrictBool = False

    @field_validator("obs_mode")
    @classmethod
    def _obs_mode(cls, value: str) -> str:
        if value not in OBS_MODES:
            raise UnknownNameError("observation mode", value, OBS_MODES)
        return value

    @field_validator("action_mode")
    @classmethod
    def _action_mode(cls, value: str) -> str:
        if value not in act.ACTION_MODES:
            raise UnknownNameError("action mode", value, act.ACTION_MODES)
        return value

    @field_validator("screenshot_size", "viewport")
    @classmethod
    def _pair(cls, value: tuple[int, int]) -> tuple[int, int]:
        if not all(8 <= v <= 4096 for v in value):
            raise ValueError("both numbers must lie between 8 and 4096")
        return value

    @model_validator(mode="after")
    def _frames(self) -> EnvConfig:
        """A browser that draws nothing (`BrowserConfig(pixels=False)`) takes no screenshot."""
        if self.browser is None or self.browser.pixels is not False:
            return self
        wants = (
            f"obs_mode={self.obs_mode!r}"
            if "pixels" in self.obs_mode
            else f"action_mode={self.action_mode!r}"
            if self.action_mode in act.COORDINATE_MODES
            else "render_mode='rgb_array'"
            if self.render_mode == "rgb_array"
            else "end_screenshot='full'"
            if self.end_screenshot == "full"
            else None
        )
        if wants is not None:
            raise ConfigError(
                f"{wants} needs frames (screenshots, or mouse input), but"
                " browser=BrowserConfig(pixels=False) draws no frames; use obs_mode 'tokens'"
                " or 'text' and element actions without rendering, or a browser with"
                " pixels=True"
            )
        return self

    @classmethod
    def parse(cls, kwargs: Mapping[str, Any]) -> EnvConfig:
        """Validate keyword arguments; raise one `ConfigError` line naming what is wrong."""
        try:
            return cls.model_validate(_given(kwargs))
        except ValidationError as exc:
            for err in exc.errors():
                original = (err.get("ctx") or {}).get("error")
                if isinstance(original, ConfigError):
                    raise original from None  # already says how to fix it (an unknown name)
            raise ConfigError(_explain(exc)) from None

    @classmethod
    def first_problem(cls, kwargs: Mapping[str, Any]) -> tuple[str, str] | None:
        """(argument, what is wrong with it) for the first bad argument, or None: for
        arguments read from a file someone else wrote (a bundle's `env_kwargs`)."""
        try:
            cls.model_validate(_given(kwargs))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in err["loc"]) or "arguments"
            original = (err.get("ctx") or {}).get("error")
            if isinstance(original, ConfigError):
                return where, str(original)
            return where, _problem(err)
        return None

    # ---------------------------------------------------------------- parts
    def observation(self) -> ObservationConfig:
        return ObservationConfig(
            self.obs_mode,
            self.max_elements,
            self.max_tokens,
            self.vocab_size,
            self.screenshot_size,
            max_chars=self.max_chars,
            goal_tokens=0 if self.goal_source == "none" else self.goal_tokens,
            max_values=self.max_values,
            menu_size=self.max_actions if self.action_mode == "discrete" else 0,
            set_of_marks=self.set_of_marks,
        )

    def actions(self) -> act.ActionConfig:
        height, width = self.screenshot_size
        return act.ActionConfig(
            self.max_elements,
            self.max_values,
            self.action_mode,
            self.max_actions,
            self.done_actions,
            grid=(width, height),
            viewport=self.viewport,
        )

    @property
    def draws(self) -> bool:
        """Whether the env's browser draws frames: when asked to (`BrowserConfig.pixels`),
        else only if the env can be asked for pixels. A `tokens` or `text` env never reads
        one, and drawing them is most of what Chromium spends on a step. Coordinate
        actions need frames too: Chromium hands mouse moves and wheel turns to a page
        only with one (`executor.input`)."""
        if self.browser is not None and self.browser.pixels is not None:
            return self.browser.pixels
        return (
            "pixels" in self.obs_mode
            or self.action_mode in act.COORDINATE_MODES
            or self.render_mode == "rgb_array"
            or self.end_screenshot == "full"
        )

    def with_frames(self) -> EnvConfig:
        """This config with a browser that draws frames."""
        browser = dataclasses.replace(self.browser or BrowserConfig(), pixels=True)
        return self.model_copy(update={"browser": browser})

    def browser_config(self) -> BrowserConfig:
        """The env's `browser`, with its frame choice made (`draws`)."""
        return dataclasses.replace(self.browser or BrowserConfig(), pixels=self.draws)

    def session(self) -> SessionConfig:
        return SessionConfig(
            viewport=self.viewport,
            browser=self.browser_config(),
            step_timeout_ms=self.step_timeout_ms,
            park_pointer=self.action_mode in act.COORDINATE_MODES,
        )

    def goal_text(self, task: Any, level_seed: int) -> str:
        """The text the goal arrays hold for `task` on level `level_seed` (`goal_source`)."""
        if self.goal_source == "none":
            return ""
        if self.goal_source == "instruction":
            return str(task.text_for(self.instruction_style, level_seed))
        return str(task.text_for(self.goal_source, level_seed))

    def kwargs(self) -> dict[str, Any]:
        """JSON-ready keyword arguments that re-create this env (traces, replay)."""
        out = self.model_dump(exclude=set(LOCAL_ARGS))
        out["screenshot_size"] = list(self.screenshot_size)
        out["viewport"] = list(self.viewport)
        return out


def _given(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    given = {k: v for k, v in kwargs.items() if not (k == "reward" and v is None)}
    if isinstance(given.get("variation"), Mapping):
        given["variation"] = dict(given["variation"])
    return given


def _problem(err: Any) -> str:
    """What one pydantic error says, with what the argument got."""
    if err["type"] == "extra_forbidden":
        return f"unknown argument; the env takes: {', '.join(EnvConfig.model_fields)}"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict) else "{...}"
    return f"{err['msg'].removeprefix('Value error, ')} (got {shown[:60]})"


def _explain(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown argument {where!r}; {_problem(err).split('; ', 1)[1]}")
        else:
            problems.append(f"{where}: {_problem(err)}")
    return "invalid WebTask-v0 arguments: " + "; ".join(problems)


RESET_OPTIONS = ("family", "task", "difficulty", "level_seed", "variation")
EPISODE_FIELDS = ("family", "task", "difficulty", "variation")  # defaults of reset options


def check_seed(seed: Any) -> int | None:
    """`reset(seed=...)` as Gymnasium takes it: None, or a non-negative int."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer or None, got {_shown(seed)}")
    return int(seed)


def episode_choice(
    options: Mapping[str, Any] | None,
    defaults: Mapping[str, Any],
    seed: int | None,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Which site and task an episode shows: `reset(options=...)` over the env's defaults;
    the level seed is `options["level_seed"]`, else `seed`, else drawn from `rng`."""
    if options is not None and not isinstance(options, Mapping):
        raise ConfigError(
            f"reset options must be a dict such as {{'task': 'shop_open_cart'}}, got"
            f" {_shown(options)}"
        )
    options = dict(options or {})
    unknown = set(options) - set(RESET_OPTIONS)
    if unknown:
        shown = sorted(map(str, unknown))
        raise ConfigError(f"unknown reset option(s) {shown}; known: {', '.join(RESET_OPTIONS)}")
    if options.get("level_seed") is not None:
        level_seed = options["level_seed"]
    elif seed is not None:
        level_seed = seed
    else:
        level_seed = int(rng.integers(0, 2**31 - 1))
    if isinstance(level_seed, bool) or not isinstance(level_seed, int | np.integer):
        raise ConfigError(f"level_seed must be a non-negative integer, got {_shown(level_seed)}")
    chosen = {k: options.get(k, defaults[k]) for k in ("family", "task", "difficulty", "variation")}
    for name in ("family", "task", "difficulty"):
        if not isinstance(chosen[name], str):
            raise ConfigError(
                f"reset option {name!r} must be a name (a string), got {_shown(chosen[name])};"
                f" leave it out to keep the env's {name} {defaults[name]!r}"
            )
    variation = chosen["variation"]
    if variation is not None:
        if not isinstance(variation, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in variation.items()
        ):
            raise ConfigError(
                "reset option 'variation' must map axis names to values, such as"
                f" {{'theme': 'dark'}} (or be None), got {_shown(variation)}"
            )
        chosen["variation"] = dict(variation)
    return {**chosen, "level_seed": int(level_seed)}


def _shown(value: Any) -> str:
    """`value` as an error message quotes it: its repr, cut short (it may be huge)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
