"""The widget library: each widget's affordance tags, and each one operated in the browser."""

from __future__ import annotations

import re

import pytest

from webfactory_env.core.predicates import Eq, Ref
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.shop import transitions as shop_t
from webfactory_env.sitegen.html import Renderer
from webfactory_env.sitegen.spec import Option
from webfactory_env.sitegen.variation import Variation
from webfactory_env.tasks import compile_for_site

OPTIONS = [Option("r", "Red"), Option("g", "Green")]
CHOICE_STYLES = ("select", "radio", "menu", "typeahead")
EFFECT = Eq(("x",), Ref("value"))


# Transitions the widgets under test are bound to (their bodies never run here).
def _page(app: object, ev: object, *, page: int) -> None:
    return None


def _sort(app: object, ev: object, *, column: str, order: SortOrder) -> None:
    return None


def _label(app: object, ev: object, *, card: str, option: str) -> None:
    return None


def _named(app: object, ev: object, *, name: str) -> None:
    return None


def _styled(app: object, ev: object, *, style: str, on: bool) -> None:
    return None


def _plain(app: object, ev: object) -> None:
    return None


FILTER = transition("filter", effect=lambda name: EFFECT)(_named)
SET = transition(
    "set", effect=lambda name: EFFECT, field=lambda name: FormField("x", name, ("x", name))
)(_named)
PICK = transition("pick")(_named)
FORMAT = transition("fmt", effect=lambda style, on: Eq(("editors", "bio", style), on))(_styled)
PAGE = transition("page", effect=lambda page: Eq(("listing", "page"), page))(_page)
SORT = transition("sort", effect=lambda column, order: Eq(("t", "sort"), f"{column}-{order}"))(
    _sort
)
NEXT_STEP = transition("next_step", effect=lambda: EFFECT)(_plain)
PRESS = transition("h")(_plain)
LABEL = transition(
    "toggle_label",
    effect=lambda card, option: Eq(("cards", card, "label_state", option), Ref("value")),
)(_label)


def _r(**axes: str) -> Renderer:
    return Renderer(Variation.plain(**axes), salt="test")


def _sids_in(html: str) -> list[str]:
    return re.findall(r'data-wf-sid="([^"]+)"', html)


def _check_html_matches(r: Renderer, html: str) -> None:
    """Every recorded affordance is exactly one element of the HTML, and vice versa."""
    full = html + "".join(r.subregions.values())
    assert sorted(_sids_in(full)) == sorted(a.sid for a in r.affordances)


def test_link_and_breadcrumbs():
    r = _r()
    html = w.link(r, sid="nav:/x", href="/x", text="X <y>") + w.breadcrumbs(
        r, [("Shop", "/shop"), ("Here", None)], label="Crumbs"
    )
    a = r.affordances[0]
    assert (a.kind, a.verb, a.element, a.ui, a.href, a.sticky) == (
        "Link",
        "click",
        "a",
        "link",
        "/x",
        True,
    )
    assert a.effect == Eq(("route",), "/x") and a.click_event().type == "nav"
    assert "X &lt;y&gt;" in html and r.affordances[1].attr_map()["role"] == "breadcrumb"
    _check_html_matches(r, html)


@pytest.mark.parametrize("style", CHOICE_STYLES)
def test_choice_styles_share_one_semantic_affordance(style):
    r = _r(choice_widget=style)
    html = w.choice(
        r,
        sid="f:c",
        kind="Filter",
        name="color",
        label="Colour",
        options=OPTIONS,
        selected="",
        bind=FILTER.bind(name="color"),
        is_open=True,
    )
    main = r.affordances[0]
    assert (main.sid, main.kind, main.verb, main.attr_map()) == (
        "f:c",
        "Filter",
        "select",
        {"name": "color"},
    )
    assert [o.value for o in main.options] == ["r", "g"]
    if style == "select":
        assert main.ui == "native" and main.element == "select" and len(r.affordances) == 1
    else:
        opts = [a for a in r.affordances[1:] if a.kind == "Option"]
        assert [o.sid for o in opts] == ["f:c=r", "f:c=g"] == [o.sid for o in main.options]
        for o in opts:  # every style reports the same change to the app
            ev = o.click_event()
            assert (ev.type, ev.handler, ev.arg, ev.value) == (
                "change",
                "filter",
                "name=color",
                o.value,
            )
    if style == "radio":
        assert main.ui == "choice" and main.element == "group"
    elif style == "menu":
        assert main.ui == "menu" and main.element == "button"
        assert main.opener == "f:c" and main.click_event().handler == w.UI_TOGGLE.name
    elif style == "typeahead":  # typing filters (ui.query); a separate button lists all
        opener = r.affordances[1]
        assert (main.ui, main.element, main.handler, main.arg) == (
            "typeahead",
            "input",
            w.UI_QUERY.name,
            "key=f:c",
        )
        assert main.opener == opener.sid == "f:c:list" and opener.structural
        assert (opener.handler, opener.arg) == (w.UI_TOGGLE.name, "key=f:c")
        assert 'role="combobox"' in html and ' name="color"' not in html
    _check_html_matches(r, html)


def test_typeahead_choice_lists_the_options_matching_the_typed_text():
    def options_shown(query: str, selected: str = "") -> tuple[list[str], str]:
        r = Renderer(Variation.plain(choice_widget="typeahead"), queries={"f:c": query})
        html = w.choice(
            r,
            sid="f:c",
            kind="Filter",
            name="color",
            label="Colour",
            options=[*OPTIONS, Option("b", "Blue")],
            selected=selected,
            bind=FILTER.bind(name="color"),
            is_open=True,
        )
        shown = [a.sid for a in r.affordances if a.kind == "Option"]
        return shown, re.findall(r'<input[^>]* value="([^"]*)"', html)[0]

    assert options_shown("") == (["f:c=r", "f:c=g", "f:c=b"], "")
    assert options_shown("RE") == (["f:c=r", "f:c=g"], "RE")  # case-insensitive substring
    assert options_shown("zz") == ([], "zz")
    assert options_shown("", selected="b") == (["f:c=r", "f:c=g", "f:c=b"], "Blue")
    assert options_shown('"><b>') == ([], "&quot;&gt;&lt;b&gt;")  # typed text is escaped


def test_closed_menu_shows_no_options():
    r = _r(choice_widget="menu")
    w.choice(
        r,
        sid="f:c",
        kind="Filter",
        name="color",
        label="Colour",
        options=OPTIONS,
        selected="",
        bind=FILTER.bind(name="color"),
        is_open=False,
    )
    assert [a.sid for a in r.affordances] == ["f:c"]


def test_toggle_text_password_otp_and_editor():
    r = _r()
    html = w.toggle(
        r,
        sid="t",
        kind="Toggle",
        name="agree",
        label="Agree",
        checked=True,
        bind=SET.bind(name="agree"),
    )
    t = r.affordances[0]
    assert (t.element, t.ui, t.verb) == ("checkbox", "choice", "select")
    assert t.click_event().value == "false"  # clicking a checked box unchecks it
    html += w.text_field(
        r,
        sid="f",
        label="Name",
        value="Al",
        bind=SET.bind(name="n"),
        error="Bad",
        helper="Hint",
    )
    html += w.password_field(
        r,
        sid="p",
        label="Password",
        value="s3cret",
        bind=SET.bind(name="pw"),
    )
    html += w.otp_field(
        r,
        sid="o",
        label="Code",
        value="123456",
        bind=SET.bind(name="otp"),
    )
    html += w.rich_text(
        r,
        sid="e",
        label="Bio",
        value="Hi",
        bind=SET.bind(name="bio"),
        format=FORMAT.bind(),
        bold=True,
        italic=False,
    )
    by = {a.sid: a for a in r.affordances}
    assert by["f"].verb == "fill" and by["f"].value == "Al" and by["f"].attr_map()["form"] == "x"
    assert by["p"].redact and by["o"].redact and "s3cret" not in html and "123456" not in html
    assert 'type="password"' in html and 'autocomplete="one-time-code"' in html
    assert by["e"].element == "editable" and 'contenteditable="true"' in html
    assert by["e:bold"].attr_map() == {"role": "format-bold", "editor": "bio", "pressed": True}
    assert by["e:bold"].effect == Eq(("editors", "bio", "bold"), False)  # pressing turns it off
    assert by["e:italic"].click_event().arg == "style=italic&on=true"
    assert r.subregions["err:f"].count("Bad") == 1  # field errors live in their own region
    _check_html_matches(r, html)


def test_typeahead_date_picker_and_upload():
    r = _r(date_widget="popover")
    html = w.typeahead(
        r,
        sid="a",
        label="From",
        text="sf",
        bind=SET.bind(name="origin"),
        pick=PICK.bind(name="origin"),
        suggestions=[("SFO", "SFO — San Francisco")],
    )
    html += w.date_picker(
        r,
        sid="d",
        label="Depart",
        value="",
        bind=SET.bind(name="depart"),
        month="2026-01",
        is_open=True,
        today="2026-01-05",
    )
    html += w.file_upload(
        r,
        sid="u",
        label="File",
        files=[w.SyntheticFile("a.pdf", 3, "PDF")],
        chosen="",
        bind=SET.bind(name="file"),
        is_open=True,
    )
    by = {a.sid: a for a in r.affordances}
    assert by["a"].ui == "typeahead"
    s = by["suggest:origin=SFO"]
    assert s.kind == "Suggestion" and s.attr_map()["field"] == "origin"
    assert s.click_event().value == "SFO" and s.click_event().handler == "pick"
    assert s.click_event().arg == "name=origin"
    assert by["d"].ui == "calendar" and by["d"].opener == "d"
    days = [a for a in r.affordances if a.kind == "Day"]
    assert len(days) == 31 and days[0].attr_map() == {
        "picker": "depart",
        "date": "2026-01-01",
        "weekday": "thursday",
    }
    assert {"cal:depart:prev-month", "cal:depart:next-month"} <= set(by)
    assert by["u"].ui == "menu" and by["u=a.pdf"].click_event().value == "a.pdf"
    _check_html_matches(r, html)
    closed = _r(date_widget="popover")
    w.date_picker(
        closed,
        sid="d",
        label="Depart",
        value="",
        bind=SET.bind(name="depart"),
        month="2026-01",
        is_open=False,
        today="2026-01-05",
    )
    assert [a.sid for a in closed.affordances] == ["d"]
    typed = _r(date_widget="text")
    w.date_picker(
        typed,
        sid="d",
        label="Depart",
        value="",
        bind=SET.bind(name="depart"),
        month="2026-01",
        is_open=False,
        today="2026-01-05",
    )
    assert typed.affordances[0].ui == "input" and typed.affordances[0].kind == "DatePicker"


def test_navigation_widgets():
    r = _r()
    html = w.tabs(
        r, group="g", items=[("a", "A"), ("b", "B")], active="a", panel="<p>A</p>", label="T"
    )
    html += w.accordion(r, group="q", sections=[("x", "X", "<p>x</p>")], open_keys={"acc:q:x"})
    html += w.nested_menu(
        r,
        name="m",
        label="M",
        open_keys={"menu:m:acct"},
        items=[w.MenuItem("acct", "Account", children=(w.MenuItem("s", "Settings", href="/s"),))],
    )
    html += w.modal(r, name="d", title="Dialog", body="<p>b</p>", close_text="Close")
    html += w.pager(
        r,
        key="l",
        page=1,
        pages=3,
        bind=PAGE.bind(),
        label="P",
        prev_text="Prev",
        next_text="Next",
    )
    html += w.load_more(r, key="l", has_more=True, text="More")
    html += w.data_table(
        r,
        key="t",
        columns=[("price", "Price", True), ("name", "Name", False)],
        rows=[["1", "a"]],
        sort=("price", "asc"),
        caption="C",
        bind=SORT.bind(),
    )
    by = {a.sid: a for a in r.affordances}
    assert by["tab:g:b"].effect == Eq(("ui", "tabs", "g"), "b")
    assert by["acc:q:x"].kind == "Accordion" and by["menu:m:acct/s"].href == "/s"
    assert by["modal:d:close"].attr_map()["role"] == "close" and 'role="dialog"' in html
    assert (
        by["pager:l:prev"].attr_map()["disabled"] and not by["pager:l:next"].attr_map()["disabled"]
    )
    assert by["more:l"].kind == "More" and 'data-wf-on="visible"' in html
    assert by["sort:t:price"].attr_map()["order"] == "desc"  # clicking flips ascending
    assert by["sort:t:price"].effect == Eq(("t", "sort"), "price-desc")
    assert by["sort:t:price"].click_event().arg == "column=price&order=desc"
    assert by["pager:l:2"].effect == Eq(("listing", "page"), 2)
    assert by["pager:l:next"].click_event().arg == "page=2"
    assert by["tab:g:b"].click_event().arg == "group=g&name=b"
    _check_html_matches(r, html)


def test_aria_and_tooltip_axes_change_only_markup():
    on = _r(aria="on", tooltips="on")
    off = _r(aria="off", tooltips="off")
    args = dict(sid="b", text="Delete", bind=PRESS.bind(), attrs_={"role": "delete"}, icon="🗑")
    html_on, html_off = w.button(on, **args), w.button(off, **args)
    assert 'aria-label="Delete"' in html_on and 'title="Delete"' in html_on
    assert "aria-label" not in html_off and "title=" not in html_off
    assert on.affordances == off.affordances


def test_checkbox_group_is_one_toggle_per_option():
    r = _r()
    html = w.checkbox_group(
        r,
        sid="labels",
        name="label",
        label="Labels <b>",
        options=[Option("bug", "Bug"), Option("ux", "UX & UI")],
        checked=["ux"],
        bind=LABEL.bind(card="card-1"),
    )
    bug, ux = r.affordances
    assert [bug.sid, ux.sid] == ["labels=bug", "labels=ux"]
    for a, value in ((bug, "bug"), (ux, "ux")):
        assert (a.kind, a.verb, a.element, a.ui) == ("Toggle", "select", "checkbox", "choice")
        assert a.attr_map()["value"] == value and a.attr_map()["group"] == "labels"
        assert a.effect == Eq(("cards", "card-1", "label_state", value), Ref("value"))
        assert a.click_event().arg == f"card=card-1&option={value}"
    assert bug.attr_map()["checked"] is False and ux.attr_map()["checked"] is True
    assert bug.click_event().value == "true" and ux.click_event().value == "false"
    assert "<legend>Labels &lt;b&gt;</legend>" in html and "UX &amp; UI" in html
    _check_html_matches(r, html)


def test_inline_date_picker_shows_its_days_without_opening():
    r = _r(date_widget="inline")
    html = w.date_picker(
        r,
        sid="d",
        label="Due",
        value="2026-02-03",
        bind=SET.bind(name="due"),
        month="2026-02",
        is_open=False,
        today="2026-02-01",
    )
    d = r.affordances[0]
    assert (d.kind, d.verb, d.ui, d.element, d.opener) == (
        "DatePicker",
        "fill",
        "calendar",
        "group",
        None,
    )
    days = [a for a in r.affordances if a.kind == "Day"]
    assert len(days) == 28 and all(a.structural for a in days)
    day = next(a for a in days if a.attr_map()["date"] == "2026-02-14")
    ev = day.click_event()
    assert (ev.type, ev.handler, ev.arg, ev.value) == ("change", "set", "name=due", "2026-02-14")
    assert "2026-02-03" in html
    _check_html_matches(r, html)


def test_a_calendar_drawn_again_is_the_same_calendar_and_still_once_per_page():
    """A month grid is drawn once per site and replayed: the next page shows the same HTML
    and days; a picker drawn twice on one page is still refused; another value shows."""

    def page(value: str, twice: bool = False) -> tuple[str, Renderer]:
        r = _r(date_widget="inline")
        kwargs = dict(label="Due", bind=SET.bind(name="due"), month="2026-02", is_open=False)
        html = w.date_picker(r, sid="d", value=value, today="2026-02-01", **kwargs)
        if twice:
            w.date_picker(r, sid="d2", value=value, today="2026-02-01", **kwargs)
        return html, r

    first, r1 = page("2026-02-03")
    again, r2 = page("2026-02-03")
    assert again == first and r2.affordances == r1.affordances
    _check_html_matches(r2, again)
    with pytest.raises(ValueError, match="rendered twice on one page"):
        page("2026-02-03", twice=True)
    other, r3 = page("2026-02-14")
    assert other != first and 'aria-selected="true"' in other
    _check_html_matches(r3, other)


def test_newsletter_promo_is_a_distractor_form_only_when_the_axis_asks():
    from webfactory_env.sitegen.copy import Copy

    copy = Copy("shop", Variation.plain(), 0)
    app = generate_site("shop", 0).new_app()
    app.model.forms.newsletter["email"] = "me@example.com"
    field = shop_t.set_field.bind(form="newsletter", name="email")
    promo = {"field": field, "submit": shop_t.join_newsletter.bind()}
    assert w.newsletter_promo(_r(), copy, **promo) == ""
    r = _r(distractors="some")
    r.state = app.model  # the state the page is drawn from: the field shows its draft
    html = w.newsletter_promo(r, copy, **promo)
    _check_html_matches(r, html)
    assert html.startswith('<aside class="promo distractor">')
    assert [(a.sid, a.kind) for a in r.affordances] == [
        ("field:newsletter.email", "Field"),
        ("form:newsletter", "Form"),
    ]
    assert all(a.attr_map().get("distractor") for a in r.affordances)
    assert 'value="me@example.com"' in html


def test_form_wizard_dialog_toast_and_retry():
    r = _r()
    body = w.text_field(
        r,
        sid="f:name",
        form="signup",
        label="Name",
        value="",
        bind=SET.bind(name="name"),
    )
    html = w.wizard_steps(["Account", "Profile <1>", "Done"], 1)
    html += w.form(
        r,
        name="signup",
        bind=NEXT_STEP.bind(),
        body=body,
        submit_sid="form:signup",
        submit_text="Next",
        label="Sign up",
        attrs_={"step": 1},
    )
    html += w.modal_opener(r, name="help", text="Help", attrs_={"topic": "signup"})
    html += w.modal(r, name="help", title="Help", body="<p>x</p>", close_text="Close")
    html += w.retry_banner(r, message="Server error <500>", retry_text="Retry")
    by = {a.sid: a for a in r.affordances}
    f = by["form:signup"]
    assert (f.kind, f.verb, f.handler, f.attr_map()) == (
        "Form",
        "submit",
        "next_step",
        {"name": "signup", "step": 1},
    )
    assert by["f:name"].attr_map()["form"] == "signup"
    opener = by["modal:help:open"]
    assert opener.structural and opener.effect == Eq(("ui", "modal"), "help")
    assert opener.click_event().handler == w.UI_MODAL.name
    assert opener.click_event().arg == "name=help"
    assert by["modal:help:close"].click_event().arg is None  # no name: close the one open
    assert by["modal:help:close"].effect is None
    retry = by["retry"]
    assert (retry.handler, retry.attr_map(), retry.structural) == ("retry", {"role": "retry"}, True)
    assert '<li aria-current="step">Profile &lt;1&gt;</li>' in html and 'class="done"' in html
    assert "Server error &lt;500&gt;" in html and 'role="alert"' in html
    _check_html_matches(r, html)
    # toasts, detail views and read-only calendars carry no affordance, only escaped text
    assert w.toast("") == ""
    assert w.toast("Saved <ok>") == '<p class="notice" role="status">Saved &lt;ok&gt;</p>'
    assert 'role="alert"' in w.toast("Failed", error=True)
    details = w.detail_view([("Fare <rules>", "Non-refundable & final")])
    assert "<dt>Fare &lt;rules&gt;</dt><dd>Non-refundable &amp; final</dd>" in details
    cal = w.month_calendar(month="2026-03", events={"2026-03-09": ["Demo <day>"]}, title="March")
    assert "<li>Demo &lt;day&gt;</li>" in cal and cal.count('class="daynum"') == 31


@pytest.mark.browser
@pytest.mark.parametrize("style", CHOICE_STYLES)
@pytest.mark.parametrize("date", ["popover", "inline", "text"])
def test_every_widget_works_in_the_browser(make_env, style, date):
    """The oracle operates every widget of the gallery through the env's own actions."""
    from webfactory_env.agents import OracleAgent

    env = make_env(
        family="gallery",
        task="tests/tasks/gallery_all.task",
        obs_mode="tokens",
        max_steps=60,
        variation={"choice_widget": style, "date_widget": date},
    )
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=0)
    while True:
        obs, _, terminated, truncated, info = env.step(oracle.act(obs, info))
        assert info["action_error"] is None
        if terminated or truncated:
            break
    assert info["success"]
    values = env.unwrapped.app.state_view()["values"]
    assert values["color"] == "Green" and values["airport"] == "JFK"
    assert values["date"] == "2026-02-14" and values["file"] == "notes.txt"
    assert values["bio"] == "Hello there" and values["agree"] == "true"


def test_gallery_task_compiles_for_every_widget_style():
    for style in CHOICE_STYLES:
        for date in ("popover", "inline", "text"):
            site = generate_site(
                "gallery", 0, variation=Variation.plain(choice_widget=style, date_widget=date)
            )
            task = compile_for_site("tests/tasks/gallery_all.task", site)
            assert task.plan[-1].sid == "form:gallery"
