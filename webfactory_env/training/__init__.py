"""Training integrations: Stable-Baselines3 (`training.sb3`) and Ray RLlib (`training.rllib`).

Both train on `WebTask-v0` as it is: SB3 reads the observation dict and the action masks
directly, RLlib through its env registry. The shared helpers here only choose level seeds.

Imports the env and `agents`; only the CLI, notebooks and benchmarks import it.
"""

from webfactory_env.training.levels import EVAL_SEEDS, TRAIN_SEEDS, LevelSeeds, SeedRange

__all__ = ["EVAL_SEEDS", "TRAIN_SEEDS", "LevelSeeds", "SeedRange"]
