"""How an episode ended (success / soft_fail / hard_fail), and what it left behind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.errors import BrowserCrashedError
from webfactory_env.episode.records import error_event
from webfactory_env.executor.session import PageSession
from webfactory_env.observation import render_text
from webfactory_env.tasks.frame import beyond_goal

if TYPE_CHECKING:
    from webfactory_env.episode import Episode

EndScreenshot = Literal["lazy", "full", "none"]


@dataclass
class EpisodeArtifacts:
    """What an ended episode left behind, captured before the page could go away.

    The page text and the errors are always kept. The full-size screenshot depends on the
    env's `end_screenshot`: `full` captures it as the episode ends; `lazy` (the default)
    captures it on the first read of `screenshot_png`, from the page the episode ended on,
    which the env keeps until its next `reset` or `close` (a training loop that never
    reads it never pays for it); read after that, it is None. `none` never captures one.
    """

    outcome: str
    reason: str
    page_text: str
    errors: list[dict[str, Any]] = field(default_factory=list)
    shot: bytes | None = None
    capture: Callable[[], bytes | None] | None = field(default=None, repr=False, compare=False)

    @property
    def screenshot_png(self) -> bytes | None:
        if self.shot is None and self.capture is not None:
            capture, self.capture = self.capture, None
            try:
                self.shot = capture()
            except BrowserCrashedError as exc:
                self.errors.append(error_event("browser", str(exc), -1))
        return self.shot


@dataclass(frozen=True)
class Ending:
    """How an episode ended, as the env saw it."""

    success: bool
    truncated: bool
    crash: str | None
    agent: Mapping[str, Any]
    max_steps: int
    reached: int
    subgoals: int
    route: str
    frame: tuple[str, ...] = ()  # the goal was done, but this changed too (not success)


def classify_ending(
    ending: Ending,
    shot: bytes | Callable[[], bytes | None] | None,
    dom: DomSnapshot,
    errors: list[dict[str, Any]],
) -> tuple[EpisodeArtifacts, dict[str, Any]]:
    """The episode's outcome (success / soft_fail / hard_fail: a failure is soft when it
    left artifacts and an actionable reason), its artifacts, and the `info` entries
    (`artifacts.screenshot`: one was taken, or can be read until the next reset)."""
    page_text = render_text(dom, 4000)
    progress = f"{ending.reached} of {ending.subgoals} subgoals reached"
    agent = ending.agent
    if ending.success:
        reason = "the task was done"
    elif ending.crash is not None:
        reason = f"the browser failed: {ending.crash}"
    elif agent["done"]:
        said = f': "{agent["answer"][:200]}"' if agent["answer"] else ""
        reason = (
            "the agent gave up"
            if not agent["claimed"]
            else "the agent claimed success, but the task was not done"
        ) + said
    elif ending.truncated:
        reason = f"ran out of steps (max_steps={ending.max_steps})"
    else:
        reason = ""
    reason += f"; {beyond_goal(ending.frame)}" if ending.frame and reason else ""
    if reason and not ending.success:
        reason += f"; {progress}; last page {ending.route}"
    has_artifacts = shot is not None or bool(page_text)
    outcome = (
        "success" if ending.success else "soft_fail" if has_artifacts and reason else "hard_fail"
    )
    artifacts = EpisodeArtifacts(
        outcome=outcome,
        reason=reason,
        page_text=page_text,
        errors=list(errors),
        shot=shot if isinstance(shot, bytes) else None,
        capture=None if isinstance(shot, bytes) else shot,
    )
    info = {
        "outcome": outcome,
        "reason": reason,
        **({"frame": list(ending.frame)} if ending.frame else {}),  # what else changed
        "artifacts": {
            "screenshot": shot is not None,
            "page_text": page_text,
            "errors": list(errors),
        },
    }
    return artifacts, info


def finish_episode(
    episode: Episode,
    session: PageSession,
    dom: DomSnapshot,
    success: bool,
    truncated: bool,
    crash: str | None,
) -> dict[str, Any]:
    """Keep the ended episode's artifacts while the page is still alive and classify the
    ending; the `info` entries. The screenshot (`episode.end_screenshot`) is taken now
    (`full`), on first read while the page is unchanged (`lazy`, see `EpisodeArtifacts`),
    or never (`none`, when the browser is what failed, or when it draws no frames)."""
    shot: bytes | Callable[[], bytes | None] | None = None
    can_shoot = crash is None and session.draws  # a browser that draws nothing has none
    if can_shoot and episode.end_screenshot == "lazy":
        shot = session.deferred_screenshot()
    elif can_shoot and episode.end_screenshot == "full":
        try:
            shot = session.screenshot_png()
        except BrowserCrashedError as exc:
            episode.note_error("browser", str(exc))
    return episode.finish(success, truncated, crash, shot, dom)
