"""The factory as a verifiers (v1) environment: a seeded taskset over suites, an env whose
`run` plays each episode on the episode host, and a minimal chat harness (extra
`[verifiers]`, in an environment of its own: `./scripts/setup --verifiers`).

    vf eval webfactory-vf -m MODEL --env.taskset.suites '["shop-tasks-test"]'

`WebTaskset` yields one task per suite episode (family, task, difficulty, level seed,
variation); loading it starts no browser and compiles no task, and the same config yields
the same tasks in the same order. `WebEpisodeEnv.run` opens a host session, shows the model
each page as a user turn, reads the action off the last line of its reply with the same
reader the LLM agent uses, and steps the host until the episode ends (the env's own steps
limit truncates it). It records the reward in the host's mode (`success`: 1 or 0; `return`:
the shaped sum) and the reward components, steps and return as metrics. A rollout whose
browser or host broke is an error on its trace and episode, never a reward of 0.
`WebChatHarness` sends each turn's conversation to the model through the rollout's
interception endpoint, in-process: no program to install, no container.
"""

from __future__ import annotations

from typing import Any, Literal

import httpx
import verifiers.v1 as vf

from webfactory_env.llm.prompt import (
    extract_action,
    fallback_action,
    system_prompt,
    user_turn,
    why_unreadable,
)
from webfactory_env.rl.episode import EpisodeSettings, EpisodeSpec, StepReply
from webfactory_env.rl.host import EpisodeHost, HostConfig, HostError
from webfactory_env.rl.rows import suite_specs

TASKSET_ID = "webfactory-vf"  # the plugin id: verifiers imports the top-level `webfactory_vf`


class WebTaskData(vf.TaskData):
    """One suite episode: everything the host needs to play it."""

    family: str
    task: str
    difficulty: str = "easy"
    level_seed: int = 0
    variation: dict[str, str] | None = None

    def spec(self) -> EpisodeSpec:
        return EpisodeSpec(
            self.family, self.task, self.difficulty, self.level_seed, self.variation or None
        )


class WebTask(vf.Task[WebTaskData, vf.State, vf.TaskConfig]):
    """A suite episode; `WebEpisodeEnv.run` scores it from the host's frozen outcome."""

    @property
    def key(self) -> str:
        d = self.data
        axes = sorted((d.variation or {}).items())
        return f"{d.family}/{d.task}/{d.difficulty}/{d.level_seed}/{axes}"


class WebTasksetConfig(vf.TasksetConfig):
    """Which episodes load: the first `episodes` of each suite named, or of every suite of
    `split`, taken in turn from each suite."""

    suites: list[str] | None = None
    split: Literal["train", "test"] = "train"
    episodes: int = 100


class WebTaskset(vf.Taskset[WebTask, WebTasksetConfig]):
    """The suites' episodes as tasks, in a fixed order (see `WebTasksetConfig`)."""

    def load(self) -> list[WebTask]:
        specs = suite_specs(
            self.config.suites, split=self.config.split, episodes=self.config.episodes
        )
        return [
            WebTask(
                WebTaskData(
                    name=f"{s.family}/{s.task}@{s.level_seed}",
                    system_prompt=system_prompt(),
                    family=s.family,
                    task=s.task,
                    difficulty=s.difficulty,
                    level_seed=s.level_seed,
                    variation=dict(s.variation) if s.variation else None,
                ),
                self.config.task,
            )
            for s in specs
        ]


class WebEpisodeEnvConfig(vf.EnvConfig):
    """The player seat (the chat harness, in-process) and how every episode is hosted."""

    taskset: WebTasksetConfig = WebTasksetConfig(id=TASKSET_ID)
    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    max_steps: int = 30
    max_chars: int = 6000
    reward_mode: Literal["success", "return"] = "success"
    max_sessions: int = 16
    call_timeout_s: float = 60.0


class WebEpisodeEnv(vf.Env[WebEpisodeEnvConfig]):
    """Each episode on the episode host, started by `start()` and closed by `stop()`."""

    host: EpisodeHost | None = None

    async def start(self) -> None:
        settings = EpisodeSettings(
            max_steps=self.config.max_steps,
            max_chars=self.config.max_chars,
            reward_mode=self.config.reward_mode,
        )
        self.host = EpisodeHost(
            HostConfig(
                max_sessions=self.config.max_sessions,
                call_timeout_s=self.config.call_timeout_s,
                episode=settings,
            )
        )

    async def stop(self) -> None:
        if self.host is not None:
            self.host.close()
            self.host = None

    async def run(self, task: WebTask, agents: vf.Agents) -> None:
        if self.host is None:
            raise HostError("the env is not serving: run episodes inside `env.serving()`")
        async with self.host.session() as session:
            reply = await self.host.areset(session, task.data.spec())
            notes: list[str] = []
            async with agents.player.interaction(task) as chat:
                while reply.scorable and not reply.done:
                    segment = await chat.turn(user_turn(reply.text, (), notes))
                    if segment.terminated:  # the seat's own limits ended the exchange
                        break
                    action = extract_action(segment.last_reply)
                    notes = [] if action else [why_unreadable(segment.last_reply, False).note]
                    reply = await self.host.astep(
                        session, action or fallback_action(segment.last_reply)
                    )
                if not reply.scorable:  # raised inside: the trace itself records the error
                    raise HostError(f"the episode cannot be scored: {reply.action_error}")
            _score(chat.trace, reply, self.config.reward_mode)


def _score(trace: vf.Trace, reply: StepReply, mode: str) -> None:
    """The frozen outcome as the trace's reward, its parts as metrics. An episode the model
    left unfinished scores what it earned: 0 in `success` mode."""
    outcome = reply.outcome
    if outcome is not None and outcome.reward is not None:
        reward = outcome.reward
    else:
        reward = reply.episode_return if mode == "return" else 0.0
    trace.record_reward(mode, reward)
    trace.record_metrics(
        {
            **reply.metrics,
            "success": float(reply.success),
            "steps": float(reply.step),
            "episode_return": reply.episode_return,
            "subgoals": float(len(reply.subgoals)),
            "truncated": float(outcome.truncated if outcome is not None else True),
        }
    )
    trace.info["outcome"] = outcome.outcome if outcome is not None else "unfinished"


class WebChatHarnessConfig(vf.HarnessConfig):
    """The chat harness's knobs: how long one model call may take."""

    request_timeout_s: float = 600.0


class WebChatHarness(vf.Harness[WebChatHarnessConfig]):
    """One chat completion per segment, sent in-process through the interception endpoint
    (the trace is built there); the conversation so far is the request."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [m.model_dump(mode="json", exclude_none=True) for m in prompt or []]
        async with httpx.AsyncClient(timeout=self.config.request_timeout_s) as client:
            response = await client.post(
                endpoint.rstrip("/") + "/chat/completions",
                json={"model": ctx.model, "messages": messages},
                headers={"Authorization": f"Bearer {secret}"},
            )
        failed = response.status_code != 200
        return vf.ProgramResult(int(failed), "", response.text[-2000:] if failed else "")
