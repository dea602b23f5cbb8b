"""`gallery`: every widget of the library on one page, with real app state behind each.

Not a benchmark family: it exists so that tests (and people, via `webfactory serve
--family gallery`) can exercise each widget in isolation, in Python and in the browser.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from webfactory_env.core.predicates import Eq, Ref
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.binding import FormField, transition
from webfactory_env.sitegen.context import Context, Queries
from webfactory_env.sitegen.html import Renderer, esc
from webfactory_env.sitegen.registry import Family, generator_version, register_family
from webfactory_env.sitegen.spec import Option, SiteSpec
from webfactory_env.sitegen.state import AppState, hidden, session, view
from webfactory_env.sitegen.variation import Variation

AIRPORTS = (
    ("SFO", "SFO — San Francisco"),
    ("JFK", "JFK — New York JFK"),
    ("LGA", "LGA — New York LaGuardia"),
    ("EWR", "EWR — Newark"),
    ("LAX", "LAX — Los Angeles"),
    ("SEA", "SEA — Seattle"),
)
FILES = (
    w.SyntheticFile("report.pdf", 120, "PDF"),
    w.SyntheticFile("photo.png", 840, "image"),
    w.SyntheticFile("notes.txt", 3, "text"),
)


def generate(seed: int, difficulty: str, overrides: Mapping[str, Any] | None = None) -> SiteSpec:
    return SiteSpec(
        family="gallery",
        seed=seed,
        difficulty=difficulty,
        generator_version=generator_version("gallery", "1"),
        brand="Widget Gallery",
        variation=Variation.draw(seed, difficulty, overrides).to_json(),
        entities={},
        routes=("/", "/other"),
        start_route="/",
        today="2026-01-05",
    )


SECRET_FIELDS = ("password", "code")
ValueName = Literal[
    "color", "airport", "airport_text", "date", "note", "bio", "file", "agree", "password", "code"
]


def _values() -> dict[str, str]:
    names = ("color", "airport", "airport_text", "date", "note", "bio", "file")
    return {**dict.fromkeys(names, ""), "agree": "false"}


@dataclass
class GalleryState(AppState):
    """What the gallery's widgets set: one value per widget, the form as sent, a counter.
    A page of widgets to try, not a site that keeps anything: none of it persists."""

    values: dict[str, str] = session(_values, persists=False)
    submitted: dict[str, str] = session(dict, persists=False)
    clicks: int = session(int, persists=False)
    secrets: dict[str, str] = hidden(lambda: dict.fromkeys(SECRET_FIELDS, ""))
    editors: dict[str, dict[str, bool]] = view(lambda: {"bio": {"bold": False, "italic": False}})


Gallery = Context[GalleryState, Queries]


@transition(
    "set",
    effect=lambda name: None if name in SECRET_FIELDS else Eq(("values", name), Ref("value")),
    field=lambda name: FormField(
        "gallery", name, ("secrets" if name in SECRET_FIELDS else "values", name)
    ),
)
def set_value(gallery: Gallery, *, name: ValueName, value: str | None = None) -> str | None:
    """Any widget's value (a secret's never reaches the view)."""
    state = gallery.state
    table = state.secrets if name in SECRET_FIELDS else state.values
    table[name] = (value or "")[:500]
    return None


@transition(
    "airport_text",
    effect=lambda: Eq(("values", "airport"), Ref("value")),
    field=lambda: FormField("gallery", "airport", ("values", "airport_text")),
)
def type_airport(gallery: Gallery, *, value: str | None = None) -> str | None:
    """Typing into the airport typeahead (picking a suggestion sets the airport)."""
    gallery.state.values["airport_text"] = (value or "")[:40]
    return None


@transition("format", effect=lambda style, on: Eq(("editors", "bio", style), on))
def set_format(gallery: Gallery, *, style: Literal["bold", "italic"], on: bool) -> str | None:
    gallery.state.editors["bio"][style] = on
    return None


@transition("count", mutating=True, effect=lambda: Eq(("clicks",), 1))
def count(gallery: Gallery) -> str | None:
    """Count a click (its effect: clicked once, from the start state)."""
    gallery.state.clicks += 1
    return None


@transition("submit", effect=lambda: Eq(("submitted", "note"), Ref("state:values.note")))
def submit(gallery: Gallery, *, values: dict[str, str] | None = None) -> str | None:
    gallery.state.submitted = {k: v for k, v in (values or {}).items() if k not in SECRET_FIELDS}
    return None


def gallery_page(gallery: Gallery, r: Renderer, route: str) -> tuple[str, str]:
    """Every widget, each in its own section."""
    v = gallery.state.values
    colors = [Option(c, c) for c in ("Red", "Green", "Blue")]
    text = v["airport_text"].strip().lower()
    suggestions = [
        (code, label)
        for code, label in AIRPORTS
        if text and (text in code.lower() or text in label.lower())
    ]
    sections = [
        (
            "choice",
            w.choice(
                r,
                sid="choice:color",
                kind="Filter",
                label="Colour",
                options=colors,
                is_open="choice:color" in gallery.ui.open,
                bind=set_value.bind(name="color"),
            ),
        ),
        (
            "toggle",
            w.toggle(
                r,
                sid="toggle:agree",
                kind="Toggle",
                label="I agree",
                bind=set_value.bind(name="agree"),
            ),
        ),
        (
            "typeahead",
            w.typeahead(
                r,
                sid="field:airport",
                label="Airport",
                bind=type_airport.bind(),
                pick=set_value.bind(name="airport"),
                suggestions=suggestions,
            ),
        ),
        (
            "date",
            w.date_picker(
                r,
                sid="date:when",
                name="when",
                label="When",
                bind=set_value.bind(name="date"),
                month=gallery.month_of("when"),
                is_open="date:when" in gallery.ui.open,
                today=gallery.spec.today,
            ),
        ),
        (
            "upload",
            w.file_upload(
                r,
                sid="upload:file",
                label="Attachment",
                files=FILES,
                bind=set_value.bind(name="file"),
                is_open="upload:file" in gallery.ui.open,
            ),
        ),
        (
            "rich",
            w.rich_text(
                r,
                sid="editor:bio",
                label="Bio",
                bind=set_value.bind(name="bio"),
                format=set_format.bind(),
                bold=gallery.state.editors["bio"]["bold"],
                italic=gallery.state.editors["bio"]["italic"],
            ),
        ),
        (
            "tabs",
            w.tabs(
                r,
                group="g",
                items=[("one", "One"), ("two", "Two")],
                active=gallery.ui.tabs.get("g", "one"),
                panel=f"<p>Panel {esc(gallery.ui.tabs.get('g', 'one'))}</p>",
                label="Tabs",
            ),
        ),
        (
            "accordion",
            w.accordion(
                r,
                group="faq",
                sections=[("a", "First", "<p>A body</p>"), ("b", "Second", "<p>B body</p>")],
                open_keys=gallery.ui.open,
            ),
        ),
        (
            "menu",
            w.nested_menu(
                r,
                name="main",
                label="Menu",
                open_keys=gallery.ui.open,
                items=[
                    w.MenuItem(
                        "acct",
                        "Account",
                        children=(w.MenuItem("settings", "Settings", href="/other"),),
                    ),
                    w.MenuItem("help", "Help", href="/other"),
                ],
            ),
        ),
        (
            "button",
            w.button(
                r,
                sid="button:count",
                text="Count",
                attrs_={"role": "count"},
                bind=count.bind(),
            )
            + f"<span>Clicked {gallery.state.clicks} times</span>",
        ),
        (
            "modal",
            w.modal(r, name="m", title="Dialog", body="<p>Hello</p>", close_text="Close")
            if gallery.ui.modal == "m"
            else w.modal_opener(r, name="m", text="Open dialog", attrs_={}),
        ),
        (
            "form",
            w.form(
                r,
                name="gallery",
                bind=submit.bind(),
                submit_sid="form:gallery",
                submit_text="Send",
                label="Gallery form",
                body=w.text_field(
                    r, sid="field:note", label="Note", bind=set_value.bind(name="note")
                )
                + w.password_field(
                    r,
                    sid="field:password",
                    label="Password",
                    bind=set_value.bind(name="password"),
                )
                + w.otp_field(r, sid="field:code", label="Code", bind=set_value.bind(name="code")),
            ),
        ),
        (
            "list",
            w.load_more(
                r, key="list", has_more=gallery.ui.more.get("list", 1) < 3, text="Loading more"
            )
            + f"<p>Batches loaded: {gallery.ui.more.get('list', 1)}</p>",
        ),
    ]
    main = (
        '<div class="gallery"><h1>Widget gallery</h1>'
        + "".join(
            f'<section id="{r.dom_id(name)}"><h2>{esc(name)}</h2>{html}</section>'
            for name, html in sections
        )
        + "</div>"
    )
    return "Gallery", main


def other_page(gallery: Gallery, r: Renderer, route: str) -> tuple[str, str]:
    return "Other", "<h1>Other page</h1>" + w.link(r, sid="back:/", href="/", text="Back")


def missing_page(gallery: Gallery, r: Renderer, route: str) -> tuple[str, str]:
    return "Not found", "<h1>Not found</h1>" + w.link(r, sid="back:/", href="/", text="Back")


class GalleryApp(SiteApp):
    family = "gallery"
    State = GalleryState
    TRANSITIONS = {t.name: t for t in (set_value, type_airport, set_format, count, submit)}
    PAGES = {"gallery": gallery_page, "other": other_page, "not_found": missing_page}
    ROUTES = {"/": "gallery", "/other": "other"}
    model: GalleryState

    def header(self, r: Renderer) -> str:
        return (
            '<span class="brand">Widget Gallery</span><nav>'
            + w.link(r, sid="nav:/", href="/", text="Gallery", region="nav")
            + w.link(r, sid="nav:/other", href="/other", text="Other", region="nav")
            + "</nav>"
        )


FAMILY = Family(
    name="gallery",
    version="1",
    description="Every widget of the library on one page (a test fixture, not a benchmark).",
    generate=generate,
    app_class=GalleryApp,
    kinds=(
        "Accordion",
        "Button",
        "DatePicker",
        "Editor",
        "Field",
        "FileUpload",
        "Filter",
        "Form",
        "Link",
        "MenuItem",
        "More",
        "Option",
        "Suggestion",
        "Tab",
        "Toggle",
    ),
)
register_family(FAMILY)
