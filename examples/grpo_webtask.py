"""GRPO on the factory's websites with TRL: a small instruct model learns to use a site
through tools (click, type_text, select, submit, press, scroll, back, done), rewarded 1 when
the episode's task is done and 0 when not; rollouts whose browser broke are left out of
their group instead of scored 0.

On one GPU (settings in `gpu_config`; a 24 GB card fits Qwen3-1.7B with vLLM colocated):

    ./scripts/setup --trl && pip install vllm    # into .venv-trl, on the GPU machine
    .venv-trl/bin/python examples/grpo_webtask.py --model Qwen/Qwen3-1.7B \
        --suites shop-tasks-train --episodes 500 --output-dir runs/grpo

Against a server instead of an in-process host (`webfactory openenv serve --port 8000
--max-sessions 32`, on this machine or another): add `--server http://127.0.0.1:8000`.

On a CPU, end to end in a minute, with a random one-layer model and a tokenizer made on
the spot (nothing is downloaded; it learns nothing, it shows every part working):

    .venv-trl/bin/python examples/grpo_webtask.py --tiny --max-steps 1 [--server URL]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from webfactory_env.rl import EpisodeHost, EpisodeSettings, HostConfig
from webfactory_env.rl.trl import TOOL_PROMPT, ToolEnvFactory, tool_dataset


def gpu_config(output_dir: str, max_steps: int) -> dict[str, Any]:
    """GRPOConfig settings for one GPU. Every turn (tool results included) counts towards
    `max_completion_length`, so it is large; the tool-calling turns are capped at the
    episode's steps limit."""
    return {
        "output_dir": output_dir,
        "max_steps": max_steps,
        "learning_rate": 1e-6,
        "per_device_train_batch_size": 8,
        "gradient_accumulation_steps": 4,
        "num_generations": 8,  # 8 rollouts of each episode form a group
        "max_completion_length": 8192,
        "max_tool_calling_iterations": 30,
        "mask_truncated_completions": True,  # a rollout cut off mid-episode teaches nothing
        "temperature": 1.0,
        "beta": 0.0,
        "bf16": True,
        "gradient_checkpointing": True,
        "use_vllm": True,
        "vllm_mode": "colocate",
        "vllm_gpu_memory_utilization": 0.35,
        "logging_steps": 1,
        "save_steps": 100,
        "report_to": "none",
    }


def cpu_config(output_dir: str, max_steps: int) -> dict[str, Any]:
    """The smallest run that exercises everything: two rollouts of one episode a step."""
    return {
        "output_dir": output_dir,
        "max_steps": max_steps,
        "learning_rate": 1e-3,
        "per_device_train_batch_size": 2,
        "num_generations": 2,
        "max_completion_length": 256,
        "max_tool_calling_iterations": 4,
        "use_cpu": True,
        "save_strategy": "no",
        "logging_steps": 1,
        "report_to": "none",
    }


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="Qwen/Qwen3-1.7B", help="a chat model with tool calls")
    parser.add_argument("--tiny", action="store_true", help="a random one-layer model, on CPU")
    parser.add_argument("--suites", nargs="*", default=["shop-tasks-train"])
    parser.add_argument("--episodes", type=int, default=500, help="episodes per suite")
    parser.add_argument("--max-steps", type=int, default=200, help="trainer steps")
    parser.add_argument("--episode-steps", type=int, default=30, help="actions per episode")
    parser.add_argument("--output-dir", default="runs/grpo")
    parser.add_argument("--server", help="a `webfactory openenv serve` URL (default: in-process)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory's notice

    from trl import GRPOConfig, GRPOTrainer

    dataset = tool_dataset(args.suites, episodes=1 if args.tiny else args.episodes)
    if args.tiny:
        from webfactory_env.rl.tiny_lm import tiny_model, tiny_tokenizer

        tokenizer = tiny_tokenizer([TOOL_PROMPT])
        model: Any = tiny_model(tokenizer)
        settings = cpu_config(args.output_dir, args.max_steps)
    else:
        from transformers import AutoTokenizer

        tokenizer, model = AutoTokenizer.from_pretrained(args.model), args.model
        settings = gpu_config(args.output_dir, args.max_steps)
    settings["max_tool_calling_iterations"] = min(
        settings["max_tool_calling_iterations"], args.episode_steps
    )
    # One browser context per rollout of a generation batch, all on one Chromium.
    batch = settings["per_device_train_batch_size"]
    rollouts = batch * settings.get("gradient_accumulation_steps", 1)
    if args.server:  # the server's own --max-sessions and steps limit apply
        from webfactory_env.rl.remote import ServerHost

        sessions: Any = ServerHost(args.server)
    else:
        episode = EpisodeSettings(max_steps=args.episode_steps)
        sessions = EpisodeHost(HostConfig(max_sessions=rollouts, episode=episode))
    with sessions, ToolEnvFactory(sessions) as factory:
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            args=GRPOConfig(**settings),
            train_dataset=dataset,
            environment_factory=factory,
        )
        result = trainer.train()
    return dict(result.metrics)


if __name__ == "__main__":
    print(main())
