"""Every step returns what it returned before: observations, rewards, endings, infos and the
trace's bytes of fixed oracle and random episodes of every family, against the golden record
(`tests/golden/episodes.py` explains it and rewrites it after a deliberate change)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
RECORD = json.loads((GOLDEN / "episodes.json").read_text())

sys.path.insert(0, str(GOLDEN))
try:
    from episodes import cases, play
finally:
    sys.path.pop(0)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("case", cases(), ids="/".join)
def test_an_episode_gives_the_agent_the_same_bytes_as_recorded(case):
    want, got = RECORD["/".join(case)], play(*case)
    for n, (before, after) in enumerate(zip(want["steps"], got["steps"], strict=False)):
        assert after == before, f"step {n} differs: (obs, reward, terminated, truncated, info)"
    assert len(got["steps"]) == len(want["steps"])
    assert got["trace"] == want["trace"], "the trace's step lines differ"
