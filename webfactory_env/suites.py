"""Evaluation and dataset suites: named, versioned sets of (family, task, seed, variation) episodes.

A suite fixes what an episode list is, procgen-style: its families and tasks, a contiguous
range of level seeds, a difficulty, and optionally a variation (axes it fixes, or restricts
to a subset of values). Train and test suites use disjoint seed ranges, so a score on
`shop-test` is a score on sites the agent never trained on. Episode `i` of a suite is always
the same (family, task, seed, variation), on every machine.

What a test suite holds out from its training suites (`holdout`, checked by the tests):

- `seeds`: its level seeds are outside every training range of the same family;
- `family`: no training suite contains its family (`forum-heldout`);
- `combination`: the variation values it fixes never occur, for its family, anywhere in
  the seed range of the training suites it names (`travel-menu-heldout`: custom menu
  widgets, which `shop-tasks-train` shows but `travel-tasks-train` never does).

An episode whose task cannot be compiled on its level (none of the library's, on the train
range: `benchmarks/compile_every_seed.py`) is skipped by `webfactory eval` and `webfactory
dataset`, with its reason in their output; it is never replaced by another seed, so that
episode `i` means the same level for every agent.

Add a suite with `register_suite(Suite(...))`; bump `version` whenever its episodes change.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webfactory_env.core.errors import ConfigError, UnknownNameError
from webfactory_env.core.seeding import SeedStream
from webfactory_env.sitegen.variation import AXES, AXIS_BY_NAME, _weighted

SPLITS = ("train", "test")
HOLDOUTS = ("seeds", "family", "combination")
MIXED = "mixed"  # the `family` of a suite whose tasks come from several families

# An axis is fixed to one value, drawn from the level seed as usual ("seed"), or drawn from
# the level seed among a subset of its values (a tuple), so that a training suite can keep
# some values back for a held-out suite.
AxisSpec = str | tuple[str, ...]
VariationSpec = tuple[tuple[str, AxisSpec], ...]


@dataclass(frozen=True)
class SuiteEpisode:
    """One episode of a suite: what `env.reset(seed=seed, options=reset_options())` shows."""

    index: int
    family: str
    task: str
    seed: int
    difficulty: str
    # The axes the suite fixes for this episode; the env draws the others from the seed.
    variation: Mapping[str, str] | None = None

    def reset_options(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "task": self.task,
            "difficulty": self.difficulty,
            "variation": dict(self.variation) if self.variation else None,
        }


@dataclass(frozen=True)
class Suite:
    """A named, versioned list of episodes.

    Episode `i` uses task `tasks[i % len(tasks)]` on level seed
    `seed_start + i // len(tasks)`, so every task sees the same seeds in turn. A suite
    over several families sets `family="mixed"` and gives each task's family in
    `families`. `variation` maps axes to a value, `"seed"`, or a tuple of allowed values
    (see `AxisSpec`); a mapping is accepted and stored as sorted pairs.
    """

    name: str
    description: str
    family: str
    tasks: tuple[str, ...]
    seed_start: int
    seed_count: int
    difficulty: str = "easy"
    version: str = "1"
    families: tuple[str, ...] = ()
    variation: VariationSpec | Mapping[str, AxisSpec] = ()
    split: str = "test"
    held_out_from: tuple[str, ...] = ()
    holdout: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.tasks:
            raise ConfigError(f"suite {self.name!r} needs at least one task")
        if self.seed_start < 0 or self.seed_count < 1:
            raise ConfigError(
                f"suite {self.name!r}: seeds must start at >= 0 and number at least 1"
            )
        if self.families:
            if len(self.families) != len(self.tasks):
                raise ConfigError(
                    f"suite {self.name!r}: `families` gives the family of each task, so it"
                    f" needs {len(self.tasks)} entries, not {len(self.families)}"
                )
            distinct = set(self.families)
            expected = self.families[0] if len(distinct) == 1 else MIXED
            if self.family != expected:
                raise ConfigError(
                    f"suite {self.name!r}: its tasks come from {sorted(distinct)},"
                    f" so its family must be {expected!r}"
                )
        elif self.family == MIXED:
            raise ConfigError(
                f"suite {self.name!r}: a mixed suite must give each task's family in `families`"
            )
        if self.split not in SPLITS:
            raise UnknownNameError("split", self.split, SPLITS)
        for h in self.holdout:
            if h not in HOLDOUTS:
                raise UnknownNameError("holdout", h, HOLDOUTS)
        object.__setattr__(self, "variation", _normalise_variation(self.name, self.variation))

    # ------------------------------------------------------------------ episodes
    @property
    def seeds(self) -> range:
        return range(self.seed_start, self.seed_start + self.seed_count)

    @property
    def size(self) -> int:
        """How many distinct episodes the suite holds."""
        return self.seed_count * len(self.tasks)

    @property
    def family_names(self) -> tuple[str, ...]:
        """The families the suite's episodes show, in task order, each once."""
        return tuple(dict.fromkeys(self.families or (self.family,)))

    def family_of(self, task_index: int) -> str:
        return self.families[task_index] if self.families else self.family

    def episode(self, index: int) -> tuple[str, int]:
        """(task, level seed) of episode `index`."""
        if not 0 <= index < self.size:
            raise ConfigError(
                f"suite {self.name!r} has {self.size} episodes (0..{self.size - 1}),"
                f" so there is no episode {index}; ask for fewer episodes"
            )
        return self.tasks[index % len(self.tasks)], self.seed_start + index // len(self.tasks)

    def episodes(self, count: int | None = None) -> Iterator[tuple[str, int]]:
        """The first `count` episodes (default: all of them)."""
        for ep in self.episode_specs(count):
            yield ep.task, ep.seed

    def episode_spec(self, index: int) -> SuiteEpisode:
        """Everything episode `index` needs: family, task, seed, difficulty, variation."""
        task, seed = self.episode(index)
        return SuiteEpisode(
            index=index,
            family=self.family_of(index % len(self.tasks)),
            task=task,
            seed=seed,
            difficulty=self.difficulty,
            variation=self.variation_for(seed),
        )

    def episode_specs(self, count: int | None = None) -> Iterator[SuiteEpisode]:
        """The first `count` episodes (default: all of them), in order."""
        n = self.size if count is None else count
        if n > self.size:
            raise ConfigError(
                f"suite {self.name!r} has only {self.size} episodes; ask for at most {self.size}"
            )
        if n < 0:
            raise ConfigError("the number of episodes cannot be negative")
        for i in range(n):
            yield self.episode_spec(i)

    # ----------------------------------------------------------------- variation
    @property
    def variation_spec(self) -> dict[str, AxisSpec]:
        """The suite's variation as a dict (axis → value, "seed" or allowed values)."""
        return dict(self._variation_pairs)

    @property
    def _variation_pairs(self) -> VariationSpec:
        assert isinstance(self.variation, tuple)  # __post_init__ normalised it
        return self.variation

    def fixed_axes(self) -> dict[str, str]:
        """The axes every episode of the suite shows at one value."""
        return {a: v for a, v in self._variation_pairs if isinstance(v, str) and v != "seed"}

    def variation_for(self, seed: int) -> dict[str, str] | None:
        """The axis values the suite fixes on level seed `seed` (None: all drawn by the env).

        Restricted axes are drawn here from the seed's own stream (`suite-variation/<axis>`)
        with the axis's weights for the suite's difficulty, limited to the allowed values.
        """
        out: dict[str, str] = {}
        for axis, spec in self._variation_pairs:
            value = self._suite_value(seed, axis, spec)
            if value is not None:
                out[axis] = value
        return out or None

    def axis_value(self, seed: int, axis: str) -> str:
        """The value axis `axis` takes on the site of level seed `seed` in this suite.

        Fixed and restricted axes come from the suite; the others are drawn the way
        `Variation.draw` draws them (the tests check the two agree), one axis at a time, so
        a whole training range can be scanned in a fraction of a second.
        """
        if axis not in AXIS_BY_NAME:
            raise UnknownNameError("variation axis", axis, AXIS_BY_NAME)
        value = self._suite_value(seed, axis, self.variation_spec.get(axis, "seed"))
        if value is not None:
            return value
        spec = AXIS_BY_NAME[axis]
        stream = SeedStream(seed).child("variation").child(axis)
        return _weighted(stream, spec.values, spec.weights[self.difficulty])

    def _suite_value(self, seed: int, axis: str, spec: AxisSpec) -> str | None:
        """The value the suite gives `axis` on `seed`, or None when the env draws it."""
        if isinstance(spec, str):
            return None if spec == "seed" else spec
        weights = dict(
            zip(
                AXIS_BY_NAME[axis].values,
                AXIS_BY_NAME[axis].weights[self.difficulty],
                strict=True,
            )
        )
        allowed = [(v, weights[v]) for v in spec]
        if not any(w > 0 for _, w in allowed):
            allowed = [(v, 1.0) for v in spec]  # the difficulty never picks them: uniform
        return _pick(SeedStream(seed).child("suite-variation").child(axis), allowed)

    # ---------------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "description": self.description,
            "family": self.family,
            "families": list(self.family_names),
            "tasks": list(self.tasks),
            "seed_start": self.seed_start,
            "seed_count": self.seed_count,
            "size": self.size,
            "difficulty": self.difficulty,
            "version": self.version,
            "split": self.split,
            "variation": {
                a: (list(v) if isinstance(v, tuple) else v) for a, v in self._variation_pairs
            },
            "held_out_from": list(self.held_out_from),
            "holdout": list(self.holdout),
        }


def _normalise_variation(name: str, given: VariationSpec | Mapping[str, AxisSpec]) -> VariationSpec:
    items = dict(given.items() if isinstance(given, Mapping) else given)
    order = {a.name: i for i, a in enumerate(AXES)}
    out: list[tuple[str, AxisSpec]] = []
    for axis in sorted(items, key=lambda a: order.get(a, len(order))):
        if axis not in AXIS_BY_NAME:
            raise UnknownNameError("variation axis", axis, AXIS_BY_NAME)
        spec = items[axis]
        values = AXIS_BY_NAME[axis].values
        if isinstance(spec, str):
            if spec != "seed" and spec not in values:
                raise ConfigError(
                    f"suite {name!r}: variation axis {axis!r} cannot be {spec!r};"
                    f" choose one of: {', '.join(values)}, or 'seed'"
                )
            out.append((axis, spec))
            continue
        allowed = tuple(spec)
        bad = [v for v in allowed if v not in values]
        if not allowed or bad:
            raise ConfigError(
                f"suite {name!r}: variation axis {axis!r} needs a non-empty subset of"
                f" {', '.join(values)}; got {list(allowed)}"
            )
        # In the axis's own order, so equal subsets compare equal.
        out.append((axis, tuple(v for v in values if v in allowed)))
    return tuple(out)


def _pick(stream: SeedStream, weighted: list[tuple[str, float]]) -> str:
    total = sum(w for _, w in weighted)
    x = stream.random() * total
    for value, w in weighted:
        if x < w:
            return value
        x -= w
    return weighted[-1][0]


_SUITES: dict[str, Suite] = {}


def register_suite(suite: Suite) -> Suite:
    """Add a suite to the registry (a name may be registered once)."""
    if suite.name in _SUITES and _SUITES[suite.name] != suite:
        raise ConfigError(f"a different suite named {suite.name!r} is already registered")
    _SUITES[suite.name] = suite
    return suite


def suites() -> dict[str, Suite]:
    """Every registered suite by name, in registration order."""
    return dict(_SUITES)


def get_suite(name: str) -> Suite:
    try:
        return _SUITES[name]
    except KeyError:
        raise UnknownNameError("suite", name, _SUITES) from None


# --------------------------------------------------------------------------- the catalogue
TRAIN_SEEDS = range(0, 10_000)
TEST_SEEDS = range(100_000, 101_000)

# Each suite lists its tasks itself: a task added to the library later must not change the
# episodes of a published suite version.
FAMILY_TASKS: dict[str, tuple[str, ...]] = {
    "shop": (
        "buy_red_mug",
        "shop_apply_coupon",
        "shop_cheapest_in_category",
        "shop_expired_coupon",
        "shop_keep_one_red_mug",
        "shop_open_cart",
        "shop_order_status",
        "shop_pay_by_card",
        "shop_sold_out",
        "shop_track_parcel",
    ),
    "travel": (
        "best_rated_hotel_in_city",
        "book_flight_roundtrip",
        "book_top_rated_hotel",
        "book_with_loyalty_number",
        "cancel_refundable_trip",
        "cheapest_oneway_fare",
        "fastest_nonstop_on_airline",
        "fully_booked_hotel",
        "nonstop_not_offered",
        "standard_fare_bag_fee",
        "trip_reference_after_2fa",
    ),
    "kanban": (
        "kanban_archive_review_card",
        "kanban_archived_board_card",
        "kanban_assign_deactivated",
        "kanban_calendar_next_due",
        "kanban_create_card",
        "kanban_delete_card",
        "kanban_edit_card",
        "kanban_invite_member",
        "kanban_move_and_comment",
        "kanban_new_board",
        "kanban_open_my_task",
        "kanban_overdue_count",
        "kanban_review_due_soonest",
        "kanban_triage_blocked",
    ),
    "account": (
        "account_oldest_failed_sign_in",
        "account_first_sign_in_from_city",
        "account_report_blocked_sign_in",
        "account_update_profile",
        "account_quiet_notifications",
        "account_enable_two_factor",
        "account_sign_out_device",
        "account_rotate_api_key",
        "account_open_security_settings",
        "account_sign_in_with_code",
        "account_locked_sign_in",
        "account_reset_forgotten_password",
        "account_create_account",
        "account_username_taken",
        "account_history_login_wall",
        "account_username_breaks_rules",
    ),
    "forum": (
        "forum_accept_not_author",
        "forum_accept_top_reply",
        "forum_author_reputation",
        "forum_delete_own_reply",
        "forum_longest_member",
        "forum_new_thread",
        "forum_newest_in_category",
        "forum_reply_and_edit",
        "forum_reply_locked",
        "forum_solved_by_tag",
        "forum_upvote_accepted",
    ),
}
TRAIN_FAMILIES = ("shop", "travel", "kanban", "account")
HELD_OUT_FAMILY = "forum"  # in no training suite

# travel trains without custom menus (menus are seen on the other families): the
# (travel, choice_widget=menu) combination is kept for `travel-menu-heldout`.
_TRAIN_VARIATION: dict[str, dict[str, AxisSpec]] = {
    "travel": {"choice_widget": ("select", "radio")},
}


def _mixed(families: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tasks, family of each task) of several families' task lists, in order."""
    tasks = tuple(t for f in families for t in FAMILY_TASKS[f])
    fams = tuple(f for f in families for _ in FAMILY_TASKS[f])
    return tasks, fams


def _register_catalogue() -> None:
    register_suite(
        Suite(
            name="shop-train",
            description="shop sites, buy_red_mug, level seeds 0-9999 (training)",
            family="shop",
            tasks=("buy_red_mug",),
            seed_start=0,
            seed_count=10_000,
            split="train",
        )
    )
    register_suite(
        Suite(
            name="shop-test",
            description="shop sites, buy_red_mug, level seeds 100000-100999"
            " (held out from shop-train)",
            family="shop",
            tasks=("buy_red_mug",),
            seed_start=100_000,
            seed_count=1_000,
            held_out_from=("shop-train",),
            holdout=("seeds",),
        )
    )
    for family in TRAIN_FAMILIES:
        restricted = _TRAIN_VARIATION.get(family, {})
        what = f"{family} sites, {len(FAMILY_TASKS[family])} {family} library tasks"
        note = "; custom menus held out" if restricted else ""
        register_suite(
            Suite(
                name=f"{family}-tasks-train",
                description=f"{what}, level seeds 0-9999 (training{note})",
                family=family,
                tasks=FAMILY_TASKS[family],
                seed_start=TRAIN_SEEDS.start,
                seed_count=len(TRAIN_SEEDS),
                variation=restricted,
                split="train",
            )
        )
        register_suite(
            Suite(
                name=f"{family}-tasks-test",
                description=f"{what}, level seeds 100000-100999"
                f" (held out from {family}-tasks-train)",
                family=family,
                tasks=FAMILY_TASKS[family],
                seed_start=TEST_SEEDS.start,
                seed_count=len(TEST_SEEDS),
                variation=restricted,
                held_out_from=(f"{family}-tasks-train",),
                holdout=("seeds",),
            )
        )
    train_names = tuple(f"{f}-tasks-train" for f in TRAIN_FAMILIES)
    register_suite(
        Suite(
            name="forum-heldout",
            description="forum sites, a family no training suite contains;"
            f" {len(FAMILY_TASKS[HELD_OUT_FAMILY])} forum library tasks, level seeds 100000-100999",
            family=HELD_OUT_FAMILY,
            tasks=FAMILY_TASKS[HELD_OUT_FAMILY],
            seed_start=TEST_SEEDS.start,
            seed_count=len(TEST_SEEDS),
            held_out_from=train_names,
            holdout=("seeds", "family"),
        )
    )
    register_suite(
        Suite(
            name="travel-menu-heldout",
            description="travel sites whose choices are custom menus: a widget that"
            " travel-tasks-train never shows on travel (shop-tasks-train does);"
            " level seeds 100000-100999",
            family="travel",
            tasks=FAMILY_TASKS["travel"],
            seed_start=TEST_SEEDS.start,
            seed_count=len(TEST_SEEDS),
            variation={"choice_widget": "menu"},
            held_out_from=("travel-tasks-train",),
            holdout=("seeds", "combination"),
        )
    )
    tasks, fams = _mixed(TRAIN_FAMILIES)
    # Copy-only: every axis at its plain value except the copy group, whose labels,
    # buttons and headings use the alternative paraphrase.
    copy_only: dict[str, AxisSpec] = {a.name: a.values[0] for a in AXES if a.group not in ("copy",)}
    copy_only.update(paraphrase="alt", helper_text="seed", noise="seed")
    register_suite(
        Suite(
            name="paraphrase-copy",
            description="shop, travel, kanban and account tasks on plain sites whose only"
            " change is copy: paraphrased labels, buttons and headings; level seeds"
            " 100000-100999",
            family=MIXED,
            tasks=tasks,
            families=fams,
            seed_start=TEST_SEEDS.start,
            seed_count=len(TEST_SEEDS),
            variation=copy_only,
            held_out_from=train_names,
            holdout=("seeds",),
        )
    )
    register_suite(
        Suite(
            name="stress-distractors",
            description="shop, travel, kanban and account tasks with many distractors"
            " (lookalike buttons, promos), never seen in training; level seeds 100000-100999",
            family=MIXED,
            tasks=tasks,
            families=fams,
            seed_start=TEST_SEEDS.start,
            seed_count=len(TEST_SEEDS),
            variation={"distractors": "many"},
            held_out_from=train_names,
            holdout=("seeds", "combination"),
        )
    )
    register_suite(
        Suite(
            name="stress-latency",
            description="shop, travel, kanban and account tasks on a slow, failing server:"
            " high latency, injected server errors (Retry) and DOM drift, never seen in"
            " training; level seeds 100000-100999",
            family=MIXED,
            tasks=tasks,
            families=fams,
            seed_start=TEST_SEEDS.start,
            seed_count=len(TEST_SEEDS),
            variation={"latency": "high", "errors": "some", "drift": "on"},
            held_out_from=train_names,
            holdout=("seeds", "combination"),
        )
    )


_register_catalogue()
