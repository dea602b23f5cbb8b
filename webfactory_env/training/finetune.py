"""How PPO fine-tunes a cloned policy: a value warm-up that leaves the policy as cloned.

After cloning, the value head has seen only the demonstrations' returns (successes); the
first rollouts' failures surprise it, and with the pointer network shared by actor and
critic, PPO's value loss then reshapes the network the clone's choices come from. For the
first `updates` PPO updates, `value_warmup_callback` freezes the policy's network, so PPO
fits only the critic's own layers (`mlp_extractor.value`, `value_net`) on the rollouts'
returns while the action logits stay exactly as cloned; then it thaws the network.
"""

from __future__ import annotations

from typing import Any


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
