"""LLM agents, offline: the chat client, the prompt made from the action docs, and whole
episodes against a local server that replays scripted chat-completions replies (good ones,
malformed ones, timeouts, HTTP errors). Nothing here needs the network."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chat_server import HANG, Reply, ScriptedChatServer, error, ok, oracle_script

from webfactory_env import actions as act
from webfactory_env.core.errors import ConfigError
from webfactory_env.evaluation.agents import LLMOptions, parse_agent
from webfactory_env.evaluation.harness import llm_usage
from webfactory_env.evaluation.metrics import calibration
from webfactory_env.evaluation.schema import LLMUsage
from webfactory_env.llm import (
    AgentAbort,
    ChatClient,
    ChatConfig,
    ChatError,
    ChatReply,
    LLMAgent,
    ModelEndpointError,
    RetryPolicy,
    extract_action,
    system_prompt,
)

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-test-abcdefghijklmnop1234"


def client(server: ScriptedChatServer, **kw: Any) -> tuple[ChatClient, list[float]]:
    waits: list[float] = []
    retry = kw.pop("retry", RetryPolicy(max_attempts=3, base_s=0.5, budget_s=10))
    config = ChatConfig(server.base_url, "scripted-model", api_key=KEY, retry=retry, **kw)
    return ChatClient(config, sleep=waits.append), waits


MESSAGES = [{"role": "user", "content": "hi"}]


# ------------------------------------------------------------- one source for the docs
def test_the_prompt_is_the_action_grammars_own_documentation():
    prompt = system_prompt()
    for action in act.TEXT_ACTIONS:
        for form in action.forms:
            assert form in prompt and form in act.usage()
        assert action.doc in prompt
        for example in action.examples:  # every documented example parses
            assert isinstance(act.parse_text_action(example), act.Decoded), example
    assert "confidence=P" in prompt and "done(false" in prompt
    # the stop conditions are the env's: the episode also ends by itself on success
    assert "ends by itself the moment the task is done" in prompt
    # and it says once that doing more than asked fails (the frame)
    assert prompt.count("Do only what the task asks.") == 1


def test_done_carries_an_optional_confidence():
    parse = act.parse_text_action
    assert parse('done(true, "42", confidence=0.8)') == act.Decoded(
        "done_success", text="42", confidence=0.8
    )
    assert parse("done(false, confidence=1)") == act.Decoded("done_fail", confidence=1.0)
    assert parse('done(true, "42")') == act.Decoded("done_success", text="42")
    for bad in (
        'done(true, "x", confidence=1.5)',
        'done(true, "x", sure=0.5)',
        'done(true, "x", confidence="high")',
        "done(true, confidence=)",
        "click(3, confidence=0.5)",
        'done(confidence=0.5, true, "x")',
    ):
        assert isinstance(parse(bad), str), bad


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("click(3)", "click(3)"),
        ("The Shop link is [2].\nclick(2)", "click(2)"),
        ('I will type the name.\n```\ntype(5, "Alice Nguyen")\n```', 'type(5, "Alice Nguyen")'),
        ('Action: `select(4, "Red")`', 'select(4, "Red")'),
        ('- done(true, "$6.99", confidence=0.7)', 'done(true, "$6.99", confidence=0.7)'),
        ("click(2)\nThen I will check out.", "click(2)"),
        ("I think the answer is on the next page.", None),
        ("", None),
        ("print(1)", None),
    ],
)
def test_the_action_is_read_from_the_end_of_a_free_form_reply(reply, action):
    assert extract_action(reply) == action


# ------------------------------------------------------------------ the chat client
def test_a_reply_and_its_token_counts():
    with ScriptedChatServer([ok("click(1)", 120, 7)]) as server:
        c, waits = client(server)
        reply = c.chat(MESSAGES, seed=5)
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("click(1)", 120, 7)
    assert reply.attempts == 1 and reply.failures == () and waits == []
    request, headers = server.requests[0], server.headers[0]
    assert request["model"] == "scripted-model" and request["messages"] == MESSAGES
    assert request["seed"] == 5 and request["stream"] is False
    assert headers["authorization"] == f"Bearer {KEY}"


def test_http_errors_are_retried_with_backoff_on_a_logical_budget():
    script = [error(503), error(429, retry_after="7"), error(500, retry_after=None), ok("back()")]
    with ScriptedChatServer(script) as server:
        c, waits = client(server, retry=RetryPolicy(max_attempts=4, base_s=0.5, budget_s=60))
        reply = c.chat(MESSAGES)
    assert reply.text == "back()" and reply.attempts == 4
    assert [f.status for f in reply.failures] == [503, 429, 500]
    # 0.5 s, then Retry-After's 7 s, then 2 s: planned and added up, never measured
    assert waits == [0.5, 7.0, 2.0] and reply.waited_s == 9.5


def test_the_retry_budget_bounds_the_waiting():
    with ScriptedChatServer([error(503, retry_after="30")] * 5) as server:
        c, waits = client(server, retry=RetryPolicy(max_attempts=5, base_s=1, budget_s=45))
        with pytest.raises(ChatError, match="retry budget of 45 s spent") as info:
            c.chat(MESSAGES)
    assert waits == [30.0] and len(server.requests) == 2
    assert [f.status for f in info.value.failures] == [503, 503]


def test_a_reply_that_never_comes_times_out_and_the_call_is_retried():
    with ScriptedChatServer([HANG, ok("click(2)")]) as server:
        c, _ = client(server, timeout_s=1.0)
        reply = c.chat(MESSAGES)
    assert reply.text == "click(2)" and [f.kind for f in reply.failures] == ["timeout"]


def test_the_deadline_covers_a_reply_that_trickles_in():
    with ScriptedChatServer([Reply(text="x" * 400, trickle=True)] * 2) as server:
        c, _ = client(server, timeout_s=1.0, retry=RetryPolicy(max_attempts=2, base_s=0))
        with pytest.raises(ChatError, match="no reply within 1 s") as info:
            c.chat(MESSAGES)
    assert [f.kind for f in info.value.failures] == ["timeout", "timeout"]


def test_bodies_that_are_no_completion_are_retried_then_reported():
    script = [Reply(body=b"<html>gateway</html>"), Reply(body=b'{"choices": []}')]
    with ScriptedChatServer(script) as server:
        c, _ = client(server, retry=RetryPolicy(max_attempts=2, base_s=0))
        with pytest.raises(ChatError, match="not a chat completion") as info:
            c.chat(MESSAGES)
    assert info.value.kind == "reply" and len(server.requests) == 2


def test_a_request_the_endpoint_will_never_take_is_not_retried():
    with ScriptedChatServer([error(400, "maximum context length is 4096 tokens")]) as server:
        c, _ = client(server)
        with pytest.raises(ChatError, match="HTTP 400: maximum context length"):
            c.chat(MESSAGES)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "advice"), [(401, "OPENAI_API_KEY"), (404, "base URL ends in /v1")]
)
def test_wrong_settings_stop_with_advice_and_never_show_the_key(status, advice):
    echo = error(status, f"Incorrect API key provided: {KEY}", None)
    with ScriptedChatServer([echo]) as server:
        c, _ = client(server)
        with pytest.raises(ModelEndpointError, match=advice) as info:
            c.chat(MESSAGES)
    assert KEY not in str(info.value) and "abcdefghijklmnop" not in str(info.value)
    assert len(server.requests) == 1


def test_content_parts_empty_and_truncated_replies_are_replies():
    parts = Reply(
        body=json.dumps(
            {
                "choices": [
                    {
                        "message": {"content": [{"type": "text", "text": "click(4)"}]},
                        "finish_reason": "stop",
                    }
                ]
            }
        ).encode()
    )
    script = [parts, ok(None, finish="length"), ok('type(3, "Ali', finish="length")]
    with ScriptedChatServer(script) as server:
        c, _ = client(server)
        first, second, third = (c.chat(MESSAGES) for _ in range(3))
    assert (first.text, first.prompt_tokens) == ("click(4)", None)
    assert (second.text, second.finish_reason) == ("", "length")
    assert third.finish_reason == "length"


# ------------------------------------------------------------------ the agent alone
def _record(action: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    return {"record": {"action": {"redact": False, **action}, "error": error}}


def test_the_agent_keeps_a_history_without_secret_values():
    script = [ok('type(4, "hunter2-horse")'), ok("click(9)"), ok("back()")]
    with ScriptedChatServer(script) as server:
        c, _ = client(server)
        agent = LLMAgent(None, c, seed=3)
        assert agent.act("Page one", {}) == 'type(4, "hunter2-horse")'
        assert agent.act("Page two", _record({"redact": True})) == "click(9)"
        agent.act("Page three", _record({}, error="element 9 is disabled"))
    last = server.user_turns()[-1]
    assert 'type(4, "REDACTED") -> done' in last and "hunter2" not in last
    assert "click(9) -> refused: element 9 is disabled" in last
    assert server.requests[0]["messages"][0]["content"] == system_prompt()
    assert agent.usage.calls == 3 and agent.usage.prompt_tokens == 300
    with ScriptedChatServer([ok("click(1)"), ok("click(2)")]) as server:
        forgetful = LLMAgent(None, client(server)[0], history=0)
        forgetful.act("Page one", {})
        forgetful.act("Page two", _record({}))
    assert "Your recent actions" not in server.user_turns()[-1]


class _Counting:
    """A chat client that answers click(k) on its k-th call and keeps each user turn."""

    def __init__(self) -> None:
        self.turns: list[str] = []

    def chat(self, messages: Any, *, seed: int | None = None) -> ChatReply:
        self.turns.append(messages[-1]["content"])
        n = len(self.turns)
        return ChatReply(f"click({n})", "stop", 10, 1, 0.0, 1, 0.0)


@pytest.mark.parametrize("size", [1, 8, 20])
def test_the_history_is_the_last_history_steps_at_every_step(size):
    chat = _Counting()
    agent = LLMAgent(None, chat, history=size)  # type: ignore[arg-type]
    agent.act("Page 1", {})
    for step in range(2, 21):
        agent.act(f"Page {step}", _record({}))
    for step, turn in enumerate(chat.turns, 1):
        shown = re.findall(r"^\d+\. click\((\d+)\) -> done$", turn, re.M)
        taken = step - 1  # actions taken before this step
        assert [int(k) for k in shown] == list(range(max(taken - size, 0) + 1, taken + 1))


def test_a_reply_cut_off_at_the_token_limit_is_malformed_and_never_carried_out():
    script = [ok("The cart link is [3].\nclick(3)", finish="length"), ok("click(3)")]
    with ScriptedChatServer(script) as server:
        c, _ = client(server)
        agent = LLMAgent(None, c)
        sent = agent.act("Page", {})
        agent.act("Page", _record({}, "not an action call"))
    assert isinstance(act.parse_text_action(sent), str)  # the env refuses it: no click(3)
    assert agent.usage.truncated_replies == 1 and agent.usage.malformed_replies == 1
    turn = server.user_turns()[-1]
    assert "(your reply was cut off at the token limit) -> refused" in turn
    assert "cut off at the token limit, so it was not carried out" in turn


def test_an_action_inside_a_sentence_gets_a_note_saying_how_to_write_it():
    script = [ok("I will click(12) to open the cart."), ok("click(12)")]
    with ScriptedChatServer(script) as server:
        c, _ = client(server)
        agent = LLMAgent(None, c)
        assert agent.act("Page", {}) == "I will click(12) to open the cart."
        agent.act("Page", _record({}, "cannot read the action at character 18"))
    turn = server.user_turns()[-1]
    assert "(an action inside a sentence) -> refused" in turn
    assert "had the action click(12) inside a sentence" in turn
    assert "write the call alone on the last line of your reply" in turn
    assert "character 18" not in turn


def test_a_call_that_fails_for_good_counts_its_waits_and_its_time():
    with ScriptedChatServer([error(503, retry_after=None)] * 3) as server:
        c, waits = client(server, retry=RetryPolicy(max_attempts=3, base_s=0.5, budget_s=10))
        agent = LLMAgent(None, c)
        with pytest.raises(AgentAbort):
            agent.act("Page", {})
    assert waits == [0.5, 1.0] and agent.usage.backoff_s == 1.5
    assert len(agent.usage.latencies_s) == 1 and agent.usage.latencies_s[0] > 0
    row = llm_usage(agent.usage, (1.0, 2.0))
    assert row.backoff_s == 1.5 and row.latency.total_s > 0 and row.calls == 0


def test_unreadable_replies_are_handed_to_the_env_then_the_agent_gives_up():
    with ScriptedChatServer([ok("Let me think about this."), ok(""), ok("Hmm.")]) as server:
        c, _ = client(server)
        agent = LLMAgent(None, c, max_malformed=3)
        sent = [agent.act(f"Page {i}", _record({}, "not an action call")) for i in range(3)]
        with pytest.raises(AgentAbort, match="no readable action in 3 replies in a row"):
            agent.act("Page 4", _record({}, "not an action call"))
    assert sent == ["Let me think about this.", "", "Hmm."]  # the env refuses each
    assert agent.usage.malformed_replies == 3 and agent.usage.empty_replies == 1
    assert "(no action in your reply) -> refused" in server.user_turns()[-1]


def test_an_endpoint_that_keeps_failing_ends_the_episode_with_its_reason():
    with ScriptedChatServer([error(503)] * 3) as server:
        c, _ = client(server, retry=RetryPolicy(max_attempts=3, base_s=0))
        agent = LLMAgent(None, c)
        with pytest.raises(AgentAbort, match="endpoint failed: no usable reply after 3 attempts"):
            agent.act("Page", {})
    assert agent.usage.http_errors == {"503": 3} and agent.usage.retries == 2


# ------------------------------------------------------------------ calibration
def test_calibration_reports_brier_and_reliability_bins():
    from types import SimpleNamespace

    rows = [
        SimpleNamespace(confidence=0.9, success=True),
        SimpleNamespace(confidence=0.9, success=False),
        SimpleNamespace(confidence=0.2, success=False),
        SimpleNamespace(confidence=None, success=True),
    ]
    cal = calibration(rows)  # type: ignore[arg-type]
    assert cal is not None and cal.episodes == 3
    assert cal.brier == pytest.approx((0.01 + 0.81 + 0.04) / 3, abs=1e-6)
    top = cal.bins[9]
    assert (top.episodes, top.mean_confidence, top.success_rate) == (2, 0.9, 0.5)
    assert cal.bins[2].episodes == 1 and sum(b.episodes for b in cal.bins) == 3
    assert cal.ece == pytest.approx((2 / 3) * 0.4 + (1 / 3) * 0.2, abs=1e-6)
    assert calibration([SimpleNamespace(confidence=None, success=True)]) is None  # type: ignore[list-item]


# ------------------------------------------------------------------ user mistakes
@pytest.mark.parametrize(
    ("spec", "env", "message"),
    [
        ("openai:", {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "needs the model's name"),
        ("openai:m", {}, "set OPENAI_BASE_URL or pass --base-url"),
        ("openai:m", {"OPENAI_BASE_URL": "127.0.0.1:8000"}, r"must be http\(s\)://HOST"),
    ],
)
def test_llm_agent_settings_are_checked_before_anything_runs(spec, env, message):
    with pytest.raises(ConfigError, match=message):
        parse_agent(spec, LLMOptions(), environ=env)


class _Stop(Exception):
    pass


def test_run_and_eval_take_the_instruction_style_and_eval_a_difficulty(monkeypatch):
    from webfactory_env import evaluation
    from webfactory_env.cli import episodes, main

    seen: dict[str, Any] = {}

    def fake_run(*args: Any, **kwargs: Any) -> Any:
        seen["run"] = kwargs
        raise _Stop

    def fake_evaluate(suite: Any, agent: Any, episodes: int, **kwargs: Any) -> Any:
        seen["eval"] = (suite, kwargs)
        raise _Stop

    monkeypatch.setattr(episodes, "run_episode", fake_run)
    monkeypatch.setattr(evaluation, "evaluate", fake_evaluate)
    with pytest.raises(_Stop):
        main(["run", "--task", "buy_red_mug", "--seed", "1", "--instruction-style", "recipe"])
    assert seen["run"]["instruction_style"] == "recipe"
    with pytest.raises(_Stop):
        main(["eval", "--agent", "oracle", "--suite", "shop-tasks-test", "--episodes", "1",
              "--out", "/tmp/unused.json", "--difficulty", "hard",
              "--instruction-style", "goal+hints"])  # fmt: skip
    suite, kwargs = seen["eval"]
    assert suite.difficulty == "hard" and kwargs["instruction_style"] == "goal+hints"
    assert all(e.difficulty == "hard" for e in suite.episode_specs(1))
    with pytest.raises(SystemExit):
        main(["run", "--task", "t", "--seed", "1", "--instruction-style", "hints"])


def test_the_cli_says_what_to_fix_on_one_line_without_the_key(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY}
    run = subprocess.run(
        [sys.executable, "-m", "webfactory_env.cli", "eval", "--agent", "openai:m",
         "--suite", "shop-tasks-test", "--episodes", "1", "--out", str(tmp_path / "r.json")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert run.returncode != 0 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "OPENAI_BASE_URL" in lines[0] and KEY not in run.stderr
    assert "Traceback" not in run.stderr


# ------------------------------------------------------------------ real episodes
def _oracle_text_actions(episode: Any, difficulty: str) -> list[str]:
    """What the oracle types, in text mode, on a suite episode (the model's script)."""
    return oracle_script(
        episode.seed,
        episode.reset_options(),
        family=episode.family,
        task=episode.task,
        difficulty=difficulty,
        obs_mode="text",
        action_mode="text",
    )


def _schema_validate(data: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "metrics-schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


@pytest.mark.browser
def test_a_scripted_model_solves_a_real_episode_through_every_kind_of_trouble(tmp_path):
    from webfactory_env.suites import get_suite
    from webfactory_env.trace import read_trace

    suite = get_suite("shop-tasks-test")
    (episode,) = suite.episode_specs(1)
    actions = _oracle_text_actions(episode, suite.difficulty)
    script = [
        ok(f"The shop link opens the catalogue.\n{actions[0]}", 900, 30),
        ok("Let me think about which filter to use."),  # no action: an invalid step
        error(503),  # retried inside one call
        ok(actions[1]),
        HANG,  # never answers: the request times out and is retried
        ok(f"```\n{actions[2]}\n```"),
        ok(""),  # empty: an invalid step
        ok('type(12, "Alice Ngu', finish="length"),  # cut at max_tokens: an invalid step
        *(ok(f"Action: {a}") for a in actions[3:]),
    ]
    out, trace = tmp_path / "results.json", tmp_path / "trace.jsonl"
    with ScriptedChatServer(script) as server:
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "HOME": str(tmp_path),
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": server.base_url,
        }
        for name in ("WEBFACTORY_CHROMIUM", "PLAYWRIGHT_BROWSERS_PATH"):
            if name in os.environ:
                env[name] = os.environ[name]
        run = subprocess.run(
            [sys.executable, "-m", "webfactory_env.cli", "eval", "--agent", "openai:scripted",
             "--suite", suite.name, "--episodes", "1", "--out", str(out), "--trace", str(trace),
             "--request-timeout", "1", "--price-input", "1.5", "--price-output", "6"],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    _schema_validate(data)
    (row,) = data["episodes"]
    assert row["success"] and row["outcome"] == "success"
    assert row["steps"] == len(actions) + 3 and row["invalid_actions"] == 3
    llm = row["llm"]
    calls = len(actions) + 3
    assert llm["calls"] == calls and llm["requests"] == calls + 2
    assert (llm["retries"], llm["timeouts"], llm["http_errors"]) == (2, 1, {"503": 1})
    assert (llm["malformed_replies"], llm["empty_replies"], llm["truncated_replies"]) == (3, 1, 1)
    prompt, completion = 900 + 100 * (calls - 1), 30 + 10 * (calls - 1)
    assert (llm["prompt_tokens"], llm["completion_tokens"]) == (prompt, completion)
    assert llm["cost_usd"] == pytest.approx((prompt * 1.5 + completion * 6) / 1e6)
    assert llm["latency"]["total_s"] >= 0 and llm["failure"] is None
    assert data["agent"]["llm"]["base_url"] == server.base_url
    assert data["metrics"]["llm"]["total_tokens"] == prompt + completion
    assert data["metrics"]["calibration"] is None  # nobody said how sure they were
    # every request carried the env's text observation of that step
    first, second = server.user_turns()[:2]
    assert first.startswith("Goal: ") and "Step 0 of 64" in first and "[2] link" in first
    assert "Step 1 of 64. Last action: click [2] link" in second
    # the trace keeps every step, the unreadable replies as the invalid actions they were
    (ep,) = read_trace(trace)
    assert len(ep.steps) == row["steps"] and ep.complete and ep.success
    refused = [s for s in ep.steps if not s.valid]
    assert [s.action.raw for s in refused] == [
        "Let me think about which filter to use.",
        "",
        'type(12, "Alice Ngu',
    ]
    assert all(s.reward.components.get("invalid") for s in refused)
    for text in (out.read_text(encoding="utf-8"), trace.read_text(encoding="utf-8"), run.stderr):
        assert KEY not in text


@pytest.mark.browser
def test_a_model_that_keeps_failing_ends_its_episode_with_a_reason(tmp_path):
    from webfactory_env.evaluation import evaluate, summary_lines, write_results
    from webfactory_env.suites import get_suite
    from webfactory_env.trace import read_trace

    suite = get_suite("shop-tasks-test")
    first = _oracle_text_actions(next(iter(suite.episode_specs(1))), suite.difficulty)
    script = [
        ok(first[0]),
        ok(first[1]),
        error(503),
        error(502),  # episode 0 gives up here: two failed attempts
        ok('done(false, "there is no such coupon", confidence=0.25)'),  # episode 1
    ]
    with ScriptedChatServer(script) as server:
        options = LLMOptions(base_url=server.base_url, max_attempts=2, retry_base_s=0)
        agent = parse_agent("openai:scripted", options, environ={})
        results = evaluate(suite, agent, 2, reference=False, trace=str(tmp_path / "t.jsonl"))
    failed, gave_up = results.episodes
    assert not failed.success and failed.outcome == "soft_fail"
    assert failed.ended_by == "agent_error" and failed.steps == 2
    assert failed.reason.startswith("the model endpoint failed: no usable reply after 2")
    assert "HTTP 502" in failed.reason and "last page /shop" in failed.reason
    assert (
        failed.llm is not None
        and failed.llm.failure
        and failed.llm.http_errors
        == {
            "502": 1,
            "503": 1,
        }
    )
    assert failed.errors.model == 1 and results.metrics.errors.model.episodes == 1
    # the next episode runs normally, and its confidence is calibrated
    assert gave_up.ended_by == "agent" and gave_up.confidence == 0.25 and not gave_up.success
    cal = results.metrics.calibration
    assert cal is not None and cal.episodes == 1 and cal.brier == pytest.approx(0.0625)
    assert results.metrics.llm is not None and results.metrics.llm.failed_episodes == 1
    first_trace, second_trace = read_trace(tmp_path / "t.jsonl")
    assert len(first_trace.steps) == 2 and not first_trace.complete
    assert first_trace.end is not None and first_trace.end.t == 2
    assert first_trace.end.reason.startswith("the model endpoint failed") and not second_trace.end
    assert second_trace.steps[-1].action.confidence == 0.25
    written = write_results(results, tmp_path / "r.json")
    _schema_validate(json.loads(written[0].read_text(encoding="utf-8")))
    summary = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "## Model calls" in summary and "## Calibration" in summary
    assert "| 0.2–0.3 | 1 | 0.25 | 0.00 |" in summary
    assert any("calibration (1 episodes" in line for line in summary_lines(results))


@pytest.mark.browser
def test_webfactory_run_with_a_model_that_fails_keeps_its_trace(tmp_path):
    from webfactory_env.trace import read_trace

    trace = tmp_path / "run.jsonl"
    script = [ok("click(2)"), error(500, retry_after=None)]
    with ScriptedChatServer(script) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": server.base_url}
        env.pop("OPENAI_API_KEY", None)
        run = subprocess.run(
            [sys.executable, "-m", "webfactory_env.cli", "run", "--family", "shop", "--task",
             "buy_red_mug", "--seed", "0", "--agent", "openai:scripted", "--max-attempts", "1",
             "--json", "--trace", str(trace), "--price-input", "1.5", "--price-output", "6"],
            capture_output=True, text=True, env=env, timeout=600,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["steps"] == 1 and not summary["success"]
    assert summary["reason"].startswith("the model endpoint failed: no usable reply after 1")
    llm = summary["llm"]  # the same section as an eval results row
    assert set(llm) == set(LLMUsage.model_fields) and llm["calls"] == 1 and llm["failure"]
    assert llm["requests"] == 2 and llm["http_errors"] == {"500": 1}
    assert llm["cost_usd"] == pytest.approx((100 * 1.5 + 10 * 6) / 1e6)
    assert len(LLMUsage.model_validate(llm).model_dump()) == len(llm)
    assert "authorization" not in server.headers[0]  # no key, none sent
    (ep,) = read_trace(trace)
    assert len(ep.steps) == 1 and ep.end is not None and "HTTP 500" in ep.end.reason
