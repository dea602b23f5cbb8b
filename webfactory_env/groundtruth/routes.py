"""Other routes to the same page: a correct route earns what the oracle's route earns.

The oracle opens a card through the search page; the site also links it from its board.
For every page the plan reaches through navigation-only steps (a subgoal some step
`leads_to`), this check finds another route the site offers: links only, from where the
plan's navigation starts, never through the oracle's first link or the pages it passes
on the way. It then follows that route and the rest of the plan: the run must succeed, pay
every subgoal the oracle's run pays, and its return be within `RETURN_TOLERANCE` of the
oracle's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from webfactory_env.adversarial import AppDriver
from webfactory_env.core.predicates import Eq
from webfactory_env.groundtruth.plans import Recorded, find, replay
from webfactory_env.sitegen.registry import Site
from webfactory_env.tasks import CompiledTask, Subgoal

RETURN_TOLERANCE = 0.10  # of the oracle's return
MAX_DEPTH = 4  # links followed, at most
MAX_PAGES = 120  # pages looked at while searching for another route
STAFF = ("/staff", "/admin")


@dataclass(frozen=True)
class OtherRoute:
    """A page of the plan reached another way, and what that earned."""

    page: str  # the route reached
    links: tuple[str, ...]  # the elements clicked, in order
    total: float
    success: bool
    unpaid: tuple[str, ...]  # subgoals the oracle's run pays and this one does not


def check_routes(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded], oracle: AppDriver
) -> tuple[list[OtherRoute], list[str]]:
    """Every page the plan reaches by navigation, reached by another route; (the routes
    run, what went wrong)."""
    runs: list[OtherRoute] = []
    problems: list[str] = []
    for page in _pages(task):
        other = other_route(site, task, recorded, page, frozenset(oracle.sim.paid))
        if other is None:
            continue
        runs.append(other)
        how = " > ".join(other.links)
        if not other.success:
            problems.append(f"reaching {other.page} by another route ({how}) loses success")
        elif other.unpaid:
            problems.append(
                f"reaching {other.page} by another route ({how}) never pays {list(other.unpaid)}"
            )
        elif abs(other.total - oracle.total) > RETURN_TOLERANCE * abs(oracle.total):
            problems.append(
                f"reaching {other.page} by another route ({how}) earns {other.total:.2f}, "
                f"the oracle's route {oracle.total:.2f}"
            )
    return runs, problems


def other_route(
    site: Site,
    task: CompiledTask,
    recorded: Sequence[Recorded],
    page: Subgoal,
    paid: frozenset[str] = frozenset(),
) -> OtherRoute | None:
    """The plan with the navigation to `page` done through other links (`paid`: what the
    oracle's run pays); None when the site offers no other route (within `MAX_DEPTH`
    links)."""
    route = _route_of(page)
    chain = {g.id for g in task.subgoals if g.leads_to == page.id} | {page.id}
    steps = [i for i, r in enumerate(recorded) if r.step.subgoal in chain]
    if route is None or not steps:
        return None
    start, end = steps[0], steps[-1]
    passed = {_route_of(g) for g in task.subgoals if g.id in chain and g.id != page.id}
    scout = AppDriver(site, task)
    if not replay(scout, recorded, start) or scout.ended:
        return None
    links = _links_to(scout, route, avoid=recorded[start].step.sid, passed=passed)
    if links is None:
        return None
    d = AppDriver(site, task)
    replay(d, recorded, start)
    for sid in links:
        aff = find(d, sid)
        if aff is None or d.ended:
            return None
        d.act(aff, "click")
    if d.app.route != route:
        return None
    replay(d, recorded[end + 1 :])
    unpaid = tuple(g.id for g in task.subgoals if g.id in paid and g.id not in d.sim.paid)
    return OtherRoute(route, links, round(d.total, 6), d.success, unpaid)


def _pages(task: CompiledTask) -> list[Subgoal]:
    """The plan's pages reached through navigation-only steps."""
    ids = {g.leads_to for g in task.subgoals if g.leads_to}
    return [g for g in task.subgoals if g.id in ids]


def _route_of(g: Subgoal) -> str | None:
    p = g.predicate
    return str(p.value) if isinstance(p, Eq) and p.path == ("route",) else None


def _links_to(
    d: AppDriver, route: str, *, avoid: str, passed: set[str | None]
) -> tuple[str, ...] | None:
    """The fewest links from the page `d` shows to `route`, never `avoid` on the first
    page nor through a page in `passed` (breadth first, looking at each page once)."""
    here = d.app.route
    seen = {here, *(p for p in passed if p)}
    queue: deque[tuple[str, tuple[str, ...]]] = deque([(here, ())])
    looked = 0
    while queue and looked < MAX_PAGES:
        at, path = queue.popleft()
        if len(path) >= MAX_DEPTH:
            continue
        if at != d.app.route:
            d.navigate(at)
        looked += 1
        for a in d.affordances():
            href = a.href
            if not href or a.verb != "click" or (not path and a.sid == avoid):
                continue
            if href == route:
                return (*path, a.sid)
            if href not in seen and not href.startswith(STAFF):
                seen.add(href)
                queue.append((href, (*path, a.sid)))
    return None
