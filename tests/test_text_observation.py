"""The text observation for language models: the page as an indexed tree with its rows, list
items and widget states, the goal, the values and the last action's result, whole up to a
size budget that shortens only visibly and keeps interactive elements longest."""

from __future__ import annotations

import re
from typing import Any

import pytest

from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.observation import StepContext, render_observation, render_text
from webfactory_env.observation.text import text_space

COLOURS = tuple(f"Colour {k}" for k in range(40))
LONG = " ".join(["Handmade in small batches from recycled stoneware, glazed twice."] * 6)
CUT = re.compile(r'…" \(\+\d+ chars\)')

Row = tuple[str, str, str, str, int, Any, int]


def _snapshot(
    rows: list[Row], groups: tuple[tuple[str, str, int], ...], columns: tuple[str, ...] = ()
) -> DomSnapshot:
    return DomSnapshot(
        tags=tuple(r[0] for r in rows),
        roles=tuple(r[1] for r in rows),
        texts=tuple(r[2] for r in rows),
        values=tuple(r[3] for r in rows),
        boxes=tuple((0, 10 * i, 100, 10) for i in range(len(rows))),
        flags=tuple(r[4] for r in rows),
        options=tuple(r[5] for r in rows),
        sids=tuple(None for _ in rows),
        secrets=tuple(False for _ in rows),
        offscreen={},
        scroll_y=0,
        scroll_height=5000,
        viewport=(1000, 800),
        route="/shop",
        title="Catalog · Shop",
        can_back=False,
        groups=groups,
        group_of=tuple(r[6] for r in rows),
        columns=columns or tuple("" for _ in rows),
    )


def _page(n_items: int = 30) -> DomSnapshot:
    """A catalog: navigation, a filter form, a list of products (a link and a long
    description each), a disabled button."""
    rows: list[Row] = [
        ("a", "link", "Home", "", f.CLICKABLE | f.LINK, None, 0),
        ("a", "link", "Cart", "", f.CLICKABLE | f.LINK, None, 0),
        ("h1", "heading", "Catalog", "", f.TEXT, None, 1),
        ("select", "combobox", "Colour", "Any", f.SELECTABLE, COLOURS, 2),
    ]
    groups = [("navigation", "Main", -1), ("main", "", -1), ("form", "Filters", 1)]
    groups.append(("list", "Products", 1))
    for k in range(n_items):
        groups.append(("listitem", "", 3))
        rows.append(
            ("a", "link", f"Mug number {k}", "", f.CLICKABLE | f.LINK, None, len(groups) - 1)
        )
        rows.append(("p", "text", f"{k}: {LONG}", "", f.TEXT, None, len(groups) - 1))
    rows.append(("button", "button", "Next page", "", f.CLICKABLE | f.DISABLED, None, 1))
    return _snapshot(rows, tuple(groups))


def _indices(text: str) -> set[int]:
    return {int(m) for m in re.findall(r"^[\s-]*\[(\d+)\]", text, re.M)}


def test_the_page_is_a_tree_of_its_containers_and_list_items():
    lines = render_text(_page(2), 100_000).splitlines()
    assert lines[:7] == [
        "Page: Catalog · Shop  (/shop, scrolled 0 of 4200 px)",
        'navigation "Main"',
        '  [0] link "Home"',
        '  [1] link "Cart"',
        "main",
        '  heading "Catalog"',
        '  form "Filters"',
    ]
    assert lines[7].startswith('    [3] combobox "Colour" value="Any" options=["Colour 0"')
    # each list item is one "- " entry holding what belongs to it, whole
    assert lines[8:13] == [
        '  list "Products"',
        '    - [4] link "Mug number 0"',
        f'      text "0: {LONG}"',
        '    - [6] link "Mug number 1"',
        f'      text "1: {LONG}"',
    ]
    assert lines[13:] == ['  [8] button "Next page" (disabled)', "(more below: scroll(down))"]


def test_table_rows_hold_their_cells_with_column_names_and_widgets_say_their_state():
    rows: list[Row] = [
        ("th", "columnheader", "Device", "", f.TEXT, None, 1),
        ("th", "columnheader", "Last active", "", f.TEXT, None, 1),
        ("td", "cell", "Firefox on Linux", "", f.TEXT, None, 2),
        ("td", "cell", "2 days ago", "", f.TEXT, None, 2),
        ("button", "button", "Sign out", "", f.CLICKABLE, None, 2),
        ("td", "cell", "Safari on iPhone", "", f.TEXT, None, 3),
        ("button", "button", "Sign out", "", f.CLICKABLE, None, 3),
        ("button", "tab", "Security", "", f.CLICKABLE | f.SELECTED, None, 4),
        ("button", "tab", "Privacy", "", f.CLICKABLE, None, 4),
        ("input", "switch", "Marketing emails", "", f.CLICKABLE | f.CHECKABLE, None, 5),
        ("input", "checkbox", "Terms", "", f.CLICKABLE | f.CHECKABLE | f.CHECKED, None, 5),
        ("input", "radio", "Monthly", "", f.CLICKABLE | f.CHECKABLE, None, 5),
        ("button", "button", "Bold", "", f.CLICKABLE | f.CHECKABLE | f.CHECKED, None, 5),
        ("button", "button", "Country ▾", "", f.CLICKABLE | f.EXPANDABLE, None, 5),
        ("button", "button", "Filters", "", f.CLICKABLE | f.EXPANDABLE | f.EXPANDED, None, 5),
        ("button", "button", "14", "", f.CLICKABLE | f.SELECTED, None, 5),
        ("button", "button", "2", "", f.CLICKABLE | f.CURRENT, None, 5),
        ("span", "text", "12 votes", "", f.TEXT, None, 6),
        ("a", "link", "Ferry times", "", f.CLICKABLE | f.LINK, None, 6),
        ("span", "text", "solved", "", f.TEXT, None, 6),
    ]
    groups = (
        ("table", "Devices", -1),
        ("row", "", 0),
        ("row", "", 0),
        ("row", "", 0),
        ("tablist", "Settings", -1),
        ("main", "", -1),
        ("article", "", 5),
    )
    columns = ("", "", "Device", "Last active", "", "Device", "") + ("",) * 13
    text = render_text(_snapshot(rows, groups, columns), 100_000)
    assert text.splitlines()[1:] == [
        'table "Devices"',
        "  row",
        '    columnheader "Device"',
        '    columnheader "Last active"',
        "  row",
        '    cell "Firefox on Linux" column="Device"',
        '    cell "2 days ago" column="Last active"',
        '    [4] button "Sign out"',
        "  row",
        '    cell "Safari on iPhone" column="Device"',
        '    [6] button "Sign out"',
        'tablist "Settings"',
        '  [7] tab "Security" (selected)',
        '  [8] tab "Privacy"',
        "main",
        '  [9] switch "Marketing emails" (off)',
        '  [10] checkbox "Terms" (checked)',
        '  [11] radio "Monthly" (not checked)',
        '  [12] button "Bold" (pressed)',
        '  [13] button "Country ▾" (collapsed)',
        '  [14] button "Filters" (expanded)',
        '  [15] button "14" (selected)',
        '  [16] button "2" (current)',
        '  - text "12 votes"',  # a count inside the card it belongs to
        '    [18] link "Ferry times"',
        '    text "solved"',
        "(more below: scroll(down))",
    ]


def test_the_snapshot_ties_each_element_to_its_row_column_and_heading():
    """What another encoder needs to say "this Sign out is Firefox's": data, not text."""
    rows: list[Row] = [
        ("h2", "heading", "Where you're signed in", "", f.TEXT, None, -1),
        ("td", "cell", "Firefox on Linux", "", f.TEXT, None, 1),
        ("button", "button", "Sign out", "", f.CLICKABLE, None, 2),
        ("td", "cell", "Safari on iPhone", "", f.TEXT, None, 3),
        ("button", "button", "Sign out", "", f.CLICKABLE, None, 4),
    ]
    groups = (("table", "", -1), ("row", "", 0), ("group", "", 1), ("row", "", 0), ("group", "", 3))
    dom = _snapshot(rows, groups, ("", "Device", "", "Device", ""))
    assert [dom.item_of(i) for i in range(5)] == [-1, 1, 1, 3, 3]
    assert dom.item_label(2) == "Firefox on Linux" and dom.item_label(4) == "Safari on iPhone"
    assert dom.heading_of(4) == 0 and dom.heading_of(0) == -1
    assert dom.column(1) == "Device" and dom.column(2) == ""


@pytest.mark.parametrize("budget", [20_000, 6000, 3000, 2000, 1500])
def test_a_tight_budget_shortens_visibly_and_drops_text_before_interactive_elements(budget):
    page = _page()
    interactive = {i for i in range(len(page)) if not page.flags[i] & f.TEXT}
    full = render_text(page, 1_000_000)
    text = render_text(page, budget)
    assert len(text) <= budget and text_space(budget).contains(text)
    assert _indices(text) == interactive  # every element an action can name is still there
    assert text.startswith("Page: ") and text.rstrip().endswith("(more below: scroll(down))")
    if len(full) <= budget:
        assert text == full and "…" not in text
        return
    # nothing is cut without a mark: each text is whole, cut with "…" and a count, or
    # counted among the lines left out
    described = re.findall(r'^[\s-]*(?:text|heading) "(.*)', text, re.M)
    left_out = re.search(r"\((\d+) lines of text left out to fit\)", text)
    assert len(described) + (int(left_out[1]) if left_out else 0) == 31
    descriptions = [t for t in described if t.startswith(tuple("0123456789"))]
    assert all(CUT.search(t) or t.endswith(f'{LONG}"') for t in descriptions)


def test_the_longest_texts_are_shortened_first_and_only_as_much_as_needed():
    rows: list[Row] = [("p", "text", "Short note.", "", f.TEXT, None, -1)]
    rows += [("p", "text", f"{k} {LONG}", "", f.TEXT, None, -1) for k in range(3)]
    rows.append(("a", "link", "Next", "", f.CLICKABLE | f.LINK, None, -1))
    page = _snapshot(rows, ())
    whole = render_text(page, 100_000)
    text = render_text(page, len(whole) - 300)
    assert len(text) <= len(whole) - 300 and '"Short note."' in text
    assert len(CUT.findall(text)) == 3
    kept = [len(m) for m in re.findall(r'text "(\d [^"]*)…"', text)]
    assert min(kept) > 200  # cut by about 100 characters each, not to a fixed 80


def test_a_budget_too_small_for_every_element_says_how_much_was_cut():
    text = render_text(_page(200), 800)
    assert len(text) <= 800
    note = re.search(r"\(cut: (\d+) more lines of the page; scroll\(down\) shows them\)$", text)
    assert note and int(note[1]) > 100
    assert {0, 1, 3} <= _indices(text)  # it cuts from the bottom


def test_every_character_a_page_shows_reaches_the_model_but_control_characters():
    shown = "SFO → JFK · Zoë paid ¥500 (≈ €3) in 東京 🚀 — “quoted”"
    rows: list[Row] = [
        ("p", "text", shown, "", f.TEXT, None, -1),
        ("p", "text", "bell\x07 and\x1b escape\ttab", "", f.TEXT, None, -1),
        ("input", "textbox", "City", "Zürich", f.EDITABLE, None, -1),
    ]
    text = render_observation(
        _snapshot(rows, ()), StepContext(goal="Fly SFO → JFK", values=("Zoë",)), 8000
    )
    assert shown in text and 'value="Zürich"' in text
    assert "Goal: Fly SFO → JFK" in text and 'Values: "Zoë"' in text
    assert "bell and escape tab" in text and "?" not in text
    assert text_space(8000).contains(text) and not text_space(8000).contains("a\x07")


def test_the_observation_leads_with_goal_values_and_the_last_actions_result():
    context = StepContext(
        goal="Buy the cheapest red mug\nand ship it to Alice.",
        values=("Red", "Alice Nguyen"),
        step=3,
        max_steps=64,
        last_action="click [9] link 'Next page'",
        last_error="element 9 is disabled",
    )
    text = render_observation(_page(2), context, 8000)
    assert text.splitlines()[:4] == [
        "Goal: Buy the cheapest red mug and ship it to Alice.",
        'Values: "Red", "Alice Nguyen"',
        "Step 3 of 64. Last action: click [9] link 'Next page' -> refused: element 9 is disabled",
        "Page: Catalog · Shop  (/shop, scrolled 0 of 4200 px)",
    ]
    ok = StepContext(goal="g", step=1, max_steps=5, last_action="back")
    assert "Step 1 of 5. Last action: back -> done" in render_observation(_page(1), ok)
    assert "Last action: none yet" in render_observation(_page(1), StepContext(goal="g"))


def test_long_values_are_whole_and_a_long_goal_cannot_crowd_out_the_page():
    reply = "When I export a note that contains pictures, the PDF only shows empty frames. " * 2
    text = render_observation(_page(1), StepContext(goal="g", values=(reply.strip(),)), 8000)
    assert f'Values: "{reply.strip()}"' in text  # no 120-character cut
    context = StepContext(goal="word " * 5000, values=("v",) * 50)
    text = render_observation(_page(), context, 4000)
    assert len(text) <= 4000 and text.startswith("Goal: word word")
    assert re.search(r"\bword… \(\+\d+ chars\)\n", text)  # the goal's cut is marked
    assert "Page: " in text and {0, 1, 3} <= _indices(text)


@pytest.mark.browser
def test_the_envs_text_observation_reports_each_step(make_env):
    env = make_env(task="buy_red_mug", obs_mode="text", action_mode="text", max_chars=3000)
    obs, info = env.reset(seed=0)
    assert obs.startswith(f"Goal: {info['instruction']}\nValues: ")
    # the strings the goal states, not the oracle's way there ("Price: low to high")
    values = env.unwrapped.task.values_for("goal", 0)
    assert obs.splitlines()[1] == "Values: " + ", ".join(f'"{v}"' for v in values)
    assert "Price" not in obs.splitlines()[1]
    assert "Step 0 of 64. Last action: none yet" in obs and "\n  navigation" in obs
    obs, *_, info = env.step("click(999)")
    assert "Last action: (not an action) -> refused" not in obs
    assert "-> refused: element 999 is not on the page" in obs
    assert env.observation_space.contains(obs) and len(obs) <= 3000
    obs, *_ = env.step("fly(away)")
    assert "Last action: (not an action) -> refused: unknown action 'fly(away)'" in obs
    obs, *_ = env.step('press("Tab")')  # no element: no internal index in the words
    assert "Last action: press 'Tab' -> done" in obs and "[-1]" not in obs
    shop = next(m for m in re.finditer(r"\[(\d+)\] link \"Shop\"", obs))
    obs, *_ = env.step(f"click({shop[1]})")
    assert f"Step 4 of 64. Last action: click [{shop[1]}] link 'Shop' -> done" in obs


# A page with everything the observation must get right, mounted into a served site.
LONG_POST = "Ferries run every 40 minutes in winter; " * 8
FIXTURE = f"""
<h2>Where you're signed in</h2>
<table aria-label="Devices"><thead><tr><th>Device</th><th>Last active</th><th></th></tr></thead>
<tbody><tr><td>Firefox on Linux</td><td>2 days ago</td><td><button>Sign out</button></td></tr>
<tr><td>Safari on iPhone</td><td>today</td><td><button>Sign out</button></td></tr></tbody></table>
<ol aria-label="Threads"><li><span>12 votes</span> <a href="/t/1">Ferry times</a>
<span class="badge">solved</span></li><li><span>3 votes</span> <a href="/t/2">Bus pass</a></li></ol>
<div role="tablist"><button role="tab" aria-selected="true">Security</button>
<button role="tab" aria-selected="false">Privacy</button></div>
<label><input type="checkbox" role="switch"> Marketing emails</label>
<label><input type="checkbox" checked> Terms</label> <label><input type="radio"> Monthly</label>
<button aria-pressed="false">Bold</button> <button aria-expanded="false">Country ▾</button>
<details open><summary>Filters</summary></details> <button disabled>Pay</button>
<nav aria-label="Pages"><button aria-current="page">2</button><button>3</button></nav>
<table><tr><td><button aria-selected="true" aria-label="Saturday 14 February 2026">14</button>
</td></tr></table>
<p>{LONG_POST}</p><p>SFO → JFK · Zoë · ¥500 · 東京 · 🚀</p><p aria-hidden="true">hidden words</p>
<nav>› ›</nav><code>sk-live-1234</code>
"""


@pytest.mark.browser
def test_the_page_runtime_extracts_structure_states_and_whole_unicode_text():
    from webfactory_env.executor import ObserveConfig, PageSession
    from webfactory_env.observation import ObservationConfig, encode_dom
    from webfactory_env.observation.encode import FLAG_COLUMNS
    from webfactory_env.sitegen.registry import generate_site

    session = PageSession()
    try:
        session.load(generate_site("gallery", 0).new_app(), seed=0, observe=ObserveConfig())
        session.evaluate(
            "(html) => { document.getElementById('wf-root').innerHTML = html; scrollTo(0, 0); }",
            FIXTURE,
        )
        dom = session.observe(ObserveConfig())
        audit = session._js("audit", [])
    finally:
        session.close()
    assert audit["dataAttrs"] == 0
    text = render_text(dom, 100_000)
    lines = [line.strip() for line in text.splitlines()]
    expected = [
        'table "Devices"',
        "row",
        'columnheader "Device"',
        'columnheader "Last active"',
        "row",
        'cell "Firefox on Linux" column="Device"',
        'cell "2 days ago" column="Last active"',
    ]
    start = lines.index('table "Devices"')
    assert lines[start : start + len(expected)] == expected
    assert re.search(
        r'^\s+- text "12 votes"\n\s+\[\d+\] link "Ferry times"\n\s+text "solved"$', text, re.M
    )
    for state in (
        r'tab "Security" \(selected\)',
        r'tab "Privacy"$',
        r'switch "Marketing emails" \(off\)',
        r'checkbox "Terms" \(checked\)',
        r'radio "Monthly" \(not checked\)',
        r'button "Bold" \(not pressed\)',
        r'button "Country ▾" \(collapsed\)',
        r'button "Filters" \(expanded\)',
        r'button "Pay" \(disabled\)',
        r'button "2" \(current\)',
        r'button "Saturday 14 February 2026" \(selected\)',
    ):
        assert re.search(rf"\] {state}", text, re.M), state
    # whole texts, every character, nothing hidden from a screen reader, no label twice
    assert f'text "{LONG_POST.strip()}"' in text and 'text "sk-live-1234"' in text
    assert 'text "SFO → JFK · Zoë · ¥500 · 東京 · 🚀"' in text
    assert "hidden words" not in text and "›" not in text
    assert text.count("Marketing emails") == 1
    # the same facts as data and as token flags
    outs = [i for i in range(len(dom)) if dom.texts[i] == "Sign out"]
    assert [dom.item_label(i) for i in outs] == ["Firefox on Linux", "Safari on iPhone"]
    assert dom.column(dom.texts.index("2 days ago")) == "Last active"
    flags = encode_dom(dom, ObservationConfig("tokens", max_elements=64))["flags"]
    column = {bit: k for k, bit in enumerate(FLAG_COLUMNS)}
    switch, terms = dom.roles.index("switch"), dom.texts.index("Terms")
    assert flags[switch][column[f.CHECKABLE]] == 1 and flags[switch][column[f.CHECKED]] == 0
    assert flags[terms][column[f.CHECKED]] == 1
    assert flags[dom.texts.index("Security")][column[f.SELECTED]] == 1
    assert flags[dom.texts.index("Filters")][column[f.EXPANDED]] == 1
    assert flags[dom.texts.index("2")][column[f.CURRENT]] == 1


def test_the_calendar_marks_the_chosen_day_for_screen_readers():
    from webfactory_env.sitegen.registry import generate_site
    from webfactory_env.sitegen.variation import Variation

    site = generate_site("gallery", 0, variation=Variation.plain(date_widget="inline"))
    app = site.new_app()
    app.model.values["date"] = "2026-01-14"  # type: ignore[attr-defined]
    html = " ".join(app.page().regions.values())
    chosen = re.findall(r'<button[^>]*aria-selected="true"[^>]*>(\d+)</button>', html)
    assert chosen == ["14"]
