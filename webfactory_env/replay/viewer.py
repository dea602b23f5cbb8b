"""The trace viewer: one self-contained HTML file that steps through an episode.

Every frame shows the page the agent acted on (its screenshot, or a wireframe of the
observed elements when no screenshots were recorded) with the acted-on element outlined,
or a coordinate action's click point, drag path or wheel vector drawn (`replay.pointer`),
then the action, validity, reward, subgoals reached (with the earlier steps they built
on), state deltas and errors. ←/→ (or j/k) move between steps. Styles, script and images are
inline (images as data URIs): the file opens anywhere, offline, and fetches nothing.

Every string that comes from a trace is HTML-escaped here, server-side; the script only
shows and hides frames, so trace content never reaches a JavaScript string or `innerHTML`.

Traces and bundles come from other people, and a screenshot is named by the trace: only a
file named `<sha256>.png` in the bundle's (or the trace's) `screens/` directory that is a
regular file inside the bundle after following every link (the directory's own included)
is embedded. Any other name — `../`, an absolute path, a link out of the bundle, a device —
is refused, drawn as a wireframe, and listed in the report and in `refused`. The trace is
read the same way (`replay.files`), and a damaged line of it costs that line only: the
report says which.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from html import escape
from pathlib import Path, PurePosixPath
from typing import Any

from webfactory_env.actions import COORDINATE_VERBS
from webfactory_env.core.errors import ConfigError, UnsafeFileError
from webfactory_env.replay.bundle import TRACE_FILE, bundle_trace, open_bundle
from webfactory_env.replay.files import (
    MAX_SCREENSHOT_BYTES,
    MAX_TRACE_BYTES,
    read_inside,
    read_regular,
)
from webfactory_env.replay.pointer import step_pointer_svg
from webfactory_env.trace.jsonl import EpisodeTrace, parse_trace
from webfactory_env.trace.recorder import SCREENS_DIR
from webfactory_env.trace.schema import ObsRecord, StepEvent

MAX_TEXT = 60
SCREENSHOT_NAME = re.compile(r"[0-9a-f]{64}")


def write_report(
    source: str | Path,
    out: str | Path,
    *,
    episode: int = 1,
    refused: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Path:
    """Write the viewer for a trace file or a bundle (episode `episode`, 1-based, of a trace).
    Screenshot names it would not embed (outside the bundle) are appended to `refused`, the
    damaged trace lines it skipped to `skipped`."""
    source, out = Path(source), Path(out)
    refused = refused if refused is not None else []
    if not source.exists():
        raise ConfigError(f"{source} does not exist; give a trace (.jsonl) or a replay bundle")
    if source.is_dir() or source.name.endswith(".tar.gz"):
        with open_bundle(source) as root:
            screens = Screens(root, f"{PurePosixPath(TRACE_FILE).parent}/{SCREENS_DIR}", refused)
            ep = bundle_trace(root, strict=False)
            html = render_report(ep, screens)
        where = TRACE_FILE
    else:
        # The one file the user named: it may be a link, but it must be a file to read.
        reading = parse_trace(read_regular(source, MAX_TRACE_BYTES), str(source))
        episodes = reading.episodes
        if not episodes:
            raise ConfigError(f"{source} holds no episode")
        if not 1 <= episode <= len(episodes):
            raise ConfigError(
                f"{source} holds {len(episodes)} episode(s); choose --episode 1..{len(episodes)}"
            )
        ep = episodes[episode - 1]
        screens = Screens(source.parent, SCREENS_DIR, refused)
        html = render_report(ep, screens)
        where = str(source)
    if skipped is not None:
        skipped.extend(f"{where}:{d.line}: {d.problem}" for d in ep.damaged)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out


class Screens:
    """The screenshots a report may embed: `<sha256>.png` files in `directory` (relative to
    `root`), each resolving to a regular file inside `root` (the bundle, or the trace's
    folder): a link out of it, the `screens` folder itself included, is refused."""

    def __init__(self, root: Path, directory: str = SCREENS_DIR, refused: list[str] | None = None):
        self.root = root
        self.directory = directory
        self.refused = refused if refused is not None else []

    def png(self, name: str) -> bytes | None:
        """The PNG named `name`, or None (missing, or refused and recorded in `refused`)."""
        if not SCREENSHOT_NAME.fullmatch(name):
            self._refuse(name, "not a screenshot name (64 hex digits)")
            return None
        try:
            return read_inside(self.root, f"{self.directory}/{name}.png", MAX_SCREENSHOT_BYTES)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except UnsafeFileError as exc:
            self._refuse(name, exc.reason)
            return None

    def _refuse(self, name: str, why: str) -> None:
        note = f"{name[:200]!r}: {why}"
        if note not in self.refused:
            self.refused.append(note)


def render_report(ep: EpisodeTrace, screens: Screens | Path | None = None) -> str:
    """The HTML report of one episode; screenshots are read from `screens/<hash>.png`."""
    if isinstance(screens, Path):
        screens = Screens(screens.parent, screens.name)
    head = ep.header
    vw, vh = head.executor.viewport
    observations = ep.observations()
    total = len(ep.steps)
    frames: list[str] = []
    items: list[str] = []
    for i, step in enumerate(ep.steps):
        before = observations[i]
        label = f"Step {step.t} / {total}"
        text = describe_action(step, before)
        drawn = step_pointer_svg(step.action, head.env_kwargs, (vw, vh), i)
        items.append(
            f'<li><a href="#f{i}" data-frame="{i}"><b>{step.t}</b> {escape(text)}'
            f' <span class="{_sign(step.reward.r)}">{step.reward.r:+.2f}</span></a></li>'
        )
        frames.append(
            f'<section class="frame" id="f{i}" data-label="{escape(label)}">'
            f"{_screen(before, step.action.box, (vw, vh), screens, f'before step {step.t}', drawn)}"
            f'<div class="details"><h2>Step {step.t}: <span class="action">{escape(text)}</span>'
            f"</h2>{_details(step)}</div></section>"
        )
    end_label = f"End (after step {total})" if total else "Start (no steps)"
    outcome = "success" if ep.success else ("incomplete" if not ep.complete else "no success")
    frames.append(
        f'<section class="frame" id="f{total}" data-label="{escape(end_label)}">'
        f"{_screen(observations[-1], None, (vw, vh), screens, 'final page')}"
        f'<div class="details"><h2>{escape(end_label)}: {escape(outcome)}</h2>'
        f"<p>return {ep.total_return:+.3f} on {escape(observations[-1].route)}</p></div></section>"
    )
    items.append(
        f'<li><a href="#f{total}" data-frame="{total}"><b>end</b> {escape(outcome)}</a></li>'
    )
    site, task = head.site_build, head.task
    title = f"{task.name} — {site.family} seed {site.seed}"
    torn = '<p class="warn">This trace breaks off: the recorder stopped mid-episode.</p>'
    damaged = (
        '<p class="warn">Damaged trace lines, skipped: '
        + escape("; ".join(str(d) for d in ep.damaged))
        + "</p>"
        if ep.damaged
        else ""
    )
    refused = (
        '<p class="warn">Screenshots not embedded (outside the bundle): '
        + escape("; ".join(screens.refused))
        + "</p>"
        if screens is not None and screens.refused
        else ""
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{escape(title)}</h1>"
        f'<p class="instruction">{escape(task.instruction)}</p>'
        f'<p class="summary"><span id="outcome">{escape(outcome)}</span> · '
        f'<span id="step-count">{total} step{"s" if total != 1 else ""}</span> · '
        f"return {ep.total_return:+.3f} · site {escape(site.digest[:12])} · "
        f"task {escape(task.compiled_digest[:12])} · run {escape(head.run_id)}</p>"
        f"{torn if ep.torn else ''}{damaged}{refused}"
        '<nav><button id="prev" type="button">← prev</button> '
        f'<span id="pos">{escape(f"Step 1 / {total}" if total else end_label)}</span>'
        ' <button id="next" type="button">next →</button>'
        ' <span class="hint">keys: ← → or j k</span></nav></header>'
        f'<div class="layout"><ol id="steps">{"".join(items)}</ol>'
        f"<main>{''.join(frames)}</main></div>"
        f"<script>{_JS}</script></body></html>"
    )


def describe_action(step: StepEvent, before: ObsRecord) -> str:
    """A one-line description of the step's action, naming the element by its visible text."""
    a = step.action
    if a.verb is None:
        return f"invalid action {a.raw}"
    if a.index == -1 and a.verb in COORDINATE_VERBS:  # at a point, not on an element
        return a.raw if isinstance(a.raw, str) else f"{a.verb.replace('_', ' ')} {a.raw}"
    elements = before.dom.elements
    el = elements[a.index] if a.index is not None and 0 <= a.index < len(elements) else None
    name = ""
    if el is not None:
        tag, role, text, _value, _box, _flags = el
        name = f"“{_clip(text)}”" if text.strip() else f"element {a.index} ({role or tag})"
    value = f"“{_clip(a.value)}”" if a.value is not None else ""
    if a.verb == "type":
        return f"type {value} into {name}".strip()
    if a.verb == "select":
        return f"select {value} in {name}".strip()
    if a.verb == "press_enter":
        return f"press Enter on {name}".strip()
    if a.verb in ("click", "submit"):
        return f"{a.verb} {name}".strip()
    return a.verb.replace("_", " ")


def _where(index: int | None) -> str:
    return "no element" if index == -1 else f"element {index}"


def _details(step: StepEvent) -> str:
    a, r = step.action, step.reward
    rows: list[tuple[str, str]] = [
        ("action", escape(f"{a.verb or '?'} · {_where(a.index)} · raw {a.raw}")),
        ("target", escape(a.target or "—")),
    ]
    if a.value is not None:
        rows.append(("value", escape(a.value) + (" (redacted)" if a.redacted else "")))
    validity = "valid" if step.valid else "invalid"
    rows.append(("validity", f'<span class="{validity}">{validity}</span>'))
    if step.error:
        rows.append(("error", f'<span class="invalid">{escape(step.error)}</span>'))
    parts = ", ".join(f"{escape(k)} {v:+.2f}" for k, v in r.components.items())
    rows.append(
        ("reward", f'<span class="{_sign(r.r)}">{r.r:+.3f}</span> ({parts}); return {r.R:+.3f}')
    )
    if step.labels:
        rows.append(("subgoals", _list(_subgoal(label) for label in step.labels)))
    if r.undone:
        rows.append(("undone", _list(escape(g) for g in r.undone)))
    rows.append(("route", escape(step.obs.route)))
    if step.deltas:
        rows.append(
            (
                "state changes",
                '<table class="deltas">'
                + "".join(
                    f"<tr><td>{escape(k)}</td><td>{escape(_json(v))}</td></tr>"
                    for k, v in step.deltas.items()
                )
                + "</table>",
            )
        )
    if step.app_errors:
        rows.append(
            (
                "app errors",
                _list(f'<span class="invalid">{escape(_json(e))}</span>' for e in step.app_errors),
            )
        )
    if step.terminated or step.truncated:
        end = "success" if step.success else ("truncated" if step.truncated else "ended")
        rows.append(("episode", escape(end)))
    rows.append(("time", f"{step.logical_ms} ms logical, {step.latency_ms} ms latency"))
    return "<table>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def _subgoal(label: Any) -> str:
    after = ", ".join(str(s) for s in label.prerequisite_steps)
    built = f' <span class="muted">after steps {escape(after)}</span>' if after else ""
    return f'<span class="good">{escape(label.subgoal)}</span>{built}'


def _screen(
    obs: ObsRecord,
    box: tuple[int, int, int, int] | None,
    viewport: tuple[int, int],
    screens: Screens | None,
    alt: str,
    drawn: str = "",
) -> str:
    vw, vh = viewport
    png = screens.png(obs.screenshot) if screens is not None and obs.screenshot else None
    if png is not None:
        data = base64.b64encode(png).decode("ascii")
        inner = f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'
    else:  # no screenshot: draw the observed elements' boxes
        inner = (
            '<div class="wire">'
            + "".join(
                f'<div class="el" style="{_place(el[4], vw, vh)}" title="{escape(_clip(el[2]))}">'
                f"{escape(_clip(el[2], 24))}</div>"
                for el in obs.dom.elements
            )
            + "</div>"
        )
    outline = f'<div class="outline" style="{_place(box, vw, vh)}"></div>' if box else ""
    return f'<div class="shot" style="aspect-ratio:{vw}/{vh}">{inner}{outline}{drawn}</div>'


def _place(box: Iterable[int], vw: int, vh: int) -> str:
    x, y, w, h = box
    return (
        f"left:{100 * x / vw:.3f}%;top:{100 * y / vh:.3f}%;"
        f"width:{100 * w / vw:.3f}%;height:{100 * h / vh:.3f}%"
    )


def _list(items: Iterable[str]) -> str:
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _clip(text: str, n: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _sign(x: float) -> str:
    return "good" if x > 0 else ("bad" if x < 0 else "muted")


_CSS = """
* { box-sizing: border-box }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: #1d2330; background: #f4f5f8 }
header {
  padding: 12px 20px; background: #fff; border-bottom: 1px solid #d9dce3;
  position: sticky; top: 0; z-index: 5;
}
h1 { font-size: 18px; margin: 0 0 4px } h2 { font-size: 16px; margin: 0 0 8px }
.instruction { margin: 0 0 4px; color: #3b4250 } .summary { margin: 0 0 8px; color: #5b6270 }
nav button {
  font: inherit; padding: 3px 10px; border: 1px solid #b9bec9; background: #fff;
  border-radius: 4px; cursor: pointer;
}
#pos { display: inline-block; min-width: 140px; text-align: center; font-weight: 600 }
.hint { color: #7b8290; margin-left: 12px }
.layout { display: grid; grid-template-columns: 300px 1fr; gap: 16px; padding: 16px 20px }
#steps { margin: 0; padding: 0; list-style: none; font-size: 13px }
#steps a {
  display: block; padding: 4px 8px; border-radius: 4px; color: inherit; text-decoration: none;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
}
#steps a.current { background: #dde6ff }
.frame[hidden] { display: none }
.frame {
  display: grid; grid-template-columns: minmax(0, 3fr) minmax(260px, 2fr); gap: 16px;
  align-items: start;
}
.shot { position: relative; width: 100%; background: #fff; border: 1px solid #c9ced8 }
.shot { overflow: hidden }
.shot img { display: block; width: 100%; height: 100% }
.wire { position: absolute; inset: 0 }
.el {
  position: absolute; border: 1px solid #c3c9d6; font-size: 9px; color: #6b7280;
  overflow: hidden; white-space: nowrap;
}
.outline {
  position: absolute; border: 3px solid #e11d48; box-shadow: 0 0 0 2px #fff;
  border-radius: 3px; pointer-events: none;
}
.pointer {
  position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none;
  fill: none; stroke: #e11d48; stroke-width: 5; overflow: visible;
}
.pointer .dot { fill: #e11d48; stroke: #fff; stroke-width: 1 }
.pointer .ring { stroke: #e11d48; paint-order: stroke }
.details table { border-collapse: collapse; width: 100% }
.details th {
  text-align: left; vertical-align: top; padding: 3px 10px 3px 0; color: #5b6270;
  font-weight: 500; white-space: nowrap;
}
.details td { padding: 3px 0; word-break: break-word }
.details ul { margin: 0; padding-left: 18px }
table.deltas td { font-family: ui-monospace, monospace; font-size: 12px; padding: 1px 8px 1px 0 }
.good, .valid { color: #0a7a3d } .bad, .invalid, .warn { color: #b42318 } .muted { color: #7b8290 }
"""

_JS = """
(function () {
  var frames = Array.prototype.slice.call(document.querySelectorAll("section.frame"));
  var links = Array.prototype.slice.call(document.querySelectorAll("#steps a"));
  var pos = document.getElementById("pos");
  var cur = 0;
  function show(i) {
    cur = Math.max(0, Math.min(frames.length - 1, i));
    frames.forEach(function (f, k) { f.hidden = k !== cur; });
    links.forEach(function (l, k) { l.classList.toggle("current", k === cur); });
    pos.textContent = frames[cur].getAttribute("data-label");
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "j") { show(cur + 1); e.preventDefault(); }
    else if (k === "ArrowLeft" || k === "k") { show(cur - 1); e.preventDefault(); }
    else if (k === "Home") { show(0); e.preventDefault(); }
    else if (k === "End") { show(frames.length - 1); e.preventDefault(); }
  });
  document.getElementById("prev").addEventListener("click", function () { show(cur - 1); });
  document.getElementById("next").addEventListener("click", function () { show(cur + 1); });
  links.forEach(function (l, k) {
    l.addEventListener("click", function (e) { e.preventDefault(); show(k); });
  });
  var start = frames.findIndex(function (f) { return "#" + f.id === location.hash; });
  show(start < 0 ? 0 : start);
})();
"""
