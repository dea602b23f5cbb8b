"""The evaluation harness: metrics, the results schema, summaries, agents and `webfactory eval`."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.evaluation import (
    METRICS_SCHEMA_VERSION,
    EvalResults,
    evaluate,
    load_results,
    metrics_json_schema,
    parse_agent,
    parse_perturbations,
    schema_text,
    write_results,
)
from webfactory_env.evaluation.agents import _algorithm_order
from webfactory_env.evaluation.metrics import aggregate, robustness
from webfactory_env.evaluation.schema import (
    AgentInfo,
    EpisodeResult,
    ErrorTally,
    RunConfig,
    SuiteInfo,
)
from webfactory_env.sitegen.variation import Variation
from webfactory_env.suites import Suite, get_suite

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "docs" / "metrics-schema.json"


def _validate(data: dict[str, Any]) -> None:
    """Check a results document against the committed JSON Schema, with a real validator."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


# ------------------------------------------------------------------------ schema
def test_committed_metrics_schema_matches_the_models():
    committed = SCHEMA_FILE.read_text(encoding="utf-8")
    assert committed == schema_text(), (
        "docs/metrics-schema.json is stale: run `webfactory eval --schema --out"
        " docs/metrics-schema.json` and commit it"
    )
    schema = metrics_json_schema()
    assert METRICS_SCHEMA_VERSION in schema["title"]
    assert {"Metrics", "EpisodeResult", "Robustness", "ErrorTaxonomy"} <= set(schema["$defs"])


def test_schema_command_prints_or_writes_the_schema(tmp_path, capsys):
    from webfactory_env.cli import main

    assert main(["eval", "--schema"]) == 0
    assert capsys.readouterr().out == schema_text()
    out = tmp_path / "schema.json"
    assert main(["eval", "--schema", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == schema_text()


# ----------------------------------------------------------------------- metrics
def _row(index: int, **kw: Any) -> EpisodeResult:
    data: dict[str, Any] = {
        "index": index,
        "family": "shop",
        "task": "t",
        "seed": 100 + index,
        "difficulty": "easy",
        "variation": Variation.plain().to_json(),
        "forced": {},
        "success": True,
        "outcome": "success",
        "reason": "the task was done",
        "ended_by": "success",
        "steps": 4,
        "return": 1.0,
        "plan_length": 4,
        "reference_steps": 4,
        "detours": 0,
        "subgoals": ["a", "b"],
        "subgoals_reached": ["a", "b"],
        "invalid_actions": 0,
        "error_events": {},
        "errors": ErrorTally(),
        "widgets_offered": ["link"],
        "widgets_exercised": ["link"],
        "affordances_offered": ["Link"],
        "affordances_exercised": ["Link"],
        "verbs": {"click": 4},
        "site_digest": "s",
        "task_digest": "d",
    }
    data.update(kw)
    return EpisodeResult.model_validate(data)


def _rows() -> list[EpisodeResult]:
    dark = Variation.plain(theme="dark").to_json()
    return [
        _row(0, steps=6, reference_steps=4, detours=2),
        _row(1, variation=dark),
        _row(
            2,
            variation=dark,
            success=False,
            outcome="soft_fail",
            ended_by="step_budget",
            steps=10,
            reference_steps=None,
            detours=None,
            subgoals_reached=["a"],
            invalid_actions=3,
            error_events={"agent": 3},
            errors=ErrorTally(validation=3, timeout=1),
            **{"return": -1.0},
        ),
        _row(
            3,
            success=False,
            outcome="hard_fail",
            ended_by="agent",
            steps=2,
            reference_steps=None,
            detours=None,
            subgoals_reached=[],
            error_events={"executor": 2},
            errors=ErrorTally(navigation=2, extraction=1),
            widgets_offered=["link", "menu"],
            widgets_exercised=[],
            **{"return": -0.5},
        ),
    ]


def test_metrics_follow_their_documented_definitions():
    m = aggregate(_rows(), {("t", "a"): "first", ("t", "b"): "second"})
    assert (m.episodes, m.successes, m.success_rate) == (4, 2, 0.5)
    assert m.mean_return == pytest.approx((1 + 1 - 1 - 0.5) / 4)
    assert m.mean_steps_to_success == 5.0 and m.mean_steps == 5.5
    assert (m.detours.episodes, m.detours.total, m.detours.mean) == (2, 2, 1.0)
    assert m.outcomes.model_dump() == {"success": 2, "soft_fail": 1, "hard_fail": 1}
    errors = {k: getattr(m.errors, k).model_dump() for k in ("validation", "navigation")}
    assert errors == {
        "validation": {"events": 3, "episodes": 1},
        "navigation": {"events": 2, "episodes": 1},
    }
    assert m.errors.extraction.episodes == m.errors.timeout.episodes == 1
    # Subgoal b was missed by both failed episodes, a by one: most frequent first.
    assert [(f.subgoal, f.never_reached, f.failed_episodes) for f in m.subgoal_failures] == [
        ("b", 2, 2),
        ("a", 1, 2),
    ]
    assert m.subgoal_failures[0].description == "second"
    widgets = m.coverage.widgets
    assert widgets.offered == {"link": 4, "menu": 1} and widgets.exercised == {"link": 3}
    assert widgets.never_exercised == ["menu"] and widgets.fraction == 0.5
    assert m.coverage.verbs == {"click": 16}
    assert m.per_task["t"].success_rate == 0.5


def test_grouped_robustness_compares_perturbed_with_plain_episodes():
    theme = robustness(_rows()).grouped.axes["theme"]
    assert theme.default == "light" and theme.perturbed_values == ["dark"]
    assert (theme.baseline.episodes, theme.baseline.success_rate) == (2, 0.5)
    assert (theme.perturbed.episodes, theme.perturbed.success_rate) == (2, 0.5)
    assert theme.index == 1.0 and theme.return_delta == pytest.approx(0.0 - 0.25)
    # An axis every episode shows at its plain value has no perturbed group, so no index.
    nav = robustness(_rows()).grouped.axes["nav"]
    assert nav.perturbed.episodes == 0 and nav.index is None
    assert robustness(_rows()).paired is None


def test_perturbations_parse_with_their_default_values_and_clear_errors():
    assert parse_perturbations("theme, distractors=some") == (
        ("theme", "high-contrast"),
        ("distractors", "some"),
    )
    assert len(parse_perturbations("all")) == len(Variation.plain().to_json())
    assert parse_perturbations(None) == ()
    with pytest.raises(UnknownNameError, match="Did you mean 'theme'"):
        parse_perturbations("thme")
    with pytest.raises(ConfigError, match="non-plain values: dark, high-contrast"):
        parse_perturbations("theme=light")


def _results(rows: list[EpisodeResult] | None = None) -> EvalResults:
    rows = rows or _rows()
    suite = get_suite("shop-test")
    return EvalResults(
        package_version="0",
        suite=SuiteInfo.model_validate(suite.to_json()),
        agent=AgentInfo(spec="random", kind="random"),
        config=RunConfig(episodes=len(rows), max_steps=10, obs_mode="tokens"),
        metrics=aggregate(rows, {}),
        robustness=robustness(rows),
        episodes=rows,
    )


def test_results_round_trip_and_validate_against_the_schema(tmp_path):
    results = _results()
    path = tmp_path / "r.json"
    path.write_text(results.to_json_text(), encoding="utf-8")
    data = json.loads(path.read_text(encoding="utf-8"))
    _validate(data)
    assert data["episodes"][2]["return"] == -1.0  # written as `return`, like `run --json`
    assert load_results(str(path)) == results
    data["schema_version"] = "2.0"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match="upgrade webfactory_env, or re-run"):
        load_results(str(path))


def test_summary_and_plot_sit_next_to_the_results(tmp_path):
    pytest.importorskip("matplotlib")
    written = write_results(_results(), tmp_path / "out" / "results.json")
    assert [p.name for p in written] == ["results.json", "results.md", "results.png"]
    assert written[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = written[1].read_text(encoding="utf-8")
    assert "| success rate | 50.0% (2/4) |" in md and "![results](results.png)" in md


def test_summary_degrades_gracefully_without_matplotlib(tmp_path, monkeypatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib → ImportError
    written = write_results(_results(), tmp_path / "results.json")
    assert [p.name for p in written] == ["results.json", "results.md"]
    md = written[1].read_text(encoding="utf-8")
    assert "install matplotlib" in md and "| success rate | 50.0% (2/4) |" in md


# ------------------------------------------------------------------------ agents
def _fake_zip(path: Path, data: dict[str, Any]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))
    return path


def test_sb3_algorithm_comes_from_the_zip_metadata(tmp_path):
    maskable = {"policy_class": {"__module__": "sb3_contrib.common.maskable.policies"}}
    ppo = {"policy_class": {"__module__": "stable_baselines3.common.policies"}, "clip_range": 1}
    assert _algorithm_order(_fake_zip(tmp_path / "m.zip", maskable))[0] == "MaskablePPO"
    assert _algorithm_order(_fake_zip(tmp_path / "p.zip", ppo)) == ["PPO", "MaskablePPO", "A2C"]
    assert _algorithm_order(_fake_zip(tmp_path / "u.zip", {})) == ["PPO", "MaskablePPO", "A2C"]
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match="not an SB3 model zip"):
        parse_agent(f"sb3:{tmp_path / 'bad.zip'}")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agent", "rnadom"], "unknown agent 'rnadom'. Did you mean 'random'?"),
        (["--agent", "sb3:/nonexistent/model.zip"], "does not exist; pass --agent sb3:PATH"),
        (["--suite", "shop-tset"], "Did you mean 'shop-test'?"),
        (["--episodes", "1001"], "has only 1000 episodes; ask for at most 1000"),
        (["--episodes", "0"], "--episodes must be at least 1"),
        (["--robustness", "colour"], "unknown variation axis 'colour'"),
    ],
)
def test_bad_eval_requests_fail_fast_with_the_fix(tmp_path, capsys, argv, message):
    from webfactory_env.cli import main

    args = {"--agent": "random", "--suite": "shop-test", "--episodes": "1"}
    args.update(dict(zip(argv[::2], argv[1::2], strict=True)))
    flat = [x for kv in args.items() for x in kv]
    assert main(["eval", *flat, "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()


def test_eval_says_which_arguments_are_missing(capsys):
    from webfactory_env.cli import main

    assert main(["eval", "--agent", "oracle"]) == 2
    assert "needs --suite, --episodes, --out" in capsys.readouterr().err


# ----------------------------------------------------------------- with a browser
PAIR = Suite("probe-pair", "two shop tasks", "shop", ("shop_open_cart", "buy_red_mug"), 100_000, 1)


@pytest.mark.browser
def test_oracle_scores_100_percent_and_random_its_real_lower_figure():
    from webfactory_env.cli import run_episode

    oracle = evaluate(PAIR, "oracle", 2, max_steps=16)
    m = oracle.metrics
    assert (m.success_rate, m.successes, m.outcomes.success) == (1.0, 2, 2)
    assert m.detours.mean == 0 and m.errors.timeout.events == 0
    assert [r.steps for r in oracle.episodes] == [r.reference_steps for r in oracle.episodes]
    assert "link" in m.coverage.widgets.exercised and "Link" in m.coverage.affordances.offered

    rand = evaluate(PAIR, "random", 2, max_steps=16)
    r = rand.metrics
    assert r.success_rate < m.success_rate
    assert r.success_rate == sum(e.success for e in rand.episodes) / 2
    failed = next(e for e in rand.episodes if not e.success)
    assert failed.ended_by == "step_budget" and failed.errors.timeout == 1
    assert failed.outcome == "soft_fail" and failed.steps == 16
    assert r.subgoal_failures and r.errors.timeout.episodes >= 1
    # The figures are the episodes' own: the same episode outside the harness agrees.
    summary, env = run_episode(
        "shop", failed.task, failed.seed, "random", max_steps=16, obs_mode="tokens"
    )
    env.close()
    assert (summary["success"], summary["steps"]) == (failed.success, failed.steps)
    assert summary["return"] == pytest.approx(failed.episode_return)
    assert summary["site_digest"] == failed.site_digest
    _validate(json.loads(rand.to_json_text()))


@pytest.mark.browser
def test_eval_command_end_to_end(tmp_path, capsys):
    from webfactory_env.cli import main

    out = tmp_path / "eval" / "results.json"
    argv = ["eval", "--agent", "oracle", "--suite", "shop-test", "--episodes", "1"]
    assert main([*argv, "--max-steps", "16", "--robustness", "theme", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # not a terminal: no progress bar
    assert "success rate 100.0% (1/1)" in captured.out and f"wrote {out}" in captured.out
    data = json.loads(out.read_text(encoding="utf-8"))
    _validate(data)
    assert data["suite"]["name"] == "shop-test" and data["agent"]["kind"] == "oracle"
    assert data["metrics"]["success_rate"] == 1.0
    theme = data["robustness"]["paired"]["axes"]["theme"]
    assert theme["perturbed_values"] == ["high-contrast"] and theme["index"] == 1.0
    assert set(data["episodes"][0]["paired"]) == {"plain", "theme=high-contrast"}
    assert out.with_suffix(".md").is_file()
    # Deterministic: the same run from Python gives the same file, timing aside.
    again = evaluate(
        "shop-test", "oracle", 1, max_steps=16, perturbations=[("theme", "high-contrast")]
    )
    assert again.model_dump(exclude={"timing"}) == load_results(str(out)).model_dump(
        exclude={"timing"}
    )


@pytest.mark.browser
@pytest.mark.slow
def test_sb3_models_load_with_their_algorithm_and_env_shapes(tmp_path):
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    env = gym.make("WebTask-v0", obs_mode="tokens", max_elements=32, max_values=12)
    kwargs = {"n_steps": 8, "batch_size": 8, "device": "cpu", "policy_kwargs": {"net_arch": [8]}}
    PPO("MultiInputPolicy", env, **kwargs).save(tmp_path / "ppo")
    MaskablePPO("MultiInputPolicy", env, **kwargs).save(tmp_path / "mppo")
    env.close()

    ppo = parse_agent(f"sb3:{tmp_path / 'ppo.zip'}")
    assert ppo.info.algorithm == "PPO" and ppo.info.sha256
    assert ppo.env_kwargs == {
        "obs_mode": "tokens",
        "max_elements": 32,
        "max_tokens": 12,
        "vocab_size": 4096,
        "action_mode": "multidiscrete",
        "max_values": 12,
    }
    results = evaluate("shop-test", f"sb3:{tmp_path / 'mppo'}", 1, max_steps=3)
    assert results.agent.algorithm == "MaskablePPO" and results.agent.path.endswith("mppo.zip")
    assert results.config.env["max_elements"] == 32
    (episode,) = results.episodes
    # An untrained policy acts deterministically, and may well end the episode at once.
    assert 1 <= episode.steps == sum(episode.verbs.values()) <= 3
    assert episode.ended_by in ("agent", "step_budget") and not episode.success


@pytest.mark.browser
def test_a_level_that_does_not_compile_is_skipped_with_its_reason(
    tmp_path, capsys, partly_compilable, partly_compilable_suite
):
    from webfactory_env.cli import main

    out = tmp_path / "results.json"
    argv = ["eval", "--agent", "oracle", "--suite", "partly", "--episodes", "2"]
    assert main([*argv, "--max-steps", "8", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "oracle on partly (v1), 1 episodes:" in printed
    assert "skipped 1 episode whose task cannot be compiled on its level" in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    _validate(data)
    assert [e["seed"] for e in data["episodes"]] == [partly_compilable.good]
    assert data["metrics"]["success_rate"] == 1.0  # the skipped level counts in no metric
    (skipped,) = data["skipped_levels"]
    bad, task = partly_compilable.bad, partly_compilable_suite.tasks[0]
    assert (skipped["index"], skipped["seed"], skipped["task"]) == (0, bad, task)
    assert "Throw Blanket" in skipped["reason"]
    assert "Skipped 1 episode" in out.with_suffix(".md").read_text(encoding="utf-8")


def _pointer_zip_with_weights(tmp_path, name, change):
    """A pointer-policy model zip saved here, then `change(weights)` applied to its
    policy's weights (as another version would have saved them)."""
    import io

    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from webfactory_env.policies.sb3 import PointerPolicy

    saved = tmp_path / "m.zip"
    if not saved.is_file():
        env = gym.make("WebTask-v0", obs_mode="tokens", action_mode="discrete", max_elements=16)
        MaskablePPO(PointerPolicy, env, n_steps=8, batch_size=8, device="cpu").save(saved)
        env.close()
    with zipfile.ZipFile(saved) as z:
        parts = {entry: z.read(entry) for entry in z.namelist()}
    weights = torch.load(io.BytesIO(parts["policy.pth"]), map_location="cpu")
    change(weights)
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    parts["policy.pth"] = buffer.getvalue()
    out = tmp_path / name
    with zipfile.ZipFile(out, "w") as z:
        for entry, data in parts.items():
            z.writestr(entry, data)
    return saved, out


def test_a_pointer_model_saved_by_another_version_is_refused_with_what_to_do(tmp_path):
    """A model whose layers were shaped by another version's pointer policy (its element
    layer read one feature fewer) loads as an algorithm and a policy class, and then not:
    the error says so and what to do, not only torch's size mismatch."""
    pytest.importorskip("sb3_contrib")

    def one_feature_fewer(weights):
        for key in [k for k in weights if k.endswith("element_in.0.weight")]:
            weights[key] = weights[key][:, :-1].clone()  # as saved before the kind rank

    saved, old = _pointer_zip_with_weights(tmp_path, "old.zip", one_feature_fewer)
    with pytest.raises(ConfigError, match=r"other names or shapes than this version's.*train it"):
        parse_agent(f"sb3:{old}")
    assert parse_agent(f"sb3:{saved}").info.algorithm == "MaskablePPO"


def test_a_pointer_model_missing_a_layer_or_with_one_more_is_refused_too(tmp_path):
    """The other way another version's model differs: a layer this policy has is not in
    the zip (or the zip has one this policy has not). SB3 loads the first anyway, after a
    warning, with that layer as initialised: an evaluation would measure untrained
    weights. Both are the same clear error."""
    pytest.importorskip("sb3_contrib")

    def no_task_vectors(weights):
        for key in [k for k in weights if ".tasks." in k]:
            del weights[key]

    def one_layer_more(weights):
        weights["features_extractor.net.extra.weight"] = weights[next(iter(weights))].clone()

    for name, change, detail in (
        ("missing.zip", no_task_vectors, r"missing \['features_extractor\.net\.tasks"),
        ("extra.zip", one_layer_more, r"Unexpected key.*features_extractor\.net\.extra"),
    ):
        _, other = _pointer_zip_with_weights(tmp_path, name, change)
        with pytest.raises(ConfigError, match=r"other names or shapes.*" + detail):
            parse_agent(f"sb3:{other}")
