"""Navigation as a means: the steps that only lead to a page are done once that page is
reached, by whatever route.

The oracle reaches a card through the search page (go to Search, type its title, open the
result); a person may open it from its board instead. Both are progress towards the same
page, so the shaping pays both the same: each navigation-only subgoal on the way to a
page (the chain of steps that changed nothing the site keeps, up to the last one that
opened a page) names that page's subgoal as `leads_to`, and the reward simulator counts
it done when its own state holds or that page has been reached through the site (any
link to it; an address typed in is no route the site offers). Steps that change the
site's data on the way (a reset e-mail requested) are never only a means.
"""

from __future__ import annotations

from dataclasses import replace

from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compiled import Subgoal

ROUTE = ("route",)


def routes_as_alternatives(run: CompileRun) -> None:
    """Let every navigation-only subgoal on the way to a page be done by reaching it."""
    # Steps that change only what is shown: no data the site keeps, no form, and no
    # transition that changes the site's data (a reset e-mail sent is not navigation).
    navigation = {
        r.subgoal for r in run.runs if r.subgoal and r.navigation and r.subgoal not in run.mutated
    }
    reached: dict[str, Subgoal] = {}  # subgoal -> the page it leads to
    chain: list[Subgoal] = []
    for g in [*run.subgoals, None]:
        if g is not None and g.id in navigation:
            chain.append(g)
            continue
        reached.update(_leading_to(run, chain))
        chain = []
    run.subgoals = [
        replace(g, leads_to=reached[g.id].id) if g.id in reached else g for g in run.subgoals
    ]


def _leading_to(run: CompileRun, chain: list[Subgoal]) -> dict[str, Subgoal]:
    """The steps of a navigation chain before the last page it opens, each mapped to that
    page's subgoal (none when that page is where the site starts: reaching it then is
    no progress)."""
    opens = [i for i, g in enumerate(chain) if ROUTE in g.predicate.paths()]
    if not opens:
        return {}
    page = chain[opens[-1]]
    if page.predicate.holds(run.reset_view):
        return {}
    return {g.id: page for g in chain[: opens[-1]]}
