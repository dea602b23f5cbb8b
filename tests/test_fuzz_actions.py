"""Random and adversarial action streams: 10,000 actions over every family never raise, and
the env stays usable.

Each family with library tasks gets three streams, one per action mode, rotating through
its tasks and level seeds; together they are `TOTAL` actions, a share of them valid (drawn
from the action masks or the current observation) so that the sites really change state,
and the rest out of range, ill-fitting or hostile: uniform samples of the action space,
edge indices, empty value slots, text that is not an action call, calls with huge or
negative numbers, 2,000-character values, markup and script, control characters and
non-ASCII. After every step the observation is in the observation space and the reward
finite; at the end the oracle still solves the task in the same env. Actions that are not
actions at all (wrong shape or type) raise `InvalidActionError`, a user error, and leave
the episode where it was. The text-mode streams are recorded, and the trace reads back.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from webfactory_env.actions import VERBS, InvalidActionError
from webfactory_env.agents import OracleAgent
from webfactory_env.core.errors import ConfigError
from webfactory_env.tasks import library_tasks
from webfactory_env.trace import TraceRecorder, read_trace

pytestmark = pytest.mark.browser

FAMILIES = ("shop", "travel", "kanban", "account", "forum")
# Actions per stream, by action mode: 5 families x (1000 + 700 + 300) = 10,000.
PER_MODE = {"multidiscrete": 1000, "text": 700, "discrete": 300}
TOTAL = len(FAMILIES) * sum(PER_MODE.values())
SITES = 6  # (task, seed) pairs each stream cycles through
MAX_STEPS = 120  # some episodes run out of steps, others end on a done(...) action

HOSTILE_TEXT = (
    "",
    " ",
    "click",
    "click()",
    "click(,)",
    "click(1,)",
    "click(-1)",
    "click(-0)",
    "click(1.5)",
    "click(99999999999999999999999999999)",
    "click(0x10)",
    "click(1)(2)",
    "click((1))",
    "CLICK(0)",
    "type(0)",
    'type(0, "unterminated)',
    "type(0, 'single')",
    'type(0, "' + "A" * 1990 + '")',
    "type(0, " + "x" * 2100 + ")",
    'type(0, "\\u0000\\n\\t")',
    'type(0, "\x00\x01\x7f")',
    "type(1, \"</textarea><script>fetch('http://203.0.113.7/')</script>\")",
    'type(1, "<img src=http://10.0.0.1/x onerror=alert(1)>")',
    'type(2, "\' OR 1=1; --")',
    'type(2, "{{value:0}}")',
    'type(2, "REDACTED")',
    'type(3, "ünïcødé ★ 日本語 🙂")',
    'type(1, "line\u2028sep\u2029para\u0085next\x1cfs\x0bvt\x0cff\rcr")',
    'select(0, "")',
    'select(0, "no such option")',
    "submit(-5)",
    'press("Enter")',
    'press("F13")',
    'press(0, "Alt+Shift+Z")',
    'press(0, "Meta+Q")',
    "scroll(sideways)",
    "scroll(down, up)",
    "back(1)",
    "done(maybe)",
    'done(true, "' + "why " * 100 + '")',
    "javascript:alert(1)",
    "__import__('os').system('true')",
    "click(0); click(1)",
    "\n\n\t",
)

# Not actions at all: the env refuses them as user errors.
MALFORMED: dict[str, tuple[Any, ...]] = {
    "multidiscrete": (
        np.array([1, 2]),
        np.array([1, 2, 3, 4]),
        np.array([0.5, 1.0, 2.0]),
        np.array([True, False, True]),
        "click(0)",
        None,
        [[0, 0, 0]],
    ),
    "text": (None, 3, np.array([0, 0, 0]), b"click(0)"),
    "discrete": (
        None,
        "click(0)",
        np.array([1, 2, 3]),
        float("inf"),
        float("nan"),
        np.float32("-inf"),
        2.5,
    ),
}


def _task(family: str, k: int) -> str:
    names = sorted(t.name for t in library_tasks(family))
    return names[k % len(names)]


def _reset(env: gym.Env[Any, Any], family: str, k: int) -> tuple[Any, dict[str, Any]]:
    """Reset to the k-th (task, seed) of the family that compiles."""
    for attempt in range(20):
        try:
            return env.reset(seed=k + attempt, options={"task": _task(family, k + attempt)})
        except Exception as exc:  # a task that does not fit this seed's site: the next one
            from webfactory_env.core.errors import WebfactoryError

            if not isinstance(exc, WebfactoryError):
                raise
    raise AssertionError(f"no task of {family} compiles near seed {k}")


def _multidiscrete(env: gym.Env[Any, Any], rng: np.random.Generator) -> Any:
    u = env.unwrapped
    n_el, n_val = u.action_config.max_elements, u.action_config.max_values
    kind = rng.random()
    if kind < 0.45:
        return env.action_space.sample()
    if kind < 0.65:  # one valid entry per dimension (the combination may still not fit)
        masks = u.action_masks()
        verb_m, el_m, val_m = (
            masks[: len(VERBS)],
            masks[len(VERBS) : len(VERBS) + n_el],
            masks[-n_val:],
        )
        pick = lambda m: int(rng.choice(np.flatnonzero(m))) if m.any() else 0  # noqa: E731
        verb = pick(verb_m[: VERBS.index("done_success")])  # stop early less often
        return np.array([verb, pick(el_m), pick(val_m)])
    n = len(u.dom)
    return np.array(
        [
            int(rng.choice([0, len(VERBS) - 1, -1, len(VERBS), 2**62, rng.integers(len(VERBS))])),
            int(rng.choice([0, max(n - 1, 0), n, n_el - 1, n_el, -1, -(2**62)])),
            int(rng.choice([0, len(u.task.values), n_val - 1, n_val, -3])),
        ],
        dtype=np.int64,
    ).astype(rng.choice([np.int64, np.int32, np.int8, np.uint8]))  # narrow types wrap around


def _text(env: gym.Env[Any, Any], rng: np.random.Generator) -> str:
    u = env.unwrapped
    kind = rng.random()
    n = max(len(u.dom), 1)
    i = int(rng.integers(n))
    if kind < 0.4:  # well-formed calls on elements of the page
        value = u.task.values[int(rng.integers(len(u.task.values)))] if u.task.values else "x"
        return str(
            rng.choice(
                [
                    f"click({i})",
                    f"type({i}, {value!r})".replace("'", '"'),
                    f'select({i}, "{value}")',
                    f"submit({i})",
                    f'press({i}, "Enter")',
                    "scroll(down)",
                    "scroll(up)",
                    "back()",
                ]
            )
        )
    if kind < 0.75:
        return str(HOSTILE_TEXT[int(rng.integers(len(HOSTILE_TEXT)))])
    # Random printable and not-so-printable characters.
    alphabet = list("abcdefgxyz(),\"' 0123456789-_.\\\n\t<>{}[]@#$%^&*é★\u200b\u202e")
    size = int(rng.choice([1, 5, 20, 200, 2500]))
    return "".join(rng.choice(alphabet, size=size))


def _discrete(env: gym.Env[Any, Any], rng: np.random.Generator) -> Any:
    u = env.unwrapped
    if rng.random() < 0.3:
        masks = u.action_masks()
        if masks.any():
            return int(rng.choice(np.flatnonzero(masks)))
    return int(rng.choice([rng.integers(u.action_config.max_actions), -1, 10**9, 0]))


DRAW = {"multidiscrete": _multidiscrete, "text": _text, "discrete": _discrete}


@pytest.mark.parametrize("mode", list(PER_MODE))
@pytest.mark.parametrize("family", FAMILIES)
def test_action_stream_never_raises_and_the_env_stays_usable(family, mode, tmp_path):
    rng = np.random.default_rng([FAMILIES.index(family), list(PER_MODE).index(mode)])
    env: gym.Env[Any, Any] = gym.make(
        "WebTask-v0",
        family=family,
        task=_task(family, 0),
        obs_mode="tokens",
        action_mode=mode,
        max_steps=MAX_STEPS,
        max_actions=256,
    )
    trace = tmp_path / "trace.jsonl"
    if mode == "text":
        env = TraceRecorder(env, trace)
    env.action_space.seed(int(rng.integers(2**31)))
    u = env.unwrapped
    try:
        k = 0
        obs, info = _reset(env, family, k)
        acted = invalid = episodes = 0
        malformed = list(MALFORMED[mode])
        while acted < PER_MODE[mode]:
            if malformed and rng.random() < 0.02:
                bad = malformed.pop()
                t_before = u.episode.steps
                with pytest.raises(InvalidActionError):
                    env.step(bad)
                assert u.episode.steps == t_before  # a refused action is no step
                continue
            action = DRAW[mode](env, rng)
            obs, reward, terminated, truncated, info = env.step(action)
            acted += 1
            assert env.observation_space.contains(obs)
            assert isinstance(reward, float) and math.isfinite(reward)
            assert info["action_error"] is None or isinstance(info["action_error"], str)
            kinds = {e["event_type"] for e in info["record"]["error_events"]}
            # No input may make the site's app fail. Chromium itself may still crash (rarely,
            # on a loaded machine): then the step must end the episode, as test_faults shows.
            assert kinds <= {"agent", "executor", "browser"}, info["record"]["error_events"]
            assert "browser" not in kinds or truncated
            invalid += info["action_error"] is not None
            if terminated or truncated:
                if episodes == 0:
                    with pytest.raises(ConfigError, match=r"call reset\(\) before stepping"):
                        env.step(action)
                episodes += 1
                k += 1
                obs, info = _reset(env, family, k % SITES)  # sites and tasks come from caches
        assert 0 < invalid < acted  # both kinds were exercised
        # Still usable: the oracle solves a task in the same env. (Not an answer task in
        # discrete mode: its menu's done() carries no answer text.)
        for k in range(40):
            obs, info = _reset(env, family, k)
            if mode != "discrete" or not any(
                s.verb.startswith("done") and s.value for s in u.task.plan
            ):
                break
        oracle = OracleAgent(env)
        for _ in range(MAX_STEPS):
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            if terminated or truncated:
                break
        assert terminated and info["success"], info.get("reason")
    finally:
        env.close()
    if mode == "text":
        episodes_read = read_trace(trace)
        assert len(episodes_read) >= episodes + 1  # and the oracle's
        assert sum(len(e.steps) for e in episodes_read) >= acted


def test_the_streams_add_up_to_ten_thousand_actions():
    assert TOTAL >= 10_000


def test_a_lone_surrogate_in_a_text_action_is_replaced_everywhere(tmp_path):
    """Issue 19, case 10: any Python string is a text action. `type(i, "x\\ud800")` types
    `x` and U+FFFD into the field; the observation, the step record and the trace hold no
    surrogate, and the trace reads back."""
    from webfactory_env.core.dom import EDITABLE

    trace = tmp_path / "t.jsonl"
    env = TraceRecorder(
        gym.make("WebTask-v0", action_mode="text", obs_mode="text", task="buy_red_mug"), trace
    )
    try:
        obs, info = env.reset(seed=0)
        oracle = OracleAgent(env)
        oracle.reset()

        def editable() -> list[int]:
            return [i for i, flags in enumerate(env.unwrapped.dom.flags) if flags & EDITABLE]

        while not editable():  # the oracle walks to the checkout form
            obs, *_, info = env.step(oracle.act(obs, info))
        field = editable()[0]
        for action in (f'type({field}, "x\ud800y")', 'done(false, "\udfff")'):
            obs, _, _, _, info = env.step(action)
            assert info["action_error"] is None
            obs.encode("utf-8")  # the text observation
            raw = info["record"]["action"]["raw"]
            raw.encode("utf-8")
            assert "\ufffd" in raw
        assert "x\ufffdy" in env.unwrapped.dom.values[field]
        steps = read_trace(trace)[0].steps[-2:]
        assert steps[0].action.raw == f'type({field}, "x\ufffdy")'
        assert steps[0].action.value == "x\ufffdy"
        trace.read_text(encoding="utf-8", errors="strict")
    finally:
        env.close()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_typed_into_a_field_keeps_the_trace_and_the_viewer_whole(
    tmp_path, separator
):
    """Issue 27: U+2028, U+2029 or U+0085 typed by an agent were written raw and the
    reader split lines at them: every episode of the file was lost. Now the step reads
    back with the value exact, and so does the next episode."""
    from webfactory_env.core.dom import EDITABLE
    from webfactory_env.replay import write_report

    trace = tmp_path / "t.jsonl"
    env = TraceRecorder(
        gym.make("WebTask-v0", action_mode="text", obs_mode="text", task="buy_red_mug"), trace
    )
    typed = f"Alice{separator}Nguyen"
    try:
        obs, info = env.reset(seed=0)
        oracle = OracleAgent(env)
        oracle.reset()
        while not [i for i, f in enumerate(env.unwrapped.dom.flags) if f & EDITABLE]:
            obs, *_, info = env.step(oracle.act(obs, info))
        field = next(i for i, f in enumerate(env.unwrapped.dom.flags) if f & EDITABLE)
        _, _, _, _, info = env.step(f'type({field}, "{typed}")')
        assert info["action_error"] is None
        env.reset(seed=1)
        env.step("scroll(down)")
    finally:
        env.close()
    first, second = read_trace(trace)
    assert first.damaged == second.damaged == ()
    assert first.steps[-1].action.value == typed and len(second.steps) == 1
    assert separator not in trace.read_text(encoding="utf-8")  # written escaped
    html = write_report(trace, tmp_path / "v.html").read_text(encoding="utf-8")
    assert "Damaged trace lines" not in html


def test_step_after_close_says_the_env_is_closed_and_reset_opens_it_again():
    from webfactory_env.core.errors import EnvClosedError

    env = gym.make("WebTask-v0", obs_mode="tokens", action_mode="discrete")
    try:
        env.reset(seed=0)
        env.step(0)
        env.close()
        with pytest.raises(EnvClosedError, match=r"step\(\) on a closed env.*call reset\(\)"):
            env.step(0)
        env.reset(seed=1)
        _, reward, *_ = env.step(0)
        assert math.isfinite(reward)
    finally:
        env.close()


def test_envs_stepped_from_two_threads_get_the_librarys_error_not_a_crash():
    """One process, one browser thread (Playwright's sync API): a second thread that resets
    an env gets `WrongThreadError` saying what to use instead, and the first thread's env
    goes on."""
    import threading

    from webfactory_env.core.errors import WrongThreadError

    first = gym.make("WebTask-v0", obs_mode="tokens")
    second = gym.make("WebTask-v0", obs_mode="tokens")
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            second.reset(seed=1)
        except BaseException as exc:  # what the thread met is the result
            errors.append(exc)

    try:
        first.reset(seed=0)
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join(60)
        assert len(errors) == 1 and isinstance(errors[0], WrongThreadError), errors
        assert "vector env" in str(errors[0])
        _, reward, *_ = first.step(first.action_space.sample())
        assert math.isfinite(reward)
    finally:
        first.close()
        second.close()
