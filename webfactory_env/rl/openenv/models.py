"""The OpenEnv wire types of a web task: one text action in, the text page and the episode's
numbers out, and the session's episode as its state."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from webfactory_env.rl.episode import StepReply


class WebTaskAction(Action):
    """One text action, as the env's parser reads it: `click(3)`, `type(5, "red mug")`,
    `select(7, "Large")`, `press(5, "Enter")`, `scroll(down)`, `back()`, `done()`."""

    action: str = Field(description='a text action, e.g. click(3) or type(5, "red mug")')
    op_id: str | None = Field(
        default=None,
        max_length=200,
        description="an id for this step: a retry with the same id gets the first result"
        " instead of acting twice",
    )


class WebTaskObservation(Observation):
    """The page as text and where the episode stands. `reward` is this step's reward in the
    server's reward mode (`success`: 1 or 0 at the end; `return`: shaped), None when the
    episode is unscorable (its browser broke: leave it out of the batch, never score it 0).
    Show the model `goal` and `text` (and `action_error`); the rest is for the trainer, and
    would tell a model mid-episode how it is doing."""

    text: str = Field(default="", description="the page as numbered text elements")
    goal: str = Field(default="", description="the task's instruction")
    url: str = Field(default="", description="the page's address")
    step: int = Field(default=0, description="steps taken in this episode")
    max_steps: int = Field(default=0, description="the step budget")
    action_error: str | None = Field(
        default=None, description="why the last action was not carried out, if it was not"
    )
    success: bool = Field(default=False, description="the task's goal holds")
    outcome: str | None = Field(
        default=None,
        description="set once the episode ended: success, soft_fail, hard_fail or unscorable",
    )
    scorable: bool = Field(default=True, description="False: the episode cannot be scored")
    episode_return: float = Field(default=0.0, description="the shaped rewards' sum so far")
    subgoals: list[str] = Field(default_factory=list, description="subgoals reached so far")
    metrics: dict[str, float] = Field(
        default_factory=dict, description="the reward's components so far, `reward/<name>`"
    )


class WebTaskState(State):
    """The session's episode: what was reset, and how it stands."""

    family: str | None = None
    task: str | None = None
    difficulty: str | None = None
    level_seed: int | None = None
    variation: dict[str, str] | None = None
    max_steps: int = 0
    done: bool = False
    success: bool = False
    scorable: bool = True
    outcome: str | None = None
    reward: float | None = Field(default=None, description="the episode's reward once ended")


def observation_of(reply: StepReply) -> WebTaskObservation:
    """The wire observation of a host's reply."""
    outcome = reply.outcome
    extra: dict[str, Any] = {"reason": outcome.reason} if outcome is not None else {}
    # A step past its deadline ends the episode unscorable before the host has frozen it.
    ended = outcome.outcome if outcome is not None else None
    if reply.done and not reply.scorable:
        ended = "unscorable"
    return WebTaskObservation(
        text=reply.text,
        goal=reply.goal,
        url=reply.url,
        step=reply.step,
        max_steps=reply.max_steps,
        action_error=reply.action_error,
        success=reply.success,
        outcome=ended,
        scorable=reply.scorable,
        episode_return=reply.episode_return,
        subgoals=list(reply.subgoals),
        metrics=dict(reply.metrics),
        done=reply.done,
        reward=reply.reward,
        metadata=extra,
    )
