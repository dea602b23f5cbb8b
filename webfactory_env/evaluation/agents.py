"""Agents an evaluation can run: the reference agents by name, SB3 models by `sb3:PATH`,
and language models behind any OpenAI-compatible endpoint by `openai:MODEL`."""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.evaluation.schema import AgentInfo, LLMSettings

AGENT_CHOICES = ("oracle", "random", "sb3:PATH", "openai:MODEL")
# The screenshot a vision model gets, (height, width): the default viewport's own size.
SCREEN_SIZE = (800, 1280)


@dataclass(frozen=True)
class LLMOptions:
    """Settings of an `openai:MODEL` agent. `base_url` and `api_key` default to the
    `OPENAI_BASE_URL` and `OPENAI_API_KEY` environment variables; prices are USD per million
    tokens (no prices: no cost)."""

    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0
    max_attempts: int = 4
    retry_base_s: float = 1.0
    retry_budget_s: float = 60.0
    history: int = 8
    max_malformed: int = 5
    max_chars: int = 8000
    price_input: float | None = None
    price_output: float | None = None
    # What the model sees: `text` (the page tree) or `screenshot` (an image, acting at its
    # points; with `set_of_marks` naming the numbered marks drawn on it instead); with
    # `tool_calls` it acts by calling the computer function rather than in text.
    observation: Literal["text", "screenshot"] = "text"
    set_of_marks: bool = False
    tool_calls: bool = False


# The algorithms tried, in order, when the zip's metadata does not name one.
SB3_ALGORITHMS = ("PPO", "MaskablePPO", "A2C")


@dataclass
class AgentSpec:
    """A parsed `--agent` argument, ready to make one policy per episode."""

    info: AgentInfo
    # WebTask-v0 keyword arguments the agent needs (an SB3 model's observation shapes).
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    model: Any = None
    llm: LLMOptions | None = None

    @property
    def name(self) -> str:
        return self.info.spec

    def make_policy(self, env: gym.Env[Any, Any], seed: int) -> Any:
        """A fresh policy for one episode on `env` (seeded by the episode's level seed)."""
        if self.info.kind == "sb3":
            return SB3Policy(self.model, env, masked=self.info.algorithm == "MaskablePPO")
        if self.info.kind == "openai":
            from webfactory_env.llm import LLMAgent

            assert self.llm is not None and self.model is not None
            if self.llm.observation == "screenshot":
                from webfactory_env.llm.screen import ScreenAgent

                return ScreenAgent(
                    env,
                    self.model,
                    marks=self.llm.set_of_marks,
                    tool_calls=self.llm.tool_calls,
                    seed=seed,
                    history=self.llm.history,
                    max_malformed=self.llm.max_malformed,
                )
            return LLMAgent(
                env,
                self.model,
                seed=seed,
                history=self.llm.history,
                max_malformed=self.llm.max_malformed,
            )
        from webfactory_env.agents import AGENTS

        return AGENTS[self.info.kind](env, seed=seed)


def parse_agent(
    spec: str, llm: LLMOptions | None = None, environ: Mapping[str, str] | None = None
) -> AgentSpec:
    """`random`, `oracle`, `sb3:PATH` or `openai:MODEL` (with `llm` settings) → an
    `AgentSpec`; a clear error for anything else."""
    if spec in ("random", "oracle"):
        return AgentSpec(AgentInfo(spec=spec, kind=spec))  # type: ignore[arg-type]
    if spec.startswith("sb3:"):
        return load_sb3_agent(spec[len("sb3:") :], spec=spec)
    if spec.startswith("openai:"):
        return load_llm_agent(spec[len("openai:") :], llm or LLMOptions(), environ)
    raise UnknownNameError("agent", spec, AGENT_CHOICES)


def load_llm_agent(
    model: str, options: LLMOptions, environ: Mapping[str, str] | None = None
) -> AgentSpec:
    """An agent that asks `model` at an OpenAI-compatible endpoint for every action."""
    from webfactory_env.llm import ChatClient, ChatConfig, RetryPolicy
    from webfactory_env.llm.prompt import prompt_digest, system_prompt
    from webfactory_env.llm.screen import screen_prompt

    env = os.environ if environ is None else environ
    model = model.strip()
    if not model:
        raise ConfigError(
            "--agent openai:MODEL needs the model's name as the endpoint knows it,"
            " e.g. --agent openai:qwen2.5-7b-instruct"
        )
    base_url = options.base_url or env.get("OPENAI_BASE_URL", "")
    if not base_url:
        raise ConfigError(
            "--agent openai:MODEL needs the endpoint: set OPENAI_BASE_URL or pass --base-url"
            " (e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama)"
        )
    for name, value, low in (
        ("--max-tokens", options.max_tokens, 1),
        ("--history", options.history, 0),
        ("--max-malformed", options.max_malformed, 1),
        ("--max-chars", options.max_chars, 200),
    ):
        if value < low:
            raise ConfigError(f"{name} must be at least {low}, got {value}")
    if not options.timeout_s > 0:
        raise ConfigError(f"--request-timeout must be positive, got {options.timeout_s:g}")
    for name, price in (
        ("--price-input", options.price_input),
        ("--price-output", options.price_output),
    ):
        if price is not None and price < 0:
            raise ConfigError(f"{name} cannot be negative, got {price:g}")
    screen = options.observation == "screenshot"
    if options.observation not in ("text", "screenshot"):
        raise ConfigError(f"--obs takes text or screenshot, got {options.observation!r}")
    if not screen and (options.set_of_marks or options.tool_calls):
        raise ConfigError("--set-of-marks and --tool-calls go with --obs screenshot")
    retry = RetryPolicy(
        max_attempts=options.max_attempts,
        base_s=options.retry_base_s,
        budget_s=options.retry_budget_s,
    )
    chat = ChatConfig(
        base_url=base_url,
        model=model,
        api_key=options.api_key or env.get("OPENAI_API_KEY") or None,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        timeout_s=options.timeout_s,
        retry=retry,
    )
    client = ChatClient(chat)  # checks the base URL
    settings = LLMSettings(
        model=model,
        base_url=chat.display_url,
        temperature=chat.temperature,
        max_tokens=chat.max_tokens,
        timeout_s=chat.timeout_s,
        max_attempts=retry.max_attempts,
        retry_budget_s=retry.budget_s,
        history=options.history,
        max_malformed=options.max_malformed,
        price_input_per_mtok=options.price_input,
        price_output_per_mtok=options.price_output,
        prompt_sha256=prompt_digest(
            screen_prompt(marks=options.set_of_marks, tool_calls=options.tool_calls)
            if screen
            else system_prompt()
        ),
        observation=options.observation,
        set_of_marks=options.set_of_marks,
        tool_calls=options.tool_calls,
    )
    info = AgentInfo(spec=f"openai:{model}", kind="openai", llm=settings)
    env_kwargs: dict[str, Any] = {
        "obs_mode": "text",
        "action_mode": "text",
        "max_chars": options.max_chars,
    }
    if screen:  # the screenshot at the viewport's own size: its pixels are the points
        env_kwargs = {
            "obs_mode": "pixels",
            "screenshot_size": SCREEN_SIZE,
            "action_mode": "text" if options.set_of_marks else "coordinates_text",
            "set_of_marks": options.set_of_marks,
        }
    return AgentSpec(info, env_kwargs=env_kwargs, model=client, llm=options)


def episode_obs_mode(agent: AgentSpec, obs_mode: str | None) -> str:
    """The observation mode `agent`'s episodes run in: `obs_mode` when one is asked for,
    else the agent's own (a model's), else tokens. A model shown screenshots on an env that
    draws none is refused here, before any browser starts, not at its first step."""
    if obs_mode is None:
        return str(agent.env_kwargs.get("obs_mode", "tokens"))
    if agent.llm is not None and agent.llm.observation == "screenshot" and "pixels" not in obs_mode:
        raise ConfigError(
            f"--obs screenshot shows the model a screenshot, and --obs-mode {obs_mode} draws"
            " none: leave --obs-mode out (a screenshot model observes pixels) or give"
            " --obs-mode pixels (or tokens+pixels)"
        )
    return obs_mode


def llm_prices(options: LLMOptions | None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, when either is given."""
    if options is None or (options.price_input is None and options.price_output is None):
        return None
    return (options.price_input or 0.0, options.price_output or 0.0)


def load_sb3_agent(path: str, *, spec: str | None = None) -> AgentSpec:
    """Load a Stable-Baselines3 (or sb3-contrib MaskablePPO) model saved with `model.save()`.

    The algorithm comes from the zip's metadata (a maskable policy class means MaskablePPO;
    PPO's hyper-parameters mean PPO); failing that, PPO, MaskablePPO and A2C are tried in
    turn. The env settings (observation mode and shapes, action mode) are read off the
    model's spaces, so the evaluation env is the one the model was trained on.
    """
    file = Path(path)
    if not path:
        raise ConfigError("sb3: needs a model file: --agent sb3:PATH/TO/model.zip")
    if not file.is_file() and file.suffix != ".zip" and file.with_suffix(".zip").is_file():
        file = file.with_suffix(".zip")  # SB3's save() adds .zip: accept the name without it
    if not file.is_file():
        raise ConfigError(
            f"SB3 model file {path!r} does not exist; pass --agent sb3:PATH with the .zip"
            " that model.save() wrote"
        )
    order = _algorithm_order(file)  # a file that is no SB3 zip fails here, before torch loads
    try:
        import sb3_contrib
        import stable_baselines3
    except ImportError:
        raise ConfigError(
            "--agent sb3:PATH needs stable-baselines3 and sb3-contrib; install them with"
            " pip install 'webfactory-env[train]'"
        ) from None
    candidates: dict[str, Any] = {
        "PPO": stable_baselines3.PPO,
        "A2C": stable_baselines3.A2C,
        "MaskablePPO": sb3_contrib.MaskablePPO,
    }
    model, algorithm, errors = None, None, []
    for name in order:
        try:
            model = candidates[name].load(str(file), device="cpu")
        except Exception as exc:  # a zip of another algorithm fails in many ways
            errors.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        algorithm = name
        break
    if model is None or algorithm is None:
        reshaped = [
            line.strip()
            for e in errors
            for line in e.splitlines()
            if any(sign in line for sign in ("size mismatch", "Unexpected key", "Missing key"))
        ]
        if reshaped:  # the zip's algorithm and policy class load, its weights do not fit
            from webfactory_env.policies.sb3 import layers_of_another_version

            raise layers_of_another_version(path, reshaped[0])
        raise ConfigError(
            f"{path}: not a model PPO, MaskablePPO or A2C can load ({'; '.join(errors)[:500]})"
        )
    _refuse_other_layers(file, model, path)
    info = AgentInfo(
        spec=spec or f"sb3:{path}",
        kind="sb3",
        path=str(file),
        algorithm=algorithm,
        sha256=hashlib.sha256(file.read_bytes()).hexdigest(),
    )
    return AgentSpec(info, env_kwargs=env_kwargs_for(model), model=model)


def _refuse_other_layers(file: Path, model: Any, path: str) -> None:
    """A `ConfigError` when the zip's policy lacks layers this policy has. SB3 loads such a
    zip anyway, after a warning, with those layers as initialised: an evaluation would
    measure weights nobody trained. (A layer this policy has not fails SB3's load.)"""
    import torch

    with zipfile.ZipFile(file) as z:
        # Tensors only, whatever TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD says: the zip is others'.
        saved = torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)
    missing = sorted(set(model.policy.state_dict()) - set(saved))
    if missing:
        from webfactory_env.policies.sb3 import layers_of_another_version

        raise layers_of_another_version(path, f"missing {missing[:3]}")


def _algorithm_order(file: Path) -> list[str]:
    """Algorithms to try, the one the zip's metadata points at first."""
    order = list(SB3_ALGORITHMS)
    try:
        with zipfile.ZipFile(file) as z:
            data = json.loads(z.read("data"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise ConfigError(
            f"{file}: not an SB3 model zip (no readable `data` entry); pass the .zip"
            " that model.save() wrote"
        ) from None
    policy = data.get("policy_class") or {}
    module = str(policy.get("__module__", "")) if isinstance(policy, dict) else ""
    if module.startswith("sb3_contrib.common.maskable"):
        first = "MaskablePPO"
    elif "clip_range" in data:
        first = "PPO"
    elif module.startswith("stable_baselines3") and "n_steps" in data:
        first = "A2C"
    else:
        return order
    order.remove(first)
    return [first, *order]


# The env settings a model zip carries (`training.sb3` saves them) that evaluation reuses;
# the family, task and levels come from the suite.
CARRIED = (
    "obs_mode",
    "action_mode",
    "done_actions",
    "max_steps",
    "max_elements",
    "max_tokens",
    "max_values",
    "max_actions",
    "vocab_size",
    "goal_source",
    "goal_tokens",
    "instruction_style",
)


def env_kwargs_for(model: Any) -> dict[str, Any]:
    """WebTask-v0 keyword arguments whose spaces match the model's: the env settings the
    zip carries, else read off its spaces (best effort)."""
    carried = getattr(model, "webfactory_env", None)
    if isinstance(carried, dict) and isinstance(carried.get("env_kwargs"), dict):
        return {k: v for k, v in carried["env_kwargs"].items() if k in CARRIED}
    obs_space, act_space = model.observation_space, model.action_space
    kwargs: dict[str, Any] = {}
    if isinstance(obs_space, spaces.Dict):
        parts = obs_space.spaces
        tokens, pixels = "tag" in parts, "screenshot" in parts
        kwargs["obs_mode"] = (
            "tokens+pixels" if tokens and pixels else "pixels" if pixels else "tokens"
        )
        if tokens and "goal" not in parts:
            kwargs["goal_source"] = "none"  # a model trained before goal observations
        if tokens:
            text = parts["text"]
            assert isinstance(text, spaces.Box)
            n, k = text.shape
            kwargs["max_elements"] = int(n)
            kwargs["max_tokens"] = int(k)
            kwargs["vocab_size"] = int(np.max(text.high)) + 1
        if pixels:
            shot = parts["screenshot"]
            assert isinstance(shot, spaces.Box)
            h, w, _ = shot.shape
            kwargs["screenshot_size"] = (int(h), int(w))
    if isinstance(act_space, spaces.MultiDiscrete):
        nvec = [int(x) for x in np.asarray(act_space.nvec).reshape(-1)]
        kwargs["action_mode"] = "multidiscrete"
        kwargs["max_elements"] = nvec[1]
        kwargs["max_values"] = nvec[2]
    elif isinstance(act_space, spaces.Discrete):
        kwargs["action_mode"] = "discrete"
        kwargs["max_actions"] = int(act_space.n)
    return kwargs


class SB3Policy:
    """Deterministic actions of a loaded SB3 model; MaskablePPO gets the env's masks."""

    def __init__(self, model: Any, env: gym.Env[Any, Any], *, masked: bool) -> None:
        self.model = model
        self.env = env.unwrapped
        self.masked = masked

    def reset(self) -> None:
        pass

    def act(self, obs: Any, info: dict[str, Any] | None = None) -> Any:
        if self.masked:
            masks = self.env.action_masks()  # type: ignore[attr-defined]
            action, _ = self.model.predict(obs, deterministic=True, action_masks=masks)
        else:
            action, _ = self.model.predict(obs, deterministic=True)
        return action
