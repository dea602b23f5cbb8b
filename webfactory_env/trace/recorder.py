"""`TraceRecorder`: a Gymnasium wrapper that writes every episode to a JSONL trace.

Each episode starts with a header line and each step appends one event line (see
`trace.schema`), written and flushed as it happens: a crash loses nothing that was already
stepped, and a partial trace stays readable (`read_trace` skips a line cut off; the file
format is `trace.jsonl`'s). With `screenshots=True` a full-size PNG of every observation is
stored next to the trace as `screens/<sha256>.png` and referenced by that hash.

Recording never raises out of `step`: a browser that fails while the recorder takes the
step's screenshot ends the episode as truncated, as any crash does (the step is written
with its `browser` error event); a trace or screenshot that cannot be written (a full
disk) is logged, said in `info["trace_error"]`, and the episode goes on.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import gymnasium as gym

from webfactory_env.__about__ import __version__
from webfactory_env.actions import value_slot
from webfactory_env.core.errors import BrowserCrashedError, TraceError
from webfactory_env.env import WebTaskEnv
from webfactory_env.episode import STEP_MS
from webfactory_env.episode.records import screen_signature
from webfactory_env.trace.jsonl import (
    DamagedLine,
    EpisodeTrace,
    TraceReading,
    dump_line,
    read_trace,
    read_trace_report,
    write_trace,
)
from webfactory_env.trace.redact import Redactor, plan_privacy
from webfactory_env.trace.schema import (
    REDACTED,
    TRACE_SCHEMA_VERSION,
    ActionInfo,
    CompactDom,
    ConjunctInfo,
    EpisodeEnd,
    ExecutorInfo,
    ObsRecord,
    PrerequisiteLink,
    RewardInfo,
    ScreenRecord,
    SiteBuild,
    StepEvent,
    SubgoalInfo,
    SubgoalLabel,
    TaskInfo,
    TraceHeader,
)

SCREENS_DIR = "screens"
log = logging.getLogger(__name__)

__all__ = [
    "SCREENS_DIR",
    "DamagedLine",
    "EpisodeLog",
    "EpisodeTrace",
    "TraceReading",
    "TraceRecorder",
    "dump_line",
    "read_trace",
    "read_trace_report",
    "write_trace",
]


class EpisodeLog:
    """Turns one episode's env outputs into trace lines.

    Shared by the recorder and by replay verification, so a replayed step is described
    exactly as the recorded one was (same redaction, same labels).
    """

    def __init__(
        self,
        env: WebTaskEnv,
        *,
        run_id: str,
        episode: int = 1,
        screens: Path | None = None,
    ) -> None:
        self.env = env
        self.run_id = run_id
        self.episode = episode
        self.screens = screens
        self.redactor = Redactor()
        self._satisfied_at: dict[str, int] = {}
        self._planned = False
        self.crash: str | None = None  # the browser failed while a screenshot was taken
        self.write_error: str | None = None  # a screenshot file could not be written

    def _learn_plan(self) -> None:
        """What the task's plan will type into secret and personal-data fields, known before
        anything is typed (the header's instruction already spells those values out)."""
        if self._planned:
            return
        self._planned = True
        site, task = getattr(self.env, "site", None), getattr(self.env, "task", None)
        if site is None or not isinstance(getattr(task, "plan", None), tuple):
            return
        privacy = plan_privacy(site, task)  # type: ignore[arg-type]
        for secret in privacy.secrets:
            self.redactor.add(secret)
        for value in privacy.personal:
            self.redactor.add_personal(value)

    def header(self, info: Mapping[str, Any], observation: Any = None) -> TraceHeader:
        """The episode's header line, after reset gave `observation` and `info`."""
        env = self.env
        assert env.site is not None and env.task is not None
        self._learn_plan()
        scrub = self.redactor.scrub
        spec, task, obs = env.site.spec, env.task, env.obs_config
        session = env.session.config
        return TraceHeader(
            schema_version=TRACE_SCHEMA_VERSION,
            run_id=self.run_id,
            episode=self.episode,
            site_build=SiteBuild(
                factory_version=__version__,
                generator_version=spec.generator_version,
                family=spec.family,
                seed=env.level_seed,
                difficulty=spec.difficulty,
                variation=_jsonable(dict(spec.variation)),
                digest=env.site.digest,
            ),
            task=TaskInfo(
                name=task.name,
                dsl_version=task.dsl_version,
                compiler_version=task.compiler_version,
                compiled_digest=task.digest,
                instruction=scrub(task.instruction),
                description=scrub(task.goal_text),
                goal=[
                    ConjunctInfo(id=c.id, kind=c.kind, description=scrub(c.description))
                    for c in task.goal
                ],
                n_values=len(task.values),
                subgoals=[
                    SubgoalInfo(
                        id=g.id,
                        description=scrub(g.description),
                        prerequisites=list(g.prerequisites),
                        witness=scrub(list(g.witness)),
                        sticky=g.sticky,
                    )
                    for g in task.subgoals
                ],
            ),
            executor=ExecutorInfo(
                viewport=session.viewport,
                locale=session.locale,
                timezone=session.timezone,
                obs_mode=obs.mode,
                max_elements=obs.max_elements,
                max_tokens=obs.max_tokens,
                vocab_size=obs.vocab_size,
                screenshot_size=obs.screenshot_size,
                max_steps=env.max_steps,
                max_values=env.action_config.max_values,
                step_ms=STEP_MS,
                reward=env.reward_spec.model_dump(),
            ),
            env_kwargs=_jsonable(env.env_kwargs()),
            obs=self._obs(info, observation),
        )

    def step(
        self, info: Mapping[str, Any], terminated: bool, truncated: bool, observation: Any = None
    ) -> StepEvent:
        """The step's line, after `env.step` gave `observation`, `info` and the ends."""
        record = info.get("record")
        if not record:
            raise TraceError("env.step returned no info['record']: is this a WebTask-v0 env?")
        env = self.env
        assert env.task is not None
        self._learn_plan()
        action = record["action"]
        redacted = bool(action.get("redact"))
        for secret in env.episode.secrets if env.episode else ():
            self.redactor.add(secret)
        raw: list[int] | str = action["raw"]
        if redacted and not isinstance(raw, str):
            slot = value_slot(raw)  # a numeric action typed the task value in this slot
            if slot is not None and 0 <= slot < len(env.task.values):
                self.redactor.add(env.task.values[slot])
        if isinstance(raw, str):
            # A text action spells secrets and personal data out: keep a placeholder that
            # replay can fill from the bundled task when the value is one of the task's.
            for slot, value in enumerate(env.task.values):
                if self.redactor.scrub_text(value) != value:
                    raw = raw.replace(json.dumps(value), f"{{{{value:{slot}}}}}")
            raw = self.redactor.scrub_text(raw)
        t = int(record["t"])
        obs = self._obs(info, observation)  # first: a browser that fails here ends the episode
        error_events = list(record.get("error_events", []))
        error = record["error"]
        if self.crash is not None:
            changed = self.env.end_on_crash(self.crash)
            if changed is not None and isinstance(info, dict):
                info.update(changed)
            truncated = truncated or changed is not None
            error_events.append(
                {
                    "event_type": "browser",
                    "message": self.crash,
                    "step": t,
                    "has_error": True,
                    "while": "recording the screenshot",
                }
            )
            error = error or self.crash
            self.crash = None  # said once; the next episode starts afresh
        reward = record["reward"]
        newly = list(reward["subgoals"])
        for subgoal in newly:
            self._satisfied_at[subgoal] = t
        scrub = self.redactor.scrub
        return StepEvent(
            t=t,
            logical_ms=int(record["logical_ms"]),
            latency_ms=int(record.get("latency_ms", 0)),
            retries=scrub(list(record.get("retries", []))),
            action=ActionInfo(
                raw=raw if isinstance(raw, str) else [int(x) for x in raw],
                verb=action["verb"],
                index=action["index"],
                target=scrub(action["target"]),
                value=REDACTED
                if redacted and action["value"] is not None
                else scrub(action["value"]),
                redacted=redacted,
                box=action.get("box"),
                confidence=action.get("confidence"),
            ),
            valid=bool(record["valid"]),
            error=scrub(error),
            reward=RewardInfo(
                r=float(reward["r"]),
                R=float(reward["R"]),
                subgoals=newly,
                undone=list(reward["undone"]),
                tainted=list(reward.get("tainted", [])),
                components={k: float(v) for k, v in reward["components"].items()},
            ),
            labels=[self._label(s) for s in newly],
            deltas=scrub(_jsonable(record["deltas"])),
            events=scrub(_jsonable(record["events"])),
            app_errors=scrub(_jsonable(record["app_errors"])),
            error_events=scrub(_jsonable(error_events)),
            terminated=bool(terminated),
            truncated=bool(truncated),
            success=bool(info.get("success")),
            obs=obs,
        )

    def _label(self, subgoal: str) -> SubgoalLabel:
        task = self.env.task
        assert task is not None
        direct = task.subgoal(subgoal).prerequisites
        seen: set[str] = set()
        todo = list(direct)
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo.extend(task.subgoal(g).prerequisites)
        steps = sorted({self._satisfied_at[g] for g in seen if g in self._satisfied_at})
        return SubgoalLabel(
            subgoal=subgoal,
            prerequisites=[
                PrerequisiteLink(subgoal=g, step=self._satisfied_at.get(g)) for g in direct
            ],
            prerequisite_steps=steps,
        )

    def _obs(self, info: Mapping[str, Any], observation: Any) -> ObsRecord:
        dom = self.redactor.scrub(self.env.dom.to_json())
        shot = self._screenshot() if self.screens is not None and self.crash is None else None
        signature = screen_signature(observation)
        return ObsRecord(
            digest=str(info["obs_digest"]),
            route=self.redactor.scrub(str(info["route"])),
            dom=CompactDom.model_validate(dom),
            screenshot=shot,
            screen=None
            if signature is None
            else ScreenRecord(
                rest_digest=signature.rest_digest,
                blocks=base64.b64encode(signature.blocks).decode(),
            ),
        )

    def _screenshot(self) -> str | None:
        """Store the page's screenshot (private parts painted over); its hash, or None when
        the browser failed (noted in `crash`) or the file could not be written."""
        assert self.screens is not None
        try:
            png = _paint_over(self.env.screenshot_png(), self._private_boxes())
        except BrowserCrashedError as exc:
            self.crash = self.redactor.scrub_text(str(exc))
            return None
        shot = hashlib.sha256(png).hexdigest()
        path = self.screens / f"{shot}.png"
        try:
            if not path.exists():
                self.screens.mkdir(parents=True, exist_ok=True)
                path.write_bytes(png)
        except OSError as exc:
            self.write_error = f"screenshot {path} not written: {exc}"
            return None
        return shot

    def _private_boxes(self) -> list[tuple[int, int, int, int]]:
        """Boxes of the observed elements that are secret fields or show a secret or a
        piece of personal data: a stored screenshot must not show them either."""
        dom = self.env.dom
        scrub = self.redactor.scrub_text
        return [
            dom.boxes[i]
            for i in range(len(dom.boxes))
            if dom.secrets[i]
            or scrub(dom.texts[i]) != dom.texts[i]
            or scrub(dom.values[i]) != dom.values[i]
        ]


def _paint_over(png: bytes, boxes: list[tuple[int, int, int, int]]) -> bytes:
    """`png` with each (x, y, w, h) box filled in grey."""
    if not boxes:
        return png
    import io

    from PIL import Image, ImageDraw

    img = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(img)
    for x, y, w, h in boxes:
        if w > 0 and h > 0:
            draw.rectangle((x, y, x + w - 1, y + h - 1), fill=(128, 128, 128))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


class TraceRecorder(gym.Wrapper[Any, Any, Any, Any]):
    """Record episodes of a `WebTask-v0` env to `path` (one JSONL file, episodes appended).

    Works for any agent: it only watches `reset` and `step`. Call `close_trace()` to end
    the file but keep the env open (e.g. to record the next episode elsewhere); `close()`
    closes both.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        path: str | Path,
        *,
        run_id: str | None = None,
        screenshots: bool = False,
        fsync: bool = False,
    ) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, WebTaskEnv):
            raise TypeError("TraceRecorder records WebTask-v0 environments")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.run_id = run_id
        if screenshots:  # someone will look: the browser must draw, whatever the obs mode
            env.unwrapped.draw_frames()
        self.screenshots = screenshots
        self.fsync = fsync
        self._file: TextIO | None = None
        self._log: EpisodeLog | None = None
        self.episodes = _episodes_in(self.path)

    @property
    def screens_dir(self) -> Path:
        return self.path.parent / SCREENS_DIR

    def _write(self, line: TraceHeader | StepEvent | EpisodeEnd) -> str | None:
        """Append `line`; what went wrong (a full disk, say) instead of raising, or None."""
        try:
            if self._file is None:
                torn = self.path.exists() and not _ends_with_newline(self.path)
                self._file = self.path.open("a", encoding="utf-8")
                if torn:
                    self._file.write("\n")  # end the torn line a crashed writer left
            self._file.write(dump_line(line))
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
        except OSError as exc:
            message = f"trace {self.path} not written: {exc}"
            log.error("%s", message)
            return message
        return None

    def reset(self, **kwargs: Any) -> Any:
        obs, info = self.env.reset(**kwargs)
        base: WebTaskEnv = self.env.unwrapped  # type: ignore[assignment]
        assert base.task is not None
        self.episodes += 1
        run_id = self.run_id or f"{base.task.family}-{base.level_seed}-{base.task.name}"
        self._log = EpisodeLog(
            base,
            run_id=run_id,
            episode=self.episodes,
            screens=self.screens_dir if self.screenshots else None,
        )
        problem = self._write(self._log.header(info, obs)) or self._log.write_error
        self._log.crash = None  # a failed reset screenshot: the first step meets the browser
        if problem:
            info["trace_error"] = problem
        return obs, info

    def step(self, action: Any) -> Any:
        if self._log is None:
            raise TraceError("call reset() before step(): a trace starts with an episode header")
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._log.write_error = None
        line = self._log.step(info, terminated, truncated, obs)  # ends the episode on a crash
        problem = self._write(line) or self._log.write_error
        if problem:
            info["trace_error"] = problem
        return obs, reward, terminated, line.truncated, info

    def end_episode(self, reason: str) -> None:
        """Write that the agent stopped this episode before the env ended it, and why
        (the steps it took are in the trace already)."""
        if self._log is None:
            return
        steps = self._log.env.episode.steps if self._log.env.episode else 0
        self._write(EpisodeEnd(t=steps, reason=self._log.redactor.scrub_text(reason)))
        self._log = None

    def close_trace(self) -> None:
        """Close the trace file; the wrapped env stays open."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._log = None

    def close(self) -> None:
        self.close_trace()
        super().close()


def _episodes_in(path: Path) -> int:
    """Headers already in an existing trace, so appended episodes keep counting."""
    if not path.exists():
        return 0
    with path.open(encoding="utf-8", errors="replace") as fh:
        return sum(1 for line in fh if line.startswith('{"') and '"type":"header"' in line)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            return True
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


def _jsonable(obj: Any) -> Any:
    """Plain JSON types (tuples become lists, unknown objects their str)."""
    return json.loads(json.dumps(obj, default=str))
