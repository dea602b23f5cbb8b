"""What each PPO update saw and did: rollout outcomes, advantage and value scales, entropy, KL.

`ppo_log_callback(rows)` returns an SB3 callback that appends one row per PPO update to
`rows`. The rollout's part is measured once the rollout is collected, before the update:
episodes ended and their success share, the raw advantages' and returns' scale, how well
the value head's predictions explained the returns (`value_explained`, 1 is perfect, 0 no
better than their mean, negative worse), the value error, and the masked policy's entropy
on the rollout's observations (near 0: the policy samples what it would pick greedily,
PPO sees no alternative). The update's part is SB3's own figures for it: `approx_kl`,
`clip_fraction`, `value_loss`, `policy_gradient_loss`, `entropy` (the negative of SB3's
`entropy_loss`). A run's summary carries the rows (`summary.json`, `ppo_updates`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

# SB3's logger keys for one update, and the names the rows give them.
TRAIN_KEYS = {
    "train/approx_kl": "approx_kl",
    "train/clip_fraction": "clip_fraction",
    "train/value_loss": "value_loss",
    "train/policy_gradient_loss": "policy_gradient_loss",
    "train/entropy_loss": "entropy",
}


def _explained(values: np.ndarray, returns: np.ndarray) -> float:
    var = float(np.var(returns))
    return float("nan") if var == 0 else 1.0 - float(np.var(returns - values)) / var


@torch.no_grad()
def rollout_entropy(policy: Any, buffer: Any, batch: int = 256) -> float:
    """The mean entropy of the masked action distribution over the buffer's observations
    (read in place: the buffer is left as PPO will use it, and no random draw is made)."""
    obs = {k: v.reshape(-1, *v.shape[2:]) for k, v in buffer.observations.items()}
    masks = getattr(buffer, "action_masks", None)
    masks = masks.reshape(len(next(iter(obs.values()))), -1) if masks is not None else None
    n = len(next(iter(obs.values())))
    total = 0.0
    for start in range(0, n, batch):
        part = {k: torch.as_tensor(v[start : start + batch]) for k, v in obs.items()}
        kwargs = {} if masks is None else {"action_masks": masks[start : start + batch]}
        total += float(policy.get_distribution(part, **kwargs).entropy().sum())
    return total / max(n, 1)


def rollout_row(model: Any, ended: list[tuple[float, bool]]) -> dict[str, float]:
    """The figures of the rollout just collected (before PPO updates on it)."""
    buf = model.rollout_buffer
    adv = buf.advantages.flatten()
    returns = buf.returns.flatten()
    values = buf.values.flatten()
    rewards = buf.rewards.flatten()
    row = {
        "timesteps": float(model.num_timesteps),
        "episodes": float(len(ended)),
        "rollout_success": float(np.mean([s for _, s in ended])) if ended else float("nan"),
        "episode_return": float(np.mean([r for r, _ in ended])) if ended else float("nan"),
        "reward_mean": float(rewards.mean()),
        "advantage_mean": float(adv.mean()),
        "advantage_std": float(adv.std()),
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
        "value_mean": float(values.mean()),
        "value_rmse": float(np.sqrt(np.mean((returns - values) ** 2))),
        "value_explained": _explained(values, returns),
    }
    was_training = model.policy.training
    model.policy.set_training_mode(False)
    row["policy_entropy"] = rollout_entropy(model.policy, buf)
    model.policy.set_training_mode(was_training)
    return row


def ppo_log_callback(rows: list[dict[str, float]], say: Callable[[str], Any] | None = None) -> Any:
    """An SB3 callback that appends one row per PPO update to `rows` (see the module doc)
    and, given `say`, prints each update's line."""
    from stable_baselines3.common.callbacks import BaseCallback

    class PPOLog(BaseCallback):
        def __init__(self) -> None:
            super().__init__(verbose=0)
            self._ended: list[tuple[float, bool]] = []

        def _take_update(self) -> None:
            # SB3 records an update's figures after it and dumps them after the next
            # rollout: read them before the next rollout starts (and at the end).
            if rows and "approx_kl" not in rows[-1]:
                logged = self.model.logger.name_to_value
                for key, name in TRAIN_KEYS.items():
                    if key in logged:
                        value = float(logged[key])
                        rows[-1][name] = -value if key == "train/entropy_loss" else value
                if say is not None:
                    say(f"  update {len(rows)}: {update_line(rows[-1])}")

        def _on_rollout_start(self) -> None:
            self._take_update()
            self._ended = []

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=False):
                if done and "episode" in info:
                    self._ended.append((float(info["episode"]["r"]), bool(info.get("success"))))
            return True

        def _on_rollout_end(self) -> None:
            rows.append(rollout_row(self.model, self._ended))

        def _on_training_end(self) -> None:
            self._take_update()

    return PPOLog()


def update_line(row: dict[str, float]) -> str:
    """One update's figures, as the trainer prints them."""
    kl, clipped = row.get("approx_kl", float("nan")), row.get("clip_fraction", float("nan"))
    return (
        f"rollout success {row['rollout_success']:.2f}, entropy {row['policy_entropy']:.2f}, "
        f"value explains {row['value_explained']:.2f} (rmse {row['value_rmse']:.2f}), "
        f"advantage std {row['advantage_std']:.2f}, KL {kl:.4f}, clipped {clipped:.2f}"
    )


def describe(rows: list[dict[str, float]]) -> str:
    """One line on the first and last updates: what a user reads to see whether PPO moved."""
    if not rows:
        return "no PPO update"
    return f"PPO first update: {update_line(rows[0])}; last ({len(rows)}): {update_line(rows[-1])}"
