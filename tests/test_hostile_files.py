"""Files from other people are hostile input (issue 19, cases 13 and 14).

A bundle's manifest can be edited and re-sealed by anyone (the checksums only catch
accidents), so `--verify` must hold the manifest's summary against the re-executed episode;
a manifest, trace or `env_kwargs` that is not the shape it must have gets one line naming
the file and field, exit 2, and no traceback; and the viewer embeds only screenshots that
are inside the bundle, naming every path it refused.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from PIL import Image

from webfactory_env.agents import OracleAgent
from webfactory_env.cli import main
from webfactory_env.core.errors import MalformedFileError
from webfactory_env.replay import verify_bundle, write_bundle, write_report
from webfactory_env.replay.bundle import MANIFEST, TRACE_FILE, _self_hash, manifest_text, seal
from webfactory_env.trace import TraceRecorder, read_trace

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, Path]:
    """(trace, bundle directory) of one oracle episode on the shop, with screenshots."""
    tmp = tmp_path_factory.mktemp("recorded")
    trace = tmp / "trace.jsonl"
    env = TraceRecorder(
        gym.make("WebTask-v0", family="shop", task="buy_red_mug", obs_mode="tokens"),
        trace,
        screenshots=True,
    )
    try:
        oracle = OracleAgent(env)
        obs, info = env.reset(seed=3)
        oracle.reset()
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
            done = terminated or truncated
        assert info["success"]
        write_bundle(tmp / "bundle", env, trace)
    finally:
        env.close()
    return trace, tmp / "bundle"


def _copy(bundle: Path, tmp: Path) -> Path:
    return Path(shutil.copytree(bundle, tmp / "copy"))


def _edit_manifest(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change the manifest and re-seal it, as anyone can (even into something that is no
    manifest: the checksum is only arithmetic)."""
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    seal(root, manifest)  # the file checksums, for an edited trace
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    change(manifest)
    manifest["manifest_sha256"] = _self_hash(manifest)
    (root / MANIFEST).write_text(manifest_text(manifest), encoding="utf-8")


def _edit_trace_line(root: Path, line: int, change: Callable[[dict[str, Any]], None]) -> None:
    path = root / TRACE_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    data = json.loads(lines[line])
    change(data)
    lines[line] = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("note: recorded by")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ----------------------------------------------------------------- case 13: the summary
@pytest.mark.parametrize(("field", "value"), [("success", False), ("return", 9.5), ("steps", 3)])
def test_verify_names_the_manifest_summary_field_that_differs(
    recorded, tmp_path, capsys, field, value
):
    root = _copy(recorded[1], tmp_path)
    _edit_manifest(root, lambda m: m.update({field: value}))
    verdict = verify_bundle(root)
    assert not verdict.ok and not verdict.malformed
    assert (verdict.file, verdict.field) == (MANIFEST, field)
    assert verdict.message.startswith(f"{MANIFEST}: {field} differs: the manifest says")
    assert main(["replay", "--bundle", str(root), "--verify"]) == 1
    assert _one_error_line(capsys).startswith(f"verification failed: {MANIFEST}: {field} differs")


def test_an_untouched_bundle_still_verifies(recorded):
    verdict = verify_bundle(recorded[1])
    assert verdict.ok, verdict.message


# ------------------------------------------------- case 13: malformed files, exit 2
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"max_steps": "many"}, "env_kwargs.max_steps"),
        ({"colour": 1}, "env_kwargs.colour"),
        ({"obs_mode": 42}, "env_kwargs.obs_mode"),
        ({"obs_mode": "tokenz"}, "env_kwargs.obs_mode"),
        ({"reward": {"step_penalty": "x"}}, "env_kwargs.reward.step_penalty"),
        ({"variation": {"theme": "neon"}}, "env_kwargs.variation"),
        # Which Chromium runs is this machine's business, never a bundle's.
        ({"browser": {"executable": "/bin/sh"}}, "env_kwargs.browser"),
    ],
)
def test_junk_env_kwargs_get_one_line_naming_file_and_field(
    recorded, tmp_path, capsys, change, field
):
    root = _copy(recorded[1], tmp_path)
    _edit_manifest(root, lambda m: m["env_kwargs"].update(change))
    verdict = verify_bundle(root)
    assert verdict.malformed and (verdict.file, verdict.field) == (MANIFEST, field)
    assert main(["replay", "--bundle", str(root), "--verify"]) == 2
    assert _one_error_line(capsys).startswith(f"error: {MANIFEST}: {field}: ")


def test_a_manifest_field_of_the_wrong_type_is_named(recorded, tmp_path, capsys):
    root = _copy(recorded[1], tmp_path)
    _edit_manifest(root, lambda m: m.update(steps="eleven"))
    assert main(["replay", "--bundle", str(root), "--verify"]) == 2
    assert _one_error_line(capsys).startswith(f"error: {MANIFEST}: invalid: steps: ")
    assert main(["replay", "--bundle", str(root)]) == 2  # the summary without --verify too
    assert _one_error_line(capsys).startswith(f"error: {MANIFEST}: ")


def test_a_manifest_nested_too_deeply_is_refused(recorded, tmp_path, capsys):
    root = _copy(recorded[1], tmp_path)
    (root / MANIFEST).write_text("[" * 100_000, encoding="utf-8")
    assert main(["replay", "--bundle", str(root), "--verify"]) == 2
    assert _one_error_line(capsys) == f"error: {MANIFEST}: corrupt: not JSON (nested too deeply)"


@pytest.mark.parametrize("how", ["wrong type", "nested", "huge number"])
def test_a_malformed_trace_line_is_named_by_file_line_and_field(recorded, tmp_path, capsys, how):
    root = _copy(recorded[1], tmp_path)
    path = root / TRACE_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if how == "wrong type":
        step = json.loads(lines[2])
        step["reward"]["r"] = "a lot"
        lines[2] = json.dumps(step) + "\n"
    else:
        lines[2] = ("[" * 100_000 if how == "nested" else "9" * 10_000) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    _edit_manifest(root, lambda m: None)  # re-sealed: the checksums hold
    expected = f"error: {TRACE_FILE}:3: not a "
    assert main(["replay", "--bundle", str(root), "--verify"]) == 2
    line = _one_error_line(capsys)
    assert line.startswith(expected)
    if how == "wrong type":
        assert "reward.r" in line
    # The viewer shows what can be read, and names the line it skipped (issue 27).
    assert main(["view", str(root), "--out", str(tmp_path / "r.html")]) == 0
    notes = capsys.readouterr().err
    assert f"note: skipped a damaged trace line: {TRACE_FILE}:3: not a " in notes
    assert "Traceback" not in notes
    with pytest.raises(MalformedFileError):
        read_trace(path, strict=True)
    (episode,) = read_trace(path)
    assert [d.line for d in episode.damaged] == [3]


# ------------------------------------------------------- case 14: the viewer's files
def _png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 3), color).save(out, format="PNG")
    return out.getvalue()


def test_the_viewer_embeds_only_screenshots_inside_the_bundle(recorded, tmp_path, capsys):
    root = _copy(recorded[1], tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = _png((1, 2, 3))
    (outside / "secret.png").write_bytes(secret)
    screens = root / "trace" / "screens"
    kept = sorted(screens.iterdir())
    assert len(kept) >= 3
    # The last step's screenshot stays as it is (shown below). Screenshots are stored by
    # content, so it may be any of them: the page at the last step can look like an earlier
    # one.
    last = json.loads((root / TRACE_FILE).read_text(encoding="utf-8").splitlines()[-1])
    shown = screens / f"{last['obs']['screenshot']}.png"
    # A link inside the bundle that leads out of it, under a proper screenshot name.
    linked = next(p for p in kept if p != shown)
    linked.unlink()
    linked.symlink_to(outside / "secret.png")
    relative = "../../../outside/secret"
    absolute = str(outside / "secret")
    _edit_trace_line(root, 1, lambda s: s["obs"].update(screenshot=relative))
    _edit_trace_line(root, 2, lambda s: s["obs"].update(screenshot=absolute))
    _edit_manifest(root, lambda m: None)

    refused: list[str] = []
    html = write_report(root, tmp_path / "r.html", refused=refused).read_text(encoding="utf-8")
    assert base64.b64encode(secret).decode() not in html
    assert len(refused) == 3
    assert any(relative in r for r in refused) and any(absolute in r for r in refused)
    assert any(linked.stem in r and "outside the bundle" in r for r in refused)
    assert "Screenshots not embedded" in html and "outside/secret" in html
    # Screenshots that are where they belong are still shown.
    assert shown != linked and base64.b64encode(shown.read_bytes()).decode() in html

    assert main(["view", str(root), "--out", str(tmp_path / "v.html")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert len(notes) == 3 and all("refused to embed screenshot" in n for n in notes)


def test_the_viewer_of_a_trace_file_refuses_paths_out_of_its_directory(recorded, tmp_path):
    trace, _ = recorded
    secret = _png((4, 5, 6))
    (tmp_path / "secret.png").write_bytes(secret)
    copy = tmp_path / "run" / "trace.jsonl"
    copy.parent.mkdir()
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    step = json.loads(lines[1])
    step["obs"]["screenshot"] = "../secret"
    lines[1] = json.dumps(step) + "\n"
    copy.write_text("".join(lines), encoding="utf-8")
    refused: list[str] = []
    html = write_report(copy, tmp_path / "r.html", refused=refused).read_text(encoding="utf-8")
    assert base64.b64encode(secret).decode() not in html
    assert refused == ["'../secret': not a screenshot name (64 hex digits)"]
