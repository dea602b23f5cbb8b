"""Policies that read the goal: a goal-conditioned element encoder with a pointer action
head (`pointer`), its Stable-Baselines3 policy (`sb3`), and behaviour cloning (`bc`).

Imports torch (and SB3 for `sb3`) lazily; nothing in the env imports this package."""

from webfactory_env.policies.pointer import PointerConfig, PointerNet

__all__ = ["PointerConfig", "PointerNet"]
