"""The trace viewer without a browser: escaping, self-containment, wireframes, errors."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from webfactory_env.core.errors import ConfigError
from webfactory_env.replay import render_report, write_report
from webfactory_env.replay.bundle import TRACE_FILE, bundle_trace, open_bundle
from webfactory_env.trace import read_trace, write_trace

GOLDEN = Path(__file__).resolve().parent / "golden" / "bundles" / "shop.tar.gz"
EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def golden_episode():
    with open_bundle(GOLDEN) as root:
        return bundle_trace(root)


def test_report_is_self_contained_and_shows_every_step(golden_episode, tmp_path):
    out = write_report(GOLDEN, tmp_path / "r.html")
    html = out.read_text(encoding="utf-8")
    n = len(golden_episode.steps)
    assert f'<span id="step-count">{n} steps</span>' in html
    assert html.count('<section class="frame"') == n + 1  # every step, then the end
    assert not re.search(r'\b(src|href)="(?!data:|#)', html)  # nothing fetched from anywhere
    assert "<link" not in html and "@import" not in html
    # No screenshots were recorded: each frame draws the observed elements instead.
    assert html.count('class="outline"') == sum(1 for s in golden_episode.steps if s.action.box)
    assert 'class="wire"' in html


def test_trace_text_is_escaped(golden_episode, tmp_path):
    step = golden_episode.steps[0]
    dom = step.obs.dom.model_copy(update={"title": EVIL})
    evil_step = step.model_copy(
        update={
            "error": EVIL,
            "deltas": {EVIL: EVIL},
            "app_errors": [{"message": EVIL}],
            "obs": step.obs.model_copy(update={"route": EVIL, "dom": dom}),
        }
    )
    header = golden_episode.header
    evil_header = header.model_copy(
        update={
            "run_id": EVIL,
            "task": header.task.model_copy(update={"instruction": EVIL, "name": EVIL}),
        }
    )
    ep = type(golden_episode)(evil_header, (evil_step, *golden_episode.steps[1:]))
    html = render_report(ep)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert html.count("<script>") == 1  # only the viewer's own


def test_a_trace_file_with_several_episodes_needs_a_valid_episode(golden_episode, tmp_path):
    trace = tmp_path / "t.jsonl"
    write_trace(trace, [golden_episode, golden_episode])
    assert len(read_trace(trace)) == 2
    assert write_report(trace, tmp_path / "two.html", episode=2).is_file()
    with pytest.raises(ConfigError, match="holds 2 episode"):
        write_report(trace, tmp_path / "x.html", episode=3)
    with pytest.raises(ConfigError, match="does not exist"):
        write_report(tmp_path / "missing.jsonl", tmp_path / "x.html")


def test_viewer_cli_on_a_bundle_directory(tmp_path, capsys):
    from webfactory_env.cli import main

    with open_bundle(GOLDEN) as root:
        bundle = Path(shutil.copytree(root, tmp_path / "b"))
    assert (bundle / TRACE_FILE).is_file()
    assert main(["view", str(bundle), "--out", str(tmp_path / "v.html")]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'v.html'}"


# ------------------------------------------ issue 27: every file read from inside the bundle
SHOT = "a" * 64


def _bundle_copy(tmp_path: Path) -> Path:
    with open_bundle(GOLDEN) as root:
        return Path(shutil.copytree(root, tmp_path / "bundle"))


def _point_first_step_at(bundle: Path, shot: str) -> None:
    import json

    trace = bundle / TRACE_FILE
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    step = json.loads(lines[1])
    step["obs"]["screenshot"] = shot
    lines[1] = json.dumps(step, sort_keys=True, separators=(",", ":")) + "\n"
    trace.write_text("".join(lines), encoding="utf-8")


def _png_bytes() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (2, 2), (9, 8, 7)).save(out, format="PNG")
    return out.getvalue()


def test_a_screens_folder_that_is_a_link_out_of_the_bundle_is_not_embedded(tmp_path):
    import base64

    bundle = _bundle_copy(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = _png_bytes()
    (outside / f"{SHOT}.png").write_bytes(secret)
    (bundle / TRACE_FILE).parent.joinpath("screens").symlink_to(outside)
    _point_first_step_at(bundle, SHOT)
    refused: list[str] = []
    html = write_report(bundle, tmp_path / "r.html", refused=refused).read_text("utf-8")
    assert base64.b64encode(secret).decode() not in html
    assert refused == [f"'{SHOT}': it links outside the bundle"]
    # The same file, really inside the bundle, is shown.
    (bundle / TRACE_FILE).parent.joinpath("screens").unlink()
    (bundle / TRACE_FILE).parent.joinpath("screens").mkdir()
    (bundle / TRACE_FILE).parent.joinpath("screens", f"{SHOT}.png").write_bytes(secret)
    html = write_report(bundle, tmp_path / "r2.html").read_text("utf-8")
    assert base64.b64encode(secret).decode() in html


def test_a_screenshot_that_is_a_pipe_or_a_device_is_refused_without_waiting(tmp_path):
    import os

    bundle = _bundle_copy(tmp_path)
    screens = (bundle / TRACE_FILE).parent / "screens"
    screens.mkdir()
    os.mkfifo(screens / f"{SHOT}.png")  # opening it to read would wait for a writer
    _point_first_step_at(bundle, SHOT)
    refused: list[str] = []
    write_report(bundle, tmp_path / "r.html", refused=refused)
    assert refused == [f"'{SHOT}': not a regular file (a device, a pipe or a socket)"]


@pytest.mark.parametrize("target", ["/dev/zero", "outside", "fifo", "huge"])
def test_a_trace_that_is_not_a_regular_file_inside_the_bundle_is_refused(tmp_path, capsys, target):
    """`trace.jsonl` linked to /dev/zero used to be read until memory ran out, and linked to
    another trace, rendered that one. Now: one line, exit 2, quickly."""
    import os

    from webfactory_env.cli import main

    bundle = _bundle_copy(tmp_path)
    trace = bundle / TRACE_FILE
    if target == "outside":
        elsewhere = tmp_path / "someone-elses.jsonl"
        shutil.copy(trace, elsewhere)
        trace.unlink()
        trace.symlink_to(elsewhere)
        reason = "it links outside the bundle"
    elif target == "fifo":
        trace.unlink()
        os.mkfifo(trace)
        reason = "not a regular file"
    elif target == "huge":
        with trace.open("r+b") as fh:  # sparse: nothing is written, nothing need be read
            fh.truncate(300 * 1024 * 1024)
        reason = "larger than 256 MB"
    else:
        trace.unlink()
        trace.symlink_to(target)
        reason = "it links outside the bundle"
    assert main(["view", str(bundle), "--out", str(tmp_path / "v.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {TRACE_FILE}: refused: {reason}" or (
        err.startswith(f"error: {TRACE_FILE}: refused: {reason}")
    ), err
    assert not (tmp_path / "v.html").exists()


def test_a_trace_file_named_directly_must_be_a_regular_file(tmp_path):
    from webfactory_env.core.errors import UnsafeFileError

    with pytest.raises(UnsafeFileError, match="not a regular file"):
        write_report(Path("/dev/zero"), tmp_path / "r.html")


def test_the_viewer_shows_an_episode_with_a_damaged_line_and_says_which(tmp_path, capsys):
    from webfactory_env.cli import main

    bundle = _bundle_copy(tmp_path)
    trace = bundle / TRACE_FILE
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = "{damaged\n"
    trace.write_text("".join(lines), encoding="utf-8")
    assert main(["view", str(bundle), "--out", str(tmp_path / "v.html")]) == 0
    html = (tmp_path / "v.html").read_text(encoding="utf-8")
    assert "Damaged trace lines, skipped: line 3: not JSON" in html
    assert html.count('<section class="frame"') == len(lines) - 1  # the other steps, the end
    err = capsys.readouterr().err
    assert f"note: skipped a damaged trace line: {TRACE_FILE}:3: not JSON" in err
