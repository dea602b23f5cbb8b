"""The trainer-facing pieces that need no browser: dataset rows over suites and splits, and
the TRL tools' text actions, read back by the env's own parser."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import pytest

from webfactory_env.actions.text import parse_text_action
from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.rl import ENDED, EpisodeSpec, HostConfig, StepReply
from webfactory_env.rl.rows import row_spec, select_suites, suite_specs
from webfactory_env.rl.trl import WebTaskToolEnv, episode_row, tool_rows
from webfactory_env.suites import get_suite


def test_rows_interleave_the_suites_of_a_split_and_are_the_same_every_time():
    specs = suite_specs(split="train", episodes=3)
    train = sorted({s.family for s in specs})
    assert train == ["account", "kanban", "shop", "travel"]  # forum is held out of training
    assert specs == suite_specs(split="train", episodes=3)
    # taken in turn: episode 0 of every suite, then episode 1 of every suite, ...
    chosen = select_suites(split="train")
    rounds = [specs[i * len(chosen) : (i + 1) * len(chosen)] for i in range(3)]
    for i, got in enumerate(rounds):
        want = [(e.task, e.seed) for e in (suite.episode_spec(i) for suite in chosen)]
        assert [(s.task, s.level_seed) for s in got] == want
    test = suite_specs(split="test", episodes=2)
    assert {s.level_seed for s in test}.isdisjoint({s.level_seed for s in specs})


def test_a_row_is_the_suite_episode_it_came_from():
    suite = get_suite("travel-menu-heldout")
    (row,) = tool_rows("travel-menu-heldout", episodes=1)
    ep = suite.episode_spec(0)
    assert (row["family"], row["task"], row["level_seed"]) == (ep.family, ep.task, ep.seed)
    assert row["variation"] == dict(ep.variation or {}) and row["variation"]
    assert row["prompt"][0]["role"] == "user"
    assert row_spec(row) == EpisodeSpec(ep.family, ep.task, ep.difficulty, ep.seed, ep.variation)


def test_row_spec_reads_what_a_table_makes_of_a_row():
    spec = EpisodeSpec("shop", "buy_red_mug", "hard", 7, {"theme": "dark"})
    assert row_spec(spec.options()) == spec
    # a table fills the axes other rows have with None, and may hold the variation as JSON
    assert row_spec({**spec.options(), "variation": {"theme": "dark", "layout": None}}) == spec
    assert row_spec({**spec.options(), "variation": '{"theme": "dark"}'}) == spec
    with pytest.raises(ConfigError, match="needs task"):
        row_spec({"family": "shop"})


def test_a_wrong_suite_or_split_says_what_exists():
    with pytest.raises(UnknownNameError, match="shop-tasks-train"):
        suite_specs("shop-tasks-trian")
    with pytest.raises(UnknownNameError, match="train"):
        suite_specs(split="validation")


@dataclass
class _RecordingHost:
    """Just enough of an `EpisodeHost` to see which text actions the tools send."""

    actions: list[str] = field(default_factory=list)
    config: HostConfig = field(default_factory=HostConfig)

    def open(self) -> str:
        return "s"

    def reset(self, session: str, spec: EpisodeSpec) -> StepReply:
        return StepReply("page 0", "goal", "/", 0, 30, 0.0, False)

    def step(self, session: str, action: str) -> StepReply:
        self.actions.append(action)
        done = action.startswith("done(")
        return StepReply(f"page {len(self.actions)}", "goal", "/", 1, 30, 0.0, done)


def test_each_tool_sends_one_action_the_env_parser_reads_back_unchanged():
    host = _RecordingHost()
    env = WebTaskToolEnv(host)  # type: ignore[arg-type]
    assert env.reset(**episode_row(EpisodeSpec("shop", "buy_red_mug"))) == "page 0"
    tricky = 'say "hi" \\ then\nnewline, ünïcödé 🎉'
    assert env.click(3) == "page 1"
    env.type_text(5, tricky)
    env.select(7, "Red, large")
    env.submit(2)
    env.press("Enter")
    env.press("Tab", element=4)
    env.scroll("down")
    env.back()
    env.done(True, tricky)
    decoded = [parse_text_action(a) for a in host.actions]
    assert all(not isinstance(d, str) for d in decoded), decoded
    assert [(d.verb, d.index) for d in decoded] == [  # type: ignore[union-attr]
        ("click", 3),
        ("type", 5),
        ("select", 7),
        ("submit", 2),
        ("press_enter", -1),
        ("press_enter", 4),
        ("scroll_down", 0),
        ("back", 0),
        ("done_success", 0),
    ]
    assert decoded[1].value == tricky and decoded[8].text == tricky  # type: ignore[union-attr]
    assert decoded[2].value == "Red, large" and decoded[5].key == "Tab"  # type: ignore[union-attr]
    # the episode has ended: a tool call reaches nothing and says so
    assert env.click(1) == ENDED and len(host.actions) == 9


def test_the_tools_are_the_only_public_methods_and_each_is_documented():
    public = {n for n, f in inspect.getmembers(WebTaskToolEnv, inspect.isfunction) if n[0] != "_"}
    tools = public - {"reset", "get_reward"}
    assert tools == {"click", "type_text", "select", "submit", "press", "scroll", "back", "done"}
    for name in tools:
        doc = inspect.getdoc(getattr(WebTaskToolEnv, name)) or ""
        assert "Returns:" in doc, name
        params = [p for p in inspect.signature(getattr(WebTaskToolEnv, name)).parameters][1:]
        assert all(f"{p}:" in doc for p in params), name
