"""How PPO fine-tunes a cloned policy: a value warm-up, and an anchor to the demonstrations.

After cloning, the value head has seen only the demonstrations' returns (successes); the
first rollouts' failures surprise it, and with the pointer network shared by actor and
critic, PPO's value loss then reshapes the network the clone's choices come from. For the
first `updates` PPO updates, `value_warmup_callback` freezes the policy's network, so PPO
fits only the critic's own layers (`mlp_extractor.value`, `value_net`) on the rollouts'
returns while the action logits stay exactly as cloned; then it thaws the network.

`demo_anchor_callback` keeps the demonstrations in the objective while PPO moves the
policy (as DAPG does): after each PPO update it takes a few minibatch steps on their
actions' log-likelihood, so what cloning got right is not traded for what PPO fixes.

A fine-tuning run also leaves its advantages as they are (`TrainConfig.normalize_advantage`
off). When every rollout of a good clone succeeds, the advantages are only the critic's
noise (spread ~0.005); SB3's per-minibatch rescale to unit spread turns that noise into
updates of KL 1-2 that undid a clone of 1.00 within 8192 steps (shop_track_parcel).

`FINE_TUNING` holds these settings, as `TrainConfig` fields; `fine_tuning(config)` gives
them to a run (the learning benchmark's BC + PPO column and the generalist's use it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

if TYPE_CHECKING:
    from webfactory_env.training.sb3_config import TrainConfig

# How PPO fine-tunes a clone. The settings before them (learning rate 1e-4, two epochs,
# none of the rest) moved a clone by a KL of 0.002-0.01 per update and left it where
# cloning did; `benchmarks/finetune_ablation.py` takes each back in turn.
FINE_TUNING: dict[str, Any] = {
    "learning_rate": 3e-4,
    "ent_coef": 0.0,
    "n_epochs": 4,
    "value_warmup": 2,  # updates that fit the critic alone first
    "demo_anchor": 4,  # cloning minibatches on the demonstrations after each update
    "normalize_advantage": False,  # the advantages as they are
}


def fine_tuning(config: TrainConfig) -> TrainConfig:
    """`config` with the settings that fine-tune a clone (`FINE_TUNING`)."""
    return replace(config, **FINE_TUNING)


def policy_network(policy: Any) -> list[Any]:
    """The parameters the action logits come from: everything but the critic's own layers."""
    critic = {id(p) for p in policy.value_net.parameters()}
    value_layers = getattr(policy.mlp_extractor, "value", None)
    if value_layers is not None:
        critic |= {id(p) for p in value_layers.parameters()}
    return [p for p in policy.parameters() if id(p) not in critic]


def value_warmup_callback(updates: int) -> Any:
    """An SB3 callback that lets the first `updates` PPO updates train the critic only."""
    from stable_baselines3.common.callbacks import BaseCallback

    class ValueWarmup(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose=0)
            self.rollouts = 0

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            # The update that follows this rollout is number `rollouts` (from 1).
            self.rollouts += 1
            frozen = self.rollouts <= updates
            for p in policy_network(self.model.policy):
                p.requires_grad_(not frozen)

        def _on_training_end(self) -> None:
            for p in policy_network(self.model.policy):
                p.requires_grad_(True)

    return ValueWarmup()


def demo_anchor_callback(
    demos: Any,
    updates: int,
    *,
    after: int = 0,
    learning_rate: float = 1e-4,
    batch_size: int = 64,
    seed: int = 0,
) -> Any:
    """An SB3 callback that, after each PPO update past the first `after`, takes `updates`
    minibatch steps on the log-likelihood of `demos` (`policies.bc.Demonstrations`)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from webfactory_env.policies.bc import demo_step

    observations = {k: torch.as_tensor(v) for k, v in demos.observations.items()}
    actions = torch.as_tensor(demos.actions)
    rng = np.random.default_rng(seed)

    class DemoAnchor(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose=0)
            self.rollouts = 0
            self.opt: torch.optim.Optimizer | None = None

        def _on_step(self) -> bool:
            return True

        def _anchor(self) -> None:
            # Called once an update is done: the next rollout is starting, or training ends.
            if self.rollouts <= after:
                return
            policy = self.model.policy
            if self.opt is None:
                self.opt = torch.optim.Adam(policy_network(policy), lr=learning_rate)
            policy.set_training_mode(True)
            for _ in range(updates):
                idx = torch.as_tensor(rng.choice(len(actions), min(batch_size, len(actions))))
                demo_step(policy, self.opt, observations, actions, idx)
            policy.set_training_mode(False)

        def _on_rollout_start(self) -> None:
            self._anchor()

        def _on_rollout_end(self) -> None:
            self.rollouts += 1

        def _on_training_end(self) -> None:
            self._anchor()

    return DemoAnchor()
