"""A step's record: what traces and replays are made of, with every secret typed hidden."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from dataclasses import replace as _replace
from typing import Any

import numpy as np

from webfactory_env import actions as act
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.core.text import clean_text
from webfactory_env.executor.session import BrowserOp
from webfactory_env.reward import RewardOutcome


class StepRecord(Mapping[str, Any]):
    """The step's full record (`info["record"]`): read it like a dict, `to_dict()` for JSON.

    Not a `dict` on purpose: Gymnasium's vector envs turn nested info dicts into per-key
    arrays, which would need every field to keep one type in every step; the record is
    passed through whole instead (and pickles across processes).
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)

    def __reduce__(self) -> tuple[Any, ...]:
        return (StepRecord, (self._data,))

    def __repr__(self) -> str:
        return f"StepRecord({self._data!r})"


def error_event(kind: str, message: str, step: int) -> dict[str, Any]:
    """A failure as a first-class event (kinds: agent, executor, app, browser)."""
    return {"event_type": kind, "message": message, "step": step, "has_error": True}


@dataclass(frozen=True)
class StepFacts:
    """What happened in one step, as the env saw it (the record is made from this)."""

    t: int
    action: Any
    decoded: act.Decoded | str
    dom_before: DomSnapshot
    op: BrowserOp | None
    sid: str | None
    redact: bool
    done: bool
    answer: str
    valid: bool
    error: str | None
    outcome: RewardOutcome
    total: float
    deltas: dict[str, Any]
    events: list[dict[str, Any]]
    app_errors: list[dict[str, Any]]
    logical_ms: int
    latency_ms: int
    retries: list[dict[str, Any]]
    error_events: list[dict[str, Any]]


def step_record(s: StepFacts, secrets: list[str]) -> StepRecord:
    """The step's record, with every secret typed so far hidden."""
    decoded = s.decoded
    is_action = isinstance(decoded, act.Decoded)
    op = s.op
    return StepRecord(
        {
            "t": s.t,
            "action": {
                "raw": clean_text(s.action)
                if isinstance(s.action, str)
                else [int(x) for x in np.asarray(s.action).reshape(-1)],
                "described": act.describe(_shown(decoded, s.redact), s.dom_before)
                if isinstance(decoded, act.Decoded)
                else None,
                "verb": decoded.verb if isinstance(decoded, act.Decoded) else None,
                "index": decoded.index if isinstance(decoded, act.Decoded) else None,
                "target": s.sid,
                "value": (
                    ("REDACTED" if s.redact else op.value)
                    if op is not None and op.verb in ("type", "select", "keyboard_type")
                    else None
                ),
                "redact": s.redact,
                "text": s.answer if s.done else None,
                "confidence": decoded.confidence if isinstance(decoded, act.Decoded) else None,
                # The acted-on element's box in the observation the agent chose it from.
                "box": _acted_box(decoded, s.dom_before) if is_action else None,
            },
            "valid": s.valid,
            "error": hide(s.error, secrets),
            "reward": {
                "r": s.outcome.reward,
                "R": s.total,
                "subgoals": list(s.outcome.newly),
                "undone": list(s.outcome.undone),
                "tainted": list(s.outcome.tainted),
                "components": dict(s.outcome.components),
            },
            "deltas": hide(s.deltas, secrets),
            "events": hide(s.events, secrets),
            "app_errors": hide(s.app_errors, secrets),
            "logical_ms": s.logical_ms,
            "latency_ms": s.latency_ms,
            "retries": s.retries,
            "error_events": s.error_events,
        }
    )


def _shown(decoded: act.Decoded | str, redact: bool) -> act.Decoded:
    """The action as described in the record: a value only where one is typed or selected,
    and never a secret one."""
    assert isinstance(decoded, act.Decoded)
    if decoded.verb not in ("type", "select"):
        return _replace(decoded, value=None)
    return _replace(decoded, value="REDACTED") if redact else decoded


def hide(obj: Any, secrets: list[str]) -> Any:
    """`obj` (JSON-like) with the secrets typed so far replaced by "REDACTED" (short ones as
    whole words only). Traces redact more (see `trace.redact`); this keeps the step record
    itself from echoing a password back through page events or state."""
    if not secrets or obj is None:
        return obj
    if isinstance(obj, str):
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= 6:
                obj = obj.replace(secret, "REDACTED")
            elif secret in obj:
                obj = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "REDACTED", obj)
        return obj
    if isinstance(obj, dict):
        return {k: hide(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [hide(v, secrets) for v in obj]
    return obj


def _acted_box(decoded: act.Decoded | str, dom: DomSnapshot) -> list[int] | None:
    if not isinstance(decoded, act.Decoded) or decoded.verb not in act.ELEMENT_VERBS:
        return None
    if not 0 <= decoded.index < len(dom):
        return None
    return [int(v) for v in dom.boxes[decoded.index]]


@functools.cache
def _dtype_name(dtype: np.dtype[Any]) -> bytes:
    """`str(dtype)`, encoded: numpy builds that name in Python, on every call."""
    return str(dtype).encode()


def observation_digest(obs: Mapping[str, np.ndarray] | str) -> str:
    """SHA-256 over every observation array, in key order (or over the text observation)."""
    h = hashlib.sha256()
    if isinstance(obs, str):
        h.update(obs.encode())
        return h.hexdigest()
    for key in sorted(obs):
        arr = np.ascontiguousarray(obs[key])
        h.update(key.encode())
        h.update(_dtype_name(arr.dtype))
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


# A screenshot is kept in a trace as the means of a 16 x 16 grid of its blocks, per channel
# (768 bytes): Chromium's software raster may draw an element's edge a few units apart
# from one run to the next (README, Determinism), which moves no block's mean by more than
# a unit or two, while a moved, missing or recoloured element moves its blocks by tens.
SCREEN_GRID = 16
SCREEN_TOLERANCE = 3


@dataclass(frozen=True)
class ScreenSignature:
    """An observation with a screenshot, for comparing within raster noise: the digest of
    every other part, exact (`observation_digest` without the screenshot), and the
    screenshot's block means (`SCREEN_GRID`² × 3 bytes, row-major)."""

    rest_digest: str
    blocks: bytes

    def differs_from(self, other: ScreenSignature) -> str | None:
        """What differs beyond raster noise, or None."""
        if self.rest_digest != other.rest_digest:
            return "the observation's parts but its screenshot differ"
        size = SCREEN_GRID * SCREEN_GRID * 3
        if len(self.blocks) != size or len(other.blocks) != size:
            return f"the screenshot's signature is not a {SCREEN_GRID}x{SCREEN_GRID} grid"
        a = np.frombuffer(self.blocks, np.uint8).astype(np.int16)
        apart = np.abs(a - np.frombuffer(other.blocks, np.uint8).astype(np.int16))
        worst = int(apart.max())
        if worst > SCREEN_TOLERANCE:
            cell = int(apart.argmax()) // 3
            row, col = divmod(cell, SCREEN_GRID)
            return (
                f"the screenshot differs by {worst} in block ({row}, {col}) of a"
                f" {SCREEN_GRID}x{SCREEN_GRID} grid (raster noise moves a block by at most"
                f" {SCREEN_TOLERANCE})"
            )
        return None


def screen_signature(obs: Mapping[str, np.ndarray] | str | None) -> ScreenSignature | None:
    """The `ScreenSignature` of an observation with a screenshot; None for one without."""
    if not isinstance(obs, Mapping) or "screenshot" not in obs:
        return None
    shot = np.asarray(obs["screenshot"])
    if shot.shape[0] < SCREEN_GRID or shot.shape[1] < SCREEN_GRID:  # too small to divide
        shot = shot.repeat(SCREEN_GRID, axis=0).repeat(SCREEN_GRID, axis=1)
    h, w = shot.shape[:2]
    rows = np.linspace(0, h, SCREEN_GRID + 1).astype(int)
    cols = np.linspace(0, w, SCREEN_GRID + 1).astype(int)
    by_rows = np.add.reduceat(shot, rows[:-1], axis=0, dtype=np.int64)
    sums = np.add.reduceat(by_rows, cols[:-1], axis=1)
    sizes = np.outer(np.diff(rows), np.diff(cols))[:, :, None]
    means = np.rint(sums / sizes).astype(np.uint8)
    rest = {k: v for k, v in obs.items() if k != "screenshot"}
    return ScreenSignature(observation_digest(rest), means.tobytes())


def state_delta(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """Dotted paths whose value changed, with the new value."""
    out: dict[str, Any] = {}
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a == b:  # one comparison in C for a whole unchanged subtree
            continue
        path = f"{prefix}{key}"
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out.update(state_delta(a, b, path + "."))
        else:
            out[path] = b
    return out


def fresh(obs: Any) -> Any:
    """A copy callers may keep: never hand out the same arrays twice."""
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs
