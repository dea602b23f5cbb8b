"""TRL's GRPOTrainer trains on hosted episodes through `WebTaskToolEnv`: a random-weights
tiny Qwen3 and a tokenizer built here (nothing is downloaded), its `generate` replaced by a
scripted policy, rewards from the env's frozen outcomes, no session left behind.

Runs in the TRL venv (`./scripts/setup --trl`; `./scripts/test` runs it there); the main
venv, which has no TRL, skips it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

pytest.importorskip("trl", reason="no TRL here: ./scripts/setup --trl makes .venv-trl")

import torch
from datasets import Dataset
from transformers import PreTrainedTokenizerFast
from trl import GRPOConfig, GRPOTrainer

from webfactory_env.actions.text import parse_call, unquote
from webfactory_env.rl import ENDED, EpisodeHost, EpisodeSpec, HostConfig, oracle_run, shared_host
from webfactory_env.rl.tiny_lm import tiny_model, tiny_tokenizer
from webfactory_env.rl.trl import TOOL_PROMPT, ToolEnvFactory, WebTaskToolEnv, episode_row

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPEC = EpisodeSpec("shop", "shop_track_parcel", difficulty="easy", level_seed=1)
GIVE_UP = 'done(false, "this cannot be done")'
AFTER_END = "click(1)"  # a call the model makes after its episode ended


@pytest.fixture(scope="module")
def oracle():
    return oracle_run(SPEC)


@pytest.fixture
def host() -> Iterator[EpisodeHost]:
    made = EpisodeHost(HostConfig(max_sessions=5, idle_timeout_s=None, call_timeout_s=60))
    yield made
    made.close()


def tool_call(action: str) -> str:
    """The model's tool call for one of the env's text actions (the reverse of a tool)."""
    call = parse_call(action)
    assert not isinstance(call, str), call
    name, args = call
    values = [tok for _, tok in args.positional]
    if name == "click":
        tool, arguments = "click", {"element": int(values[0])}
    elif name == "type":
        tool, arguments = "type_text", {"element": int(values[0]), "text": unquote(values[1])}
    elif name == "done":
        message = unquote(values[1]) if len(values) > 1 else ""
        tool, arguments = "done", {"success": values[0] == "true", "message": message}
    else:
        raise AssertionError(f"the scripted policy has no tool call for {action}")
    return f"<tool_call>\n{json.dumps({'name': tool, 'arguments': arguments})}\n</tool_call>"


class ScriptedPolicy:
    """Replaces `model.generate`: the first two rollouts of each group play the oracle's
    actions, the other two give up at once; each then makes one more call, after its
    episode has ended, and stops."""

    def __init__(self, tokenizer: PreTrainedTokenizerFast, oracle_actions: tuple[str, ...]):
        self.tokenizer = tokenizer
        self.scripts = {
            "oracle": [*oracle_actions, AFTER_END],
            "give_up": [GIVE_UP, AFTER_END],
        }

    def __call__(self, input_ids: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        replies = []
        for row, ids in enumerate(input_ids.tolist()):
            text = self.tokenizer.decode(ids)
            turns = text.count("<tool_response>")  # tool results so far
            if turns == 0:
                script = self.scripts["oracle" if row % 4 < 2 else "give_up"]
            else:
                script = self.scripts["give_up" if tool_call(GIVE_UP) in text else "oracle"]
            reply = tool_call(script[turns]) if turns < len(script) else "Finished."
            replies.append(self.tokenizer.encode(reply + "<|im_end|>", add_special_tokens=False))
        width = max(map(len, replies))
        pad = self.tokenizer.pad_token_id
        padded = torch.tensor([r + [pad] * (width - len(r)) for r in replies])
        return torch.cat([input_ids, padded], dim=-1)


def test_grpo_trains_on_hosted_episodes_and_leaves_nothing_open(host, oracle, tmp_path):
    tokenizer = tiny_tokenizer([TOOL_PROMPT, *oracle.texts, *map(tool_call, oracle.actions)])
    model = tiny_model(tokenizer)
    factory = ToolEnvFactory(host)
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_steps=2,
        learning_rate=0.1,
        max_completion_length=8192,
        shuffle_dataset=False,
        use_cpu=True,
        save_strategy="no",
        report_to="none",
        logging_steps=1,
    )
    with patch.dict("os.environ", {"TRL_EXPERIMENTAL_SILENCE": "1"}):
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            args=args,
            train_dataset=Dataset.from_list([episode_row(SPEC)] * 8),
            environment_factory=factory,
        )
    # The model's tools are exactly the env's verbs; reset and get_reward are TRL's hooks.
    tools = sorted(tool.__name__ for tool in trainer._env_tools[None])
    assert tools == ["back", "click", "done", "press", "scroll", "select", "submit", "type_text"]
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}

    policy = ScriptedPolicy(tokenizer, oracle.actions)
    with patch.object(trainer.model, "generate", side_effect=policy):
        trainer.train()

    rewards = [env.get_reward() for env in trainer.environments]
    assert rewards == [1.0, 1.0, 0.0, 0.0]
    logged = [h["rewards/WebTaskToolEnv/mean"] for h in trainer.state.log_history if "reward" in h]
    assert logged == [0.5, 0.5]
    changed = [n for n, p in trainer.model.named_parameters() if not torch.equal(p, before[n])]
    assert changed, "no parameter changed in two GRPO steps"
    # Each rollout's call after its episode ended reached no browser: per step, two oracle
    # plays and two single give-ups, and nothing more.
    assert host.stats().steps == 2 * (2 * len(oracle.actions) + 2)
    assert host.stats().sessions == 4  # the trainer's pool of four envs, reused across steps

    factory.close()
    stats = host.stats()
    assert (stats.sessions, stats.contexts) == (0, 0)


def test_a_killed_browser_gives_no_reward_and_a_call_after_the_end_steps_nothing(host, oracle):
    with ToolEnvFactory(host) as factory:
        env = factory()
        first = env.reset(**episode_row(SPEC))
        assert first == oracle.texts[0]
        env.done(False, "giving up")
        steps = host.stats().steps
        assert env.click(3) == ENDED and host.stats().steps == steps
        assert env.get_reward() == 0.0

        broken = factory()
        broken.reset(**episode_row(SPEC))
        host._browser.kill()  # Chromium dies mid-episode
        text = broken.click(6)
        assert broken.get_reward() is None  # unscorable: never a 0 in the group
        assert "ended" in text
    assert host.stats().sessions == 0


def test_an_env_made_without_a_host_plays_on_the_shared_one(oracle):
    env = WebTaskToolEnv()
    try:
        assert env.reset(**episode_row(SPEC)) == oracle.texts[0]
        for action, text in zip(oracle.actions, oracle.texts[1:], strict=True):
            assert env.get_reward() == 0.0  # unfinished so far: what it earned, 0
            call = json.loads(tool_call(action).split("\n")[1])
            assert getattr(env, call["name"])(**call["arguments"]).startswith(text)
        assert env.get_reward() == 1.0
    finally:
        shared_host().close()


@pytest.fixture(scope="module")
def server():
    """`webfactory openenv serve` on a loopback port (needs the [openenv] extra too)."""
    pytest.importorskip("openenv", reason="the server needs the [openenv] extra")
    from test_rl_openenv import Server

    from webfactory_env.rl.openenv import ServeConfig

    with Server(ServeConfig(max_sessions=4)) as made:
        yield made


def test_the_tool_env_plays_on_a_server_as_on_the_host(server, oracle):
    from webfactory_env.rl.remote import ServerHost

    with ServerHost(server.url) as sessions, ToolEnvFactory(sessions) as factory:
        env = factory()
        assert env.reset(**episode_row(SPEC)) == oracle.texts[0]
        for action in oracle.actions:
            assert env.get_reward() == 0.0
            call = json.loads(tool_call(action).split("\n")[1])
            getattr(env, call["name"])(**call["arguments"])
        assert env.get_reward() == 1.0
        assert env.click(1) == ENDED
    assert server.wait_until_empty(within_s=5) == (0, 0)


def test_the_worked_example_runs_end_to_end_on_a_cpu_against_the_server(server, tmp_path):
    path = Path(__file__).parent.parent / "examples" / "grpo_webtask.py"
    spec = importlib.util.spec_from_file_location("grpo_webtask", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    args = ["--tiny", "--max-steps", "1", "--suites", "shop-tasks-train", "--server", server.url]
    metrics = example.main([*args, "--output-dir", str(tmp_path)])
    assert metrics["train_runtime"] > 0 and "train_loss" in metrics
    assert server.wait_until_empty(within_s=5) == (0, 0)
