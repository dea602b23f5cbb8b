"""Compile a DSL task against a generated site by running the site's own app in Python.

The compiler walks the task's steps over a fresh app, exactly as an agent following the
task would: each target is resolved against the affordances of the page the app shows at
that moment (the witness set, ranked in page order), the primary witness is acted on, and
the affordance's declared effect, bound to this step's values, becomes the step's
subgoal (shaping). What each step changed in the state a goal may pin is recorded, and
at the end `tasks.goal` turns the run into the task's goal: conjuncts over entity-keyed
state that must hold together. A step whose effect does not hold afterwards (a validation
error, a disabled button), a goal that already holds at reset, an assertion that already
holds at reset and a "first / best by X" whose tie the page does not break are compile
errors, so every compiled task is solvable by its own oracle plan and by nothing less.
Conditions (`if`, `wait`) are decided on the simulated state and loops are unrolled: a
compiled task is a straight line.
"""

from __future__ import annotations

import copy
import datetime as dt
import html as _html
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from webfactory_env.core.answers import AnswerKey, kind_of
from webfactory_env.core.errors import did_you_mean
from webfactory_env.core.predicates import (
    AGENT_STATE,
    MISSING,
    All,
    AnswerMatch,
    Any_,
    Contains,
    Eq,
    Exists,
    Gt,
    Lt,
    Match,
    Not,
    Predicate,
    answer_matches,
    fuzzy_match,
    lookup,
    parse_path,
)
from webfactory_env.core.seeding import SeedStream, stable_digest
from webfactory_env.dsl import ast
from webfactory_env.dsl.errors import DslError
from webfactory_env.sitegen.app import neutral
from webfactory_env.sitegen.registry import Site
from webfactory_env.sitegen.spec import Affordance, AppEvent, Option
from webfactory_env.sitegen.state import PINNED_PARTS, changes, leaf_changes
from webfactory_env.tasks.compiled import CompiledTask, PlanStep, PlanVerb, Subgoal
from webfactory_env.tasks.goal import Conjunct, PinnedAssert, StepRun, derive_goal
from webfactory_env.tasks.instruction import (
    answer_surface,
    answer_surface_state,
    attr_words,
    fill_sentence,
    goal_templates,
    keep_sentence,
    paraphrase_instruction,
    path_words,
    placeholders,
    quote,
    render_goal,
    select_sentence,
    target_words,
)

COMPILER_VERSION = "0.3.0"
MAX_TIE_FORKS = 6  # tied alternatives explored for the answers they lead to
NAME_FIELDS = ("title", "name", "username", "code")  # how a `[key]` may name an entity
MAX_LOOP_ITEMS = 50
MAX_REVEAL = 24  # pages forward, or months in a calendar, before giving up
VALUE_FILTERS: dict[str, Callable[[str], Any]] = {
    "last4": lambda v: "".join(c for c in v if c.isdigit())[-4:],
    "bool": lambda v: v.strip().lower() in ("true", "on", "yes", "1"),
    "upper": lambda v: v.strip().upper(),
    "strip": lambda v: v.strip(),
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class CompileError(DslError):
    """The task cannot be compiled against this site; the message says where and why."""


@dataclass(frozen=True)
class _Located:
    """A node-like position for errors about a compiled subgoal."""

    line: int
    column: int

    @property
    def span(self) -> ast.Span:
        return ast.Span(self.line, self.column, self.line, self.column + 1)


@dataclass(frozen=True)
class _Move:
    """One oracle action made while compiling a step."""

    verb: PlanVerb
    sid: str
    value: str | None = None


@dataclass(frozen=True)
class _Match:
    affordance: Affordance
    option: Option | None = None


def compile_task(task_file: ast.TaskFile, site: Site, task_name: str | None = None) -> CompiledTask:
    """Compile one task of `task_file` (the only one, or `task_name`) against `site`."""
    tasks = {t.name: t for t in task_file.tasks}
    if task_name is None:
        if len(task_file.tasks) != 1:
            raise CompileError(
                f"{len(task_file.tasks)} tasks in this file; say which one to compile",
                filename=task_file.filename,
                source=task_file.source,
                span=task_file.tasks[0].span if task_file.tasks else ast.NO_SPAN,
                hint="names: " + ", ".join(tasks),
            )
        task = task_file.tasks[0]
    elif task_name in tasks:
        task = tasks[task_name]
    else:
        raise CompileError(
            f"no task named {task_name!r} in this file.{did_you_mean(task_name, tasks)}",
            filename=task_file.filename,
            source=task_file.source,
            span=ast.NO_SPAN,
        )
    return _Compiler(task_file, task, site).run()


@dataclass(frozen=True)
class _Tie:
    """A "first / best by X" choice whose runner-up ties it on X (the sort key)."""

    line: int
    column: int
    key: str
    chosen: str  # semantic id
    others: tuple[str, ...]


class _Compiler:
    def __init__(
        self,
        task_file: ast.TaskFile,
        task: ast.TaskDef,
        site: Site,
        choose: Mapping[tuple[int, int], str] | None = None,
        forking: bool = True,
    ) -> None:
        self.file = task_file
        self.task = task
        self.site = site
        self.app = site.new_app()
        self.schema = site.family.schema
        # State views are built afresh for every state and never changed afterwards (the
        # app's contract, tested in tests/test_state_views.py): keeping them costs no copy.
        self.reset_view = self.app.state_view()
        self.seen_views: list[Mapping[str, Any]] = [self.reset_view]  # for "did you mean"
        # Which witness to take at a tied step (line, column) -> sid: set when the compiler
        # re-runs a task down a tied alternative to learn the answer it leads to.
        self.choose = dict(choose or {})
        self.forking = forking
        self.asks_question = _asks_question(task.steps)
        self.ties: list[_Tie] = []
        self.sort_keys: dict[str, tuple[str, str]] = {}  # route -> (key, order) shown
        self.runs: list[StepRun] = []
        self.asserts: list[PinnedAssert] = []
        self.writes: dict[str, set[tuple[str, ...]]] = {}  # subgoal -> paths it changed
        self.final_answer = ""
        self.named_values: dict[str, Any] = {}  # field/choice name -> value the steps set
        self.ending_conjunct: Conjunct
        self.params: dict[str, Any] = {}
        self.loop_vars: dict[str, str] = {}
        self.subgoals: list[Subgoal] = []
        self.plan: list[PlanStep] = []
        self.values: set[str] = set()
        self.bindings: dict[str, Any] = {}
        self.surface: list[str] = []
        self.entry_subgoal: str | None = None  # the step that brought us to the current page
        self.steps_seen = 0
        self.ending: ast.Step | None = None  # the `answer` or `infeasible` that ends the task

    def known_paths(self) -> set[tuple[str, ...]]:
        """Every state path the views seen so far hold, and the agent's own."""
        out = {("agent",), *(("agent", k) for k in AGENT_STATE)}
        for view in self.seen_views:
            out |= _paths(view)
        return out

    # ------------------------------------------------------------------ errors
    def error(self, message: str, node: Any, hint: str | None = None) -> CompileError:
        span = getattr(node, "span", ast.NO_SPAN)
        return CompileError(
            message, filename=self.file.filename, source=self.file.source, span=span, hint=hint
        )

    # --------------------------------------------------------------------- run
    def run(self) -> CompiledTask:
        for param in self.task.params:
            self.params[param.name] = self._param(param)
        self._steps(self.task.steps)
        if not self.subgoals:
            raise self.error(
                f"task {self.task.name!r} has no step that changes the site", self.task
            )
        goal = self._goal()
        subgoals = tuple(self.subgoals)
        permitted = frozenset(sid for g in subgoals for sid in g.witness)
        params = {k: _jsonable(v) for k, v in sorted(self.params.items())}
        digest = stable_digest(
            {
                "compiler": COMPILER_VERSION,
                "dsl": ast_version(),
                "task": self.task.name,
                "source": self.file.source,
                "site": self.site.digest,
                "params": params,
            }
        )
        goals = self._goal_sentences()
        return CompiledTask(
            name=self.task.name,
            family=self.site.spec.family,
            site_digest=self.site.digest,
            source=self.file.source,
            filename=self.file.filename,
            goal_text=goals[0] if goals else None,
            goal_paraphrases=goals[1:],
            instruction=" ".join(self.surface),
            paraphrases=paraphrase_instruction(self.surface),
            subgoals=subgoals,
            plan=tuple(self.plan),
            values=tuple(sorted(self.values)),
            bindings=self.bindings,
            params=params,
            dsl_version=ast_version(),
            compiler_version=COMPILER_VERSION,
            digest=digest,
            permitted=permitted,
            goal=tuple(goal),
            transitions=frozenset(t for t in self.app.take_fired() if not neutral(t)),
            tracked=tuple(
                (n, node.kind if node.kind in ("table", "object") else "value")
                for n, node in self.schema.root.items()
                if node.part in PINNED_PARTS
            ),
        )

    def _goal_sentences(self) -> tuple[str, ...]:
        """The task's goal in words, and its paraphrases, filled with this seed's values."""
        known = {**self.named_values, **self.params}
        out = []
        for template in goal_templates(self.task.doc):
            missing = [p for p in placeholders(template) if p not in known]
            if missing:
                raise self.error(
                    f"the goal names {{{missing[0]}}}, which is no parameter of the task and no "
                    "field or choice its steps fill",
                    self.task,
                    hint="placeholders: " + ", ".join(sorted(known)) if known else None,
                )
            out.append(render_goal(template, known))
        return tuple(out)

    def _goal(self) -> list[Conjunct]:
        """The task's goal from its run (see `tasks.goal`), checked: it holds at the end,
        not at reset, and every conjunct is pinned to what the steps did."""
        final = self.app.state_view()
        goal = derive_goal(
            self.schema, self.reset_view, final, self.runs, self.asserts, self.ending is None
        )
        if self.ending is not None:
            goal.append(self.ending_conjunct)
        # An assertion about a record the task creates pays when that record is made.
        made = {c.record: c.predicate for c in goal if c.record is not None}
        for a in self.asserts:
            if a.new_record in made:
                self.subgoals = [
                    _replace(g, predicate=made[a.new_record])
                    if (g.line, g.column, g.id.startswith("assert")) == (a.line, a.column, True)
                    else g
                    for g in self.subgoals
                ]
        if not goal:
            raise self.error(
                f"task {self.task.name!r} has no goal: none of its steps changes what the "
                "site keeps (orders, bookings, cards, settings, sign-in...) and it does not "
                "end on a page or with an answer",
                self.task,
                hint="add the step that does the task, or end it with `answer` or an `assert`",
            )
        agent_done = {
            "done": True,
            "claimed": not isinstance(self.ending, ast.Infeasible),
            "answer": self.final_answer,
        }
        at_end = {**final, "agent": agent_done}
        for c in goal:
            if not c.predicate.holds(at_end):
                raise self.error(
                    f"the goal does not hold when the task ends: {c.description}",
                    _Located(c.line, c.column) if c.line else self.task,
                    hint=_explain(c.predicate, at_end),
                )
        at_reset = {**self.reset_view, "agent": dict(AGENT_STATE)}
        if all(c.predicate.holds(at_reset) for c in goal):
            raise self.error(
                f"the goal of task {self.task.name!r} already holds before anything is done "
                "on this site, so no agent could show it did the task",
                self.task,
                hint="; ".join(c.description for c in goal)[:300],
            )
        for c in goal:
            if isinstance(c.predicate, Exists) and c.predicate.holds(self.reset_view):
                raise self.error(
                    f"this step creates nothing new on this site: {c.description} exists already",
                    _Located(c.line, c.column),
                )
        return goal

    def _steps(self, steps: Iterable[ast.Step]) -> None:
        for step in steps:
            if self.ending is not None:
                what = "answer" if isinstance(self.ending, ast.Answer) else "infeasible"
                raise self.error(
                    f"nothing can follow `{what}`: it is how the task ends",
                    step,
                    hint=f"move the `{what}` statement to the end of the task",
                )
            self.steps_seen += 1
            if isinstance(step, ast.Goto):
                self._goto(step)
            elif isinstance(step, ast.Click):
                self._act(step, "click", step.target, None)
            elif isinstance(step, ast.Fill):
                self._act(step, "fill", step.target, step.value)
            elif isinstance(step, ast.Select):
                self._act(step, "select", step.target, step.value)
            elif isinstance(step, ast.Submit):
                self._act(step, "submit", step.target, None)
            elif isinstance(step, ast.Assert):
                self._assert(step)
            elif isinstance(step, ast.Wait):
                self._wait(step)
            elif isinstance(step, ast.If):
                taken = self._state_pred(step.condition).holds(self.app.state_view())
                self.bindings[f"if@{step.span.line}:{step.span.column}"] = (
                    "then" if taken else "else"
                )
                self._steps(step.then if taken else step.otherwise)
            elif isinstance(step, ast.For):
                self._for(step)
            elif isinstance(step, ast.Answer):
                self._answer(step)
            elif isinstance(step, ast.Infeasible):
                self._infeasible(step)
            else:  # pragma: no cover - the parser builds nothing else
                raise self.error(f"unsupported statement {type(step).__name__}", step)

    # ------------------------------------------------------------------ values
    def _param(self, param: ast.Param) -> Any:
        if param.default is None:
            raise self.error(
                f"parameter {param.name!r} has no value",
                param,
                hint=f'give it a default, e.g. {param.name} = "..."',
            )
        if isinstance(param.default, ast.Call) and param.default.name == "pick":
            return self._pick(param.default, param.name)
        value = self._value(param.default)
        types: dict[str, tuple[type, ...]] = {
            "string": (str,),
            "number": (int, float),
            "bool": (bool,),
        }
        expected = types.get(param.type or "")
        if expected is not None and (
            not isinstance(value, expected) or (param.type == "number" and isinstance(value, bool))
        ):
            raise self.error(
                f"parameter {param.name!r} is declared {param.type} but its default is "
                f"{_type_name(value)}",
                param.default,
            )
        return value

    def _value(self, v: ast.Value) -> Any:
        if isinstance(v, (ast.StringLit, ast.NumberLit, ast.BoolLit)):
            return v.value
        if isinstance(v, ast.Ident):
            if v.name in self.params:
                return self.params[v.name]
            return v.name  # a symbol such as `asc`
        if isinstance(v, ast.Call):
            return self._call(v)
        raise self.error("unsupported value", v)  # pragma: no cover

    def _call(self, call: ast.Call) -> Any:
        args = [self._value(a) for a in call.args]
        if call.name == "route":
            if len(args) != 1 or not isinstance(args[0], str) or not args[0].startswith("/"):
                raise self.error(
                    'route() takes one path starting with "/"', call, hint='e.g. route("/shop")'
                )
            return args[0]
        if call.name == "next":
            if len(args) != 1 or str(args[0]).lower() not in WEEKDAYS:
                raise self.error(
                    "next() takes a weekday name",
                    call,
                    hint='e.g. next("monday")'
                    + did_you_mean(str(args[0] if args else ""), WEEKDAYS),
                )
            today = dt.date.fromisoformat(self.site.spec.today)
            delta = (WEEKDAYS.index(str(args[0]).lower()) - today.weekday()) % 7 or 7
            return (today + dt.timedelta(days=delta)).isoformat()
        if call.name == "pick":
            return self._pick(call, f"pick@{call.span.line}:{call.span.column}")
        raise self.error(
            f"unknown function {call.name!r}.{did_you_mean(call.name, ['route', 'next', 'pick'])}",
            call,
            hint="functions: route(path), next(weekday), pick(entity.attribute)",
        )

    def _pick(self, call: ast.Call, name: str) -> Any:
        """A seeded choice among the values an entity attribute takes on this site."""
        args = [self._value(a) for a in call.args]
        if len(args) not in (1, 3) or not isinstance(args[0], str) or "." not in args[0]:
            raise self.error(
                'pick() takes "entity.attribute", optionally followed by a filter attribute '
                "and value",
                call,
                hint='e.g. pick("products.color") or pick("products.title", "stock", 0)',
            )
        table, _, attr = args[0].partition(".")
        entities = self.site.spec.entities
        if table not in entities:
            raise self.error(
                f"no entity table {table!r} on this site.{did_you_mean(table, entities)}",
                call.args[0],
            )
        rows = entities[table]
        fields = sorted(getattr(rows[0], "__slots__", None) or vars(rows[0])) if rows else []
        for field_name, node in (
            (attr, call.args[0]),
            *(((args[1], call.args[1]),) if len(args) == 3 else ()),
        ):
            if field_name not in fields:
                raise self.error(
                    f"{table} have no attribute {field_name!r}."
                    f"{did_you_mean(str(field_name), fields)}",
                    node,
                )
        if len(args) == 3:
            rows = tuple(r for r in rows if getattr(r, str(args[1])) == args[2])
        values = sorted({str(getattr(r, attr)) for r in rows})
        if not values:
            raise self.error(
                f"no {table} with {args[1]} = {args[2]!r} on this site to pick from",
                call,
                hint="this task cannot be instantiated on this seed",
            )
        rng = SeedStream(self.site.spec.seed).child("task").child(self.task.name).child(name)
        chosen = rng.choice(values)
        # What each drawn value is: checks swap it for another of the same kind.
        self.bindings.setdefault("picked", {})[name] = {"from": args[0], "value": chosen}
        return chosen

    # ------------------------------------------------------------- resolution
    def _page_affordances(self) -> tuple[Affordance, ...]:
        return self.app.page().affordances

    def _resolve(self, target: ast.TargetExpr, verb: str, quiet: bool = False) -> list[_Match]:
        page = self._page_affordances()
        if isinstance(target, ast.VarRef):
            sid = self.loop_vars.get(target.name)
            if sid is None:
                raise self.error(
                    f"{target.name!r} is not a loop variable here.",
                    target,
                    hint="targets look like Kind(attr = value)",
                )
            found = [a for a in page if a.sid == sid]
            if not found:
                if quiet:
                    return []
                raise self.error(
                    f"loop item {target.name!r} is not on page {self.app.route}", target
                )
            return [_Match(found[0])]
        kinds = self.site.family.kinds
        if target.kind not in kinds:
            raise self.error(
                f"unknown kind {target.kind!r}.{did_you_mean(target.kind, kinds)}",
                target,
                hint="kinds on this site: " + ", ".join(kinds),
            )
        candidates = [a for a in page if a.kind == target.kind]
        if not candidates:
            if quiet:
                return []
            here = sorted({a.kind for a in page})
            raise self.error(
                f"no {target.kind} on page {self.app.route}",
                target,
                hint="this page has: " + ", ".join(here),
            )
        known_attrs = {k for a in candidates for k, _ in a.attrs} | {
            k for a in candidates for o in a.options for k, _ in o.attrs
        }
        for pred in target.preds:
            if pred.attr not in known_attrs:
                if quiet:  # maybe a target behind a tab or a dialog: let reveal look
                    return []
                raise self.error(
                    f"{target.kind} has no attribute {pred.attr!r}."
                    f"{did_you_mean(pred.attr, known_attrs)}",
                    pred,
                    hint=f"{target.kind} attributes: " + ", ".join(sorted(known_attrs)),
                )
        preds = [(p, self._value(p.value)) for p in target.preds]
        matches: list[_Match] = []
        for aff in candidates:
            if verb == "select" and aff.options:
                for opt in aff.options:
                    merged = {**aff.attr_map(), **dict(opt.attrs)}
                    if all(self._pred_holds(p, v, merged) for p, v in preds):
                        matches.append(_Match(aff, opt))
            elif all(self._pred_holds(p, v, aff.attr_map()) for p, v in preds):
                matches.append(_Match(aff))
        return matches

    def _pred_holds(self, pred: ast.AttrPred, want: Any, attrs: Mapping[str, Any]) -> bool:
        if pred.attr not in attrs:
            return False
        have = attrs[pred.attr]
        if pred.op in (">", "<"):
            if not _is_number(want):
                raise self.error(f"{pred.op} compares numbers; got {_type_name(want)}", pred.value)
            if not _is_number(have):
                raise self.error(
                    f"attribute {pred.attr!r} is {_type_name(have)}, not a number", pred
                )
            return have > want if pred.op == ">" else have < want
        if pred.op == "~=":
            if not isinstance(want, str):
                raise self.error(f"~= matches text; got {_type_name(want)}", pred.value)
            return fuzzy_match(str(have), want)
        # "="
        if isinstance(have, bool) or isinstance(want, bool):
            if isinstance(have, bool) != isinstance(want, bool):
                raise self.error(
                    f"attribute {pred.attr!r} is {_type_name(have)}; "
                    f"compare it with {_type_name(have)} values, not "
                    f"{_type_name(want)}",
                    pred.value,
                )
            return have == want
        if _is_number(have) != _is_number(want):
            raise self.error(
                f"attribute {pred.attr!r} is {_type_name(have)}; got {_type_name(want)}", pred.value
            )
        if isinstance(have, str):
            return have.strip().lower() == str(want).strip().lower()
        return bool(have == want)

    # ------------------------------------------------------------------ steps
    def _goto(self, step: ast.Goto) -> None:
        route = self._value(step.route)
        if not isinstance(route, str) or not route.startswith("/"):
            raise self.error("goto needs a route", step.route, hint='e.g. goto route("/shop");')
        if self.app.route == route:
            return  # already there: nothing to do, nothing to reward
        page = self._page_affordances()
        links = [a for a in page if a.href == route and a.verb == "click"]
        if not links:
            if not self.app.known_route(route):
                routes = [r for r in self.site.spec.routes if not r.startswith("/product/")]
                raise self.error(
                    f"route {route!r} does not exist on this site."
                    f"{did_you_mean(route, self.site.spec.routes)}",
                    step.route,
                    hint="routes: " + ", ".join(routes),
                )
            raise self.error(
                f"no link to {route} on page {self.app.route}",
                step,
                hint="navigate to a page that links there first",
            )
        links.sort(key=lambda a: 0 if a.attr_map().get("region") == "nav" else 1)
        primary = links[0]
        text = primary.label or route
        self._perform(
            step,
            "click",
            [_Match(a) for a in links],
            None,
            surface=f"Go to the {_plain_label(text)} page.",
            slug=f"goto-{_slug(route) or 'home'}",
        )

    def _act(
        self, step: ast.Step, verb: str, target: ast.TargetExpr, value_node: ast.Value | None
    ) -> None:
        value = self._value(value_node) if value_node is not None else None
        matches, moves = self._locate(target, verb, value, step)
        if verb == "select":
            matches = self._select_option(matches, value, step, target)
        if not matches:
            raise self.error(
                f"no {_describe_target(target)} on page {self.app.route}",
                target,
                hint=self._near_misses(target),
            )
        wrong = [m for m in matches if m.affordance.verb != verb]
        if len(wrong) == len(matches):
            actual = matches[0].affordance.verb
            use = {
                "click": "click X;",
                "fill": "fill X with <value>;",
                "select": "select X option <value>;",
                "submit": "submit X;",
            }[actual]
            raise self.error(
                f"{_describe_target(target)} is not something to {verb}; it takes `{use}`", step
            )
        matches = [m for m in matches if m.affordance.verb == verb]
        if verb == "click":
            matches = self._break_ties(step, target, matches)
        if verb == "fill":
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise self.error(f"fill needs text; got {_type_name(value)}", value_node)
            value = str(value)
        primary = matches[0].affordance
        if primary.attr_map().get("disabled") is True:
            raise self.error(
                f"{_describe_target(target)} is disabled on this site "
                f"({primary.label!r} cannot be used)",
                target,
                hint="this task is infeasible on this seed",
            )
        surface = self._surface(verb, target, primary, matches[0].option, value, len(matches))
        self._perform(
            step,
            verb,
            matches,
            value,
            surface=surface,
            slug=f"{verb}-{_target_slug(target, primary)}",
            moves=moves,
        )

    def _locate(
        self, target: ast.TargetExpr, verb: str, value: Any, step: ast.Step
    ) -> tuple[list[_Match], list[_Move]]:
        """Matches of `target`, bringing it into view first if it is further down a
        paginated list or behind a dialog, a tab, an accordion or a menu."""
        moves: list[_Move] = []
        matches = self._resolve(target, verb, quiet=True)
        for _ in range(MAX_REVEAL):
            if self._usable(matches, verb, value) or not isinstance(target, ast.Target):
                break
            nxt = self._reveal_button()
            if nxt is None:
                break
            move = self._click(nxt, step)
            if nxt.kind != "More":  # an infinite list loads as the agent scrolls: no click
                moves.append(move)
            matches = self._resolve(target, verb, quiet=True)
        if not self._usable(matches, verb, value):
            opened = self._reveal_by_ui(target, verb, value, step, depth=2)
            if opened is not None:
                moves += opened
                matches = self._resolve(target, verb, quiet=True)
        if not matches:
            matches = self._resolve(target, verb)  # raises the precise error
        return matches, moves

    def _usable(self, matches: list[_Match], verb: str, value: Any) -> bool:
        if verb == "select" and value is not None:
            term = _option_term(value)
            return any(m.option is not None and m.option.matches(term) for m in matches)
        return bool(matches)

    def _reveal_by_ui(
        self, target: ast.TargetExpr, verb: str, value: Any, step: ast.Step, depth: int
    ) -> list[_Move] | None:
        """Try the page's UI-only openers (dialogs, tabs, accordions, menus), depth-first,
        keeping the first path that shows the target and undoing the others."""
        return self._reveal_until(
            lambda: self._usable(self._resolve(target, verb, quiet=True), verb, value), step, depth
        )

    def _reveal_until(
        self, shown: Callable[[], bool], step: ast.Step, depth: int
    ) -> list[_Move] | None:
        if depth == 0:
            return None
        openers = [
            a
            for a in self._page_affordances()
            if a.handler in ("ui.modal", "ui.tab", "ui.toggle")
            and not (a.handler == "ui.modal" and not a.arg)
            and a.kind not in ("Filter", "Sort", "Choice", "DatePicker", "FileUpload")
        ]
        for opener in openers:
            saved = copy.deepcopy(self.app.ui)
            move = self._click(opener, step)
            if shown():
                return [move]
            deeper = self._reveal_until(shown, step, depth - 1)
            if deeper is not None:
                return [move, *deeper]
            self.app.ui = saved
        return None

    def _reveal_button(self) -> Affordance | None:
        """The control that shows more of a list: a usable "next page" button."""
        for a in self._page_affordances():
            attrs = a.attr_map()
            if a.kind == "Button" and attrs.get("role") == "page" and attrs.get("step") == "next":
                return None if attrs.get("disabled") else a
            if a.kind == "More":
                return a
        return None

    def _select_option(
        self, matches: list[_Match], value: Any, step: ast.Step, target: ast.TargetExpr
    ) -> list[_Match]:
        if value is None:
            raise self.error("select needs an option", step)
        term = _option_term(value)
        chosen = [m for m in matches if m.option is not None and m.option.matches(term)]
        if not chosen and matches:
            labels = sorted({m.option.label for m in matches if m.option is not None})
            raise self.error(
                f"{_describe_target(target)} has no option {term!r}.{did_you_mean(term, labels)}",
                getattr(step, "value", step),
                hint="options: " + ", ".join(labels),
            )
        return chosen

    def _perform(
        self,
        step: ast.Step,
        verb: str,
        matches: list[_Match],
        value: Any,
        *,
        surface: str,
        slug: str,
        moves: list[_Move] | None = None,
    ) -> None:
        primary = matches[0]
        aff = primary.affordance
        before = self.app.state_view()
        bound_value: Any = value
        if verb == "select":
            assert primary.option is not None
            bound_value = primary.option.value
        if aff.effect is None:
            raise self.error(
                f"{aff.kind} {aff.label!r} has no declared effect on this site; "
                "a task cannot check it",
                step,
            )

        def resolve(name: str) -> Any:
            if name == "value":
                return bound_value
            name, _, filt = name.partition("|")
            if name == "value":
                found: Any = bound_value
            elif name.startswith("state:"):
                found = lookup(before, parse_path(name[6:]))
            else:
                raise KeyError(name)
            if not filt:
                return found
            if isinstance(found, Mapping):  # a whole draft: filter each of its values
                return {k: VALUE_FILTERS[filt](str(v)) for k, v in found.items()}
            return VALUE_FILTERS[filt](str(found))

        predicate = aff.effect.bind(resolve)
        if predicate.holds(before) and not aff.sticky:
            # Already true: nothing to do or reward here. But a dialog or tab opened to find
            # the target did change the page, so the plan must open it too. What the step
            # asks for is still part of the goal when it is the site's data ("keep security
            # alerts on"): it must still hold at the end.
            for mv in moves or []:
                self.plan.append(PlanStep(mv.verb, mv.sid, mv.value, None))
            if all(self.schema.pinned(p) for p in predicate.paths()):
                self.runs.append(
                    StepRun(
                        subgoal="",
                        line=step.span.line,
                        column=step.span.column,
                        maintained=predicate,
                    )
                )
            self.surface.append(keep_sentence(surface))
            return
        moves = list(moves or [])
        moves += self._operate(
            step, verb, primary, str(bound_value) if bound_value is not None else None, predicate
        )
        after = self.app.state_view()
        self.seen_views.append(after)
        if not predicate.holds(after):
            raise self.error(
                f"this step does not take effect on this site ({surface.rstrip('.')})",
                step,
                hint=_site_feedback(after),
            )
        sid_witness = tuple(
            dict.fromkeys([m.affordance.sid for m in matches] + [mv.sid for mv in moves])
        )
        subgoal_id = self._unique_id(slug)
        pinned = changes(self.schema, before, after, PINNED_PARTS)
        drafts = self._draft_writes(before, after, predicate)
        prerequisites = self._prerequisites(aff.effect, predicate)
        self._add_subgoal(
            Subgoal(
                id=subgoal_id,
                step=self.steps_seen,
                description=surface,
                predicate=predicate,
                witness=sid_witness,
                sticky=aff.sticky,
                prerequisites=prerequisites,
                line=step.span.line,
                column=step.span.column,
            )
        )
        self.runs.append(
            StepRun(
                subgoal=subgoal_id,
                line=step.span.line,
                column=step.span.column,
                changes=pinned,
                drafts=frozenset(drafts),
                navigation=not pinned and not drafts,
                page=predicate if not pinned and not drafts else None,
            )
        )
        self.writes[subgoal_id] = set(pinned) | drafts
        for mv in moves:
            self.plan.append(PlanStep(mv.verb, mv.sid, mv.value, subgoal_id))
            if mv.value is not None:
                self.values.add(mv.value)
        binding: dict[str, Any] = {"sid": aff.sid, "label": aff.label, **aff.attr_map()}
        if primary.option is not None:
            binding["option"] = primary.option.value
        name = aff.attr_map().get("name")
        if name and verb in ("fill", "select"):
            shown = primary.option.label if primary.option is not None else bound_value
            self.named_values[str(name)] = shown
        fallbacks = [m.affordance.sid for m in matches[1:]]
        if fallbacks:
            binding["fallbacks"] = list(dict.fromkeys(fallbacks))
        self.bindings[subgoal_id] = binding
        self.surface.append(surface)
        if self.app.route != before["route"]:
            self.entry_subgoal = subgoal_id
        if aff.kind == "Sort" or (verb == "select" and aff.kind == "Sort"):
            merged = {**aff.attr_map(), **dict(primary.option.attrs if primary.option else ())}
            if merged.get("key"):
                order = str(merged.get("order") or bound_value or "asc")
                self.sort_keys[self.app.route] = (str(merged["key"]), order)

    def _draft_writes(
        self, before: Mapping[str, Any], after: Mapping[str, Any], predicate: Predicate
    ) -> set[tuple[str, ...]]:
        """Draft fields a step wrote (or addressed: typing what was already there)."""
        out: set[tuple[str, ...]] = set()
        for name, node in self.schema.root.items():
            if node.part == "drafts":
                out |= set(leaf_changes(before.get(name), after.get(name), (name,)))
        out |= {p for p in predicate.paths() if self.schema.part(p) == "drafts"}
        return out

    # ------------------------------------------------------------- operating
    def _operate(
        self, step: ast.Step, verb: str, match: _Match, value: str | None, goal: Predicate
    ) -> list[_Move]:
        """Act on the site the way its widget requires, returning the moves made."""
        aff = match.affordance
        moves: list[_Move] = []
        if verb == "click":
            moves.append(self._click(aff, step))
        elif verb == "submit":
            # What the browser's FormData would hold.
            values = self.app.page().form_values(aff.sid)
            event = AppEvent(
                type="submit", handler=aff.handler, arg=aff.arg, sid=aff.sid, values=values
            )
            moves.append(self._dispatch(event, _Move("click", aff.sid), step))
        elif verb == "select":
            option = match.option
            assert option is not None and value is not None
            if aff.ui == "native":
                event = AppEvent(
                    type="change", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=value
                )
                moves.append(self._dispatch(event, _Move("select", aff.sid, option.label), step))
            elif aff.element == "checkbox":
                if bool(aff.attr_map().get("checked")) != (option.value == "true"):
                    moves.append(self._click(aff, step))
            else:
                assert option.sid is not None
                if self._find(option.sid) is None and aff.opener:
                    moves.append(self._click(self._need(aff.opener, step), step))
                moves.append(self._click(self._need(option.sid, step), step))
        else:  # fill
            assert value is not None
            if aff.ui == "calendar":
                moves += self._pick_date(step, aff, value)
            else:
                event = AppEvent(
                    type="input", handler=aff.handler, arg=aff.arg, sid=aff.sid, value=value
                )
                moves.append(self._dispatch(event, _Move("type", aff.sid, value), step))
                if aff.ui == "typeahead" and not goal.holds(self.app.state_view()):
                    moves.append(self._click(self._suggestion(aff, value, step), step))
        # An injected server error leaves a Retry button: use it, as a person would.
        for _ in range(3):
            retry = self._find("retry")
            if retry is None:
                break
            moves.append(self._click(retry, step))
        return moves

    def _page_shows(self, want: str) -> bool:
        """Whether one text of the current page states `want`. Each text is graded on its
        own: a whole page names many numbers, and an answer that lists many fails."""
        html = " ".join(self.app.page().regions.values())
        html = re.sub(r"<(style|script|template)\b.*?</\1>", " ", html, flags=re.S | re.I)
        texts = (_html.unescape(t).strip() for t in re.split(r"<[^>]*>", html))
        return any(answer_matches(t, want) for t in texts if t)

    def _find(self, sid: str) -> Affordance | None:
        return next((a for a in self._page_affordances() if a.sid == sid), None)

    def _need(self, sid: str, step: ast.Step) -> Affordance:
        found = self._find(sid)
        if found is None:
            raise self.error(f"the site does not show {sid!r} on page {self.app.route}", step)
        return found

    def _click(self, aff: Affordance, step: ast.Step) -> _Move:
        return self._dispatch(aff.click_event(), _Move("click", aff.sid), step)

    def _dispatch(self, event: AppEvent, move: _Move, step: ast.Step) -> _Move:
        n_errors = len(self.app.errors)
        self.app.dispatch(event)
        if len(self.app.errors) > n_errors:
            raise self.error(
                f"the site failed on this step: {self.app.errors[-1].get('message')}", step
            )
        return move

    def _suggestion(self, field: Affordance, value: str, step: ast.Step) -> Affordance:
        name = field.attr_map().get("name")
        want = value.strip().lower()
        for a in self._page_affordances():
            attrs = a.attr_map()
            if (
                a.kind == "Suggestion"
                and attrs.get("field") == name
                and want
                in (str(attrs.get("value", "")).lower(), str(attrs.get("label", "")).lower())
            ):
                return a
        raise self.error(
            f"typing {value!r} into {field.label!r} offers no matching suggestion", step
        )

    def _pick_date(self, step: ast.Step, picker: Affordance, iso: str) -> list[_Move]:
        name = picker.attr_map().get("name")
        moves: list[_Move] = []
        try:
            dt.date.fromisoformat(iso)
        except ValueError:
            raise self.error(f"{iso!r} is not a date (YYYY-MM-DD)", step) from None
        day_sid = f"day:{name}={iso}"
        if (
            self._find(day_sid) is None
            and picker.opener
            and not any(
                a.kind == "Day" and a.attr_map().get("picker") == name
                for a in self._page_affordances()
            )
        ):
            moves.append(self._click(picker, step))
        for _ in range(MAX_REVEAL):
            day = self._find(day_sid)
            if day is not None:
                moves.append(self._click(day, step))
                return moves
            shown = [
                a.attr_map()["date"]
                for a in self._page_affordances()
                if a.kind == "Day" and a.attr_map().get("picker") == name
            ]
            if not shown:
                break
            role = "next-month" if iso > max(map(str, shown)) else "prev-month"
            moves.append(self._click(self._need(f"cal:{name}:{role}", step), step))
        raise self.error(f"the date picker {picker.label!r} never shows {iso}", step)

    def _answer(self, step: ast.Answer) -> None:
        """The agent must report a fact of the site with `done(true, text)`."""
        moves: list[_Move] = []
        accepted: list[Any]
        if step.target is not None:
            assert step.attr is not None
            matches, moves = self._locate(step.target, "any", None, step)
            if not matches:
                raise self.error(
                    f"no {_describe_target(step.target)} on page {self.app.route}",
                    step.target,
                    hint=self._near_misses(step.target),
                )
            aff = matches[0].affordance
            attrs = aff.attr_map()
            if step.attr not in attrs:
                raise self.error(
                    f"{aff.kind} has no attribute {step.attr!r}.{did_you_mean(step.attr, attrs)}",
                    step,
                    hint=f"{aff.kind} attributes: " + ", ".join(sorted(attrs)),
                )
            value: Any = attrs[step.attr]
            same = [a for a in self._page_affordances() if _same_kind(a, aff)]
            # Every item that ties the chosen one on the list's sort key answers too.
            accepted = [value] + [a.attr_map().get(step.attr) for a in self._tied(aff, same)]
            candidates = [a.attr_map().get(step.attr) for a in same]
            what = answer_surface(step.attr, self._target_words(step.target, aff))
            self.bindings["answer"] = {"sid": aff.sid, "attr": step.attr, "value": value}
        else:
            assert step.path is not None
            path = self._path(step.path, step)
            state = self.app.state_view()
            value = lookup(state, path)
            text = ".".join(path)
            if value is MISSING:
                known = {".".join(p) for p in _paths(state)}
                raise self.error(f"unknown state path {text!r}.{did_you_mean(text, known)}", step)
            if isinstance(value, (dict, list)) or value in ("", None):
                raise self.error(
                    f"{text} is {value!r} here: not an answer",
                    step,
                    hint="answer a single value that the page shows",
                )
            accepted = [value]
            candidates = self._state_candidates(path)
            what = answer_surface_state(path, self.app.OPEN)
            self.bindings["answer"] = {"path": text, "value": value}
            # An agent that answers by pointing needs the value on the page: open the tab,
            # section or dialog that shows it (a value no page shows, such as a count the
            # agent must work out, stays as it is).
            want = _answer_text(value)
            if not self._page_shows(want):
                moves = self._reveal_until(lambda: self._page_shows(want), step, depth=2) or []
        expected = _answer_text(value)
        self.final_answer = expected
        if self.forking:
            accepted += [v for v in self._fork_answers() if v is not None]
        key = AnswerKey(
            accepted=tuple(dict.fromkeys(_answer_text(v) for v in accepted if v is not None)),
            kind=kind_of([value]),
            candidates=tuple(sorted({_answer_text(v) for v in candidates if v not in (None, "")})),
        )
        self.bindings["answer"]["accepted"] = list(key.accepted)
        self._ending(
            step,
            "answer",
            All(
                (
                    Eq(("agent", "done"), True),
                    Eq(("agent", "claimed"), True),
                    AnswerMatch(("agent", "answer"), key.to_json()),
                )
            ),
            f"Report {what}.",
            moves,
            PlanStep("done_success", "", expected, "answer"),
        )

    def _state_candidates(self, path: tuple[str, ...]) -> list[Any]:
        """Other values the answer at `path` could have been: the same field of every
        record of the table the page shows, or of the table the family names for it (a
        name in `DOMAINS` wins: the open thread's accepted author is one of the members)."""
        state = self.app.state_view()
        domain = self.app.DOMAINS.get(".".join(path))
        if domain is not None:
            table, _, field = domain.partition(".")
        else:
            table, field = self.app.OPEN.get(path[0], ""), path[-1]
        records = lookup(state, (table,)) if table else MISSING
        if not isinstance(records, Mapping):
            return []
        return [rec.get(field) for rec in records.values() if isinstance(rec, Mapping)]

    def _fork_answers(self) -> list[Any]:
        """The answers the tied alternatives lead to (the task re-run down each)."""
        found: list[Any] = []
        for tie in self.ties[:MAX_TIE_FORKS]:
            for other in tie.others[:MAX_TIE_FORKS]:
                fork = _Compiler(
                    self.file,
                    self.task,
                    self.site,
                    choose={**self.choose, (tie.line, tie.column): other},
                    forking=False,
                )
                try:
                    fork.run()
                except CompileError:
                    continue  # that alternative does not lead through the task
                found.append(fork.bindings.get("answer", {}).get("value"))
        return found

    def _infeasible(self, step: ast.Infeasible) -> None:
        """The task cannot be done here; the agent should stop and say so."""
        predicate = self._state_pred(step.condition)
        state = self.app.state_view()
        if not predicate.holds(state):
            raise self.error(
                "the task is not infeasible on this site: the condition does not hold",
                step.condition,
                hint=_explain(predicate, state),
            )
        self.bindings["infeasible"] = step.reason.value
        # Stopping is right only where the obstacle shows: the step that ran into it must
        # still hold, and so must the condition, when the agent says done(false). Without
        # this, done(false) at the first step would "solve" every infeasible task.
        obstacle = (self.subgoals[-1].predicate,) if self.subgoals else ()
        self._ending(
            step,
            "infeasible",
            All(
                (
                    *obstacle,
                    predicate,
                    Eq(("agent", "done"), True),
                    Eq(("agent", "claimed"), False),
                )
            ),
            "",
            [],
            PlanStep("done_fail", "", step.reason.value, "infeasible"),
            description=f"Stop and say that the task cannot be done: {step.reason.value}.",
        )

    def _ending(
        self,
        step: ast.Step,
        slug: str,
        predicate: Predicate,
        surface: str,
        moves: list[_Move],
        final: PlanStep,
        description: str = "",
    ) -> None:
        self.ending = step
        description = description or surface or "End the task correctly."
        self.ending_conjunct = Conjunct(
            slug, predicate, description, slug, step.span.line, step.span.column
        )
        self._add_subgoal(
            Subgoal(
                id=slug,
                step=self.steps_seen,
                description=description,
                predicate=predicate,
                witness=tuple(dict.fromkeys(m.sid for m in moves)),
                sticky=False,
                prerequisites=(self.subgoals[-1].id,) if self.subgoals else (),
                line=step.span.line,
                column=step.span.column,
            )
        )
        for mv in moves:
            self.plan.append(PlanStep(mv.verb, mv.sid, mv.value, slug))
        self.plan.append(final)
        if surface:
            self.surface.append(surface)

    def _assert(self, step: ast.Assert) -> None:
        predicate = self._state_pred(step.condition)
        state = self.app.state_view()
        if not predicate.holds(state):
            raise self.error(
                "this assertion does not hold after the steps above",
                step.condition,
                hint=_explain(predicate, state),
            )
        pinned = replace(
            self._pin(predicate, step.condition), line=step.span.line, column=step.span.column
        )
        if pinned.new_record is None and pinned.predicate.holds(self.reset_view):
            raise self.error(
                "this assertion already holds before the task starts, so it cannot show "
                "that the task was done",
                step.condition,
                hint=_explain(pinned.predicate, self.reset_view),
            )
        self.asserts.append(pinned)
        text = self._state_words(step.condition)
        # The subgoal pays when the pinned condition turns true (a condition on a record
        # the task creates: when such a record exists).
        shaping = (
            Exists((pinned.new_record[0],), pinned.predicate)
            if pinned.new_record is not None
            else pinned.predicate
        )
        self._add_subgoal(
            Subgoal(
                id=self._unique_id(
                    "assert-" + "-".join(_slug(".".join(p)) for p in sorted(predicate.paths()))[:60]
                ),
                step=self.steps_seen,
                description=f"Make sure that {text}.",
                predicate=shaping,
                witness=(),
                sticky=False,
                prerequisites=self._prerequisites(None, predicate),
                line=step.span.line,
                column=step.span.column,
            )
        )
        self.surface.append(f"Make sure that {text}.")

    def _wait(self, step: ast.Wait) -> None:
        if step.condition is not None:
            predicate = self._state_pred(step.condition)
            state = self.app.state_view()
            if not predicate.holds(state):
                raise self.error(
                    "this wait condition never becomes true after the steps above",
                    step.condition,
                    hint=_explain(predicate, state),
                )
        if step.duration_ms is not None and (
            not _is_number(step.duration_ms.value) or step.duration_ms.value < 0
        ):
            raise self.error("wait takes a non-negative number of milliseconds", step.duration_ms)

    def _for(self, step: ast.For) -> None:
        matches = self._resolve(step.query, "click")
        if not matches:
            raise self.error(
                f"no {_describe_target(step.query)} on page {self.app.route} to loop over",
                step.query,
            )
        if len(matches) > MAX_LOOP_ITEMS:
            raise self.error(
                f"the loop would run {len(matches)} times (at most {MAX_LOOP_ITEMS})",
                step.query,
                hint="narrow the query",
            )
        outer = self.loop_vars.get(step.var)
        for i, m in enumerate(matches):
            self.loop_vars[step.var] = m.affordance.sid
            self.bindings[f"for@{step.span.line}:{step.span.column}#{i}"] = m.affordance.sid
            self._steps(step.body)
        if outer is None:
            self.loop_vars.pop(step.var, None)
        else:
            self.loop_vars[step.var] = outer

    # ------------------------------------------------------------ predicates
    def _state_pred(self, expr: ast.StateExpr) -> Predicate:
        if isinstance(expr, ast.StateCall):
            return (
                All(tuple(self._cond(c) for c in expr.conds))
                if len(expr.conds) > 1
                else self._cond(expr.conds[0])
            )
        if isinstance(expr, ast.StateNot):
            return Not(self._state_pred(expr.item))
        if isinstance(expr, ast.StateAnd):
            return All(tuple(self._state_pred(x) for x in expr.items))
        if isinstance(expr, ast.StateOr):
            return Any_(tuple(self._state_pred(x) for x in expr.items))
        raise self.error("unsupported state expression", expr)  # pragma: no cover

    def _cond(self, cond: ast.StateCond) -> Predicate:
        path = self._path(cond.path, cond)
        text = ".".join(path)
        if self.schema.node(path) is None and path[0] != "agent":
            known = {".".join(p) for p in self.known_paths()}
            tops = sorted(self.schema.root)
            raise self.error(
                f"unknown state path {text!r}.{did_you_mean(text, known)}",
                cond,
                hint="state paths start with: " + ", ".join(tops),
            )
        value = self._value(cond.value)
        if cond.op in (">", "<") and not _is_number(value):
            raise self.error(f"{cond.op} compares numbers; got {_type_name(value)}", cond.value)
        cls = {"=": Eq, "~=": Match, ">": Gt, "<": Lt, "contains": Contains}.get(cond.op)
        if cls is None:
            raise self.error(f"unsupported operator {cond.op!r} in State(...)", cond)
        return cls(path, value)

    def _path(self, parts: tuple[ast.PathPart, ...], node: Any) -> tuple[str, ...]:
        """A state path with its `[key]`s resolved: a key is an entity's id, or a value of
        its `title`/`name` that only one entity of the table has."""
        out: list[str] = []
        for part in parts:
            if not isinstance(part, ast.PathKey):
                out.append(part)
                continue
            key = self._value(part.value)
            table = lookup(self.app.state_view(), tuple(out))
            if not isinstance(table, Mapping):
                raise self.error(f"{'.'.join(out)} is not a table of entities", part)
            if str(key) not in table:
                named = [
                    k
                    for k, rec in table.items()
                    if isinstance(rec, Mapping)
                    and any(str(rec.get(f, "")).lower() == str(key).lower() for f in NAME_FIELDS)
                ]
                if len(named) != 1:
                    raise self.error(
                        f"no single entity {key!r} in {'.'.join(out)}"
                        + (f" ({len(named)} have that name)" if named else ""),
                        part,
                        hint="a key is an id, or a title or name only one of them has",
                    )
                key = named[0]
            out.append(str(key))
        return tuple(out)

    def _pin(self, predicate: Predicate, node: Any) -> PinnedAssert:
        """An assertion made a goal: paths about the page ("the card that is open") are
        pinned to the entity open now; a condition on a record this task created is
        merged into that record's conjunct. Paths that only describe the page (filters,
        drafts, the route) are not the site's data and cannot be a goal."""
        state = self.app.state_view()
        new: set[tuple[str, str]] = set()

        def pin(p: Predicate) -> Predicate:
            if isinstance(p, (All, Any_)):
                return type(p)(tuple(pin(x) for x in p.items))
            if isinstance(p, Not):
                return Not(pin(p.item))
            path = getattr(p, "path", None)
            if path is None:
                return p
            table = self.app.OPEN.get(path[0])
            if table is not None:
                eid = str(lookup(state, (path[0], "id")) or "")
                if not eid:
                    raise self.error(f"no {path[0].replace('_', ' ')} is open at this step", node)
                value = getattr(p, "value", None)
                if eid not in (self.reset_view.get(table) or {}):
                    new.add((table, eid))
                    return type(p)(path[1:], value)  # type: ignore[call-arg]
                path = (table, eid, *path[1:])
                p = type(p)(path, value)  # type: ignore[call-arg]
            if self.schema.part(path) not in PINNED_PARTS:
                raise self.error(
                    f"State({'.'.join(path)}) describes the page being shown, not what the "
                    "site keeps, so it cannot be part of the goal",
                    node,
                    hint="assert what the site keeps ("
                    + ", ".join(n for n, x in self.schema.root.items() if x.part in PINNED_PARTS)
                    + "), or let the steps' own effects be the goal",
                )
            return p

        pinned = pin(predicate)
        if len(new) > 1 or (new and not _only_compares(pinned)):
            raise self.error(
                "an assertion about a record this task creates must name only that record, "
                "with plain conditions",
                node,
            )
        return PinnedAssert(
            pinned, node.span.line, node.span.column, new_record=next(iter(new), None)
        )

    def _prerequisites(self, template: Predicate | None, bound: Predicate) -> tuple[str, ...]:
        """The subgoals this step builds on: the one that brought the agent to this page,
        and those whose writes this step's effect reads (the cart an order is made of,
        the item a remove takes out)."""
        reads: set[tuple[str, ...]] = set(bound.paths())
        if template is not None:
            reads |= {
                parse_path(r[6:].partition("|")[0])
                for r in _refs(template)
                if r.startswith("state:")
            }
        found: list[str] = []
        if self.entry_subgoal and template is not None:
            found.append(self.entry_subgoal)
        for g in self.subgoals:
            if g.id in found or g.sticky:
                continue
            wrote = self.writes.get(g.id, set()) | g.predicate.paths()
            if any(_overlaps(w, r) for w in wrote for r in reads):
                found.append(g.id)
        return tuple(found)

    def _add_subgoal(self, subgoal: Subgoal) -> None:
        if self.subgoals:
            subgoal = _replace(subgoal, after=(self.subgoals[-1].id,))
        self.subgoals.append(subgoal)

    def _unique_id(self, slug: str) -> str:
        taken = {g.id for g in self.subgoals}
        if slug not in taken:
            return slug
        n = 2
        while f"{slug}-{n}" in taken:
            n += 1
        return f"{slug}-{n}"

    # ---------------------------------------------------------------- surface
    def _surface(
        self,
        verb: str,
        target: ast.TargetExpr,
        aff: Affordance,
        option: Option | None,
        value: Any,
        n_matches: int,
    ) -> str:
        label = aff.label or aff.kind
        if verb == "fill":
            return fill_sentence(label, value)
        if verb == "select":
            assert option is not None
            return select_sentence(label, option.label, aff.element == "checkbox")
        if verb == "submit":
            return f"Submit the form with {quote(label)}."
        if aff.kind in ("Item", "Result"):
            return f"Open {self._target_words(target, aff)}."
        return f"Click {quote(_plain_label(label))}."

    def _state_words(self, expr: ast.StateExpr) -> str:
        """A state expression in words, entities named as the page names them."""
        if isinstance(expr, ast.StateCall):
            parts = []
            for c in expr.conds:
                path = self._path(c.path, c)
                table = self.app.OPEN.get(path[0])
                if table is not None:
                    eid = str(lookup(self.app.state_view(), (path[0], "id")) or "")
                    path = (table, eid, *path[1:]) if eid else path
                verb = _op_words(c.op)
                parts.append(
                    f"{path_words(path, self._name_of)} {verb} {quote(self._value(c.value))}"
                )
            return " and ".join(parts)
        if isinstance(expr, ast.StateNot):
            return f"not ({self._state_words(expr.item)})"
        joiner = " and " if isinstance(expr, ast.StateAnd) else " or "
        return joiner.join(self._state_words(x) for x in expr.items)

    def _target_words(self, target: ast.TargetExpr, aff: Affordance) -> str:
        attrs = aff.attr_map()
        if not isinstance(target, ast.Target):
            name = next((attrs[a] for a in ("title", "name") if a in attrs), aff.label)
            return f"the {attrs.get('type') or aff.kind.lower()} {quote(name)}"
        preds = [(p.attr, p.op, self._value(p.value)) for p in target.preds]
        ranked = any(p.attr == "rank" for p in target.preds) or (self.app.route in self.sort_keys)
        return target_words(aff.kind, attrs, preds, ranked)

    def _name_of(self, table: str, key: str) -> str | None:
        record = lookup(self.app.state_view(), (table, key))
        if isinstance(record, Mapping):
            for f in NAME_FIELDS:
                if record.get(f):
                    return str(record[f])
        return None

    def _tied(self, chosen: Affordance, pool: list[Affordance]) -> list[Affordance]:
        """Entries of `pool` that tie `chosen` on the sort key the page is sorted by."""
        key = self.sort_keys.get(self.app.route, ("", ""))[0]
        value = chosen.attr_map().get(key) if key else None
        if value is None:
            return []
        return [a for a in pool if a.sid != chosen.sid and a.attr_map().get(key) == value]

    def _break_ties(
        self, step: ast.Step, target: ast.TargetExpr, matches: list[_Match]
    ) -> list[_Match]:
        """A "first / best by X" choice must be one entity: when the runner-up ties it on
        X, the goal is ambiguous (a compile error) unless the task only asks a question,
        whose tied answers are all accepted (the alternatives are compiled too)."""
        if not matches or not isinstance(target, ast.Target):
            return matches
        chosen = matches[0].affordance
        if chosen.kind not in ("Item", "Result"):
            return matches
        ranked = any(p.attr == "rank" for p in target.preds)
        if ranked:
            pool = [a for a in self._page_affordances() if _same_kind(a, chosen)]
        elif len(matches) > 1:
            pool = [m.affordance for m in matches]
        else:
            return matches
        tied = self._tied(chosen, pool)
        if not tied:
            return matches
        where = (step.span.line, step.span.column)
        self.ties.append(
            _Tie(where[0], where[1], self.sort_keys[self.app.route][0], chosen.sid,
                 tuple(a.sid for a in tied))
        )  # fmt: skip
        pick = self.choose.get(where)
        if pick is not None:
            alt = next((a for a in [chosen, *tied] if a.sid == pick), chosen)
            return [_Match(alt), *[m for m in matches if m.affordance.sid != alt.sid]]
        if not self.asks_question:
            key = attr_words(self.sort_keys[self.app.route][0])
            names = ", ".join(quote(a.label) for a in [chosen, *tied][:4])
            raise self.error(
                f"{self._target_words(target, chosen)} is not one entity on this site: "
                f"{names} tie on {key}, and the page's order does not say which the task "
                "means",
                target,
                hint="make the task say which one, or pick a seed without the tie",
            )
        return matches

    def _near_misses(self, target: ast.TargetExpr) -> str | None:
        if not isinstance(target, ast.Target):
            return None
        same = [a for a in self._page_affordances() if a.kind == target.kind]
        if not same:
            return None
        shown = ", ".join(f"{a.kind}({_attrs_text(a)})" for a in same[:4])
        return f"{target.kind}s on this page: {shown}" + (" ..." if len(same) > 4 else "")


# ------------------------------------------------------------------- helpers
def _answer_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    return str(value)


def ast_version() -> str:
    return ast.DSL_VERSION


def _replace(g: Subgoal, **changes: Any) -> Subgoal:
    from dataclasses import replace

    return replace(g, **changes)


def _paths(state: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for key, value in state.items():
        path = (*prefix, str(key))
        out.add(path)
        if isinstance(value, Mapping):
            out |= _paths(value, path)
    return out


def _refs(pred: Predicate) -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if set(node) == {"$ref"}:
                found.add(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(pred.to_json())
    return found


def _plain_label(label: str) -> str:
    """A link's label without the count it shows ("Cart (2)" → "Cart")."""
    return re.sub(r"\s*\(\d+\)$", "", label).strip() or label


def _asks_question(steps: Iterable[ast.Step]) -> bool:
    """Whether the task ends with `answer` (tied choices then lead to tied answers)."""
    last = list(steps)[-1:] if steps else []
    return bool(last) and isinstance(last[0], ast.Answer)


def _same_kind(a: Affordance, b: Affordance) -> bool:
    """Entries of the same list: same kind and same `type`."""
    return a.kind == b.kind and a.attr_map().get("type") == b.attr_map().get("type")


def _only_compares(p: Predicate) -> bool:
    if isinstance(p, All):
        return all(_only_compares(x) for x in p.items)
    return hasattr(p, "path") and hasattr(p, "value")


def _overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _type_name(x: Any) -> str:
    if isinstance(x, bool):
        return "a boolean"
    if _is_number(x):
        return "a number"
    if isinstance(x, str):
        return "text"
    return type(x).__name__


def _jsonable(x: Any) -> Any:
    return x if isinstance(x, (str, int, float, bool)) or x is None else str(x)


def _option_term(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


def _target_slug(target: ast.TargetExpr, aff: Affordance) -> str:
    if isinstance(target, ast.VarRef):
        return f"{aff.kind.lower()}-{_slug(aff.label)}"[:48]
    bits = [target.kind.lower()]
    for p in target.preds:
        if p.attr in ("type",):
            continue
        v = p.value
        text = (
            v.value
            if isinstance(v, (ast.StringLit, ast.NumberLit, ast.BoolLit))
            else getattr(v, "name", "")
        )
        bits.append(_slug(str(text)))
    return "-".join(b for b in bits if b)[:48]


def _describe_target(target: ast.TargetExpr) -> str:
    if isinstance(target, ast.VarRef):
        return target.name
    inner = ", ".join(f"{p.attr}{p.op}{_value_text(p.value)}" for p in target.preds)
    return f"{target.kind}({inner})"


def _value_text(v: ast.Value) -> str:
    if isinstance(v, ast.StringLit):
        return f'"{v.value}"'
    if isinstance(v, ast.BoolLit):
        return "true" if v.value else "false"
    if isinstance(v, ast.NumberLit):
        return str(v.value)
    if isinstance(v, ast.Ident):
        return v.name
    return f"{v.name}(...)"


def _attrs_text(a: Affordance) -> str:
    return ", ".join(
        f'{k}="{v}"' if isinstance(v, str) else f"{k}={v}" for k, v in a.attrs if k not in ("text",)
    )[:120]


def _op_words(op: str) -> str:
    return {"=": "is", "~=": "contains", ">": "is above", "<": "is below"}.get(op, op)


def _explain(predicate: Predicate, state: Mapping[str, Any]) -> str:
    parts = []
    for path in sorted(predicate.paths()):
        actual = lookup(state, path)
        parts.append(f"{'.'.join(path)} is {'missing' if actual is MISSING else repr(actual)}")
    return "; ".join(parts) or "the state does not match"


def _site_feedback(state: Mapping[str, Any]) -> str | None:
    """Validation messages the app reports anywhere in its state (`...errors` mappings)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if str(k).endswith("errors") and isinstance(v, Mapping) and v:
                    found.extend(f"{name}: {msg}" for name, msg in v.items())
                else:
                    walk(v, f"{path}.{k}" if path else str(k))

    walk(state, "")
    return ("the site reported: " + "; ".join(found)) if found else None
