"""Reference agents: the oracle that executes a compiled plan, and a random agent.

Imports the env; evaluation, training and the CLI import it."""

from webfactory_env.agents.oracle import OracleAgent
from webfactory_env.agents.random_agent import RandomAgent

AGENTS = {"oracle": OracleAgent, "random": RandomAgent}

__all__ = ["AGENTS", "OracleAgent", "RandomAgent"]
