"""Agents that learn: the goal reaches the observation, masks reach `gym.make` users and
never admit an invalid action in the joint mode, done is offered only where it belongs,
and the pointer policy scores rows by content (it follows a target that moves)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import webfactory_env
from webfactory_env.actions import DONE_VERBS, VERB_INDEX, VERBS
from webfactory_env.core.dom import FLAG_NAMES
from webfactory_env.core.errors import ConfigError
from webfactory_env.observation import CONTEXT_PARTS, text_token_ids

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from webfactory_env.policies.pointer import PointerConfig, PointerNet  # noqa: E402


# ------------------------------------------------------------------- pure, no browser
def _synthetic(
    n: int = 8, k: int = 4, s: int = 3, g: int = 10, target: int = 5, where: str = "text"
) -> dict:
    """One observation: element `target` shows the words of slot 1, which the goal names,
    in its own text or (`where`) in a part of its context (`CONTEXT_PARTS`)."""
    rng = np.random.default_rng(0)
    text = rng.integers(100, 4000, (1, n, k))
    slots = np.zeros((1, s, k), np.int64)
    slots[0, 1, :2] = [7, 8]
    slots[0, 0, :1] = [9]
    context = np.zeros((1, n, len(CONTEXT_PARTS), k), np.int64)
    if where == "text":
        text[0, target, :2] = [7, 8]
    else:
        context[0, target, CONTEXT_PARTS.index(where), :2] = [7, 8]
    goal = np.zeros((1, g), np.int64)
    goal[0, :5] = [11, 12, 7, 8, 13]
    return {
        "tag": rng.integers(2, 10, (1, n)),
        "role": np.arange(2, 2 + n)[None],  # one row per role: page order carries no rank
        "text": text,
        "bbox": rng.random((1, n, 4)).astype(np.float32),
        "flags": rng.integers(0, 2, (1, n, len(FLAG_NAMES))).astype(np.uint8),
        "mask": np.ones((1, n), np.uint8),
        "context": context,
        "goal": goal,
        "slots": slots,
        "task_id": np.array([[3]]),
    }


def _tensors(obs: dict) -> dict:
    return {k: torch.as_tensor(v) for k, v in obs.items()}


@pytest.mark.slow
@pytest.mark.parametrize("where", ["text", "label", "row"])
def test_behaviour_cloning_points_at_the_row_that_shows_the_goal_value(where):
    """Whether the element shows the goal's value itself, is labelled with it or sits in
    the row that shows it, cloning learns to point at it wherever it is on the page."""
    torch.manual_seed(0)
    net = PointerNet(PointerConfig(dim=32))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    targets = rng.integers(8, size=32)  # the target row moves from level to level
    pages = [_synthetic(target=int(t), where=where) for t in targets]
    batch = _tensors({k: np.concatenate([p[k] for p in pages]) for k in pages[0]})
    actions = torch.tensor([[VERB_INDEX["click"], int(t), 0] for t in targets])
    for _ in range(60):
        loss = -net(batch).log_prob_triples(actions).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    hits = 0
    for target in range(8):  # fresh pages, every position
        obs = _synthetic(target=target, where=where)
        obs["text"][0, :, 2:] = rng.integers(100, 4000, (8, 2))
        with torch.no_grad():
            out = net(_tensors(obs))
        hits += int(out.element[0, :, VERB_INDEX["click"]].argmax()) == target
    assert hits == 8


def test_the_pointer_reads_an_elements_context():
    """Changing only one element's label (from a stray word to a goal word) changes how
    that element scores: the network reads the context, not only the element's words."""
    torch.manual_seed(0)
    net = PointerNet(PointerConfig(dim=16))
    obs = _synthetic()
    label = CONTEXT_PARTS.index("label")
    obs["context"][0, 3, label, 0] = 999
    labelled = {**obs, "context": obs["context"].copy()}
    labelled["context"][0, 3, label, 0] = 11  # a goal word
    with torch.no_grad():
        before, after = net(_tensors(obs)), net(_tensors(labelled))
    click = VERB_INDEX["click"]
    assert float(after.element[0, 3, click]) != pytest.approx(float(before.element[0, 3, click]))


def test_the_first_price_of_a_list_is_first_of_its_kind_however_many_texts_come_before():
    """Flight cards as the travel results page shows them (a link, then texts: times, an
    overnight "+1" on some, details, the price in <strong>, "per traveller", a seats
    note on some): each card's price ranks by card among the cells of its kind (role, tag,
    label), while among all texts its rank depends on what the cards before it show."""
    from webfactory_env.observation.encode import _ROLE_ID, _TAG_ID
    from webfactory_env.policies.pointer import page_order

    cards = [
        ["a", "span", "span", "strong", "span"],
        ["a", "span", "span", "strong", "span", "span"],
        ["a", "span", "sup", "span", "strong", "span"],
        ["a", "span", "sup", "span", "strong", "span"],
    ]
    tags = [t for card in cards for t in card]
    roles = ["link" if t == "a" else "text" for t in tags]
    n, k = len(tags), 4
    role_ids = torch.tensor([[_ROLE_ID[r] for r in roles]])
    tag_ids = torch.tensor([[_TAG_ID.get(t, 1) for t in tags]])  # "sup": <other>
    label = torch.zeros(1, n, k, dtype=torch.long)
    order = page_order(role_ids, tag_ids, label, torch.ones(1, n), torch.zeros(1, n))[0]
    prices = [i for i, t in enumerate(tags) if t == "strong"]
    assert order[prices, 2].tolist() == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    assert order[prices, 0].tolist() == pytest.approx([1 / 3, 1 / 7, 1 / 13, 1 / 18])
    # A cell labelled otherwise (another table column) is another kind.
    label[0, prices[1], 0] = 17
    relabelled = page_order(role_ids, tag_ids, label, torch.ones(1, n), torch.zeros(1, n))[0]
    assert relabelled[prices, 2].tolist() == pytest.approx([1, 1, 1 / 2, 1 / 3])


def test_word_ids_are_the_same_in_another_process():
    text = "Where is the parcel TRK73546C2A9? Report its tracking status."
    here = text_token_ids(text, 48, 4096)
    code = (
        "from webfactory_env.observation import text_token_ids; "
        f"print(text_token_ids({text!r}, 48, 4096))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""} | _pythonpath(),
    )
    assert out.stdout.strip() == str(here)


def _pythonpath() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "HOME", "PATH")}


def test_bad_goal_arguments_are_one_line_config_errors():
    with pytest.raises(ConfigError, match="goal_source"):
        gym.make("WebTask-v0", goal_source="title")
    with pytest.raises(ConfigError, match="done_actions"):
        gym.make("WebTask-v0", done_actions="sometimes")


# --------------------------------------------------------------------------- browser
browser = pytest.mark.browser


@browser
def test_goal_arrays_hold_the_instruction_values_and_task(make_env):
    env = make_env(family="shop", task="shop_track_parcel", obs_mode="tokens")
    obs, info = env.reset(seed=100_001)
    assert env.observation_space.contains(obs)
    goal = text_token_ids(info["instruction"], 48, 4096)
    assert obs["goal"][: len(goal)].tolist() == goal and not obs["goal"][len(goal) :].any()
    for j, value in enumerate(info["values"]):
        ids = text_token_ids(value, 12, 4096)
        assert obs["slots"][j, : len(ids)].tolist() == ids
    assert obs["task_id"][0] == webfactory_env.observation.task_id("shop_track_parcel")
    # Another level: another parcel, so other words; same shapes.
    other, info2 = env.reset(seed=100_002)
    assert info2["values"] != info["values"] and (other["slots"] != obs["slots"]).any()
    # goal_source picks the text; none drops the arrays.
    recipe = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", goal_source="recipe"
    )
    r_obs, r_info = recipe.reset(seed=100_001)
    assert r_obs["goal"].tolist()[:5] == text_token_ids(r_info["recipe"], 5, 4096)
    bare = make_env(family="shop", task="shop_track_parcel", obs_mode="tokens", goal_source="none")
    assert "goal" not in bare.reset(seed=1)[0]


@browser
def test_gym_make_users_get_masks_through_the_wrapper_stack(make_env):
    env = make_env(family="shop", task="shop_open_cart", obs_mode="tokens")
    env.reset(seed=3)
    masks = env.action_masks()  # the README's own call, straight after gym.make
    wrapped = gym.wrappers.TimeLimit(gym.wrappers.RecordEpisodeStatistics(env), 5)
    assert (webfactory_env.action_masks(wrapped) == masks).all()
    assert (wrapped.get_wrapper_attr("action_masks")() == masks).all()  # what sb3-contrib calls


@browser
def test_done_is_offered_only_to_tasks_that_end_with_one(make_env):
    cart = make_env(family="shop", task="shop_apply_coupon", obs_mode="tokens")
    cart.reset(seed=5)
    done = [VERB_INDEX[v] for v in DONE_VERBS]
    assert not cart.action_masks()[done].any()
    _, _, terminated, _, info = cart.step(np.array([VERB_INDEX["done_success"], 0, 0]))
    assert not terminated and "not offered" in info["action_error"]
    answer = make_env(family="shop", task="shop_track_parcel", obs_mode="tokens")
    answer.reset(seed=5)
    assert answer.action_masks()[done].all()
    always = make_env(
        family="shop", task="shop_apply_coupon", obs_mode="tokens", done_actions="always"
    )
    always.reset(seed=5)
    assert always.action_masks()[done].all()


@browser
def test_joint_masks_never_admit_an_invalid_action(make_env):
    """Discrete mode: 0 invalid among 150 masked samples over 3 tasks' episodes; the
    multidiscrete mode's per-dimension masks are measured, not zero."""
    from webfactory_env.agents import RandomAgent

    invalid = {"discrete": 0, "multidiscrete": 0}
    for mode in invalid:
        for task in ("shop_apply_coupon", "shop_track_parcel", "shop_open_cart"):
            env = make_env(
                family="shop", task=task, obs_mode="tokens", action_mode=mode, max_steps=10
            )
            agent = RandomAgent(env, seed=0, allow_done=True)
            env.reset(seed=7)
            for _ in range(10):
                _, _, terminated, truncated, info = env.step(agent.act())
                invalid[mode] += info["action_error"] is not None
                if terminated or truncated:
                    env.reset(seed=8)
    assert invalid["discrete"] == 0
    assert invalid["multidiscrete"] > 0  # why the joint mode exists


@browser
def test_the_pointer_policy_acts_through_maskable_ppo_in_both_action_modes(make_env):
    from sb3_contrib import MaskablePPO

    from webfactory_env.policies.sb3 import PointerPolicy

    for mode in ("discrete", "multidiscrete"):
        env = make_env(
            family="shop",
            task="shop_apply_coupon",
            obs_mode="tokens",
            action_mode=mode,
            max_steps=4,
        )
        model = MaskablePPO(
            PointerPolicy, env, n_steps=8, batch_size=8, n_epochs=1, seed=0, device="cpu"
        )
        model.learn(8)
        obs, _ = env.reset(seed=11)
        action, _ = model.predict(obs, action_masks=env.action_masks())
        _, _, _, _, info = env.step(action)
        if mode == "discrete":
            assert info["action_error"] is None
    assert len(VERBS) == 10


# -------------------------------------------------------------- the learning benchmark
def _benchmark():
    import runpy
    from pathlib import Path
    from types import SimpleNamespace

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "learning.py"
    return SimpleNamespace(**runpy.run_path(str(path)))


def test_the_learning_benchmark_covers_every_family_and_kind_of_question():
    from webfactory_env.sitegen.registry import families
    from webfactory_env.tasks.library import library, library_tasks

    bench = _benchmark()
    tasks = bench.TASKS
    assert len(tasks) >= 12
    assert {family for family, _ in tasks.values()} == {f for f in families() if library_tasks(f)}
    assert all(library()[name].family == family for name, (family, _) in tasks.items())
    travel = {"trip_reference_after_2fa", "cancel_refundable_trip", "cheapest_oneway_fare"}
    assert travel <= set(tasks)
    for kind in (bench.LABEL_VALUE, bench.ROW_QUESTION):
        assert len({family for family, k in tasks.values() if k == kind}) >= 2, kind
    assert set(bench.COLUMNS) == {"clone", "bc_ppo", "ppo", "random"}
    assert bench.BUDGET["levels"] >= 50


def test_the_benchmark_speaks_the_task_lists_difficulty():
    """One vocabulary: the benchmark called `shop_track_parcel` medium (4 oracle steps)
    where the task list says easy; now it prints the task list's word beside the length."""
    from webfactory_env.tasks.library import library

    bench = _benchmark()
    assert library()["shop_track_parcel"].difficulty == "easy"
    assert bench.describe("shop_track_parcel", levels=2) == "shop, easy, 4 oracle steps"
    assert library()["cancel_refundable_trip"].difficulty in bench.describe(
        "cancel_refundable_trip", levels=1
    )


def test_benchmark_figures_carry_a_95_percent_interval():
    bench = _benchmark()
    lo, hi = bench.wilson(0, 50)
    assert lo == 0.0 and 0.06 < hi < 0.08  # none of 50 still leaves room up to 7 %
    lo, hi = bench.wilson(25, 50)
    assert lo == pytest.approx(1 - hi) and 0.35 < lo < 0.38
    row = {"success": 0.9, "ci95": [0.79, 0.96]}
    assert bench.cell(row) == "0.90 [0.79, 0.96]" and bench.cell(None) == "—"


def test_the_benchmark_runs_only_the_columns_asked_for(tmp_path):
    """`--columns bc_ppo` runs the fine-tuning alone (the clone-only figure kept)."""
    from types import SimpleNamespace

    bench = _benchmark()
    trained = []

    def fake_train(config):
        trained.append(config.out.name)
        config.out.mkdir(parents=True)
        ev = SimpleNamespace(success_rate=0.5, episodes=2)
        return SimpleNamespace(
            final=ev,
            curve=[{"timesteps": 0}],
            wall_s=1.0,
            timing={},
            baselines={"random": ev} if config.baselines else {},
        )

    names = bench.run.__globals__
    names["train"], names["record_demos"] = fake_train, lambda config, out: out
    bench.run(["shop_track_parcel"], tmp_path, bench.BUDGET, ("bc_ppo",))
    assert trained == ["bc_ppo"]
    done = sorted(p.name for p in (tmp_path / "shop_track_parcel").glob("*.json"))
    assert done == ["bc_ppo.json"]


def test_the_ablation_takes_back_one_fine_tuning_setting_at_a_time(tmp_path):
    """`benchmarks/finetune_ablation.py`: each variant but the first is the benchmark's BC +
    PPO run with exactly one of its five settings set back, to a value it does not have."""
    import runpy
    from dataclasses import replace
    from pathlib import Path

    from webfactory_env.training.finetune import FINE_TUNING

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "finetune_ablation.py"
    ablation = runpy.run_path(str(path))
    bench = _benchmark()
    full = bench.configs("trip_reference_after_2fa", tmp_path, bench.BUDGET)["bc_ppo"]
    changes = [change for change in ablation["VARIANTS"].values() if change]
    assert len(changes) == 5 and all(len(change) == 1 for change in changes)
    taken_back = {key for change in changes for key in change}
    assert taken_back == {
        "value_warmup",
        "learning_rate",
        "n_epochs",
        "demo_anchor",
        "normalize_advantage",
    }
    # Every setting that fine-tunes a clone is taken back, but the entropy bonus (0 in
    # fine-tuning, SB3's own default: nothing to take back to).
    assert taken_back == set(FINE_TUNING) - {"ent_coef"}
    for change in changes:
        assert replace(full, **change) != full, change


def test_both_benchmarks_fine_tune_with_every_fine_tuning_setting(tmp_path):
    """The learning benchmark's BC + PPO and the generalist's take their settings from one
    place: a benchmark that sets them by hand and forgets one (as the generalist would
    have, keeping rescaled advantages) fails here."""
    import argparse
    import runpy
    from pathlib import Path

    from webfactory_env.training.finetune import FINE_TUNING

    bench = _benchmark()
    learning = bench.configs("shop_track_parcel", tmp_path, bench.BUDGET)["bc_ppo"]
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "generalist.py"
    generalist = runpy.run_path(str(path))
    a = argparse.Namespace(seed=0, bc_updates=5, timesteps=16, target_kl=0.2, levels=5)
    mixed = generalist["configs"](tmp_path, a, 20)["bc_ppo"]
    for config in (learning, mixed):
        assert {key: getattr(config, key) for key in FINE_TUNING} == FINE_TUNING
    plain = bench.configs("shop_track_parcel", tmp_path, bench.BUDGET)["ppo"]
    assert plain.normalize_advantage and plain.demo_anchor == 0  # plain PPO is SB3's own
