"""Action decoding, validation and masks, and observation encoding, on a synthetic page."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from webfactory_env import actions as act
from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.observation import ObservationConfig, encode_dom, observation_space
from webfactory_env.observation.encode import text_token_ids

CFG = act.ActionConfig(max_elements=8, max_values=4)
VALUES = ("Alice", "Red")


def _dom(scroll_y=0, can_back=False) -> DomSnapshot:
    rows = [
        ("a", "link", "Shop", "", f.CLICKABLE | f.LINK, None, "nav:/shop"),
        ("input", "textbox", "Full name", "", f.EDITABLE | f.IN_FORM, None, "field:name"),
        ("select", "combobox", "Color", "All", f.SELECTABLE, ("All", "Red", "Blue"), "filter"),
        ("button", "button", "Buy", "", f.CLICKABLE | f.DISABLED, None, "buy"),
        ("button", "button", "Hidden", "", f.CLICKABLE | f.OCCLUDED, None, "covered"),
        ("h1", "heading", "Welcome", "", f.TEXT, None, None),
        ("input", "textbox", "Code", "X1", f.READONLY, None, None),
    ]
    return DomSnapshot(
        tags=tuple(r[0] for r in rows),
        roles=tuple(r[1] for r in rows),
        texts=tuple(r[2] for r in rows),
        values=tuple(r[3] for r in rows),
        boxes=tuple((10 * i, 20 * i, 100, 20) for i in range(len(rows))),
        flags=tuple(r[4] for r in rows),
        options=tuple(r[5] for r in rows),
        sids=tuple(r[6] for r in rows),
        secrets=tuple(False for _ in rows),
        offscreen={"item:x": 1},
        scroll_y=scroll_y,
        scroll_height=2000,
        viewport=(1000, 800),
        route="/shop",
        title="Shop",
        can_back=can_back,
    )


def _check(verb, index=0, slot=0, dom=None):
    d = act.decode(np.array([act.VERB_INDEX[verb], index, slot]), CFG, VALUES)
    if isinstance(d, str):
        return None, d
    return act.check(d, dom or _dom())


def test_valid_actions_become_browser_operations():
    op, err = _check("click", 0)
    assert err is None and op.verb == "click" and op.point == (50.0, 10.0)
    assert _check("type", 1, 0)[0].value == "Alice"
    assert _check("select", 2, 1)[0].value == "Red"
    assert _check("submit", 1)[0].verb == "submit"
    assert _check("scroll_down")[0].value == "down"
    assert _check("done_success") == (None, None)


@pytest.mark.parametrize(
    ("verb", "index", "slot", "reason"),
    [
        ("click", 5, 0, "not clickable"),  # a heading
        ("click", 3, 0, "disabled"),
        ("click", 4, 0, "covered"),
        ("click", 7, 0, "not on the page"),  # padding row
        ("type", 0, 0, "not a text field"),
        ("type", 6, 0, "read-only"),
        ("type", 1, 3, "slot 3 is empty"),
        ("select", 2, 0, "no option 'Alice'"),
        ("select", 1, 1, "not a dropdown"),
        ("submit", 0, 0, "not part of a form"),
        ("scroll_up", 0, 0, "already at the top"),
        ("back", 0, 0, "no page to go back to"),
    ],
)
def test_invalid_actions_are_explained(verb, index, slot, reason):
    op, err = _check(verb, index, slot)
    assert op is None and reason in err


def test_decode_rejects_out_of_range_values_and_malformed_actions():
    assert "out of range" in act.decode(np.array([99, 0, 0]), CFG, VALUES)
    assert "element 8" in act.decode([0, 8, 0], CFG, VALUES)
    assert act.decode(np.array([1, 1, 1]), CFG, VALUES) == act.Decoded("type", 1, "Red")
    with pytest.raises(act.InvalidActionError, match="3 integers"):
        act.decode("click", CFG, VALUES)
    with pytest.raises(act.InvalidActionError):
        act.decode([0.5, 1, 2], CFG, VALUES)


def test_masks_agree_with_check():
    dom = _dom(scroll_y=100, can_back=True)
    mask = act.action_masks(dom, VALUES, CFG)
    verbs, elems, slots = mask[:10], mask[10:18], mask[18:]
    assert list(slots) == [True, True, False, False]
    for v, name in enumerate(act.VERBS):
        any_ok = any(
            _check(name, i, s, dom)[1] is None
            for i in range(CFG.max_elements)
            for s in range(CFG.max_values)
        )
        assert verbs[v] == any_ok, name
    assert list(elems) == [True, True, True, False, False, False, False, False]


def test_masks_read_off_the_flags_are_exactly_what_check_accepts_on_random_pages():
    """The masks are computed from the flags directly, for speed; `check` is the definition
    they must match, verb by verb and element by element, on any page."""
    rng = np.random.default_rng(7)
    bits = [f.CLICKABLE, f.EDITABLE, f.SELECTABLE, f.DISABLED, f.OCCLUDED, f.IN_FORM, f.READONLY]
    words = ["All", " red", "Blue ", "alice", "Green"]
    for _ in range(300):
        n = int(rng.integers(0, 9))
        values = tuple(rng.choice(words, size=int(rng.integers(0, 3)), replace=False))
        flags = [int(sum(b for b in bits if rng.random() < 0.3)) for _ in range(n)]
        options = [
            tuple(rng.choice(words, size=2)) if fl & f.SELECTABLE and rng.random() < 0.8 else None
            for fl in flags
        ]
        dom = dataclasses.replace(
            _dom(),
            tags=("div",) * n,
            roles=("generic",) * n,
            texts=("x",) * n,
            values=("",) * n,
            boxes=((0, 0, 10, 10),) * n,
            flags=tuple(flags),
            options=tuple(options),
            sids=(None,) * n,
            secrets=(False,) * n,
        )
        cfg = act.ActionConfig(max_elements=8, max_values=4)
        mask = act.action_masks(dom, values, cfg)
        verbs, elems = mask[:10], mask[10:18]
        ok = {
            (name, i)
            for name in act.ELEMENT_VERBS
            for i in range(min(n, 8))
            for value in (values if name in ("type", "select") else (None,))
            if act.check(act.Decoded(name, i, value), dom)[1] is None
        }
        for name in act.ELEMENT_VERBS:
            assert verbs[act.VERB_INDEX[name]] == any(v == name for v, _ in ok), (name, dom)
        expected = [any(i == j for _, j in ok) for i in range(8)]
        assert list(elems) == (expected if any(expected) else [True] + [False] * 7)


def test_observation_arrays_fit_their_space_and_carry_no_semantic_ids():
    cfg = ObservationConfig("tokens", max_elements=8, max_tokens=4, vocab_size=64)
    obs = encode_dom(_dom(), cfg)
    space = observation_space(cfg)
    assert space.contains(obs)
    assert obs["mask"].tolist() == [1] * 7 + [0]
    assert obs["bbox"][1].tolist() == pytest.approx([0.01, 0.025, 0.1, 0.025])
    assert obs["flags"][3].tolist()[3] == 1  # disabled
    flat = json.dumps({k: v.tolist() for k, v in obs.items()})
    assert "nav:/shop" not in flat and "field:name" not in flat


def test_text_ids_are_stable_across_processes():
    code = (
        "import json; from webfactory_env.observation.encode import text_token_ids;"
        "print(json.dumps(text_token_ids('Add to cart: Red Mug 12.99', 8, 4096)))"
    )
    outs = set()
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
            ).stdout
        )
    assert len(outs) == 1
    assert json.loads(outs.pop()) == text_token_ids("Add to cart: Red Mug 12.99", 8, 4096)
    assert all(0 < i < 4096 for i in text_token_ids("a b c", 8, 4096))


TEXT = act.ActionConfig(max_elements=8, max_values=4, mode="text")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click(3)", act.Decoded("click", 3)),
        ("  click( 3 )  ", act.Decoded("click", 3)),
        ('type(1, "Alice \\"Al\\" Nguyen")', act.Decoded("type", 1, 'Alice "Al" Nguyen')),
        ("fill(1, 'x')", act.Decoded("type", 1, "x")),
        ('select(2, "Red")', act.Decoded("select", 2, "Red")),
        ("submit(1)", act.Decoded("submit", 1)),
        ('press("Enter")', act.Decoded("press_enter", -1, key="Enter")),
        ('press(1, "Tab")', act.Decoded("press_enter", 1, key="Tab")),
        ("scroll(down)", act.Decoded("scroll_down")),
        ('scroll("up")', act.Decoded("scroll_up")),
        ("back()", act.Decoded("back")),
        ('done(true, "$6.99")', act.Decoded("done_success", text="$6.99")),
        ("done(false)", act.Decoded("done_fail")),
    ],
)
def test_text_actions_parse(text, expected):
    assert act.decode(text, TEXT, VALUES) == expected


@pytest.mark.parametrize(
    "attack",
    [
        '__import__("os").system("rm -rf /")',
        "click(__import__('os'))",
        "click(1); click(2)",
        "click(1) or exec('x')",
        'type(1, "a") + "b"',
        "eval('1')",
        "click(-1)",
        "click(1, 2, 3)",
        'press("Control+W")',
        "done(maybe)",
        "x" * 3000,
        "",
    ],
)
def test_text_action_parser_rejects_everything_else(attack):
    result = act.decode(attack, TEXT, VALUES)
    assert isinstance(result, str) and result  # an explanation, never an exception


def test_text_mode_needs_strings():
    with pytest.raises(act.InvalidActionError, match="text actions"):
        act.decode(np.array([0, 0, 0]), TEXT, VALUES)
