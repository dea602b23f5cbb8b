"""Behaviour cloning from oracle datasets (`webfactory dataset`, `replay.load_dataset`).

`Demonstrations.load(dirs)` reads every step of every successful episode (observation,
multidiscrete action, discounted return); `clone(policy, demos, ...)` fits a
`PointerPolicy` (its pointer network by the log-likelihood of the demonstrated actions
under the factored action model, its value head by the returns), so that a MaskablePPO
model starts from the oracle's behaviour and PPO fine-tunes it. Actions are read as
[verb, element, slot] whatever action mode the policy will act in: the discrete mode's
menu scores rows with the same factored model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from webfactory_env.core.errors import ConfigError
from webfactory_env.policies.sb3 import NEEDED


@dataclass
class Demonstrations:
    """Steps of demonstrated episodes as stacked arrays."""

    observations: dict[str, np.ndarray]
    actions: np.ndarray  # (T, 3) [verb, element, slot]
    returns: np.ndarray  # (T,) discounted return from each step
    episodes: int

    def __len__(self) -> int:
        return len(self.actions)

    @classmethod
    def load(
        cls, paths: Iterable[str | Path], gamma: float = 0.95, successes_only: bool = True
    ) -> Demonstrations:
        from webfactory_env.replay import load_dataset

        obs: dict[str, list[np.ndarray]] = {k: [] for k in NEEDED}
        actions, returns, episodes = [], [], 0
        for path in paths:
            for ep in load_dataset(path):
                if successes_only and not ep.info.get("success"):
                    continue
                missing = [k for k in NEEDED if k not in ep.observations]
                if missing:
                    raise ConfigError(
                        f"{path}: its observations lack {missing}; record it again with "
                        "this version (`webfactory dataset ... --obs-mode tokens`)"
                    )
                t = len(ep.actions)
                for k in NEEDED:
                    obs[k].append(ep.observations[k][:t])
                actions.append(ep.actions.astype(np.int64))
                g, out = 0.0, np.zeros(t)
                for i in range(t - 1, -1, -1):
                    g = float(ep.rewards[i]) + gamma * g
                    out[i] = g
                returns.append(out)
                episodes += 1
        if not episodes:
            raise ConfigError(f"no successful episodes in {list(paths)}")
        return cls(
            observations={k: np.concatenate(v) for k, v in obs.items()},
            actions=np.concatenate(actions),
            returns=np.concatenate(returns),
            episodes=episodes,
        )

    def check_fits(self, space: Any) -> None:
        """Raise a `ConfigError` when the env's observation shapes differ from these."""
        for k in NEEDED:
            want, got = tuple(space[k].shape), self.observations[k].shape[1:]
            if want != got:
                raise ConfigError(
                    f"the demonstrations' {k!r} arrays are {got}, the env's {want}; record "
                    "them with the env settings you train with (max_elements, max_values, "
                    "max_tokens, goal_tokens)"
                )


@dataclass(frozen=True)
class CloneStats:
    epochs: int
    steps: int
    final_loss: float
    accuracy: float  # share of demonstrated actions the greedy factored policy picks


def clone(
    policy: Any,
    demos: Demonstrations,
    *,
    updates: int = 600,
    batch_size: int = 64,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
) -> CloneStats:
    """Fit a `PointerPolicy` to the demonstrations (in place) with `updates` minibatch
    steps (whole passes over the data, at least one), and say how well it fits."""
    demos.check_fits(policy.observation_space)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = policy.pointer
    params = list(net.parameters()) + list(policy.mlp_extractor.parameters())
    params += list(policy.value_net.parameters())
    opt = torch.optim.Adam(params, lr=learning_rate)
    n = len(demos)
    tensors = {k: torch.as_tensor(v) for k, v in demos.observations.items()}
    actions = torch.as_tensor(demos.actions)
    returns = torch.as_tensor(demos.returns, dtype=torch.float32)
    policy.train()
    loss_value = float("nan")
    epochs = max(1, -(-updates * batch_size // n))
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch_size):
            idx = torch.as_tensor(order[start : start + batch_size])
            loss_value = demo_step(policy, opt, tensors, actions, idx, returns, value_coef)
    policy.eval()
    return CloneStats(epochs, n, loss_value, greedy_accuracy(net, tensors, actions))


def demo_step(
    policy: Any,
    opt: torch.optim.Optimizer,
    observations: Mapping[str, torch.Tensor],
    actions: torch.Tensor,
    idx: torch.Tensor,
    returns: torch.Tensor | None = None,
    value_coef: float = 0.5,
) -> float:
    """One minibatch step on demonstrated steps `idx`: their actions' negative
    log-likelihood (and, given `returns`, the value head's error on them); returns the
    negative log-likelihood."""
    out = policy.pointer(trim({k: v[idx] for k, v in observations.items()}))
    nll = -out.log_prob_triples(actions[idx]).mean()
    loss = nll
    if returns is not None:
        value = policy.value_net(policy.mlp_extractor.value(out.context)).squeeze(-1)
        loss = loss + value_coef * torch.nn.functional.mse_loss(value, returns[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    return float(nll.detach())


ELEMENT_KEYS = ("tag", "role", "text", "bbox", "flags", "mask", "context")


def trim(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The batch without the element rows that are padding in every observation (the
    network is the same function of the real rows; cloning runs several times faster)."""
    real = int(batch["mask"].sum(-1).max().item()) if len(batch["mask"]) else 1
    keep = max(real, 1)
    return {k: v[:, :keep] if k in ELEMENT_KEYS else v for k, v in batch.items()}


@torch.no_grad()
def greedy_accuracy(
    net: Any, observations: Mapping[str, torch.Tensor], actions: torch.Tensor
) -> float:
    """Share of actions where the factored policy's most likely verb, element (for that
    verb) and slot (for type/select) are the demonstrated ones."""
    hits = 0
    n = len(actions)
    for start in range(0, n, 256):
        batch = trim({k: v[start : start + 256] for k, v in observations.items()})
        out = net(batch)
        a = actions[start : start + 256].long()
        verb = out.verb.argmax(-1)
        el = out.element.gather(2, a[:, 0, None, None].expand(-1, out.element.shape[1], 1))
        el = el.squeeze(-1).argmax(-1)
        slot = out.slot[torch.arange(len(a)), a[:, 1].clamp(min=0)].argmax(-1)
        pointing = (a[:, 0] <= 4) | (a[:, 0] >= 8)
        typing = (a[:, 0] == 1) | (a[:, 0] == 2)
        ok = (verb == a[:, 0]) & (~pointing | (el == a[:, 1])) & (~typing | (slot == a[:, 2]))
        hits += int(ok.sum())
    return hits / max(n, 1)
