"""Vision models as agents, offline: the screenshot as an image part, the prompt made from the
coordinate action docs, the computer tool, and whole episodes against a scripted server
that answers with the coordinate oracle's actions or with clicks at nothing."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from chat_server import Reply, ScriptedChatServer, ok, oracle_script, tool
from PIL import Image

from webfactory_env import actions as act
from webfactory_env.core.errors import ConfigError
from webfactory_env.evaluation.agents import LLMOptions, episode_obs_mode, parse_agent
from webfactory_env.llm import ChatClient, ChatConfig, RetryPolicy, system_prompt
from webfactory_env.llm.client import ToolCall
from webfactory_env.llm.screen import ScreenAgent, png_data_url, screen_prompt
from webfactory_env.llm.tool import computer_tool, tool_arguments, tool_call_action

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-test-abcdefghijklmnop1234"
DATA_URL = "data:image/png;base64,"


def _client(server: ScriptedChatServer) -> ChatClient:
    retry = RetryPolicy(max_attempts=2, base_s=0, budget_s=1)
    return ChatClient(ChatConfig(server.base_url, "scripted", api_key=KEY, retry=retry))


def _image(request: dict[str, Any]) -> np.ndarray:
    """The screenshot a request carried, decoded from its PNG data URL."""
    (part,) = [p for p in request["messages"][-1]["content"] if p["type"] == "image_url"]
    url = part["image_url"]["url"]
    assert url.startswith(DATA_URL)
    png = base64.b64decode(url[len(DATA_URL) :], validate=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _text(request: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in request["messages"][-1]["content"] if p["type"] == "text")


# ------------------------------------------------------------------ prompt and tool
def test_the_prompts_are_the_coordinate_and_element_action_docs():
    points = screen_prompt((1280, 800))
    for action in act.COORDINATE_ACTIONS:
        assert f"- {' or '.join(action.forms)}: {action.doc}" in points
    assert "1280×800 pixels" in points and "click(312, 88)" in points
    marks = screen_prompt(marks=True)
    assert "- click(i): " in marks and "numbered" not in points and "index in a small" in marks
    tools = screen_prompt(tool_calls=True)
    assert '{"action": "click", "x": 312, "y": 88} for click(312, 88)' in tools
    assert '{"action": "done", "success": true, "text": "answer"}' in tools
    assert len({points, marks, tools, system_prompt()}) == 4


def test_the_computer_tool_is_generated_from_the_action_docs_and_its_calls_read_back():
    schema = computer_tool()
    assert schema["type"] == "function" and schema["function"]["name"] == "computer"
    params = schema["function"]["parameters"]
    assert params["properties"]["action"]["enum"] == [a.name for a in act.COORDINATE_ACTIONS]
    assert set(params["properties"]) == {
        "action", "x", "y", "x1", "y1", "x2", "y2", "dx", "dy", "text", "key", "success",
        "confidence",
    }  # fmt: skip
    assert params["required"] == ["action"] and params["additionalProperties"] is False
    for call in ("click(312, 88)", "drag(100, 400, 600, 400.5)", "scroll(640, 400, 0, -600)",
                 'type("Alice \\"Al\\" Nguyen")', 'key("Control+a")', 'done(false, "no coupon")',
                 'done(true, "$12.99", confidence=0.9)', "double_click(1, 2)"):  # fmt: skip
        arguments = json.dumps(tool_arguments(call))
        assert tool_call_action(ToolCall("computer", arguments)) == (call, None)
    wrong = {
        ToolCall("browser", "{}"): "there is no function 'browser'",
        ToolCall("computer", "{not json"): "not a JSON object",
        ToolCall("computer", '{"action": "fly"}'): "action 'fly' is none of click",
        ToolCall("computer", '{"action": "drag", "x1": 1}'): "drag needs y1 as a number",
        ToolCall("computer", '{"action": "click", "x": true, "y": 2}'): "needs x as a number",
        ToolCall("computer", '{"action": "type"}'): "type needs text as a string",
        ToolCall("computer", '{"action": "done"}'): "done needs success: true or false",
    }
    for call, says in wrong.items():
        action, problem = tool_call_action(call)
        assert action is None and problem is not None and says in problem


def test_with_set_of_marks_the_tool_takes_the_element_actions():
    schema = computer_tool(act.TEXT_ACTIONS)["function"]
    assert "numbered on the screenshot" in schema["description"]
    props = schema["parameters"]["properties"]
    assert set(props) == {"action", "i", "text", "option", "key", "direction", "success",
                          "confidence"}  # fmt: skip
    assert props["direction"] == {"type": "string", "enum": ["down", "up"]}
    for call in ("click(12)", 'type(3, "Alice Nguyen")', 'select(5, "Red")', "submit(7)",
                 'press("Enter")', 'press(4, "Tab")', "scroll(down)", "scroll(up)", "back()",
                 'done(true, "$12.99", confidence=0.9)'):  # fmt: skip
        arguments = json.dumps(tool_arguments(call, act.TEXT_ACTIONS))
        assert tool_call_action(ToolCall("computer", arguments), act.TEXT_ACTIONS) == (call, None)
    for arguments, says in (
        ({"action": "scroll", "direction": "left"}, "scroll needs direction: one of down, up"),
        ({"action": "press"}, "press needs key as a string"),
        ({"action": "select", "i": 5}, "select needs option as a string"),
    ):
        call = ToolCall("computer", json.dumps(arguments))
        assert tool_call_action(call, act.TEXT_ACTIONS) == (None, says)
    prompt = screen_prompt(marks=True, tool_calls=True)
    assert '{"action": "click", "i": 12} for click(12)' in prompt


def test_a_screenshot_goes_as_a_png_data_url_of_the_same_pixels():
    shot = np.random.default_rng(0).integers(0, 256, (80, 128, 3), dtype=np.uint8)
    url = png_data_url(shot)
    assert url == png_data_url(shot.copy())
    png = base64.b64decode(url[len(DATA_URL) :])
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), shot)


# ------------------------------------------------------------------ the agent alone
def _info(steps: int = 0, record: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"instruction": "Buy a red mug.", "values": ["Red", '1 "big"'], "steps": steps,
            "record": record}  # fmt: skip


def test_the_agent_sends_the_screenshot_goal_and_tools_and_reads_a_tool_call():
    shots = [np.full((40, 64, 3), v, np.uint8) for v in (10, 200)]
    script = [
        tool({"action": "click", "x": 30, "y": 12}),
        tool({"action": "type", "text": "hunter2-horse"}),
        tool({"action": "drag", "x1": 3}),  # unreadable: refused, and the note says why
    ]
    with ScriptedChatServer(script) as server:
        agent = ScreenAgent(None, _client(server), tool_calls=True, seed=1)
        assert agent.act({"screenshot": shots[0]}, _info()) == "click(30, 12)"
        done = {"action": {"redact": False}, "error": None}
        assert agent.act({"screenshot": shots[1]}, _info(1, done)) == 'type("hunter2-horse")'
        secret = {"action": {"redact": True}, "error": None}
        sent = agent.act({"screenshot": shots[1]}, _info(2, secret))
        refused = {"action": {"redact": False}, "error": "unknown action"}
        agent.act({"screenshot": shots[0]}, _info(3, refused))
    assert sent == 'computer({"action": "drag", "x1": 3})'
    first, _, third, fourth = server.requests
    assert first["tools"] == [computer_tool()] and first["seed"] == 1
    assert first["messages"][0] == {"role": "system", "content": screen_prompt(tool_calls=True)}
    assert np.array_equal(_image(first), shots[0]) and np.array_equal(_image(third), shots[1])
    assert _text(first).startswith('Goal: Buy a red mug.\nValues: "Red", "1 \\"big\\""\nStep 0')
    assert 'type("REDACTED") -> done' in _text(third) and "hunter2" not in json.dumps(third)
    assert "Your last computer call was not carried out: drag needs y1 as a number" in _text(fourth)
    assert agent.usage.calls == 4 and agent.usage.malformed_replies == 1


def test_a_tool_call_cut_off_at_the_token_limit_is_never_carried_out():
    cut = tool({"action": "click", "x": 30, "y": 12})
    script = [tool({"action": "fly"}), Reply(None, "length", tool_calls=cut.tool_calls)]
    shot = {"screenshot": np.zeros((8, 8, 3), np.uint8)}
    with ScriptedChatServer([*script, ok("back")]) as server:
        agent = ScreenAgent(None, _client(server), tool_calls=True)
        agent.act(shot, _info())
        refused = {"action": {"redact": False}, "error": "unknown action"}
        sent = agent.act(shot, _info(1, refused))
        agent.act(shot, _info(2, refused))
    assert sent == 'computer({"action": "click", "x": 30, "y": 12})'  # refused by the env
    assert "cut off at the token limit" in _text(server.requests[2])
    assert agent.usage.truncated_replies == 1 and agent.usage.malformed_replies == 3


def test_without_tools_the_action_is_the_last_line_of_the_reply():
    with ScriptedChatServer([ok("The mug is at the left.\nclick(12)"), ok("click(3, 4)")]) as s:
        marks = ScreenAgent(None, _client(s), marks=True)
        assert marks.act({"screenshot": np.zeros((8, 8, 3), np.uint8)}, _info()) == "click(12)"
        points = ScreenAgent(None, _client(s))
        assert points.act({"screenshot": np.zeros((8, 8, 3), np.uint8)}, _info()) == "click(3, 4)"
    assert "tools" not in s.requests[0] and s.requests[0]["messages"][0]["content"] == (
        screen_prompt(marks=True)
    )
    with pytest.raises(TypeError, match="obs_mode='pixels'"):
        points.act("a text observation", _info())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (LLMOptions(set_of_marks=True), "go with --obs screenshot"),
        (LLMOptions(tool_calls=True), "go with --obs screenshot"),
    ],
)
def test_screen_settings_that_cannot_work_are_refused(options, message):
    with pytest.raises(ConfigError, match=message):
        parse_agent("openai:m", replace(options, base_url="http://h/v1"))


def test_screen_flags_without_a_model_are_a_usage_error(capsys):
    from webfactory_env.cli import main

    assert main(["run", "--task", "buy_red_mug", "--seed", "1", "--obs", "screenshot"]) == 2
    assert "--agent oracle is no model: use --agent openai:MODEL" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_screenshot_model_on_an_env_without_pixels_is_refused_at_once(command, capsys, tmp_path):
    from webfactory_env.cli import main

    out = str(tmp_path / "r.json")
    where = {
        "run": ["run", "--task", "buy_red_mug", "--seed", "1"],
        "eval": ["eval", "--task", "buy_red_mug", "--episodes", "1", "--out", out],
    }[command]
    model = ["--agent", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--obs", "screenshot"]
    assert main([*where, *model, "--obs-mode", "tokens"]) == 2
    err = capsys.readouterr().err
    assert "--obs-mode tokens draws none" in err and "give --obs-mode pixels" in err
    assert not (tmp_path / "r.json").exists()


def test_a_screenshot_model_takes_any_observation_with_pixels():
    spec = parse_agent("openai:m", LLMOptions(base_url="http://h/v1", observation="screenshot"))
    assert episode_obs_mode(spec, None) == "pixels"
    assert episode_obs_mode(spec, "tokens+pixels") == "tokens+pixels"
    text = parse_agent("openai:m", LLMOptions(base_url="http://h/v1"))
    assert episode_obs_mode(text, "tokens") == "tokens", "a text model's choice is its own"


def test_a_screen_agent_plays_a_pixel_env_at_the_viewports_own_size():
    options = LLMOptions(base_url="http://127.0.0.1:9/v1", observation="screenshot")
    spec = parse_agent("openai:m", options, environ={})
    assert spec.env_kwargs == {
        "obs_mode": "pixels",
        "screenshot_size": (800, 1280),
        "action_mode": "coordinates_text",
        "set_of_marks": False,
    }
    assert spec.info.llm is not None and spec.info.llm.observation == "screenshot"
    marks = parse_agent("openai:m", replace(options, set_of_marks=True))
    assert marks.env_kwargs["action_mode"] == "text" and marks.env_kwargs["set_of_marks"]
    assert spec.info.llm.prompt_sha256 != marks.info.llm.prompt_sha256  # type: ignore[union-attr]


# ------------------------------------------------------------------ whole episodes
def _oracle_actions(
    task: str,
    seed: int,
    mode: str = "coordinates_text",
    family: str = "shop",
    difficulty: str = "easy",
    variation: dict[str, str] | None = None,
) -> list[str]:
    """The oracle's calls on a task in action mode `mode` (a scripted model's replies)."""
    return oracle_script(
        seed,
        family=family,
        task=task,
        difficulty=difficulty,
        variation=variation,
        obs_mode="tokens",
        action_mode=mode,
    )


@pytest.mark.browser
def test_a_vision_model_with_the_oracles_tool_calls_solves_an_episode_from_the_cli(tmp_path):
    from webfactory_env.trace import read_trace

    actions = _oracle_actions("buy_red_mug", 3)
    trace = tmp_path / "run.jsonl"
    with ScriptedChatServer([tool(tool_arguments(a)) for a in actions]) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": server.base_url,
               "OPENAI_API_KEY": KEY}  # fmt: skip
        run = subprocess.run(
            [sys.executable, "-m", "webfactory_env.cli", "run", "--task", "buy_red_mug",
             "--seed", "3", "--agent", "openai:scripted", "--obs", "screenshot",
             "--tool-calls", "--json", "--trace", str(trace)],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["success"] and summary["steps"] == len(actions)
    assert summary["llm"]["calls"] == len(actions) and summary["llm"]["malformed_replies"] == 0
    assert all(r["tools"] == [computer_tool()] for r in server.requests)
    assert all(_image(r).shape == (800, 1280, 3) for r in server.requests)
    (ep,) = read_trace(trace)
    assert [s.action.raw for s in ep.steps] == actions and ep.success
    assert KEY not in trace.read_text(encoding="utf-8") + run.stderr


@pytest.mark.browser
def test_off_target_clicks_fail_cleanly_with_every_step_recorded(tmp_path, make_env):
    from webfactory_env.cli.episodes import run_episode
    from webfactory_env.trace import read_trace

    trace = tmp_path / "run.jsonl"
    with ScriptedChatServer([], fallback=lambda _: ok("Nothing here?\nclick(1270, 795)")) as s:
        options = LLMOptions(base_url=s.base_url, observation="screenshot")
        summary, env = run_episode(
            "shop", "buy_red_mug", 3, "openai:scripted", max_steps=4, trace=str(trace),
            llm=options,
        )  # fmt: skip
        env.close()
    assert not summary["success"] and summary["steps"] == 4
    assert summary["reason"] == "truncated: step budget exhausted"
    (ep,) = read_trace(trace)
    assert [step.action.raw for step in ep.steps] == ["click(1270, 795)"] * 4
    assert all(step.valid and step.error is None for step in ep.steps) and not ep.success
    # every request carried the page as the env observed it: the start page, unchanged
    spec = parse_agent("openai:scripted", options)
    obs, _ = make_env(task="buy_red_mug", **spec.env_kwargs).reset(seed=3)
    assert len(s.requests) == 4
    assert all(np.array_equal(_image(r), obs["screenshot"]) for r in s.requests)


@pytest.mark.browser
@pytest.mark.parametrize("tool_calls", [False, True], ids=["text", "tool calls"])
def test_with_set_of_marks_the_model_names_the_numbered_marks(make_env, tool_calls):
    from webfactory_env.cli.episodes import run_episode

    actions = _oracle_actions("buy_red_mug", 3, "text")
    replies = [tool(tool_arguments(a, act.TEXT_ACTIONS)) if tool_calls else ok(a) for a in actions]
    with ScriptedChatServer(replies) as s:
        options = LLMOptions(
            base_url=s.base_url, observation="screenshot", set_of_marks=True, tool_calls=tool_calls
        )
        summary, env = run_episode("shop", "buy_red_mug", 3, "openai:scripted", llm=options)
        env.close()
    assert summary["success"] and summary["steps"] == len(actions)
    spec = parse_agent("openai:scripted", options)
    obs, _ = make_env(task="buy_red_mug", **spec.env_kwargs).reset(seed=3)
    plain, _ = make_env(task="buy_red_mug", **{**spec.env_kwargs, "set_of_marks": False}).reset(
        seed=3
    )
    first = _image(s.requests[0])
    assert np.array_equal(first, obs["screenshot"]) and not np.array_equal(
        first, plain["screenshot"]
    )
    assert "- click(i): " in s.requests[0]["messages"][0]["content"]
    offered = [computer_tool(act.TEXT_ACTIONS)] if tool_calls else None
    assert all(r.get("tools") == offered for r in s.requests)


@pytest.mark.browser
def test_a_suite_is_evaluated_with_a_vision_model_in_one_call(tmp_path):
    from webfactory_env.evaluation import evaluate, write_results
    from webfactory_env.suites import get_suite

    suite = get_suite("shop-tasks-test")
    (episode,) = suite.episode_specs(1)
    actions = _oracle_actions(
        episode.task, episode.seed, family=episode.family, difficulty=episode.difficulty,
        variation=episode.variation,
    )  # fmt: skip
    with ScriptedChatServer([tool(tool_arguments(a)) for a in actions]) as server:
        options = LLMOptions(base_url=server.base_url, observation="screenshot", tool_calls=True)
        results = evaluate(suite, parse_agent("openai:scripted", options), 1, reference=False)
    (row,) = results.episodes
    assert row.success and row.steps == len(actions) and row.invalid_actions == 0
    assert results.agent.llm is not None and results.agent.llm.tool_calls
    assert results.config.env["action_mode"] == "coordinates_text"
    (written, *_) = write_results(results, tmp_path / "r.json")
    schema = json.loads((ROOT / "docs" / "metrics-schema.json").read_text(encoding="utf-8"))
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(schema).validate(json.loads(written.read_text("utf-8")))
