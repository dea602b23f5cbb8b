"""The trace format: schema file, round trips, torn lines, versions, redaction, auto-labels."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from spellings import leaks, spellings

from webfactory_env.core.errors import TraceError
from webfactory_env.replay.bundle import TRACE_FILE, open_bundle
from webfactory_env.trace import (
    EpisodeLog,
    read_trace,
    read_trace_report,
    trace_json_schema,
    write_trace,
)
from webfactory_env.trace.recorder import dump_line
from webfactory_env.trace.schema import LINE_ADAPTER, TRACE_SCHEMA_VERSION, schema_text

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "bundles" / "shop.tar.gz"


@pytest.fixture(scope="module")
def golden_trace_text() -> str:
    with open_bundle(GOLDEN) as root:
        return (root / TRACE_FILE).read_text(encoding="utf-8")


def test_committed_json_schema_matches_the_models():
    committed = (ROOT / "docs" / "trace-schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(), (
        "docs/trace-schema.json is stale: run `webfactory trace-schema --out"
        " docs/trace-schema.json` and commit it"
    )
    schema = trace_json_schema()
    assert TRACE_SCHEMA_VERSION in schema["title"]
    assert {"TraceHeader", "StepEvent"} <= set(schema["$defs"])


def test_trace_round_trips_byte_for_byte(tmp_path, golden_trace_text):
    src = tmp_path / "in.jsonl"
    src.write_text(golden_trace_text, encoding="utf-8")
    episodes = read_trace(src)
    assert len(episodes) == 1 and episodes[0].complete and not episodes[0].torn
    ep = episodes[0]
    assert ep.header.site_build.family == "shop" and ep.header.task.name == "buy_red_mug"
    assert [s.t for s in ep.steps] == list(range(1, len(ep.steps) + 1))
    out = tmp_path / "out.jsonl"
    write_trace(out, episodes)
    assert out.read_text(encoding="utf-8") == golden_trace_text
    # Every line is an instance of the exported schema's model.
    for line in golden_trace_text.splitlines():
        assert dump_line(LINE_ADAPTER.validate_json(line)) == line + "\n"


def test_a_torn_last_line_is_dropped_and_the_rest_kept(tmp_path, golden_trace_text):
    lines = golden_trace_text.splitlines(keepends=True)
    path = tmp_path / "crashed.jsonl"
    path.write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2], encoding="utf-8")
    (ep,) = read_trace(path)
    assert len(ep.steps) == 4 and ep.torn and not ep.complete


def test_a_corrupt_line_in_the_middle_costs_that_line_only(tmp_path, golden_trace_text):
    lines = golden_trace_text.splitlines(keepends=True)
    data = json.loads(lines[3])
    data["reward"]["r"] = "lots"
    lines[3] = json.dumps(data) + "\n"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    (ep,) = read_trace(path)
    assert [s.t for s in ep.steps] == [t for t in range(1, len(lines)) if t != 3]
    assert ep.complete and not ep.torn
    (damage,) = ep.damaged
    assert (damage.line, damage.field) == (4, "step.reward.r")
    assert str(damage).startswith("line 4: not a valid trace line: step.reward.r")
    # Bundles hold every line or are refused: strict reading names the line.
    with pytest.raises(TraceError, match=r"bad\.jsonl:4: not a valid trace line: .*reward\.r"):
        read_trace(path, strict=True)


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json at all",
        b"\xff\xfe not UTF-8 \xc3",
        b"[" * 100_000,
        b"9" * 10_000,
        b'{"type": "step"}',
        b'"just a string"',
    ],
    ids=["not-json", "not-utf8", "nested", "huge-number", "not-the-schema", "not-an-object"],
)
def test_any_damaged_line_is_skipped_reported_and_the_rest_read(
    tmp_path, golden_trace_text, damage
):
    """Issue 27: one bad line used to lose every episode of the file (or all steps after
    it). Two episodes; a damaged line in the middle of the first."""
    episode = golden_trace_text.encode()
    lines = episode.splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:3]) + damage + b"\n" + b"".join(lines[3:]) + episode)
    reading = read_trace_report(path)
    first, second = reading.episodes
    assert len(first.steps) == len(second.steps) == len(lines) - 1
    assert first.complete and second.complete and not first.torn
    assert [d.line for d in reading.damaged] == [4] and first.damaged == reading.damaged
    assert second.damaged == ()


def test_a_damaged_header_loses_its_own_episode_only(tmp_path, golden_trace_text):
    lines = golden_trace_text.splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_text(
        golden_trace_text + "{broken header\n" + "".join(lines[1:]) + golden_trace_text,
        encoding="utf-8",
    )
    reading = read_trace_report(path)
    assert len(reading.episodes) == 2  # the first and the third
    n = len(lines)
    assert reading.damaged[0].line == n + 1
    lost = [d.line for d in reading.damaged[1:]]
    assert lost == list(range(n + 2, 2 * n + 1))  # its steps, each named
    assert all("episode header" in d.problem for d in reading.damaged[1:])


def test_line_separators_in_any_text_round_trip(tmp_path, golden_trace_text):
    """U+2028, U+2029 and U+0085 end lines for `str.splitlines` and editors: written
    escaped, a value holding them (and every other control character) reads back exact."""
    (ep,) = read_trace(_write(tmp_path / "src.jsonl", golden_trace_text))
    nasty = "a\u2028b\u2029c\x85d\x1ce\x1df\x1eg\x0bh\x0ci\rj\nk\u0000l"
    step = ep.steps[0]
    dom = step.obs.dom.model_copy(update={"title": nasty})
    odd = step.model_copy(
        update={
            "error": nasty,
            "deltas": {nasty: nasty},
            "action": step.action.model_copy(update={"value": nasty}),
            "obs": step.obs.model_copy(update={"route": nasty, "dom": dom}),
        }
    )
    path = tmp_path / "t.jsonl"
    write_trace(path, [type(ep)(ep.header, (odd, *ep.steps[1:]))])
    text = path.read_text(encoding="utf-8")
    assert not any(c in text for c in "\u2028\u2029\x85\x1c\x0b\r")
    assert len(text.splitlines()) == len(ep.steps) + 1  # what other tools see as lines
    (back,) = read_trace(path)
    first = back.steps[0]
    assert first.error == first.action.value == first.obs.route == nasty
    assert first.deltas == {nasty: nasty} and first.obs.dom.title == nasty
    # A file an older writer left, with the characters raw inside strings, reads too.
    raw = text.replace("\\u2028", "\u2028").replace("\\u2029", "\u2029")
    assert "\u2028" in raw
    (old,) = read_trace(_write(tmp_path / "old.jsonl", raw))
    assert old.steps[0].error == nasty and old.damaged == ()


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_newer_or_older_schema_versions_are_refused_with_advice(tmp_path, golden_trace_text):
    lines = golden_trace_text.splitlines(keepends=True)
    header = json.loads(lines[0])
    major, minor = (int(x) for x in TRACE_SCHEMA_VERSION.split(".")[:2])
    older, newer = f"{major - 1}.0", f"{major}.{minor + 1}"
    for version in ("0.1.0", older, newer, f"{major + 1}.0"):
        header["schema_version"] = version
        path = tmp_path / "v.jsonl"
        path.write_text(json.dumps(header) + "\n", encoding="utf-8")
        with pytest.raises(TraceError, match="upgrade webfactory_env, or re-record"):
            read_trace(path)


def test_steps_carry_labels_from_the_subgoal_dag(golden_trace_text, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(golden_trace_text, encoding="utf-8")
    (ep,) = read_trace(path)
    satisfied = {label.subgoal: s.t for s in ep.steps for label in s.labels}
    subgoals = {g.id: g for g in ep.header.task.subgoals}
    assert set(satisfied) == set(subgoals)  # the oracle reaches every subgoal
    for step in ep.steps:
        for label in step.labels:
            direct = subgoals[label.subgoal].prerequisites
            assert [p.subgoal for p in label.prerequisites] == direct
            for link in label.prerequisites:
                assert link.step == satisfied[link.subgoal] <= step.t
            assert set(label.prerequisite_steps) >= {p.step for p in label.prerequisites}


# ------------------------------------------------------------------------- redaction
def _fake_env(values: tuple[str, ...], dom_value: str) -> Any:
    dom = {
        "route": "/login",
        "title": "Sign in",
        "scroll_y": 0,
        "elements": [["input", "textbox", "Password", dom_value, [10, 20, 200, 30], 2]],
    }
    task = SimpleNamespace(values=values, subgoal=lambda _id: SimpleNamespace(prerequisites=()))
    return SimpleNamespace(task=task, episode=None, dom=SimpleNamespace(to_json=lambda: dom))


def _record(t: int, *, slot: int, redact: bool, value: str) -> dict[str, Any]:
    return {
        "t": t,
        "action": {
            "raw": [1, 0, slot],
            "verb": "type",
            "index": 0,
            "target": "field:login.password",
            "value": "REDACTED" if redact else value,
            "redact": redact,
            "box": [10, 20, 200, 30],
        },
        "valid": True,
        "error": None,
        "reward": {"r": -0.01, "R": -0.01, "subgoals": [], "undone": [], "components": {}},
        "deltas": {"auth.password": value, "auth.user": "alice"},
        "events": [{"type": "input", "sid": "field:login.password", "value": value}],
        "app_errors": [{"kind": "app_exception", "message": f"bad password {value}"}],
        "logical_ms": 100 * t,
    }


def test_values_typed_into_redacted_fields_never_reach_the_trace():
    secret = "hunter2-correct-horse"
    env = _fake_env(("alice", secret), dom_value=secret)
    log = EpisodeLog(env, run_id="r")
    info = {
        "record": _record(1, slot=1, redact=True, value=secret),
        "obs_digest": "0" * 64,
        "route": f"/login?echo={secret}",
        "success": False,
    }
    event = log.step(info, False, False)
    line = dump_line(event)
    assert secret not in line
    assert event.action.value == "REDACTED" and event.action.redacted
    assert event.action.raw == [1, 0, 1]  # replay still has the slot to re-type it
    assert event.deltas["auth.password"] == "REDACTED" and event.deltas["auth.user"] == "alice"
    assert event.obs.dom.elements[0][3] == "REDACTED"
    # Once known, the secret is scrubbed from later steps too, wherever it shows up.
    later = {**info, "record": _record(2, slot=0, redact=False, value=f"x{secret}y")}
    assert secret not in dump_line(log.step(later, False, False))


@pytest.mark.parametrize(
    "shown",
    [
        lambda s: s.upper(),
        lambda s: s[:6],  # a maxlength=6 field
        lambda s: __import__("html").escape(s),
        lambda s: __import__("urllib.parse").parse.quote_plus(s),
        lambda s: json.dumps(s)[1:-1],
        lambda s: "  ".join(s.split(" ")),  # spaces doubled, or collapsed by the page
    ],
    ids=["upper", "maxlength", "html", "form-encoded", "json", "spaces"],
)
def test_a_secret_never_reaches_the_trace_in_any_spelling(shown):
    """Issue 27: the page gives back what was typed into a secret field changed (escaped,
    encoded, cased, cut short); the trace holds none of those spellings either."""
    secret = 'Tom&Jerry<3"pass word'
    env = _fake_env(("alice", secret), dom_value=shown(secret))
    log = EpisodeLog(env, run_id="r")
    record = _record(1, slot=1, redact=True, value=secret)
    record["events"] = [{"type": "input", "value": shown(secret)}]
    record["app_errors"] = [{"message": f"bad password {shown(secret)}!"}]
    info = {
        "record": record,
        "obs_digest": "0" * 64,
        "route": f"/login?pw={shown(secret)}",
        "success": False,
    }
    line = dump_line(log.step(info, False, False))
    assert leaks(secret, line) == []
    assert "alice" in line  # an ordinary value is kept


def test_random_secrets_in_random_spellings_never_survive_the_redactor():
    """Fuzz: 300 secrets drawn from markup, URL and JSON syntax, whitespace (line
    separators too) and non-ASCII, each planted in page text in every spelling of it and of
    its prefixes of 4 characters or more: the redactor leaves none."""
    import random

    from webfactory_env.trace.redact import Redactor

    rng = random.Random(27)
    alphabet = "aZ09_-.&<>\"'%+=?#;/\\ \t\u2028\u2029\x85é€🙂漢"
    for _ in range(300):
        secret = "".join(rng.choice(alphabet) for _ in range(rng.randint(6, 16)))
        if not secret.strip() or len(secret.strip()) < 6:
            continue
        secret = secret.strip()
        redactor = Redactor()
        redactor.add(secret)
        page = " | ".join(f"[{form}]" for form in sorted(spellings(secret)))
        assert leaks(secret, redactor.scrub_text(page)) == [], repr(secret)


def test_values_of_ordinary_fields_are_kept():
    env = _fake_env(("alice",), dom_value="alice")
    info = {
        "record": _record(1, slot=0, redact=False, value="alice"),
        "obs_digest": "0" * 64,
        "route": "/login",
        "success": False,
    }
    event = EpisodeLog(env, run_id="r").step(info, False, False)
    assert event.action.value == "alice" and not event.action.redacted


def test_a_screen_signature_tells_raster_noise_from_a_moved_element():
    """Measured raster noise (a few hundred channel values along element edges, off by at
    most 7) stays within `SCREEN_TOLERANCE`; the same page with a card one pixel lower, a
    recoloured button or another observation part does not."""
    import numpy as np

    from webfactory_env.episode.records import screen_signature

    def page(card_top: int = 40, button: tuple[int, int, int] = (138, 180, 248)) -> Any:
        shot = np.full((128, 128, 3), 20, np.uint8)
        shot[card_top : card_top + 40, 20:60] = (217, 48, 37)  # a swatch
        shot[card_top, 20:60] = shot[card_top + 39, 20:60] = (60, 64, 67)  # its border
        shot[90:96, 70:100] = button
        return {"screenshot": shot, "tokens": np.arange(6)}

    base = screen_signature(page())
    assert base is not None and len(base.blocks) == 16 * 16 * 3
    noisy = page()
    rng = np.random.default_rng(0)
    edges = [(r, c) for r in (40, 79) for c in range(20, 60)] + [(r, 20) for r in range(40, 80)]
    for r, c in [edges[i] for i in rng.choice(len(edges), 78, replace=False)]:
        for ch in range(3):  # 234 channel values
            noisy["screenshot"][r, c, ch] = np.clip(int(noisy["screenshot"][r, c, ch]) + 7, 0, 255)
    assert base.differs_from(screen_signature(noisy)) is None
    assert "differs by" in base.differs_from(screen_signature(page(card_top=41)))
    assert "differs by" in base.differs_from(screen_signature(page(button=(26, 115, 232))))
    # The skeptic's moves: a small state change (a checkbox ticked: a 3x3 mark) is caught;
    # so is a shift of the whole page by 5 units. Left within (README): one pixel of a
    # 128x128 frame changed by less than about 200 units (its 8x8 block's mean moves by 3
    # or less) and shifts of 3 units or less.
    ticked = page()
    ticked["screenshot"][100:103, 10:13] = (255, 255, 255)
    assert "differs by" in base.differs_from(screen_signature(ticked))
    brighter = page()
    brighter["screenshot"] += 5
    assert "differs by" in base.differs_from(screen_signature(brighter))
    other = page()
    other["tokens"] = np.arange(1, 7)
    assert "parts but its screenshot" in base.differs_from(screen_signature(other))
    assert screen_signature({"tokens": np.arange(6)}) is None and screen_signature("text") is None
    small = screen_signature({"screenshot": np.zeros((8, 12, 3), np.uint8)})
    assert small is not None and len(small.blocks) == 16 * 16 * 3
