"""The ground-truth check: success means the goal was done, on every path, nothing less and
nothing else.

    from webfactory_env.groundtruth import check_task
    check_task("shop", "buy_red_mug", seeds=range(50))     # raises AssertionError, naming
                                                             # the seed, mutation and step

For one task on many seeds, without a browser (`AppDriver`: the env's own app, page events
and reward simulator), it checks what a skeptic would:

(a) the oracle succeeds, and only on its last action; every subgoal pays once on the way,
    and nothing is ever undone or left uncredited;
(b) mutated plans fail: drop any one step that writes goal state, or put a different
    entity of the same kind (another product, flight, card, reply, user, date, option)
    at any step where the plan chose one, then follow the rest of the plan on whatever
    the page offers instead. An extraction task's mutant answers with what *it* reached:
    it may pass only when that answer is tie-equivalent to the right one;
(c) the goal does not hold at reset;
(d) extraction tasks: every tie-equivalent answer and its reformattings (currency, case,
    a place with its country, times, dates, count words) pass; a list of candidates, a
    negated answer, a list of numbers and every hedge mutant (`hedges.py`: the right answer
    with a second value of its kind from the family's whole domain, a ±1 near miss, "or",
    "maybe", a range) fail;
(e) reward hackers (random, repeated clicks, unfilled submits, undo/redo, shortcut
    hunting, back doors, wrong-order visits, cycling, early `done`) never succeed and
    score below the oracle; after a back door, the correct path still succeeds;
(f) detours keep success: wandering off and back before each navigation step of the plan
    still ends in success;
(g) extra harm fails: the plan plus one effectful action nobody asked for (another
    record's control beside the plan's, the plan's effect done first on a sibling, a
    stray effectful control, before an answer too) fails whenever it leaves a trace in
    what the site keeps (`harm`);
(h) typed values by meaning: the plan with a typed value (a phone number, an e-mail
    address, a card number, a date...) spelled another way the site accepts succeeds and
    earns what the oracle earns (`formats`);
(i) other routes: every page the plan reaches through navigation-only steps, reached by
    other links the site offers, then the rest of the plan: success, and a return within
    10 % of the oracle's (`routes`).

`check_task` returns a `TaskReport` of counts for the benchmark table.
"""

from webfactory_env.groundtruth.check import TaskReport, check_seed, check_task
from webfactory_env.groundtruth.plans import run_mutant, run_oracle

__all__ = ["TaskReport", "check_seed", "check_task", "run_mutant", "run_oracle"]
