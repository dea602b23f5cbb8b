"""PPO fine-tuning a pointer policy: every update's figures are logged (entropy, KL, value
fit, advantage scale), and the value warm-up trains the critic while the policy's logits
stay exactly as they were."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from webfactory_env.training.finetune import policy_network, value_warmup_callback  # noqa: E402
from webfactory_env.training.ppo_log import describe, ppo_log_callback  # noqa: E402
from webfactory_env.training.sb3_config import TrainConfig, parse_args  # noqa: E402

pytestmark = pytest.mark.browser


def _model(make_env):
    from sb3_contrib import MaskablePPO

    from webfactory_env.policies.sb3 import PointerPolicy

    env = make_env(
        family="shop",
        task="shop_track_parcel",
        obs_mode="tokens",
        action_mode="discrete",
        max_steps=6,
    )
    return MaskablePPO(
        PointerPolicy, env, n_steps=16, batch_size=16, n_epochs=2, seed=0, device="cpu"
    )


def _logits(model, obs) -> torch.Tensor:
    tensor, _ = model.policy.obs_to_tensor(obs)
    with torch.no_grad():
        return model.policy.get_distribution(tensor).distribution.logits.clone()


def test_value_warmup_fits_the_critic_and_leaves_the_policy_as_it_was(make_env):
    model = _model(make_env)
    obs, _ = model.get_env().envs[0].reset(seed=100_000)
    before = _logits(model, obs)
    critic_before = model.policy.value_net.weight.detach().clone()
    rows: list[dict[str, float]] = []
    model.learn(32, callback=[ppo_log_callback(rows), value_warmup_callback(2)])

    assert torch.equal(_logits(model, obs), before)  # two updates, both warm-up
    assert not torch.equal(model.policy.value_net.weight, critic_before)
    assert all(p.requires_grad for p in policy_network(model.policy))  # thawed at the end
    assert [r["timesteps"] for r in rows] == [16, 32]
    assert all(r["approx_kl"] == 0 and r["clip_fraction"] == 0 for r in rows)

    # Without the warm-up the same updates move the policy.
    model.learn(16, callback=[ppo_log_callback(rows)], reset_num_timesteps=False)
    assert not torch.equal(_logits(model, obs), before)
    assert rows[-1]["approx_kl"] > 0


def test_every_update_logs_what_its_rollout_saw_and_what_it_did(make_env):
    model = _model(make_env)
    rows: list[dict[str, float]] = []
    model.learn(32, callback=ppo_log_callback(rows))

    assert len(rows) == 2
    for row in rows:
        # An untrained policy over the page's menu: far from collapsed.
        assert row["policy_entropy"] > 1.0
        assert row["advantage_std"] > 0 and math.isfinite(row["value_explained"])
        for key in ("approx_kl", "clip_fraction", "value_loss", "entropy", "value_rmse"):
            assert math.isfinite(row[key]), key
    line = describe(rows)
    assert line.startswith("PPO first update: rollout success")
    assert "last (2)" in line


def test_the_demo_anchor_keeps_pulling_the_policy_to_the_demonstrations(make_env):
    import numpy as np

    from webfactory_env.policies.bc import Demonstrations
    from webfactory_env.policies.sb3 import NEEDED
    from webfactory_env.training.finetune import demo_anchor_callback

    # "Demonstrations": each page's last menu row, on the first two pages of four levels.
    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", action_mode="discrete"
    )
    steps, actions = [], []
    for seed in (3, 4, 5, 6):
        obs, _ = env.reset(seed=seed)
        for _ in range(2):
            last = int((obs["menu"][:, 0] >= 0).sum()) - 1
            steps.append(obs)
            actions.append(obs["menu"][last].astype(np.int64))
            obs, _, terminated, truncated, _ = env.step(last)
            if terminated or truncated:
                break
    demos = Demonstrations(
        observations={k: np.stack([o[k] for o in steps]) for k in NEEDED},
        actions=np.stack(actions),
        returns=np.zeros(len(steps)),
        episodes=4,
    )
    tensors = {k: torch.as_tensor(v) for k, v in demos.observations.items()}

    def likelihood(model) -> float:
        with torch.no_grad():
            out = model.policy.pointer(tensors)
            return float(out.log_prob_triples(torch.as_tensor(demos.actions)).mean())

    plain, anchored = _model(make_env), _model(make_env)
    start = likelihood(plain)
    assert likelihood(anchored) == start  # the same seed: the same untrained policy
    plain.learn(32)
    anchored.learn(32, callback=demo_anchor_callback(demos, 20, learning_rate=1e-3))
    assert likelihood(anchored) > max(likelihood(plain), start) + 0.5


def test_the_trainer_builds_a_pointer_policy_blind_to_task_ids_and_guards_the_kl(make_env):
    from webfactory_env.training.sb3 import make_model
    from webfactory_env.training.sb3_config import TrainConfig

    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", action_mode="discrete"
    )
    obs, _ = env.reset(seed=100_000)
    other_task = {**obs, "task_id": obs["task_id"] + 1}
    common = {"policy": "pointer", "action_mode": "discrete", "n_steps": 16, "batch_size": 16}

    blind = make_model(TrainConfig(**common, task_embedding=False, target_kl=0.02), env)
    assert blind.target_kl == 0.02
    assert blind.policy.pointer.tasks is None  # no vector per task id to leave untrained
    assert torch.equal(_logits(blind, obs), _logits(blind, other_task))

    seeing = make_model(TrainConfig(**common), env)
    assert seeing.target_kl is None and seeing.policy.pointer.tasks is not None
    assert not torch.equal(_logits(seeing, obs), _logits(seeing, other_task))


def test_a_tiny_target_kl_stops_each_update_after_its_first_minibatches(make_env):
    from webfactory_env.training.sb3 import make_model
    from webfactory_env.training.sb3_config import TrainConfig

    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", action_mode="discrete",
        max_steps=6,
    )  # fmt: skip
    rows: list[dict[str, float]] = []
    common = {"policy": "pointer", "action_mode": "discrete", "n_steps": 32, "batch_size": 8}
    guarded = make_model(TrainConfig(**common, n_epochs=8, target_kl=1e-9), env)
    guarded.learn(32, callback=[ppo_log_callback(rows)])
    # SB3 counts the epochs it ran: the first minibatch moved the policy past the guard
    # and the update stopped there (unguarded, all 8 epochs run).
    assert guarded.logger.name_to_value["train/n_updates"] == 1
    unguarded = make_model(TrainConfig(**common, n_epochs=8), env)
    unguarded.learn(32)
    assert unguarded.logger.name_to_value["train/n_updates"] == 8
    with pytest.raises(ValueError, match="target-kl must be positive"):
        TrainConfig(**common, target_kl=0)


def _policy_loss_of_an_update(make_env, normalize: bool) -> tuple[float, float, float]:
    """SB3's policy-gradient loss of one update (learning rate 0: the ratio stays 1) whose
    advantages are 0.005 give or take 0.001: every rollout of a clone that never fails, a
    little above the critic's guess; and the loss the advantages as they are give."""
    from webfactory_env.training.sb3 import make_model

    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", action_mode="discrete",
        max_steps=6,
    )  # fmt: skip
    config = TrainConfig(
        policy="pointer", action_mode="discrete", n_steps=16, batch_size=8, n_epochs=1,
        learning_rate=0.0, ent_coef=0.0, normalize_advantage=normalize,
    )  # fmt: skip
    model = make_model(config, env)
    _, callback = model._setup_learn(16, callback=None)
    buffer = model.rollout_buffer
    model.collect_rollouts(model.env, callback, buffer, n_rollout_steps=model.n_steps)
    rng = np.random.default_rng(0)
    buffer.advantages = rng.normal(0.005, 0.001, buffer.advantages.shape).astype(np.float32)
    buffer.returns = buffer.values + buffer.advantages
    model.train()
    loss = float(model.logger.name_to_value["train/policy_gradient_loss"])
    # The last minibatch's gradient on the policy's network (SB3 leaves it in place).
    push = float(torch.norm(torch.stack([p.grad.norm() for p in policy_network(model.policy)])))
    return loss, push, -float(buffer.advantages.mean())


def test_fine_tuning_trains_on_the_advantages_as_they_are(make_env):
    # SB3 rescales each minibatch's advantages to zero mean and unit spread: a rollout in
    # which every episode did as well as the critic expected, give or take its noise, is
    # turned into full-size pushes in directions the noise picks. That made BC + PPO undo
    # a clone of 1.00 on shop_track_parcel (0.00 after 8192 steps, updates of KL 1-2.4);
    # `normalize_advantage=False` (the benchmark's BC + PPO) kept it at 1.00.
    rescaled, rescaled_push, _ = _policy_loss_of_an_update(make_env, normalize=True)
    as_they_are, push, expected = _policy_loss_of_an_update(make_env, normalize=False)
    assert abs(rescaled) < 1e-5 and as_they_are == pytest.approx(expected, rel=1e-4)
    # Rescaled, the noise pushes the policy as hard as SB3's gradient clip lets anything
    # push it; as it is, it barely pushes.
    assert rescaled_push == pytest.approx(0.5, rel=1e-3)
    assert push < rescaled_push / 20
    assert TrainConfig().normalize_advantage
    assert not parse_args(["--no-normalize-advantage"]).normalize_advantage


def test_starting_from_a_model_of_other_layers_says_which_setting_differs(make_env, tmp_path):
    """`--init-from` a generalist's model (no vector per task id) into a run that has one:
    torch's missing-key error becomes the one error for layers of another version or
    setting, with the flag that makes them fit."""
    from webfactory_env.core.errors import ConfigError
    from webfactory_env.training.sb3 import make_model, start_from

    env = make_env(
        family="shop", task="shop_track_parcel", obs_mode="tokens", action_mode="discrete"
    )
    common = {"policy": "pointer", "action_mode": "discrete", "n_steps": 16, "batch_size": 16}
    make_model(TrainConfig(**common, task_embedding=False), env).save(tmp_path / "generalist")
    seeing = make_model(TrainConfig(**common), env)
    with pytest.raises(ConfigError, match=r"other names or shapes.*--no-task-embedding"):
        start_from(seeing, tmp_path / "generalist.zip")
    start_from(
        make_model(TrainConfig(**common, task_embedding=False), env), tmp_path / "generalist.zip"
    )
