"""Following a task's recipe to the letter, without a browser: the check that the recipe an
agent is given (`instruction_style` `recipe`, or `goal+hints`) is sufficient on its own.

    from webfactory_env.recipes import follow_recipe
    followed = follow_recipe("travel", "book_flight_roundtrip", seed=3, style="recipe")
    assert followed.success, followed.problem

The follower reads the recipe sentence by sentence and does what each says on an
`AppDriver` (the site's app and the env's reward simulator): it finds the control by the
label the sentence quotes and operates it as the sentence's widget requires (a field, a
dropdown, a menu, radio buttons, a calendar, a tab). It never reads the plan's actions,
only the oracle's *choice* where the words fit several elements (which of three "Sign
out" buttons, the first product listed): choosing is the agent's job, doing what the
recipe says is the recipe's. A sentence it cannot carry out, a step the recipe leaves
out, or an infeasible task whose recipe does not say to stop, shows up as a failure.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from webfactory_env.adversarial import AppDriver
from webfactory_env.sitegen.registry import generate_site
from webfactory_env.sitegen.spec import Affordance
from webfactory_env.tasks import CompiledTask, compile_for_site
from webfactory_env.tasks.instruction import MONTH_NAMES, NAME_ATTRS, field_label

Q = "\u201c(.*?)\u201d"  # a quoted string of the recipe
SENTENCES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("goto", r"^Go to the (.+) page\.$"),
        ("enter", rf"^Enter \u201c(.*)\u201d in the {Q} field(?P<suggest> and pick .*)?\.$"),
        ("set", rf"^Set {Q} to \u201c(.*)\u201d\.$"),
        ("turn", rf"^Turn (on|off) {Q}\.$"),
        ("choose", rf"^Choose \u201c(.*)\u201d (?:from the {Q} (?:menu|list)|under {Q})\.$"),
        ("pick", rf"^Pick (.+) in the {Q} calendar\.$"),
        ("submit", rf"^Submit the form with {Q}\.$"),
        ("tab", rf"^Open the {Q} tab\.$"),
        ("section", rf"^Open the {Q} section\.$"),
        ("menu", rf"^Open the {Q} menu\.$"),
        ("sort", rf"^Click the {Q} column heading to sort by it\.$"),
        ("click", rf"^Click (?:the \w+ )?{Q}.*\.$"),
        ("open", r"^Open (.+)\.$"),
        ("report", r"^Report (.+)\.$"),
        ("stop", r"^If it cannot be done, stop and say why\.$"),
        ("nothing", r"^(?:Keep|Make sure that) .*$"),
    )
)
_DATE = re.compile(r"^\w+day (\d{1,2}) (\w+) (\d{4})$")


@dataclass
class Followed:
    """How following a recipe went: `success` as the env would score it, the sentences
    done, and the first problem met (None when every sentence could be carried out)."""

    recipe: str
    success: bool = False
    done: list[str] = field(default_factory=list)
    problem: str | None = None


def recipe_of(task: CompiledTask, style: str, seed: int = 0) -> str | None:
    """The recipe an agent is told in `style` (None for `goal`: the goal alone)."""
    text = task.text_for(style, seed)
    if style == "recipe" or not task.goal_texts:
        return text
    _, sep, hints = text.partition("\nHints: ")
    return hints if sep else None


def sentences(recipe: str) -> list[str]:
    """The recipe's sentences (a full stop inside a quoted value ends none)."""
    out, start, depth = [], 0, 0
    for i, ch in enumerate(recipe):
        depth += (ch == "\u201c") - (ch == "\u201d")
        rest = recipe[i + 1 :]
        # A sentence ends at a full stop outside quotes before the next one's capital
        # (not at "Create acct. page").
        if ch == "." and depth <= 0 and (not rest.strip() or re.match(r" +[A-Z]", rest)):
            out.append(recipe[start : i + 1].strip())
            start = i + 1
    tail = recipe[start:].strip()
    return [*out, tail] if tail else out


def follow_recipe(
    family: str, task: str, seed: int, style: str = "recipe", difficulty: str = "easy"
) -> Followed:
    """Follow the recipe of library task `task` on level `seed` (see the module docstring)."""
    site = generate_site(family, seed, difficulty)
    compiled = compile_for_site(task, site)
    recipe = recipe_of(compiled, style, seed)
    if recipe is None:
        raise ValueError(f"style {style!r} gives the agent no recipe to follow")
    return RecipeFollower(AppDriver(site, compiled), recipe).run()


class RecipeFollower:
    """Carries out one recipe on a driver, sentence by sentence."""

    def __init__(self, driver: AppDriver, recipe: str) -> None:
        self.d = driver
        self.recipe = recipe
        self._plan_at = 0  # the oracle's choices are looked up from here on

    def run(self) -> Followed:
        result = Followed(self.recipe)
        for sentence in sentences(self.recipe):
            if self.d.ended:
                result.problem = f"the episode ended before {sentence!r}"
                break
            problem = self.do(sentence)
            self._retry()
            if problem:
                result.problem = f"{sentence!r}: {problem}"
                break
            result.done.append(sentence)
        result.success = self.d.success
        if not result.success and result.problem is None:
            result.problem = "every sentence was carried out, but the task is not done"
        return result

    def do(self, sentence: str) -> str | None:
        """Carry out one sentence; what went wrong, or None."""
        for name, pattern in SENTENCES:
            m = pattern.match(sentence)
            if m:
                handler: Callable[[re.Match[str]], str | None] = getattr(self, f"_say_{name}")
                return handler(m)
        return "no sentence of the recipe looks like this"

    def _retry(self) -> None:
        """An injected server error leaves a Retry button: press it, as anyone would."""
        for _ in range(3):
            retry = next((a for a in self._shown() if a.sid == "retry"), None)
            if retry is None or self.d.ended:
                return
            self.d.act(retry, "click")

    # ------------------------------------------------------------ finding controls
    def _oracle_choice(self, found: list[Affordance]) -> Affordance | None:
        """Of the controls the words fit, the one the oracle uses next (None: none is)."""
        sids = {a.sid: a for a in found}
        plan = self.d.task.plan
        for k in range(self._plan_at, len(plan)):
            if plan[k].sid in sids:
                self._plan_at = k + 1
                return sids[plan[k].sid]
        return None

    def _shown(self) -> list[Affordance]:
        """The page's controls that can be used (a calendar shown inline included)."""
        return [a for a in self.d.app.page().affordances if not a.attr_map().get("disabled")]

    def _find(self, fits: Callable[[Affordance], bool]) -> Affordance | None:
        """A control that `fits` — where several do, the oracle's choice — loading more of
        an endless list as scrolling would."""
        found: list[Affordance] = []
        for _ in range(20):
            found = [a for a in self._shown() if fits(a)]
            chosen = self._oracle_choice(found)
            if chosen is not None:
                return chosen
            more = next((a for a in self.d.app.page().affordances if a.kind == "More"), None)
            if more is None:
                break
            self.d.app.dispatch(more.click_event())
        return found[0] if found else None

    def _labelled(self, label: str, verb: str | None = None) -> Affordance | None:
        return self._find(
            lambda a: (
                (verb is None or a.verb == verb)
                and label in (a.label, plain(a.label), field_label(a.label))
            )
        )

    def _by_sid(self, sid: str) -> Affordance | None:
        return next((a for a in self._shown() if a.sid == sid), None)

    def _click(self, aff: Affordance | None, what: str) -> str | None:
        if aff is None:
            return f"no {what} on the page"
        self.d.act(aff, "submit" if aff.kind == "Form" else "click")
        return None

    # ------------------------------------------------------------ the sentences
    def _say_goto(self, m: re.Match[str]) -> str | None:
        return self._click(
            self._find(lambda a: bool(a.href) and plain(a.label) == m[1]), f"link {m[1]!r}"
        )

    def _say_enter(self, m: re.Match[str]) -> str | None:
        value, label = m[1], m[2]
        aff = self._labelled(label, "fill")
        if aff is None:
            return f"no field {label!r} to type into"
        self.d.act(aff, "fill", value)
        if m["suggest"]:
            name, want = aff.attr_map().get("name"), value.lower()
            suggestion = self._find(
                lambda a: (
                    a.kind == "Suggestion"
                    and a.attr_map().get("field") == name
                    and want in (str(a.attr_map().get(k, "")).lower() for k in ("value", "label"))
                )
            )
            if suggestion is not None:  # "if they show"
                self.d.act(suggestion, "click")
        return None

    def _say_set(self, m: re.Match[str]) -> str | None:
        label, option = m[1], m[2]
        aff = self._labelled(label, "select")
        if aff is None:
            return f"no dropdown {label!r}"
        chosen = next((o for o in aff.options if o.label == option), None)
        if chosen is None:
            return f"{label!r} has no option {option!r}"
        self.d.act(aff, "select", chosen.value)
        return None

    def _say_turn(self, m: re.Match[str]) -> str | None:
        aff = self._labelled(m[2], "select")
        if aff is None or aff.element != "checkbox":
            return f"no checkbox or switch {m[2]!r}"
        if bool(aff.attr_map().get("checked")) != (m[1] == "on"):
            self.d.act(aff, "click")
        return None

    def _say_choose(self, m: re.Match[str]) -> str | None:
        option, label = m[1], m[2] or m[3]
        aff = self._labelled(label, "select")
        if aff is None:
            return f"no choice {label!r}"
        chosen = next((o for o in aff.options if o.label == option), None)
        if chosen is None or chosen.sid is None:
            return f"{label!r} has no option {option!r} to click"
        if self._by_sid(chosen.sid) is None and aff.opener:
            self._click(self._by_sid(aff.opener), f"opener of {label!r}")
        return self._click(self._by_sid(chosen.sid), f"option {option!r} of {label!r}")

    def _say_pick(self, m: re.Match[str]) -> str | None:
        day = parse_spoken_date(m[1])
        picker = self._find(lambda a: a.kind == "DatePicker" and field_label(a.label) == m[2])
        if day is None or picker is None:
            return f"no calendar {m[2]!r}" if day is not None else f"not a date: {m[1]!r}"
        name = picker.attr_map().get("name")
        day_sid = f"day:{name}={day.isoformat()}"
        shows_days = any(a.kind == "Day" for a in self._shown())
        if self._by_sid(day_sid) is None and picker.opener and not shows_days:
            self.d.act(picker, "click")
        for _ in range(24):
            found = self._by_sid(day_sid)
            if found is not None:
                self.d.act(found, "click")
                return None
            shown = [
                str(a.attr_map()["date"])
                for a in self._shown()
                if a.kind == "Day" and a.attr_map().get("picker") == name
            ]
            if not shown:
                break
            step = "next-month" if day.isoformat() > max(shown) else "prev-month"
            if self._click(self._by_sid(f"cal:{name}:{step}"), "month button"):
                break
        return f"the calendar {m[2]!r} never shows {day}"

    def _say_submit(self, m: re.Match[str]) -> str | None:
        aff = self._find(lambda a: a.verb == "submit" and a.label == m[1])
        if aff is None:
            return f"no form to submit with {m[1]!r}"
        self.d.act(aff, "submit")
        return None

    def _say_tab(self, m: re.Match[str]) -> str | None:
        return self._click(self._find(lambda a: a.kind == "Tab" and plain(a.label) == m[1]), "tab")

    def _say_section(self, m: re.Match[str]) -> str | None:
        found = self._find(lambda a: a.kind == "Accordion" and plain(a.label) == m[1])
        return self._click(found, "section")

    def _say_menu(self, m: re.Match[str]) -> str | None:
        return self._click(self._labelled(m[1]), f"menu {m[1]!r}")

    def _say_sort(self, m: re.Match[str]) -> str | None:
        return self._click(
            self._find(lambda a: a.kind == "Sort" and plain(a.label) == m[1]), "sort"
        )

    def _say_click(self, m: re.Match[str]) -> str | None:
        return self._click(
            self._find(lambda a: a.verb == "click" and plain(a.label) == m[1]), f"{m[1]!r}"
        )

    def _say_open(self, m: re.Match[str]) -> str | None:
        named = re.match(rf"^the [\w-]+ {Q}$", m[1])  # "the card “Fix footer links”"

        def fits(a: Affordance) -> bool:
            if a.kind not in ("Item", "Result"):
                return False
            attrs = a.attr_map()
            return not named or named[1] in (a.label, *(attrs.get(k) for k in NAME_ATTRS))

        return self._click(self._find(fits), f"entry {m[1]!r} listed")

    def _say_report(self, m: re.Match[str]) -> str | None:
        answer = next((p.value for p in self.d.task.plan if p.verb == "done_success"), "")
        self.d.done(True, answer or "")
        return None

    def _say_stop(self, m: re.Match[str]) -> str | None:
        reason = next((p.value for p in self.d.task.plan if p.verb == "done_fail"), "")
        self.d.done(False, reason or "it cannot be done")
        return None

    def _say_nothing(self, m: re.Match[str]) -> str | None:
        return None


def plain(label: str) -> str:
    """A label without the count it shows ("Cart (2)" → "Cart")."""
    return re.sub(r"\s*\(\d+\)$", "", label).strip() or label


def parse_spoken_date(text: str) -> dt.date | None:
    """ "Monday 16 February 2026" → the date (the recipe's way of saying one)."""
    m = _DATE.match(text)
    if not m or m[2] not in MONTH_NAMES:
        return None
    return dt.date(int(m[3]), MONTH_NAMES.index(m[2]) + 1, int(m[1]))
