"""The design document's two worked examples, copied verbatim into `tests/tasks/blueprint_*`,
compile and are solved by their oracle; an old state path keeps its meaning, with a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webfactory_env.dsl import parse_task_source
from webfactory_env.groundtruth import run_oracle
from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen.renamed import RenamedPath, renamed_for
from webfactory_env.tasks import compile_for_site, compile_task

TASKS = Path(__file__).parent / "tasks"
BUY = str(TASKS / "blueprint_buy_red_mug.task")
FLY = str(TASKS / "blueprint_book_flight_roundtrip.task")
FLY_SOURCE = Path(FLY).read_text(encoding="utf-8")
EXAMPLES = [("shop", BUY), ("travel", FLY)]
SEEDS = range(20)


@pytest.mark.parametrize(("family", "path"), EXAMPLES, ids=["buy_red_mug", "book_flight"])
def test_the_oracle_solves_each_example_on_twenty_seeds(family, path):
    for seed in SEEDS:
        site = generate_site(family, seed)
        task = compile_for_site(path, site)
        _, _, problems = run_oracle(site, task)
        assert not problems, f"{family} seed {seed}: {problems}"


def test_the_shop_example_asserts_on_the_order_it_places():
    task = compile_for_site(BUY, generate_site("shop", 3))
    (order,) = task.goal
    assert order.predicate.to_json()["path"] == "orders"
    assert {"op": "eq", "path": "status", "value": "placed"} in order.predicate.to_json()["where"][
        "items"
    ]
    assert task.warnings == ()


def test_the_old_itinerary_status_means_the_booking_made_and_says_so():
    """`itinerary.status = "booked"` (the blueprint's spelling) is `booking.status =
    "upcoming"` since travel 2: the same goal, and a located warning naming the new path."""
    site = generate_site("travel", 0)
    task = compile_for_site(FLY, site)
    (warning,) = task.warnings
    assert (warning.line, warning.column) == (17, 14)
    assert str(warning).startswith(f'{FLY}:17:14: warning: `itinerary.status = "booked"`')
    assert 'write `booking.status = "upcoming"`' in warning.message
    assert "travel 2" in warning.message
    now = FLY_SOURCE.replace('itinerary.status = "booked"', 'booking.status = "upcoming"')
    current = compile_task(parse_task_source(now, "now.task"), site)
    assert current.warnings == ()
    assert [c.to_json() for c in task.goal] == [c.to_json() for c in current.goal]
    assert json.dumps(task.to_json()["warnings"]) == json.dumps([warning.to_json()])


def test_a_renamed_path_carries_its_keys_and_other_values_stay_current():
    table = (
        RenamedPath("cards.*.list", "cards.*.column", since="kanban 9"),
        RenamedPath("itinerary.status", "booking.status", "travel 2", value="booked"),
    )
    entry = renamed_for(table, ("cards", "*", "list"), "=", "done")
    assert entry is not None and entry.rewrite(("cards", "KEY", "list"), "done") == (
        ("cards", "KEY", "column"),
        "done",
    )
    assert entry.message() == "`cards.*.list` is deprecated since kanban 9: write `cards.*.column`"
    assert renamed_for(table, ("itinerary", "status"), "=", "draft") is None
    assert renamed_for(table, ("itinerary", "status"), "=", "booked") is table[1]


def test_a_renamed_whole_path_compiles_to_the_new_one():
    site = generate_site("travel", 1)
    old = 'assert State(itinerary.lead contains "email");'
    source = FLY_SOURCE.replace('assert State(itinerary.status = "booked");', old)
    task = compile_task(parse_task_source(source, "lead.task"), site)
    (warning,) = task.warnings
    assert "write `booking.traveller`" in warning.message
    (trip,) = task.goal
    assert {"op": "contains", "path": "traveller", "value": "email"} in trip.predicate.to_json()[
        "where"
    ]["items"]


@pytest.mark.browser
@pytest.mark.parametrize(("family", "path"), EXAMPLES, ids=["buy_red_mug", "book_flight"])
def test_each_example_is_solved_in_the_browser(family, path):
    from webfactory_env.cli import run_episode

    summary, env = run_episode(family, path, 4, "oracle", obs_mode="tokens")
    env.close()
    assert summary["success"], summary["reason"]
