"""Replay bundles: record → bundle → verify, tampering, divergence, other processes, viewer."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from webfactory_env.agents import OracleAgent, RandomAgent
from webfactory_env.replay import verify_bundle, write_bundle, write_report
from webfactory_env.replay.bundle import (
    MANIFEST,
    TRACE_FILE,
    bundle_trace,
    load_manifest,
    open_bundle,
    seal,
)
from webfactory_env.trace import TraceRecorder, read_trace

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "bundles"
REGENERATE = "run `.venv/bin/python tests/golden/regenerate.py` and commit the new bundles"


def record(
    tmp: Path, agent: str, seed: int, *, screenshots: bool = False, obs_mode="tokens", **kw: Any
) -> Path:
    """Run one episode with a trace, bundle it in `tmp/bundle` and return the trace path
    (the env is closed)."""
    trace = tmp / "trace.jsonl"
    env = TraceRecorder(
        gym.make("WebTask-v0", family="shop", task="buy_red_mug", obs_mode=obs_mode, **kw),
        trace,
        screenshots=screenshots,
    )
    try:
        policy = OracleAgent(env) if agent == "oracle" else RandomAgent(env, seed=seed)
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
            done = terminated or truncated
            if info["steps"] == 3:  # flushed as it happens: readable mid-episode
                assert len(read_trace(trace)[-1].steps) == 3
        write_bundle(tmp / "bundle", env, trace)
    finally:
        env.close()
    return trace


@pytest.fixture(scope="module")
def oracle_bundle(tmp_path_factory) -> Path:
    """An oracle episode (shop seed 3) with screenshots, bundled as a directory."""
    tmp = tmp_path_factory.mktemp("oracle")
    record(tmp, "oracle", 3, screenshots=True)
    return tmp / "bundle"


def copy_bundle(src: Path, tmp: Path) -> Path:
    dst = tmp / "copy"
    shutil.copytree(src, dst)
    return dst


def edit_step(root: Path, t: int, change: Any) -> None:
    """Change step `t` of the bundled trace, then re-seal so the checksums hold again."""
    path = root / TRACE_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    data = json.loads(lines[t])
    change(data)
    lines[t] = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    seal(root, manifest)


# --------------------------------------------------------------------- round trips
@pytest.mark.browser
def test_oracle_bundle_verifies_in_another_process_with_another_hash_seed(oracle_bundle):
    manifest = load_manifest(oracle_bundle)
    assert manifest.success and manifest.steps == 11 and manifest.task == "buy_red_mug"
    assert set(manifest.files) >= {"site/spec.json", "task/source.task", "task/compiled.json"}
    assert any(f.startswith("trace/screens/") for f in manifest.files)
    spec = json.loads((oracle_bundle / "site/spec.json").read_text())
    assert sorted(manifest.pages) == sorted(spec["routes"])
    compiled = json.loads((oracle_bundle / "task/compiled.json").read_text())
    assert compiled["compiler_version"] and compiled["subgoals"][0]["witness"]

    hash_seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "17"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "webfactory_env.cli",
            "replay",
            "--verify",
            "--bundle",
            str(oracle_bundle),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "verified 11 steps"


@pytest.mark.browser
def test_random_episode_from_the_cli_round_trips_as_an_archive(tmp_path, capsys):
    from webfactory_env.cli import main

    archive = tmp_path / "random.tar.gz"
    argv = ["run", "--task", "buy_red_mug", "--seed", "11", "--agent", "random"]
    assert main([*argv, "--max-steps", "8", "--bundle", str(archive), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["bundle"] == str(archive) and summary["steps"] == 8
    with open_bundle(archive) as root:
        ep = bundle_trace(root)
        assert load_manifest(root).site_digest == summary["site_digest"]
    assert len(ep.steps) == 8 and ep.steps[-1].truncated and not ep.success
    verdict = verify_bundle(archive)
    assert verdict.ok, verdict.message
    assert verdict.message == "verified 8 steps"


FAMILIES = ("shop", "travel", "kanban", "account", "forum")


@pytest.mark.browser
@pytest.mark.parametrize("family", FAMILIES)
def test_random_episodes_round_trip_in_every_family(family, tmp_path):
    # The oracle's round trip per family is the golden bundle's; this is the random agent's,
    # whose invalid actions, dead ends and refused forms must replay just as exactly.
    from webfactory_env.tasks import library_tasks

    task = library_tasks(family)[0].name
    trace = tmp_path / "trace.jsonl"
    env = TraceRecorder(
        gym.make("WebTask-v0", family=family, task=task, obs_mode="tokens", max_steps=12),
        trace,
    )
    try:
        policy = RandomAgent(env, seed=5)
        obs, info = env.reset(seed=21)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(policy.act(obs, info))
            done = terminated or truncated
        write_bundle(tmp_path / "bundle.tar.gz", env, trace)
    finally:
        env.close()
    verdict = verify_bundle(tmp_path / "bundle.tar.gz")
    assert verdict.ok, verdict.message
    assert verdict.message == f"verified {info['steps']} steps"


@pytest.mark.browser
def test_golden_bundles_verify():
    sys.path.insert(0, str(GOLDEN.parent))
    try:
        from regenerate import golden_families
    finally:
        sys.path.pop(0)
    bundles = sorted(GOLDEN.glob("*.tar.gz"))
    expected = [f"{family}.tar.gz" for family in golden_families()]
    assert "shop.tar.gz" in expected
    assert [b.name for b in bundles] == expected, f"one golden bundle per family: {REGENERATE}"
    for bundle in bundles:
        verdict = verify_bundle(bundle)
        assert verdict.ok, f"{bundle.name}: {verdict.message}. If intended, {REGENERATE}."


# ----------------------------------------------------------------------- divergence
@pytest.mark.browser
def test_a_modified_action_fails_at_its_step(oracle_bundle, tmp_path):
    root = copy_bundle(oracle_bundle, tmp_path)

    def scroll_instead(step: dict[str, Any]) -> None:
        step["action"]["raw"] = [5, 0, 0]  # scroll_down instead of selecting the colour

    edit_step(root, 2, scroll_instead)
    verdict = verify_bundle(root)
    assert not verdict.ok and verdict.step == 2
    assert verdict.message.startswith("step 2: ")


@pytest.mark.browser
def test_a_modified_reward_is_named_with_both_values(oracle_bundle, tmp_path):
    root = copy_bundle(oracle_bundle, tmp_path)

    def inflate(step: dict[str, Any]) -> None:
        step["reward"]["r"] = 5.0

    edit_step(root, 4, inflate)
    verdict = verify_bundle(root)
    assert not verdict.ok
    assert verdict.message == "step 4: reward differs: recorded 5.0, replayed 0.19"
    assert (verdict.step, verdict.field) == (4, "reward.r")


@pytest.mark.browser
def test_a_pixel_bundle_verifies_through_raster_noise_and_not_through_a_changed_screen(tmp_path):
    """With pixel observations each observation is kept as its `ScreenRecord`: the other
    parts' digest, compared exactly, and the screenshot's block means, compared within the
    raster noise Chromium's software compositor leaves (a few edge pixels from one run to
    the next, README, Determinism). A recorded digest that differs but for that noise
    verifies; a block moved by more, or any other part changed, fails and says where."""
    episode = read_trace(record(tmp_path, "oracle", 3, obs_mode="tokens+pixels"))[-1]
    assert episode.header.obs.screen is not None
    assert all(step.obs.screen is not None for step in episode.steps)
    assert verify_bundle(tmp_path / "bundle").ok

    def noise(amount: int, *, rest: bool = False) -> Any:
        def change(data: dict[str, Any]) -> None:
            obs = data["obs"]
            obs["digest"] = "0" * 64  # what raster noise does to the exact digest
            blocks = bytearray(base64.b64decode(obs["screen"]["blocks"]))
            at = 3 * (16 * 5 + 7) + 1  # block (5, 7), green
            blocks[at] += amount if blocks[at] < 128 else -amount
            obs["screen"]["blocks"] = base64.b64encode(bytes(blocks)).decode()
            if rest:
                obs["screen"]["rest_digest"] = "1" * 64

        return change

    for line, amount in ((0, 3), (2, 2)):  # the reset's observation, and a step's
        root = copy_bundle(tmp_path / "bundle", tmp_path / f"noise{line}")
        edit_step(root, line, noise(amount))
        assert verify_bundle(root).ok, (line, verify_bundle(root).message)
    root = copy_bundle(tmp_path / "bundle", tmp_path / "moved")
    edit_step(root, 2, noise(20))
    verdict = verify_bundle(root)
    assert (verdict.ok, verdict.step, verdict.field) == (False, 2, "obs.screen")
    assert verdict.message.startswith("step 2: observation differs: the screenshot differs by")
    assert "block (5, 7)" in verdict.message
    root = copy_bundle(tmp_path / "bundle", tmp_path / "rest")
    edit_step(root, 2, noise(0, rest=True))
    verdict = verify_bundle(root)
    assert (verdict.ok, verdict.field) == (False, "obs.screen")
    assert "parts but its screenshot differ" in verdict.message
    root = copy_bundle(tmp_path / "bundle", tmp_path / "reset")
    edit_step(root, 0, noise(20))
    verdict = verify_bundle(root)
    assert (verdict.ok, verdict.step, verdict.field) == (False, 0, "obs.screen")
    assert verdict.message.startswith("step 0, after reset: observation differs")
    # A trace of schema 2.1 kept no ScreenRecord: its digest alone decides, exactly.
    root = copy_bundle(tmp_path / "bundle", tmp_path / "old")
    edit_step(root, 2, lambda data: data["obs"].update(digest="0" * 64, screen=None))
    verdict = verify_bundle(root)
    assert (verdict.ok, verdict.field) == (False, "obs.digest")


def test_a_damaged_or_resized_screen_record_passes_nothing_through():
    """The skeptic's moves on the screen record of a hostile bundle: blocks that are no
    base64, blocks of another size, an empty grid beside an empty grid, a signature
    only on one side. None of them lets a differing observation verify; none crashes."""
    from webfactory_env.replay.verify import observation_difference
    from webfactory_env.trace.schema import CompactDom, ObsRecord, ScreenRecord

    dom = CompactDom(route="/", title="t", scroll_y=0, elements=[])
    grid = bytes(range(256)) * 3  # 16 x 16 blocks x 3 channels

    def obs(digest: str, blocks: str | None, rest: str = "r" * 64) -> ObsRecord:
        screen = None if blocks is None else ScreenRecord(rest_digest=rest, blocks=blocks)
        return ObsRecord(digest=digest, route="/", dom=dom, screen=screen)

    good = base64.b64encode(grid).decode()
    replayed = obs("b" * 64, good)
    assert observation_difference(obs("a" * 64, good), replayed) is None  # noise only
    assert observation_difference(obs("b" * 64, "!!not base64!!"), replayed) is None  # same
    cases = {
        "!!not base64!!": "obs.digest",  # damaged: the digests decide, exactly
        base64.b64encode(grid[:-3]).decode(): "obs.screen",  # a block short
        base64.b64encode(grid + b"\0\0\0").decode(): "obs.screen",  # a block more
        "": "obs.screen",  # an empty grid
    }
    for blocks, field in cases.items():
        found = observation_difference(obs("a" * 64, blocks), replayed)
        assert found is not None and found[0] == field, (blocks[:12], found)
    # Two empty grids agree on every block they have: still no verification.
    empty = obs("b" * 64, "")
    assert observation_difference(obs("a" * 64, ""), empty) == (
        "obs.screen",
        "observation differs: the screenshot's signature is not a 16x16 grid",
    )
    for one, other in ((obs("a" * 64, None), replayed), (obs("a" * 64, good), obs("b" * 64, None))):
        assert observation_difference(one, other)[0] == "obs.digest"


# ------------------------------------------------------------ tampering (no browser)
@pytest.fixture
def golden_dir(tmp_path) -> Path:
    with open_bundle(GOLDEN / "shop.tar.gz") as root:
        return Path(shutil.copytree(root, tmp_path / "golden"))


def test_one_flipped_byte_in_any_file_is_named(golden_dir):
    files = sorted(p for p in golden_dir.rglob("*") if p.is_file())
    assert len(files) > 5
    for file in files:
        original = file.read_bytes()
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        file.write_bytes(bytes(data))
        rel = file.relative_to(golden_dir).as_posix()
        verdict = verify_bundle(golden_dir)
        assert not verdict.ok and verdict.file == rel, (rel, verdict.message)
        assert verdict.message.startswith(f"{rel}: ")
        file.write_bytes(original)
    assert load_manifest(golden_dir).files  # restored: the loop left it intact


def test_truncated_missing_or_extra_files_are_named(golden_dir):
    trace = golden_dir / TRACE_FILE
    original = trace.read_bytes()
    trace.write_bytes(original[:-40])
    assert verify_bundle(golden_dir).message == (
        f"{TRACE_FILE}: checksum mismatch: the file was modified or truncated"
    )
    trace.unlink()
    assert verify_bundle(golden_dir).message == f"{TRACE_FILE}: missing"
    trace.write_bytes(original)
    (golden_dir / "site" / "extra.html").write_text("<p>hi</p>")
    assert verify_bundle(golden_dir).message.startswith("site/extra.html: not listed")


def test_manifest_whitespace_edits_are_caught(golden_dir):
    path = golden_dir / MANIFEST
    path.write_text(path.read_text().replace('  "family"', '\t"family"', 1))
    verdict = verify_bundle(golden_dir)
    assert not verdict.ok and verdict.file == MANIFEST


def test_a_corrupt_archive_is_named(tmp_path):
    data = bytearray((GOLDEN / "shop.tar.gz").read_bytes())
    data[len(data) // 3] ^= 0xFF
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(bytes(data))
    verdict = verify_bundle(broken)
    assert not verdict.ok
    assert verdict.message.startswith(
        ("broken.tar.gz: ", "manifest.json", "site/", "task/", "trace/")
    )


def test_cli_replay_errors_are_one_line(tmp_path, capsys):
    from webfactory_env.cli import main

    assert main(["replay", "--bundle", str(tmp_path / "nope"), "--verify"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bundle") and "does not exist" in err and "Traceback" not in err
    with open_bundle(GOLDEN / "shop.tar.gz") as root:
        bad = Path(shutil.copytree(root, tmp_path / "bad"))
    (bad / "task" / "source.task").write_text("tampered")
    assert main(["replay", "--bundle", str(bad), "--verify"]) == 1
    err = capsys.readouterr().err
    assert (
        err == "verification failed: task/source.task: checksum mismatch: the file was"
        " modified or truncated\n"
    )
    assert main(["replay", "--bundle", str(GOLDEN / "shop.tar.gz")]) == 0
    assert "buy_red_mug on shop seed 0" in capsys.readouterr().out


# --------------------------------------------------------------------------- viewer
@pytest.mark.browser
def test_viewer_steps_through_the_episode_in_a_browser(oracle_bundle, tmp_path):
    from webfactory_env.executor import shared_browser

    out = write_report(oracle_bundle, tmp_path / "report.html")
    html = out.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html
    with open_bundle(oracle_bundle) as root:
        ep = bundle_trace(root)
    first = ep.steps[0]
    first_text = ep.header.obs.dom.elements[first.action.index][2]

    context = shared_browser().acquire().new_context(viewport={"width": 1400, "height": 900})
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    try:
        page = context.new_page()
        page.goto(out.as_uri())
        assert page.inner_text("#step-count") == "11 steps"
        assert page.inner_text("#pos") == "Step 1 / 11"
        visible = page.locator("section.frame:visible")
        assert visible.count() == 1
        assert visible.locator(".action").inner_text() == f"click “{first_text}”"
        box = visible.locator(".outline").bounding_box()
        shot = visible.locator(".shot img").bounding_box()
        assert box and shot and box["width"] > 5 and box["height"] > 5
        assert shot["x"] <= box["x"] and box["x"] + box["width"] <= shot["x"] + shot["width"]
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#pos") == "Step 2 / 11"
        assert page.locator("section.frame:visible").get_attribute("id") == "f1"
        page.keyboard.press("k")
        assert page.inner_text("#pos") == "Step 1 / 11"
    finally:
        context.close()
    assert all(u.startswith(("file:", "data:")) for u in requests), requests


@pytest.mark.browser
def test_redacted_field_values_stay_out_of_traces_but_replay(tmp_path, secret_postcode):
    trace = record(tmp_path, "oracle", 3)
    (ep,) = read_trace(trace)
    secret = "94105"  # the task's postal code
    typed = [s for s in ep.steps if s.action.redacted]
    assert len(typed) == 1 and typed[0].action.value == "REDACTED"
    steps_text = "".join(trace.read_text().splitlines(keepends=True)[1:])
    assert secret not in steps_text
    with open_bundle(tmp_path / "bundle") as root:
        assert secret not in "".join((root / TRACE_FILE).read_text().splitlines()[1:])
    report = write_report(tmp_path / "bundle", tmp_path / "r.html").read_text()
    frames = report.split('<section class="frame"', 1)[1]
    assert "REDACTED" in frames and secret not in frames
    verdict = verify_bundle(tmp_path / "bundle")
    assert verdict.ok, verdict.message


@pytest.mark.parametrize(
    ("name", "kind"), [("../escape.json", "file"), ("/etc/x.json", "file"), ("link", "symlink")]
)
def test_an_archive_member_that_is_no_plain_file_inside_the_bundle_is_refused(tmp_path, name, kind):
    import io
    import tarfile

    from webfactory_env.replay.bundle import BundleError, open_bundle

    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        manifest = tarfile.TarInfo("manifest.json")
        manifest.size = 2
        tar.addfile(manifest, io.BytesIO(b"{}"))
        member = tarfile.TarInfo(name)
        if kind == "symlink":
            member.type, member.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(member)
        else:
            member.size = 2
            tar.addfile(member, io.BytesIO(b"{}"))
    with (
        pytest.raises(BundleError, match="is not a plain file inside the bundle"),
        open_bundle(archive),
    ):
        pass
    assert not (tmp_path / "escape.json").exists()
