"""`TraceRecorder`: a Gymnasium wrapper that writes every episode to a JSONL trace.

Each episode starts with a header line (versions, seed, digests, instruction, executor
settings); each step appends one event line and flushes it, so a crash loses nothing that
was already stepped and a partial trace stays readable.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, TextIO

import gymnasium as gym

from webfactory_env.__about__ import __version__
from webfactory_env.env import WebTaskEnv

TRACE_SCHEMA_VERSION = "0.1.0"


class TraceRecorder(gym.Wrapper[Any, Any, Any, Any]):
    """Record episodes of a `WebTask-v0` env to `path` (one JSONL file, episodes appended)."""

    def __init__(
        self,
        env: gym.Env[Any, Any],
        path: str | Path,
        *,
        run_id: str | None = None,
        screenshots: bool = False,
    ) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, WebTaskEnv):
            raise TypeError("TraceRecorder records WebTask-v0 environments")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.run_id = run_id
        self.screenshots = screenshots
        self._file: TextIO | None = None
        self.episodes = 0

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            self._file = self.path.open("a", encoding="utf-8")
        self._file.write(json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str) + "\n")
        self._file.flush()

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        base: WebTaskEnv = self.env.unwrapped  # type: ignore[assignment]
        assert base.site is not None and base.task is not None
        self.episodes += 1
        self._write(
            {
                "type": "header",
                "schema_version": TRACE_SCHEMA_VERSION,
                "run_id": self.run_id or f"seed-{base.level_seed}/{base.task.name}/{self.episodes}",
                "site_build": {
                    "factory_version": __version__,
                    "generator_version": base.site.spec.generator_version,
                    "family": base.site.spec.family,
                    "seed": base.level_seed,
                    "difficulty": base.site.spec.difficulty,
                    "variation": dict(base.site.spec.variation),
                    "digest": base.site.digest,
                },
                "task": {
                    "name": base.task.name,
                    "dsl_version": base.task.dsl_version,
                    "compiler_version": base.task.compiler_version,
                    "compiled_digest": base.task.digest,
                    "instruction": base.task.instruction,
                    "values": list(base.task.values),
                    "subgoals": [g.to_json() for g in base.task.subgoals],
                },
                "executor": {
                    "viewport": list(base._session_config.viewport),
                    "obs_mode": base.obs_config.mode,
                    "max_elements": base.obs_config.max_elements,
                    "screenshot_size": list(base.obs_config.screenshot_size),
                },
                "obs": self._obs_entry(info, base),
            }
        )
        return obs, info

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        base: WebTaskEnv = self.env.unwrapped  # type: ignore[assignment]
        record = dict(info.get("record") or {})
        record.update(
            type="step",
            terminated=terminated,
            truncated=truncated,
            success=bool(info.get("success")),
            obs=self._obs_entry(info, base),
        )
        self._write(record)
        return obs, reward, terminated, truncated, info

    def _obs_entry(self, info: dict[str, Any], base: WebTaskEnv) -> dict[str, Any]:
        entry: dict[str, Any] = {"digest": info.get("obs_digest"), "route": info.get("route")}
        dom = base.dom
        entry["dom"] = dom.to_json()
        if self.screenshots:
            entry["screen_hash"] = hashlib.sha256(base.screenshot_png()).hexdigest()
        return entry

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """Every line of a trace; a torn last line (a crash mid-write) is skipped."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out
