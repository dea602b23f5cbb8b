"""`WebTask-v0`: a thin orchestrator over site generation, task compilation, the executor,
observation encoding, actions, the reward simulator and the episode's record keeping."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from webfactory_env import actions as act
from webfactory_env.config import EPISODE_FIELDS, EnvConfig, check_seed, episode_choice
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import BrowserCrashedError, ConfigError, EnvClosedError
from webfactory_env.episode import (
    BrowserStep,
    Episode,
    EpisodeArtifacts,
    StepRecord,
    finish_episode,
    fresh,
    observation_digest,
    state_delta,
    step_info,
)
from webfactory_env.executor.browser import BrowserConfig
from webfactory_env.executor.session import EPOCH_MS, BrowserOp, ObserveConfig, PageSession
from webfactory_env.observation import EpisodeGoal, encode_observation, observation_space
from webfactory_env.reward import RewardSpec
from webfactory_env.sitegen import SiteApp, generate_site
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import CompiledTask
from webfactory_env.tasks.levels import reset_level
from webfactory_env.tasks.library import check_task, compile_in_background

__all__ = ["EpisodeArtifacts", "StepRecord", "WebTaskEnv", "observation_digest", "state_delta"]


class WebTaskEnv(gym.Env):
    """A generated website in headless Chromium, with a task compiled from the DSL.

    ## Description
    A seeded site in a real browser, a task compiled against it, rewards from its goal.

    ## Action Space
    `MultiDiscrete([10, max_elements, max_values])`: a verb (click, type, select, submit,
    press_enter, scroll_down, scroll_up, back, done_success, done_fail), an observed element
    row, a value-table slot (`info["values"]`: type, select); `action_masks()` gives masks.
    `discrete`: an index per valid action (joint masks). `text`: calls like `click(3)`.
    `coordinates`: mouse and keyboard at screenshot-grid points; `coordinates_text`: calls
    like `click(312, 88)` in viewport pixels. Done verbs go to answer or infeasible tasks
    (`done_actions`). Invalid actions cost `invalid_penalty`, say why in `action_error`.

    ## Observation Space
    A `Dict` of fixed-shape arrays: per visible element `tag`, `role`, hashed `text` word
    ids, `bbox` (viewport fractions), `flags`, padding `mask`, `context` (words of its row,
    label, heading); the goal: `goal` (words of `goal_source`'s text), `slots` (words of
    each value slot), `task_id`; in `discrete` mode the `menu`, (verb, element, slot) per
    action; in pixel modes an RGB `screenshot` (`set_of_marks`: element numbers drawn on
    it). `obs_mode`: tokens, pixels, tokens+pixels, text (the page as an indexed tree).

    ## Rewards
    `RewardSpec`: `step_penalty` a step, `invalid_penalty` per invalid action or no-op repeat,
    `subgoal_reward` once per subgoal after its prerequisites, `undo_penalty` when credited
    progress is undone, `success_reward` when the goal holds (`docs/ground-truth.md`).

    ## Starting State / Episode End
    The start page of level seed N (`reset(seed=N)`; `options`: `family`, `task`,
    `difficulty`, `level_seed`); a given level the task cannot compile on raises
    `UncompilableLevelError`, a drawn one is skipped (`info["skipped_levels"]`). Terminated
    on success or a done verb; truncated after `max_steps` or a browser failure (`reason`).

    ## Arguments
    `EnvConfig` validates them and says what each does (the browser draws only for pixels).

    ## Version History
    - v0: first release; goals pinned to entities with provenance since compiler 0.3.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        family: str = "shop",
        task: str = "buy_red_mug",
        difficulty: str = "easy",
        obs_mode: str = "tokens+pixels",
        max_elements: int = 128,
        max_tokens: int = 12,
        vocab_size: int = 4096,
        screenshot_size: tuple[int, int] = (128, 128),
        viewport: tuple[int, int] = (1280, 800),
        max_steps: int = 64,
        max_values: int = 16,
        reward: RewardSpec | Mapping[str, float] | None = None,
        render_mode: str | None = None,
        browser: BrowserConfig | None = None,
        variation: Mapping[str, str] | None = None,
        action_mode: str = "multidiscrete",
        max_chars: int = 8000,
        max_actions: int = 512,
        step_timeout_ms: int = 5_000,
        instruction_style: str = "goal",
        goal_source: str = "instruction",
        goal_tokens: int = 48,
        done_actions: str = "auto",
        end_screenshot: str = "lazy",
        set_of_marks: bool = False,
    ) -> None:
        self.config = EnvConfig.parse({k: v for k, v in locals().items() if k != "self"})
        self.render_mode = render_mode
        self.obs_config = self.config.observation()
        self.action_config = self.config.actions()
        self.observation_space = observation_space(self.obs_config)
        self.action_space = act.action_space(self.action_config)
        self.reward_spec = self.config.reward
        self.max_steps = max_steps
        self._defaults = self.config.model_dump(include={*EPISODE_FIELDS})
        check_task(task, generate_site(family, 0, difficulty, variation))  # bad names fail now
        shot = self.obs_config.screenshot_size if self.obs_config.pixels else None
        # Texts whole up to the text observation's budget: only its ladder shortens them.
        self._observe = ObserveConfig(max_elements, self.obs_config.max_chars, shot)
        self._menu, self._goal = act.ActionMenu(self.action_config), EpisodeGoal(self.obs_config)
        self._session: PageSession | None = None
        self._release: weakref.finalize | None = None
        self.site: Site | None = None
        self.task: CompiledTask | None = None
        self.app: SiteApp | None = None
        self.episode: Episode | None = None
        self._dom: DomSnapshot | None = None
        self._obs: Any = None
        self.level_seed = 0
        self._choice: dict[str, Any] = {**self._defaults, "level_seed": 0}

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None):
        super().reset(seed=check_seed(seed))
        choice = episode_choice(options, self._defaults, seed, self.np_random)
        drawn = seed is None and (options or {}).get("level_seed") is None
        return reset_level(self._start, choice, drawn=drawn)

    def _start(self, choice: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        site = generate_site(
            choice["family"], choice["level_seed"], choice["difficulty"], choice["variation"]
        )
        # The task compiles (pure Python) on a worker thread while Chromium mounts the new
        # site: the main thread only waits on the browser then, so the two overlap.
        compiling = compile_in_background(choice["task"], site)
        self.episode, self.task = None, None  # until the new task is in place, step() refuses
        self.site, self.level_seed, self._choice = site, choice["level_seed"], choice
        self.app = site.new_app(shared_start=True)  # its start page and view: the compiler's
        if self._session is None:  # an env dropped without close() gives its context back
            self._session = PageSession(self.config.session())
            self._release = weakref.finalize(self, self._session.release)
            self._release.atexit = False
        self._dom = self._session.load(
            self.app, seed=self.level_seed, observe=self._observe, clock_ms=EPOCH_MS
        )
        self.task = compiling.result()  # UncompilableLevelError names the level
        self.action_config.check_value_slots(choice["task"], len(self.task.values))
        mode, shot = self.action_config.mode, self.config.end_screenshot
        self.episode = Episode(self.task, self.app, self.reward_spec, self.max_steps, mode, shot)
        self._obs = self._encode(self._dom, self._session.screenshot_for(self._observe))
        return fresh(self._obs), self._info(record=None)

    def step(self, action: Any):
        ep, task, dom_before = self.episode, self.task, self._dom
        if ep is None or dom_before is None or task is None or self._session is None:
            closed = self._session is None and self._release is not None  # close() ended it
            raise EnvClosedError("step()") if closed else ConfigError("call reset() before step()")
        if ep.ended:
            raise ConfigError("the episode has ended; call reset() before stepping again")
        # Before counting the step: an action that is no action at all raises a user error
        # (InvalidActionError) and must leave the episode as it was.
        decoded = act.decode(action, self.action_config, task.values, self._actions(), task)
        ep.begin_step()
        op, refused = (
            (None, decoded) if isinstance(decoded, str) else act.check(decoded, dom_before)
        )
        # One way: the executor acts, the episode concludes the step, then the observation.
        ran = self._perform(op) if op is not None and refused is None else BrowserStep()
        out = ep.conclude(action, decoded, dom_before, op, refused, ran)
        obs = self._observation(ran, out.record)
        info = self._info(record=out.record)
        info.update(action_error=out.error, success=out.outcome.success)
        info["subgoals_newly"] = list(out.outcome.newly)
        if ep.ended:
            # Artifacts while the page is still alive, before anyone tears it down.
            args = (ep, self.session, self._dom, out.outcome.success)
            info.update(finish_episode(*args, out.truncated, ran.crash))
        return obs, out.outcome.reward, out.terminated, out.truncated, info

    def render(self) -> Any:  # an RGB array in "rgb_array" mode, else None
        on = self.render_mode == "rgb_array" and self._session is not None
        return self._session.screenshot_array() if on and self._session else None

    def close(self) -> None:
        if self._release is not None:
            self._release.detach()
        if self._session is not None:
            self._session.close()
            self._session = None

    def action_masks(self) -> np.ndarray:
        """Which actions are valid now, for sb3-contrib's MaskablePPO: per-dimension masks
        (verbs, elements, value slots) in `multidiscrete` mode, one per index in `discrete`."""
        if self._dom is None or self.task is None:
            raise ConfigError("call reset() before action_masks()")
        return self._menu.masks(self._dom, self.task.values, self.task.expects_answer)

    def valid_actions(self) -> list[str]:
        """The `discrete` mode's actions now, in words (index = action)."""
        return [act.describe(d, self.dom) for d in self._actions()]

    def _actions(self) -> list[act.Decoded]:
        values, answers = (self.task.values, self.task.expects_answer) if self.task else ((), 0)
        return self._menu.actions(self._dom, values, bool(answers))

    @property
    def dom(self) -> DomSnapshot:
        """The last DOM snapshot, with its semantic side table (for oracles and tools)."""
        if self._dom is None:
            raise ConfigError("call reset() first")
        return self._dom

    @property
    def session(self) -> PageSession:
        if self._session is None:
            raise ConfigError("call reset() first")
        return self._session

    @property
    def artifacts(self) -> EpisodeArtifacts | None:
        return self.episode.artifacts if self.episode else None

    def screenshot_png(self) -> bytes:
        return self.session.screenshot_png()

    def draw_frames(self) -> None:
        """Draw frames for a wrapper that stores screenshots (before the first reset)."""
        if self._session is not None and not self._session.draws:
            raise ConfigError("screenshots need browser=BrowserConfig(pixels=True) in gym.make")
        self.config = self.config.with_frames()

    def end_on_crash(self, message: str) -> dict[str, Any] | None:
        """The browser failed after `step` returned (a trace recorder's screenshot): end a
        running episode as truncated; the `info` entries that change (see `Episode.crash`)."""
        if self.episode is None or self._dom is None:
            return None
        return self.episode.crash(message, self._dom)

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that re-create this env for the current episode (traces, replay)."""
        episode = {k: v for k, v in self._choice.items() if k != "level_seed"}
        return {**self.config.kwargs(), **episode}

    # ---------------------------------------------------------------- internals
    def _perform(self, op: BrowserOp) -> BrowserStep:
        """A valid action done by one executor call, which observes the page it leads to."""
        assert self._session is not None and self.episode is not None
        clock_ms = EPOCH_MS + self.episode.clock_ms
        try:
            return BrowserStep(self._session.perform(op, observe=self._observe, clock_ms=clock_ms))
        except BrowserCrashedError as exc:
            # The page or the browser died: the episode ends truncated, keeping the last
            # observation, and says why. The next reset relaunches.
            return BrowserStep(crash=str(exc))

    def _observation(self, ran: BrowserStep, record: StepRecord) -> Any:
        """The step's observation, built once the episode has concluded the step: of the page
        the action led to, else of the same page as before (the text view also says how the
        step went; the arrays are the last ones, copied: never the same arrays twice)."""
        assert self._dom is not None
        if ran.result is not None:
            self._dom = ran.result.dom
            self._obs = self._encode(self._dom, ran.result.screenshot, record)
            return self._obs
        if self.obs_config.mode == "text":
            self._obs = self._encode(self._dom, None, record)
        return fresh(self._obs)

    def _encode(
        self, dom: DomSnapshot, screenshot: np.ndarray | None, record: StepRecord | None = None
    ) -> Any:
        cfg, task, ep, level = self.obs_config, self.task, self.episode, self.level_seed
        assert task is not None and ep is not None
        if cfg.mode == "text":  # the goal, the values and how the last step went
            context = ep.context(self.config, level, record)
            return encode_observation(dom, cfg, None, context=context)
        goal = self._goal.arrays(task, level, self.config.goal_text)
        menu = self._menu.rows(dom, task.values, task.expects_answer, cfg.menu_size)
        return encode_observation(dom, cfg, screenshot, goal, menu)

    def _info(self, record: StepRecord | None) -> dict[str, Any]:
        assert self.task is not None and self.site is not None and self._dom is not None
        steps = self.episode.steps if self.episode else 0
        args = (self.task, self.site, self.level_seed, self._dom, steps, self._obs, record)
        return step_info(*args, self.config.instruction_style)
