"""The variation vector: every axis along which a site may differ without changing meaning.

Each axis is independent: drawn from its own seed stream (`variation/<axis>`), or set by
the user. No axis changes a semantic id, an entity, an affordance's kind or attributes, or
the app state a task checks — a property the test suite verifies axis by axis. What they
change is how the same site looks, is worded, is laid out, which widget offers a choice,
and how its server behaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.core.seeding import SeedStream


@dataclass(frozen=True)
class Axis:
    name: str
    group: str
    values: tuple[str, ...]
    description: str
    # Probability of each value per difficulty; the first value is the plain default.
    weights: Mapping[str, tuple[float, ...]]


def _w(*per_difficulty: tuple[float, ...]) -> dict[str, tuple[float, ...]]:
    return dict(zip(("easy", "medium", "hard"), per_difficulty, strict=True))


_UNIFORM3 = _w((1, 1, 1), (1, 1, 1), (1, 1, 1))
_UNIFORM2 = _w((1, 1), (1, 1), (1, 1))

AXES: tuple[Axis, ...] = (
    # theme
    Axis(
        "theme",
        "theme",
        ("light", "dark", "high-contrast"),
        "colour scheme of every page",
        _w((6, 3, 1), (4, 4, 2), (3, 4, 3)),
    ),
    Axis(
        "palette",
        "theme",
        ("blue", "green", "purple", "orange", "teal"),
        "accent colour of links and buttons",
        _w(*([(1,) * 5] * 3)),
    ),
    Axis(
        "typography",
        "theme",
        ("sans", "serif", "mono"),
        "font family (Liberation Sans, Serif or Mono)",
        _w((4, 1, 0), (3, 2, 1), (2, 2, 1)),
    ),
    Axis(
        "density",
        "layout",
        ("comfortable", "dense", "spacious"),
        "spacing between elements",
        _UNIFORM3,
    ),
    # layout
    Axis(
        "nav", "layout", ("top", "sidebar"), "site navigation in a top bar or a sidebar", _UNIFORM2
    ),
    Axis(
        "field_order",
        "layout",
        ("natural", "shuffled"),
        "order of independent form fields",
        _w((1, 0), (1, 1), (1, 1)),
    ),
    # copy
    Axis(
        "paraphrase",
        "copy",
        ("base", "alt"),
        "which paraphrase of labels, buttons and headings is shown",
        _UNIFORM2,
    ),
    Axis("helper_text", "copy", ("on", "off"), "hint text under form fields", _UNIFORM2),
    Axis(
        "noise",
        "copy",
        ("none", "typos", "abbreviations", "case"),
        "realistic noise in labels: typos, abbreviations, odd capitalisation",
        _w((1, 0, 0, 0), (3, 1, 1, 1), (1, 1, 1, 1)),
    ),
    # widget choice
    Axis(
        "choice_widget",
        "widgets",
        ("select", "radio", "menu", "typeahead"),
        "a choice is a native dropdown, a radio group, a custom menu, or a typeahead "
        "combobox (type to filter the options)",
        _w((2, 1, 1, 0), (1, 1, 1, 1), (1, 1, 2, 2)),
    ),
    Axis(
        "form_mode",
        "widgets",
        ("inline", "modal"),
        "secondary forms inline on the page or in a modal dialog",
        _w((1, 0), (1, 1), (1, 1)),
    ),
    Axis(
        "list_mode",
        "widgets",
        ("pages", "infinite"),
        "long lists paginated or loaded while scrolling",
        _w((1, 0), (1, 1), (1, 1)),
    ),
    Axis(
        "date_widget",
        "widgets",
        ("popover", "inline", "text"),
        "dates picked in a calendar popover, an inline calendar, or typed",
        _w((1, 1, 2), (1, 1, 1), (2, 1, 1)),
    ),
    # behaviour (all time is logical: latency is accounted, never waited for)
    Axis(
        "latency",
        "behavior",
        ("none", "low", "high"),
        "logical milliseconds each server request takes (0, 150, 900)",
        _w((1, 0, 0), (1, 1, 1), (1, 1, 2)),
    ),
    Axis(
        "errors",
        "behavior",
        ("none", "some"),
        "server errors (HTTP 500/409) injected into changes, with a Retry button",
        _w((1, 0), (3, 1), (1, 1)),
    ),
    Axis(
        "optimistic",
        "behavior",
        ("off", "on"),
        "changes shown before the server confirms them (rolled back on error)",
        _UNIFORM2,
    ),
    Axis(
        "validation",
        "behavior",
        ("sync", "async"),
        "form errors shown as you type, or only after the server checks a submit",
        _UNIFORM2,
    ),
    Axis(
        "drift",
        "behavior",
        ("off", "on"),
        "the page re-renders between observation and action: elements are replaced and "
        "their ids and test ids renamed (actions re-find them, with retries)",
        _w((1, 0), (3, 1), (1, 1)),
    ),
    Axis(
        "debounce",
        "behavior",
        ("off", "on"),
        "suggestions wait 300 logical ms after typing",
        _w((1, 0), (1, 1), (1, 1)),
    ),
    # accessibility hints
    Axis(
        "aria",
        "a11y",
        ("on", "off"),
        "ARIA labels on icon buttons and landmarks",
        _w((1, 0), (3, 1), (1, 1)),
    ),
    Axis("tooltips", "a11y", ("off", "on"), "title tooltips on buttons and links", _UNIFORM2),
    Axis("shortcuts", "a11y", ("off", "on"), "keyboard shortcuts shown and accepted", _UNIFORM2),
    # distractors
    Axis(
        "distractors",
        "distractors",
        ("none", "some", "many"),
        "widgets that look relevant but are not (promos, lookalike buttons)",
        _w((1, 0, 0), (1, 2, 1), (0, 1, 2)),
    ),
)
AXIS_BY_NAME = {a.name: a for a in AXES}


@dataclass(frozen=True)
class Variation:
    """One value per axis. `Variation.draw(seed, difficulty, overrides)` is the usual way."""

    theme: str = "light"
    palette: str = "blue"
    typography: str = "sans"
    density: str = "comfortable"
    nav: str = "top"
    field_order: str = "natural"
    paraphrase: str = "base"
    helper_text: str = "on"
    noise: str = "none"
    choice_widget: str = "select"
    form_mode: str = "inline"
    list_mode: str = "pages"
    date_widget: str = "popover"
    latency: str = "none"
    errors: str = "none"
    optimistic: str = "off"
    validation: str = "sync"
    debounce: str = "off"
    drift: str = "off"
    aria: str = "on"
    tooltips: str = "off"
    shortcuts: str = "off"
    distractors: str = "none"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            axis = AXIS_BY_NAME[f.name]
            if value not in axis.values:
                raise ConfigError(
                    f"variation axis {f.name!r} cannot be {value!r}; "
                    f"choose one of: {', '.join(axis.values)}"
                )

    @classmethod
    def draw(
        cls, seed: int, difficulty: str = "easy", overrides: Mapping[str, Any] | None = None
    ) -> Variation:
        """Each axis from its own stream; `overrides` fix any axes (`"seed"` keeps drawing)."""
        overrides = dict(overrides or {})
        unknown = set(overrides) - set(AXIS_BY_NAME)
        if unknown:
            name = sorted(unknown)[0]
            raise UnknownNameError("variation axis", name, AXIS_BY_NAME)
        root = SeedStream(seed).child("variation")
        values: dict[str, str] = {}
        for axis in AXES:
            given = overrides.get(axis.name, "seed")
            if given != "seed":
                values[axis.name] = str(given)
                continue
            weights = axis.weights[difficulty]
            values[axis.name] = _weighted(root.child(axis.name), axis.values, weights)
        return cls(**values)

    @classmethod
    def plain(cls, **overrides: str) -> Variation:
        """Every axis at its first (plainest) value, except `overrides`."""
        return cls(**{**{a.name: a.values[0] for a in AXES}, **overrides})

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @property
    def latency_ms(self) -> int:
        return {"none": 0, "low": 150, "high": 900}[self.latency]


def _weighted(rng: SeedStream, values: tuple[str, ...], weights: tuple[float, ...]) -> str:
    total = sum(weights)
    x = rng.random() * total
    for value, w in zip(values, weights, strict=True):
        if x < w:
            return value
        x -= w
    return values[-1]


def describe_axes() -> list[dict[str, Any]]:
    """The documented axes, for the CLI and the README."""
    return [
        {"name": a.name, "group": a.group, "values": list(a.values), "description": a.description}
        for a in AXES
    ]
