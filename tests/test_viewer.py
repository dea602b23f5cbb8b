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
