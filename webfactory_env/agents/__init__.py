"""Reference agents: the oracle that executes a compiled plan, and a random agent.

Imports the env; evaluation, training and the CLI import it."""

from typing import Any, Protocol

import gymnasium as gym

from webfactory_env.agents.oracle import OracleAgent
from webfactory_env.agents.random_agent import RandomAgent


class Agent(Protocol):
    """What `AGENTS` make: `reset()` at each episode's start, then `act` on each step."""

    def reset(self) -> None: ...

    def act(self, obs: Any = None, info: dict[str, Any] | None = None) -> Any: ...


class AgentFactory(Protocol):
    """An agent class by its name in `AGENTS`: made for an env, with a seed."""

    def __call__(self, env: gym.Env[Any, Any], seed: int | None = ...) -> Agent: ...


AGENTS: dict[str, AgentFactory] = {"oracle": OracleAgent, "random": RandomAgent}

__all__ = ["AGENTS", "Agent", "AgentFactory", "OracleAgent", "RandomAgent"]
