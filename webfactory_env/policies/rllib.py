"""The pointer network as an RLlib `RLModule` (new API stack, PPO), with action masks.

RLlib reads masks from the observation, so `MaskInObservation` adds the env's
`action_masks()` to the observation dict as `action_mask`; `PointerRLModule` runs
`PointerNet`, turns its factored log-probabilities into the action distribution's inputs
(one logit per menu row in `discrete` mode, per dimension in `multidiscrete` mode), and
masks them. The value comes from the network's context vector.

    config.rl_module(rl_module_spec=RLModuleSpec(module_class=PointerRLModule,
                                                 model_config={"dim": 64}))
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import (
    TorchCategorical,
    TorchMultiCategorical,
)
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from webfactory_env.observation.goal import MENU_KEY
from webfactory_env.policies.pointer import PointerConfig, PointerNet

MASK_KEY = "action_mask"
FLOAT_MIN = -3.4e38


class MaskInObservation(gym.ObservationWrapper[Any, Any, Any]):
    """Adds the env's current action masks to the observation dict (`action_mask`)."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        space = env.action_space
        if isinstance(space, gym.spaces.Discrete):
            n = int(space.n)
        else:
            n = int(sum(cast(gym.spaces.MultiDiscrete, space).nvec))
        assert isinstance(env.observation_space, gym.spaces.Dict)
        self.observation_space = gym.spaces.Dict(
            {**env.observation_space.spaces, MASK_KEY: gym.spaces.Box(0.0, 1.0, (n,), np.float32)}
        )

    def observation(self, observation: Any) -> Any:
        masks = self.env.get_wrapper_attr("action_masks")()
        return {**observation, MASK_KEY: masks.astype(np.float32)}


class PointerRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule: masked pointer-network logits and a value from its context."""

    def setup(self) -> None:
        cfg = dict(cast(dict[str, Any], self.model_config or {}))
        space = cast(gym.spaces.Dict, self.observation_space)
        vocab = int(cast(gym.spaces.Box, space["text"]).high.max()) + 1
        dim = int(cfg.get("dim", 64))
        self.net = PointerNet(PointerConfig(vocab_size=vocab, dim=dim))
        self.value = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, 1))
        self.menu = MENU_KEY in space.spaces
        act = self.action_space
        if isinstance(act, gym.spaces.MultiDiscrete):
            lens = [int(x) for x in act.nvec]
            self.action_dist_cls = TorchMultiCategorical.get_partial_dist_cls(  # type: ignore[misc]
                space=act, input_lens=lens
            )
        else:
            self.action_dist_cls = TorchCategorical

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        out = self.net(obs)
        logits = out.menu_logits(obs[MENU_KEY]) if self.menu else out.multidiscrete_logits()
        mask = obs[MASK_KEY].float()
        logits = logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: out.context}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.net(batch[Columns.OBS]).context
        return self.value(embeddings).squeeze(-1)
