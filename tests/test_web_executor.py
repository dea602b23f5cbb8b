"""The web-executor contract: payloads, redaction, selector drift with backoff, exhaustion."""

from __future__ import annotations

import logging

import pytest

from webfactory_env.core.errors import ConfigError
from webfactory_env.executor.web import (
    BACKOFF_MS,
    LogicalClock,
    PayloadError,
    SelectorsExhausted,
    WebExecutor,
    derive_candidates,
    selector_words,
    words,
)
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.variation import Variation

ORIGIN = "https://site.webfactory.test"


def test_words_fold_case_punctuation_camel_case_and_hashes():
    assert words("userEmail-3fa9") == ["user", "email"]
    assert words("Full name") == ["full", "name"]
    assert words("submit_btn") == ["submit"]
    assert selector_words("[data-testid='full-name-input']") == ["full", "name"]
    assert selector_words("form#checkout .place-order") == ["checkout", "place", "order"]
    assert selector_words('text="Place order"') == ["place", "order"]


def test_candidates_prefer_exact_and_stronger_attributes():
    elements = [
        {
            "tag": "input",
            "id": "f-1a2b",
            "name": "full_name",
            "testid": "",
            "aria": "",
            "placeholder": "",
            "label": "Full name",
            "text": "",
            "type": "text",
        },
        {
            "tag": "input",
            "id": "",
            "name": "name_on_card",
            "testid": "",
            "aria": "",
            "placeholder": "",
            "label": "Name on card",
            "text": "",
            "type": "text",
        },
        {
            "tag": "button",
            "id": "",
            "name": "",
            "testid": "",
            "aria": "",
            "placeholder": "",
            "label": "",
            "text": "Full refund",
            "type": "button",
        },
    ]
    found = derive_candidates("[data-testid=full-name-input]", elements)
    assert found[0] == 'input[name="full_name"]'
    assert derive_candidates("#totally-unrelated", elements) == []


def test_between_equal_matches_the_element_of_the_same_kind_comes_first():
    """A drifted editor whose new test id ends in a hash without digits (`bcfa` reads as a
    word) matches as well as its Bold button does; the lost element was a div, so the div
    is tried first, whatever the page order."""

    def el(tag, testid, type_=""):
        blank = dict.fromkeys(("id", "name", "aria", "placeholder", "label", "text"), "")
        return {**blank, "tag": tag, "testid": testid, "type": type_}

    elements = [
        el("button", "editor-card-description-bold-8251", "button"),
        el("div", "editor-card-description-bcfa"),
    ]
    requested = '[data-testid="editor-card-description-ed08"]'
    lost = {"tag": "div", "type": ""}
    found = derive_candidates(requested, elements, like=lost)
    assert found[0] == '[data-testid="editor-card-description-bcfa"]'
    assert derive_candidates(requested, elements[::-1], like=lost)[0] == found[0]
    # without knowing the lost element, page order decides the tie
    assert derive_candidates(requested, elements)[0].endswith('bold-8251"]')


class _FakeExecutor(WebExecutor):
    """The retry logic without a browser: a page where only `present` selectors match."""

    def __init__(self, elements, present):
        self.clock = LogicalClock()
        self.on_event = None
        self.elements = elements
        self.present = set(present)

    def _count(self, selector):
        return 1 if selector in self.present else 0

    def _inspect(self, arg):
        return self.elements


def _element(name):
    return {
        "tag": "input",
        "id": "",
        "name": name,
        "testid": "",
        "aria": "",
        "placeholder": "",
        "label": "",
        "text": "",
        "type": "text",
    }


def test_retries_back_off_200_400_800_then_give_up(caplog):
    elements = [_element(f"email_{i}") for i in range(5)]
    ex = _FakeExecutor(elements, present=())
    retries = []
    with (
        caplog.at_level(logging.INFO, logger="webfactory.executor_web"),
        pytest.raises(SelectorsExhausted) as err,
    ):
        ex._locate("#email", retries)
    assert [r.backoff_ms for r in retries] == list(BACKOFF_MS) == [200, 400, 800]
    assert [r.attempt for r in retries] == [1, 2, 3]
    assert len(retries[0].remaining) == 4 and retries[-1].remaining == retries[0].remaining[2:]
    assert err.value.attempts == 3 and err.value.tried[0] == "#email" and len(err.value.tried) == 4
    assert ex.clock.now_ms == 1400
    assert [r.message for r in caplog.records] == ["executor_web.retry"] * 3


def test_retry_stops_at_the_first_candidate_that_matches():
    elements = [_element("email_1"), _element("email_2")]
    ex = _FakeExecutor(elements, present={'input[name="email_2"]'})
    retries = []
    selector, attempts = ex._locate("#email", retries)
    assert selector == 'input[name="email_2"]' and attempts == 2 and ex.clock.now_ms == 600


@pytest.fixture
def shop_executor():
    site = generate_site("shop", 3, variation=Variation.plain())
    events = []
    ex = WebExecutor(site, on_event=events.append)
    ex.events = events
    yield ex
    ex.close()


@pytest.mark.browser
def test_fill_and_submit_with_drift_and_redaction(shop_executor, caplog):
    app = shop_executor.session.app
    sku = app.queries.products[0].sku
    app.model.cart.items[sku] = 1
    app.touch()
    with caplog.at_level(logging.DEBUG):
        out = shop_executor.execute(
            {
                "url": f"{ORIGIN}/checkout",
                "fields": [
                    {"selector": "[data-testid='full-name-input']", "value": "Alice Nguyen"},
                    {"selector": "input[name=address_line1]", "value": "123 Market St"},
                    {"selector": "#city", "value": "Springfield", "redact": True},
                    {"selector": "[name=postal_code]", "value": "94105"},
                ],
                "submit": {
                    "selector": "button[type=submit]",
                    "kind": "click",
                    "wait_after_ms": 300,
                },
                "snapshot_selector": "main",
            }
        )
    assert out.submitted and "/order/" in out.final_url
    assert app.state_view()["order"]["shipping"]["full_name"] == "Alice Nguyen"
    assert [f.attempts for f in out.fields] == [1, 0, 1, 0]
    # the renamed test id is found again through its words ("full name")
    assert out.fields[0].selector.startswith('[data-testid="field-shipping-full-name-')
    assert out.fields[2].value == "REDACTED" and out.fields[2].redacted
    assert out.logical_ms == 200 + 200 + 300
    assert (
        len(shop_executor.events) == 2 and shop_executor.events[0]["event"] == "executor_web.retry"
    )
    assert "Alice Nguyen" in out.excerpt and "Springfield" not in out.excerpt
    dumped = out.model_dump_json() + " ".join(
        r.getMessage() + str(r.__dict__) for r in caplog.records
    )
    assert "Springfield" not in dumped


@pytest.mark.browser
def test_submit_kind_and_validation_errors_in_the_excerpt(shop_executor):
    out = shop_executor.execute(
        {
            "url": f"{ORIGIN}/checkout",
            "fields": [{"selector": "[name=postal_code]", "value": "12"}],
            "submit": {"selector": "[name=postal_code]", "kind": "submit"},
            "snapshot_selector": "form",
        }
    )
    assert out.submitted and out.final_url.endswith("/checkout")
    assert "error-summary" in out.excerpt and 'value="12"' in out.excerpt


@pytest.mark.browser
def test_exhausted_selectors_raise_with_what_was_tried(shop_executor):
    with pytest.raises(SelectorsExhausted) as err:
        shop_executor.execute(
            {"url": f"{ORIGIN}/checkout", "fields": [{"selector": "#zzz-qqq", "value": "x"}]}
        )
    assert err.value.tried == ["#zzz-qqq"] and err.value.attempts == 0


def test_bad_payloads_and_urls_are_rejected_before_anything_runs():
    ex = _FakeExecutor([], ())
    ex.allowed_origins = (ORIGIN,)
    with pytest.raises(PayloadError) as err:
        ex._validate({"url": "", "fields": [{"selector": "#a"}], "submit": {"kind": "tap"}})
    fields = {e["field"] for e in err.value.errors}
    assert {"url", "fields.0.value", "submit.selector", "submit.kind"} <= fields
    for url in ("ftp://x", "/relative", "https://example.com/x", "javascript:alert(1)"):
        with pytest.raises(ConfigError, match="url"):
            ex._check_url(url)
    ex._check_url(f"{ORIGIN}/checkout")


def test_a_read_waits_through_navigations_then_answers_409():
    """A page that navigates while it is read (a meta refresh) is read again on its next
    document; one that never stops gets `navigating` (HTTP 409) after NAVIGATIONS tries."""
    import functools
    from types import SimpleNamespace

    from webfactory_env.executor.web import NAVIGATIONS, ExecutionError

    class Navigating(WebExecutor):
        def __init__(self, settles_on: int | None) -> None:
            page = SimpleNamespace(wait_for_load_state=lambda *a, **k: None)
            self.session = SimpleNamespace(page=page, crashed=False)
            self.timeout_ms, self.reads, self.settles_on = 100, 0, settles_on

        def _do(self, stage, fn, selector=None):
            if isinstance(fn, functools.partial):  # waiting for the next document
                return fn()
            self.reads += 1
            if self.reads != self.settles_on:
                raise ExecutionError(stage, "navigating", "the page navigated while it was read")
            return fn()

    assert Navigating(settles_on=3)._reading("settle", lambda: "read") == "read"
    spinning = Navigating(settles_on=None)
    with pytest.raises(ExecutionError) as err:
        spinning._reading("settle", lambda: "read")
    assert spinning.reads == NAVIGATIONS and err.value.status == 409
    assert err.value.kind == "navigating" and "kept navigating" in str(err.value)
