"""The pointer network as a Stable-Baselines3 policy for sb3-contrib's `MaskablePPO`.

    from sb3_contrib import MaskablePPO
    from webfactory_env.policies.sb3 import PointerPolicy
    model = MaskablePPO(PointerPolicy, env)   # env: WebTask-v0, obs_mode="tokens"

`GoalElementExtractor` (the `features_extractor`) runs `PointerNet` over the observation
and hands on its factored log-probabilities and context; `PointerHead` (in place of SB3's
MLP extractor) turns them into the action distribution's logits: per dimension in
`multidiscrete` mode, one per menu row in `discrete` mode (the observation's `menu`), so
the logit of "type slot 2 into element 17" is computed from element 17's and slot 2's
own vectors. The action net is the identity; the value net reads the context.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from torch import nn

from webfactory_env.core.errors import ConfigError
from webfactory_env.observation.goal import GOAL_KEYS, MENU_KEY
from webfactory_env.policies.pointer import N_VERBS, PointerConfig, PointerNet, PointerOutput

try:  # SB3 is an optional dependency of the package
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
except ImportError as exc:  # pragma: no cover
    raise ImportError(
        "webfactory_env.policies.sb3 needs stable-baselines3 and sb3-contrib: "
        "pip install -e '.[train]'"
    ) from exc

NEEDED = ("tag", "role", "text", "bbox", "flags", "mask", "context", *GOAL_KEYS)


def layers_of_another_version(path: object, detail: str, hint: str = "") -> ConfigError:
    """The error for a saved model whose policy's layers (their names or shapes) are not
    this version's: the pointer policy's inputs change between versions."""
    return ConfigError(
        f"{path}: its policy's layers have other names or shapes than this version's"
        f" ({detail[:240]}): it was saved by another version of webfactory_env or with other"
        " policy settings; train it again with this version (python -m"
        " webfactory_env.training.sb3 ...) or use it with the version that trained it" + hint
    )


def _shapes(space: spaces.Dict) -> tuple[int, int, int]:
    missing = [k for k in NEEDED if k not in space.spaces]
    if missing:
        raise ConfigError(
            f"the pointer policy reads the goal-conditioned tokens observation; missing "
            f"{missing}: make the env with obs_mode='tokens' and goal_source != 'none'"
        )

    def rows(key: str) -> int:
        return int((space[key].shape or (0,))[0]) if key in space.spaces else 0

    return rows("mask"), rows("slots"), rows(MENU_KEY)


class GoalElementExtractor(BaseFeaturesExtractor):
    """Features = [log p(verb), log p(element | verb), log p(slot | element), context,
    menu], flattened (SB3 features are flat vectors)."""

    def __init__(
        self, observation_space: spaces.Dict, dim: int = 64, task_embedding: bool = True
    ) -> None:
        n, s, m = _shapes(observation_space)
        vocab = int(cast(spaces.Box, observation_space["text"]).high.max()) + 1
        features = N_VERBS + n * N_VERBS + n * s + dim + 3 * m
        super().__init__(observation_space, features_dim=features)
        self.net = PointerNet(
            PointerConfig(vocab_size=vocab, dim=dim, task_embedding=task_embedding)
        )
        self.sizes = (n, s, m, dim)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        out = self.net(observations)
        b = out.verb.shape[0]
        parts = [out.verb, out.element.reshape(b, -1), out.slot.reshape(b, -1), out.context]
        if self.sizes[2]:
            parts.append(observations[MENU_KEY].float().reshape(b, -1))
        return torch.cat(parts, -1)


class PointerHead(nn.Module):
    """SB3's `mlp_extractor` slot: features → (action logits, value latent)."""

    def __init__(self, sizes: tuple[int, int, int, int]) -> None:
        super().__init__()
        n, s, m, dim = sizes
        self.sizes = sizes
        self.latent_dim_pi = m if m else N_VERBS + n + s
        self.latent_dim_vf = dim
        self.value = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())

    def split(self, features: torch.Tensor) -> tuple[PointerOutput, torch.Tensor | None]:
        n, s, m, dim = self.sizes
        b = features.shape[0]
        cut = np.cumsum([N_VERBS, n * N_VERBS, n * s, dim])
        out = PointerOutput(
            verb=features[:, : cut[0]],
            element=features[:, cut[0] : cut[1]].reshape(b, n, N_VERBS),
            slot=features[:, cut[1] : cut[2]].reshape(b, n, s),
            context=features[:, cut[2] : cut[3]],
        )
        menu = features[:, cut[3] :].reshape(b, m, 3).round().long() if m else None
        return out, menu

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        out, menu = self.split(features)
        return out.menu_logits(menu) if menu is not None else out.multidiscrete_logits()

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        out, _ = self.split(features)
        return self.value(out.context)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class PointerPolicy(MaskableMultiInputActorCriticPolicy):
    """MaskablePPO's actor-critic with the goal-conditioned pointer network."""

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Space,
        lr_schedule: Any,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("features_extractor_class", GoalElementExtractor)
        kwargs.setdefault("ortho_init", False)
        kwargs.setdefault("net_arch", [])
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        extractor = cast(GoalElementExtractor, self.features_extractor)
        self.mlp_extractor = PointerHead(extractor.sizes)  # type: ignore[assignment]

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.action_net = nn.Identity()  # the head's logits are the distribution's
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    @property
    def pointer(self) -> PointerNet:
        """The network (to warm-start from behaviour cloning, or to read)."""
        return cast(GoalElementExtractor, self.features_extractor).net
