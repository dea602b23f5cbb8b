"""Other paths through a site: back doors (which must never succeed, and must not spoil a
later correct path) and detours (which must never lose success)."""

from __future__ import annotations

from collections.abc import Sequence

from webfactory_env.adversarial import AppDriver
from webfactory_env.groundtruth.plans import Recorded, replay, retry
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import CompiledTask


def _back_doors(d: AppDriver) -> list[Affordance]:
    return [a for a in d.affordances() if a.attr_map().get("staff")]


def check_back_door(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded]
) -> tuple[int, list[str]]:
    """(e) The plan up to its last step, then every back door the site has: no success;
    then the whole plan again, correctly: success (a back door taints only what it
    touched). Sites without back doors pass trivially."""
    staff = [r for r in ("/staff", "/admin") if site.new_app().known_route(r)]
    if not staff or len(recorded) < 2:
        return 0, []
    d = AppDriver(site, task)
    if not replay(d, recorded, len(recorded) - 1) or d.ended:
        return 0, []
    here = d.app.route
    used = 0
    for route in staff:
        d.navigate(route)
        for door in _back_doors(d):
            d.act(door, door.verb)
            retry(d)
            used += 1
            if d.success:
                return used, [f"the back door on {route} succeeded"]
    if not used:
        return 0, []
    d.navigate(here)
    replay(d, recorded)
    if not d.success:
        return used, ["after a back door, the correct path no longer succeeds"]
    return used, []


def check_detours(
    site: Site, task: CompiledTask, recorded: Sequence[Recorded]
) -> tuple[int, list[str]]:
    """(f) Before each navigation step of the plan, wander to the start page and back:
    the plan must still succeed (nothing in the goal depends on the path or step count)."""
    d = AppDriver(site, task)
    start = site.spec.start_route
    detours = 0
    for rec in recorded:
        if d.ended:
            break
        aff = rec.affordance
        if aff is not None and aff.href and d.app.route != start and not d.app.ui.modal:
            here = d.app.route
            d.navigate(start)
            d.navigate(here)
            detours += 1
        if not replay(d, [rec]):
            return detours, [f"after a detour, plan step {rec.step.sid} is not on the page"]
    if not d.success:
        return detours, ["a detour off the plan (to the start page and back) loses success"]
    return detours, []
