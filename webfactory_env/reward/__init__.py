"""Rewards computed only from a compiled task's predicates over the app's Python state."""

from webfactory_env.reward.simulator import ActionRecord, RewardOutcome, RewardSimulator, RewardSpec

__all__ = ["ActionRecord", "RewardOutcome", "RewardSimulator", "RewardSpec"]
