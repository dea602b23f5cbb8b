"""The typed OpenEnv client of a web-task server (one WebSocket session per client)."""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from webfactory_env.rl.openenv.models import WebTaskAction, WebTaskObservation, WebTaskState


class WebTaskClient(EnvClient[WebTaskAction, WebTaskObservation, WebTaskState]):
    """A session on a `webfactory openenv serve` server:

        async with WebTaskClient(base_url="http://127.0.0.1:8000") as env:
            result = await env.reset(family="shop", task="buy_red_mug", level_seed=3)
            result = await env.step(WebTaskAction(action="click(4)"))

    `.sync()` gives the blocking client. Each client is one session (and one browser
    context) on the server until it closes or its socket drops.
    """

    def _step_payload(self, action: WebTaskAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[WebTaskObservation]:
        fields = dict(payload.get("observation") or {})
        fields.update(done=payload.get("done", False), reward=payload.get("reward"))
        observation = WebTaskObservation.model_validate(fields)
        return StepResult(observation=observation, reward=observation.reward, done=observation.done)

    def _parse_state(self, payload: dict[str, Any]) -> WebTaskState:
        return WebTaskState.model_validate(payload)
