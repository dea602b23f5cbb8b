"""Privacy: typed secrets and personal data never reach traces, bundles, reports or logs.

Episodes that type passwords, one-time codes, card numbers, emails, phone and loyalty
numbers are recorded with screenshots, bundled, rendered with `webfactory view` and logged
at DEBUG; then every byte they left is searched for those values. What may legitimately
hold them (see `webfactory_env.trace.redact`): what the agent is told and sends (its
instruction, value table and raw text actions, in `info`), and the bundled task source
when the task file itself spells a value out (replay recompiles it).
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import logging
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from webfactory_env import cli
from webfactory_env.agents import OracleAgent
from webfactory_env.replay import verify_bundle, write_bundle
from webfactory_env.tasks import library
from webfactory_env.trace import REDACTED, TraceRecorder, read_trace
from webfactory_env.trace.redact import Redactor, pseudonym, scrub_patterns

pytestmark = pytest.mark.browser

CARD = "4242 4242 4242 4242"


@dataclass(frozen=True)
class Case:
    family: str
    task: str
    mode: str
    secrets: tuple[str, ...] = ()  # task parameters or literals typed into `redact` fields
    personal: tuple[str, ...] = ()  # personal data typed into ordinary fields
    literal_secrets: tuple[str, ...] = ()
    literal_personal: tuple[str, ...] = ()


CASES = [
    Case("account", "account_sign_in_with_code", "multidiscrete", ("password", "code")),
    Case("account", "account_enable_two_factor", "text", ("password",)),
    Case(
        "account",
        "account_reset_forgotten_password",
        "multidiscrete",
        ("new_password",),
        ("email",),
    ),
    Case("account", "account_update_profile", "discrete", ("password",)),
    Case("shop", "shop_pay_by_card", "multidiscrete", literal_secrets=(CARD, "123")),
    Case(
        "travel",
        "book_with_loyalty_number",
        "multidiscrete",
        personal=("loyalty",),
        literal_personal=("priya.raman@example.org", "+1 415 555 0188"),
    ),
]


@dataclass
class Episode:
    case: Case
    secrets: list[str]
    personal: list[str]
    artefacts: dict[str, bytes]
    infos: list[dict[str, Any]]
    logs: list[logging.LogRecord]
    trace: Path
    bundle: Path


@contextlib.contextmanager
def _all_logs() -> Iterator[list[logging.LogRecord]]:
    """Every log record of every logger at DEBUG (like `caplog`, for a module fixture)."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    root, handler = logging.getLogger(), Keep(logging.DEBUG)
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _record(tmp: Path, case: Case, seed: int = 0) -> Episode:
    trace = tmp / "trace.jsonl"
    bundle = tmp / "bundle.tar.gz"
    infos: list[dict[str, Any]] = []
    with _all_logs() as logs:
        env = TraceRecorder(
            gym.make(
                "WebTask-v0",
                family=case.family,
                task=case.task,
                obs_mode="tokens",
                action_mode=case.mode,
            ),
            trace,
            screenshots=True,
        )
        try:
            oracle = OracleAgent(env)
            obs, info = env.reset(seed=seed)
            infos.append(info)
            oracle.reset()
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
                infos.append(info)
                done = terminated or truncated
            assert info["success"], info.get("reason")
            params = env.unwrapped.task.params
            write_bundle(bundle, env, trace)
        finally:
            env.close()
        report = tmp / "report.html"
        assert cli.main(["view", str(bundle), "--out", str(report)]) == 0
    artefacts = {"trace": trace.read_bytes(), "report": report.read_bytes()}
    for png in sorted((tmp / "screens").glob("*.png")):
        artefacts[f"screens/{png.name}"] = png.read_bytes()
    with tarfile.open(bundle) as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member)
            assert extracted is not None
            artefacts[f"bundle:{member.name}"] = extracted.read()
    return Episode(
        case,
        [str(params[p]) for p in case.secrets] + list(case.literal_secrets),
        [str(params[p]) for p in case.personal] + list(case.literal_personal),
        artefacts,
        infos,
        logs,
        trace,
        bundle,
    )


def _forms(value: str) -> set[str]:
    """How a value can be spelled in a file: as is, JSON-escaped, HTML-escaped."""
    return {value, json.dumps(value)[1:-1], html.escape(value), html.escape(value, quote=False)}


def _found(value: str, text: str) -> bool:
    if len(value) >= 6:
        return any(form in text for form in _forms(value))
    # Short values ("123") are searched as whole words, like the redactor replaces them.
    return any(re.search(rf"(?<![\w]){re.escape(f)}(?![\w])", text) for f in _forms(value))


def _text(name: str, data: bytes) -> str | None:
    if name.endswith(".png"):
        return None
    text = data.decode("utf-8")
    if name == "report":  # embedded screenshots are pixels, not text
        text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", text)
    return text


def _library_source(task: str) -> str:
    return library()[task].path.read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=CASES, ids=lambda c: c.task)
def episode(request, tmp_path_factory) -> Episode:
    return _record(tmp_path_factory.mktemp(request.param.task), request.param)


def test_no_artefact_holds_a_secret_or_personal_value(episode: Episode):
    assert episode.secrets or episode.personal
    source = _library_source(episode.case.task)
    leaks = []
    for name, data in episode.artefacts.items():
        text = _text(name, data)
        if text is None:
            continue
        for value in episode.secrets + episode.personal:
            if not _found(value, text):
                continue
            if name == "bundle:task/source.task" and value in source:
                continue  # the task file itself spells it out; replay recompiles it
            leaks.append((name, value))
    assert leaks == []


# A log record's own bookkeeping (creation time, milliseconds, thread and process ids) is
# not content: a three-digit secret such as "123" may well appear among its digits.
_RECORD_FIELDS = set(logging.LogRecord("x", logging.INFO, "x", 1, "x", None, None).__dict__)


def _log_content(record: logging.LogRecord) -> str:
    """What a log record says: its message, traceback and any extra fields attached."""
    extra = {k: v for k, v in record.__dict__.items() if k not in _RECORD_FIELDS}
    parts = [record.getMessage(), record.exc_text or "", record.stack_info or "", repr(extra)]
    return " ".join(parts)


def test_no_log_record_holds_one(episode: Episode):
    for record in episode.logs:
        text = _log_content(record)
        for value in episode.secrets + episode.personal:
            assert not _found(value, text), (record.name, record.getMessage()[:200])


def test_a_log_record_s_own_timestamps_are_not_read_as_content():
    record = logging.LogRecord("webfactory", logging.INFO, "f.py", 1, "typed %s", ("x",), None)
    record.msecs, record.created = 123.0, 1764000123.123
    assert not _found("123", _log_content(record))
    record.extra_value = "cvc 123"
    assert _found("123", _log_content(record))


def test_info_holds_secrets_only_where_the_agent_needs_them(episode: Episode):
    """`info["instruction"]` (and the goal and recipe it is made of) and `info["values"]` tell
    the agent what to type, and a text action is the agent's own string: everything else the
    env returns is free of secrets."""
    told = ("instruction", "goal", "recipe", "values", "record")
    for info in episode.infos:
        rest = {k: v for k, v in info.items() if k not in told}
        texts = [json.dumps(rest, default=str)]
        if info.get("record") is not None:
            record = info["record"].to_dict()
            action = {k: v for k, v in record["action"].items() if k != "raw"}
            texts.append(json.dumps({**record, "action": action}, default=str))
        for value in episode.secrets:
            assert not any(_found(value, t) for t in texts), value


def test_the_trace_says_where_values_were_hidden(episode: Episode):
    (ep,) = read_trace(episode.trace)
    header = ep.header.task
    for value in episode.secrets:
        assert value not in header.instruction
    if episode.secrets:
        assert REDACTED in header.instruction or REDACTED in json.dumps(
            [s.description for s in header.subgoals]
        )
    typed = [s for s in ep.steps if s.action.redacted]
    assert len(typed) >= len(set(episode.secrets)) - (1 if episode.case.mode == "text" else 0)
    for step in typed:
        assert step.action.value == REDACTED
    for value in episode.personal:
        assert pseudonym(value) in episode.artefacts["trace"].decode()


def test_screenshots_paint_over_secret_and_personal_fields(episode: Episode):
    """A value typed into a secret or personal-data field is hidden in the stored
    screenshot too (its box is painted grey)."""
    (ep,) = read_trace(episode.trace)
    checked = 0
    for step in ep.steps:
        hidden = step.action.redacted or str(step.action.value).startswith("PII-")
        if not hidden or step.obs.screenshot is None or step.action.box is None:
            continue
        png = episode.artefacts[f"screens/{step.obs.screenshot}.png"]
        # The field as this step's screenshot shows it: typing may scroll the page a little,
        # so take the same field (same column and size) nearest to where it was acted on.
        ax, ay, aw, ah = step.action.box
        same = [e[4] for e in step.obs.dom.elements if (e[4][0], e[4][2], e[4][3]) == (ax, aw, ah)]
        x, y, w, h = min(same, key=lambda b: abs(b[1] - ay)) if same else step.action.box
        pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))[y : y + h, x : x + w]
        assert pixels.size and (pixels == 128).all(), (step.t, step.action.target)
        checked += 1
    assert checked >= 1


def test_redacted_bundles_still_verify(episode: Episode):
    """Redaction keeps replays exact: numeric actions store value slots, and a text
    action's secret is stored as a placeholder of the task's value slot, so the replay types
    the value again."""
    if episode.case.mode == "text":
        (ep,) = read_trace(episode.trace)
        typed = [s.action.raw for s in ep.steps if s.action.redacted]
        assert typed and all("{{value:" in str(raw) for raw in typed)
    verdict = verify_bundle(episode.bundle)
    assert verdict.ok, verdict.message


# --------------------------------------------------------------------- the redactor alone
def test_short_secrets_are_replaced_as_whole_words_long_ones_anywhere():
    r = Redactor()
    r.add("123")
    r.add("hunter2-correct-horse")
    assert r.scrub_text("cvc 123, price $1234, #123") == f"cvc {REDACTED}, price $1234, #{REDACTED}"
    assert r.scrub_text("xhunter2-correct-horsey") == f"x{REDACTED}y"


def test_emails_and_card_numbers_become_pseudonyms_everywhere():
    text = (
        f"mail ana.lima@example.org or pay with {CARD}; order 2026-01-05, 0 0 0 0 0 0 0 0 0 0 0 0 0"
    )
    scrubbed = scrub_patterns(text)
    assert "ana.lima" not in scrubbed and "4242" not in scrubbed
    assert pseudonym("ana.lima@example.org") in scrubbed
    assert pseudonym("4242424242424242") in scrubbed
    assert scrubbed.endswith("order 2026-01-05, 0 0 0 0 0 0 0 0 0 0 0 0 0")
    assert scrub_patterns("4242 4242 4242 4241") == "4242 4242 4242 4241"  # fails Luhn


def test_a_secret_is_found_in_any_spelling_but_a_word_that_only_starts_like_it_is_kept():
    r = Redactor()
    r.add("Sunflower field 22")
    shown = {
        "Sunflower%20field%2022": "url",
        "sunflower+field+22": "form, lower case",
        "SUNFLOWER   FIELD 22": "upper case, spaces",
        "Sunflower&#32;field&#x20;22": "entities",
        "Sunflower\\u0020field 22": "JSON escape",
        "Sunflo": "cut short",
    }
    for text, how in shown.items():
        assert r.scrub_text(f"[{text}]") == f"[{REDACTED}]", how
    assert r.scrub_text("Sunflowers bloom") == "Sunflowers bloom"
    assert r.scrub_text("Sun field") == "Sun field"  # three characters: no prefix


def test_personal_data_spelled_by_a_url_gets_the_same_pseudonym():
    url = "/track?mail=ana.lima%40example.org&card=4242+4242+4242+4242"
    assert scrub_patterns(url) == (
        f"/track?mail={pseudonym('ana.lima@example.org')}&card={pseudonym('4242424242424242')}"
    )
    r = Redactor()
    r.add_personal("+1 415 555 0188")
    assert r.scrub_text("tel=%2B1+415+555+0188") == f"tel={pseudonym('+1 415 555 0188')}"


# ------------------------------------------------------------------------ the web executor
def test_executor_outcomes_events_and_logs_hold_no_literal_personal_data(caplog):
    """Selectors (which callers persist as capability memory), field summaries, excerpts,
    `executor_web.retry` events, `SelectorsExhausted` and log records: emails, card and
    account numbers in them are pseudonyms."""
    from webfactory_env.core.pii import scrub_selector
    from webfactory_env.executor.session import ORIGIN
    from webfactory_env.executor.web import SelectorsExhausted, WebExecutor
    from webfactory_env.sitegen import generate_site

    email, account = "ana.lima@example.org", "004512345678"
    events: list[dict[str, Any]] = []
    ex = WebExecutor(generate_site("shop", 3), on_event=events.append)
    try:
        with caplog.at_level(logging.DEBUG):
            out = ex.execute(
                {
                    "url": f"{ORIGIN}/track",
                    "fields": [
                        {
                            "selector": f"#number-{account}",  # drifts to [name=number]
                            "value": f"{email} {CARD}",
                        }
                    ],
                    "submit": {"selector": "button[type=submit]"},
                    "snapshot_selector": "main",
                }
            )
            with pytest.raises(SelectorsExhausted) as err:
                ex.execute(
                    {
                        "url": f"{ORIGIN}/track",
                        "fields": [{"selector": f"#acct-{account}-qqzz", "value": "x"}],
                    }
                )
    finally:
        ex.close()
    assert out.fields[0].value == f"{pseudonym(email)} {pseudonym(CARD.replace(' ', ''))}"
    assert pseudonym(account) in out.fields[0].requested
    texts = [
        out.model_dump_json(),
        json.dumps(events),
        str(err.value),
        json.dumps(err.value.tried),
        *(r.getMessage() + repr(r.__dict__) for r in caplog.records),
    ]
    assert events and err.value.tried  # the drift path ran and reported
    for text in texts:
        for value in (email, account, CARD, CARD.replace(" ", "")):
            assert value not in text
    assert scrub_selector(f"#acct-{account}-qqzz") == err.value.requested
