"""The compiled task in words: each step's sentence of the instruction, the goal sentences,
targets and state named as the page names them, and the slugs subgoal ids are made of."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from webfactory_env.core.predicates import lookup
from webfactory_env.dsl import ast
from webfactory_env.sitegen.spec import Affordance, Option
from webfactory_env.tasks.compile.context import CompileRun
from webfactory_env.tasks.compile.predicates import NAME_FIELDS, state_path
from webfactory_env.tasks.compile.values import value_of
from webfactory_env.tasks.instruction import (
    ORDINALS,
    attr_words,
    field_label,
    fill_sentence,
    goal_templates,
    path_words,
    placeholders,
    quote,
    render_goal,
    select_sentence,
    spoken,
    stated_values,
    target_words,
)

OP_WORDS = {"=": "is", "~=": "contains", ">": "is above", "<": "is below"}
# Target attributes that pick the control itself, not the entry it belongs to.
CONTROL_ATTRS = frozenset({"role", "name", "text", "type", "label", "kind"})


def step_sentence(
    run: CompileRun,
    verb: str,
    target: ast.TargetExpr,
    aff: Affordance,
    option: Option | None,
    value: Any,
) -> str:
    """The instruction's sentence for acting on `aff`, naming the widget the page has: a
    field, a dropdown, a menu, a list, radio buttons, a calendar, a tab, a column heading."""
    label = aff.label or aff.kind
    if verb == "fill":
        if aff.ui == "calendar":
            return f"Pick {spoken(value)} in the {quote(field_label(label))} calendar."
        if aff.ui == "typeahead":
            return (
                f"{fill_sentence(label, value)[:-1]} and pick {quote(value)} from the "
                "suggestions if they show."
            )
        return fill_sentence(label, value)
    if verb == "select":
        assert option is not None
        if aff.element == "checkbox" or aff.ui == "native":
            return select_sentence(label, option.label, aff.element == "checkbox")
        where = {"menu": "from the {} menu", "typeahead": "from the {} list"}.get(
            aff.ui, "under {}"
        )
        return f"Choose {quote(option.label)} {where.format(quote(field_label(label)))}."
    if verb == "submit":
        return f"Submit the form with {quote(label)}."
    if aff.kind in ("Item", "Result"):
        return f"Open {target_words_for(run, target, aff)}."
    if aff.kind == "Tab":
        return f"Open the {quote(plain_label(label))} tab."
    if aff.kind == "Sort":
        return f"Click the {quote(plain_label(label))} column heading to sort by it."
    return f"Click {which_control(run, target, plain_label(label))}."


def which_control(run: CompileRun, target: ast.TargetExpr, label: str) -> str:
    """A control named by its label and, where the page repeats it, the entry it belongs to
    (“Sign out” where the device is “Brave on Linux”; the first “Accept answer” listed)."""
    if not isinstance(target, ast.Target):
        return quote(label)
    ordinal = ""
    conditions = []
    for p in target.preds:
        if p.attr in CONTROL_ATTRS:
            continue
        value = value_of(run, p.value)
        if p.attr == "rank" and isinstance(value, int) and 0 < value <= len(ORDINALS):
            ordinal = ORDINALS[value - 1]
        elif isinstance(value, bool) and p.op == "=":
            conditions.append(f"it is {'' if value else 'not '}{attr_words(p.attr)}")
        elif p.attr != "rank" and str(value).lower() != label.lower():
            verb = OP_WORDS.get(p.op, p.op)
            conditions.append(f"the {attr_words(p.attr)} {verb} {quote(value)}")
    named = f"the {ordinal} {quote(label)} listed" if ordinal else quote(label)
    return f"{named} where {' and '.join(conditions)}" if conditions else named


def opening_sentence(aff: Affordance) -> str:
    """The sentence of a move that only shows more of the page: the tab, section, menu or
    dialog a target is behind, or the next page of a list."""
    label = plain_label(aff.label or aff.kind)
    if aff.kind == "Tab":
        return f"Open the {quote(label)} tab."
    if aff.kind == "Accordion":
        return f"Open the {quote(label)} section."
    if aff.element == "button" and aff.ui in ("menu", "typeahead"):
        return f"Open the {quote(field_label(label))} menu."
    return f"Click {quote(label)}."


def stated_value(verb: str, aff: Affordance, option: Option | None, value: Any) -> str | None:
    """The value a step's sentence asks to type or choose, as the sentence states it (None
    for a click, a submit, or turning a checkbox on or off)."""
    if verb == "fill":
        return spoken(value) if aff.ui == "calendar" else str(value)
    if verb == "select" and option is not None and aff.element != "checkbox":
        return option.label
    return None


def goal_sentences(run: CompileRun) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The task's goal in words, and its paraphrases, filled with this seed's values; each
    with the strings it states exactly (`stated_values`)."""
    known = {**run.named_values, **run.params}
    out = []
    for template in goal_templates(run.task.doc):
        missing = [p for p in placeholders(template) if p not in known]
        if missing:
            raise run.error(
                f"the goal names {{{missing[0]}}}, which is no parameter of the task and no "
                "field or choice its steps fill",
                run.task,
                hint="placeholders: " + ", ".join(sorted(known)) if known else None,
            )
        out.append((render_goal(template, known), stated_values(template, known)))
    return tuple(out)


def state_words(run: CompileRun, expr: ast.StateExpr) -> str:
    """A state expression in words, entities named as the page names them."""
    if isinstance(expr, ast.StateCall):
        parts = []
        for c in expr.conds:
            path = state_path(run, c.path, c)
            table = run.app.OPEN.get(path[0])
            if table is not None:
                eid = str(lookup(run.app.state_view(), (path[0], "id")) or "")
                path = (table, eid, *path[1:]) if eid else path
            words = path_words(path, lambda t, k: _name_of(run, t, k))
            verb = OP_WORDS.get(c.op, c.op)
            parts.append(f"{words} {verb} {quote(value_of(run, c.value))}")
        return " and ".join(parts)
    if isinstance(expr, ast.StateNot):
        return f"not ({state_words(run, expr.item)})"
    joiner = " and " if isinstance(expr, ast.StateAnd) else " or "
    return joiner.join(state_words(run, x) for x in expr.items)


def target_words_for(run: CompileRun, target: ast.TargetExpr, aff: Affordance) -> str:
    """The entity a target picked, in words ("the cheapest product "Blue mug"")."""
    attrs = aff.attr_map()
    if not isinstance(target, ast.Target):
        name = next((attrs[a] for a in ("title", "name") if a in attrs), aff.label)
        return f"the {attrs.get('type') or aff.kind.lower()} {quote(name)}"
    preds = [(p.attr, p.op, value_of(run, p.value)) for p in target.preds]
    ranked = any(p.attr == "rank" for p in target.preds) or (run.app.route in run.sort_keys)
    return target_words(aff.kind, attrs, preds, ranked)


def _name_of(run: CompileRun, table: str, key: str) -> str | None:
    record = lookup(run.app.state_view(), (table, key))
    if isinstance(record, Mapping):
        for f in NAME_FIELDS:
            if record.get(f):
                return str(record[f])
    return None


def answer_text(value: Any) -> str:
    """A value as an agent would say it: `yes`/`no`, numbers without trailing zeros."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    return str(value)


def plain_label(label: str) -> str:
    """A link's label without the count it shows ("Cart (2)" → "Cart")."""
    return re.sub(r"\s*\(\d+\)$", "", label).strip() or label


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")


def target_slug(target: ast.TargetExpr, aff: Affordance) -> str:
    """A short id for a step's target (`item-blue-mug`), the stem of its subgoal's id."""
    if isinstance(target, ast.VarRef):
        return f"{aff.kind.lower()}-{slug(aff.label)}"[:48]
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
        bits.append(slug(str(text)))
    return "-".join(b for b in bits if b)[:48]


def describe_target(target: ast.TargetExpr) -> str:
    """A target as the task wrote it (`Item(type="product", rank=0)`), for errors."""
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


def attrs_text(a: Affordance) -> str:
    """An affordance's attributes as a target would spell them, for hints."""
    return ", ".join(
        f'{k}="{v}"' if isinstance(v, str) else f"{k}={v}" for k, v in a.attrs if k not in ("text",)
    )[:120]
