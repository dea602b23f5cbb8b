"""Rewards and success, computed only from a compiled task's goal and subgoals over the
app's Python state, with provenance.

Imports `sitegen` and `tasks`; the env and the checks import it."""

from webfactory_env.reward.simulator import ActionRecord, RewardOutcome, RewardSimulator, RewardSpec

__all__ = ["ActionRecord", "RewardOutcome", "RewardSimulator", "RewardSpec"]
