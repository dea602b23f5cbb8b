"""The words of a compiled task: one plain sentence per step, in the site's own labels.

Sentences never show DSL syntax (`Kind(attr=...)`), attribute names with underscores or
internal ids: entities are named by what the page shows (a title, a name) or by their
place in a list ("the first mug listed"), and attributes by words ("departure time").
Which product is "the cheapest" is the agent's job, so a bound entity is never named
when the task chose it by rank.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# Attribute names that do not read well as they are.
ATTR_WORDS = {
    "depart": "departure time",
    "arrive": "arrival time",
    "product_type": "kind",
    "sku": "product code",
    "qty": "quantity",
    "in_stock": "stock status",
    "loyalty_number": "frequent flyer number",
    "accepted_author": "author of the accepted answer",
    "overdue": "number of overdue cards",
    "checked_bag_fee": "checked bag fee",
    "tracking_result": "tracking status",
    "viewed_order": "order",
    "viewed_login": "sign-in",
}
NAME_ATTRS = ("title", "name", "username", "id", "code", "destination", "city")


def attr_words(attr: str) -> str:
    """An attribute's name as words ("depart" → "departure time")."""
    if attr in ATTR_WORDS:
        return ATTR_WORDS[attr]
    return re.sub(r"_(cents|count|at|id)$", "", attr).replace("_", " ")


def quote(value: Any) -> str:
    if isinstance(value, bool):
        return "\u201cyes\u201d" if value else "\u201cno\u201d"
    return f"\u201c{value}\u201d"


def field_label(label: str) -> str:
    """A control's label as the agent sees it, without a trailing full stop."""
    return label.strip().rstrip(".:") or "the field"


def fill_sentence(label: str, value: Any) -> str:
    return f"Enter {quote(value)} in the {quote(field_label(label))} field."


def select_sentence(label: str, option: str, toggle: bool) -> str:
    name = quote(field_label(label))
    if toggle and option.lower() in ("true", "on", "yes", "false", "off", "no"):
        on = option.lower() in ("true", "on", "yes")
        return f"Turn {'on' if on else 'off'} {name}."
    return f"Set {name} to {quote(option)}."


Rules = tuple[tuple[re.Pattern[str], str], ...]


def _rules(pairs: tuple[tuple[str, str], ...]) -> Rules:
    return tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)


def _rewritten(rules: Rules, sentence: str) -> str:
    """`sentence` rewritten by the first rule that matches it (as it is if none does)."""
    for pattern, replacement in rules:
        new, n = pattern.subn(replacement, sentence)
        if n:
            return new
    return sentence


# The last sentence of an infeasible task's recipe: the steps lead up to the obstacle.
INFEASIBLE_ENDING = "If it cannot be done, stop and say why."

# A step whose effect already holds must stay so: its sentence becomes a "Keep" (the first
# rule that matches wins; every sentence that asks to type or choose has one).
_KEEPS = _rules(
    (
        (r"^Set (\u201c.+?\u201d) to (\u201c.*\u201d)\.$", r"Keep \1 set to \2."),
        (r"^Turn (on|off) (\u201c.+\u201d)\.$", r"Keep \2 \1."),
        (
            r"^Enter (\u201c.*\u201d) in the (\u201c.+?\u201d) field\b.*$",
            r"Keep \1 in the \2 field.",
        ),
        (
            r"^Choose (\u201c.*\u201d) (?:from the|under) (\u201c.+\u201d)(?: menu| list)?\.$",
            r"Keep \2 set to \1.",
        ),
        (r"^Pick (.+) in the (\u201c.+\u201d) calendar\.$", r"Keep \2 set to \1."),
    )
)


def keep_sentence(sentence: str) -> str:
    """The sentence of a step whose effect already holds: it must stay so."""
    return _rewritten(_KEEPS, sentence)


def target_words(
    kind: str,
    attrs: Mapping[str, Any],
    preds: Sequence[tuple[str, str, Any]],
    ranked: bool,
    position: int = 1,
) -> str:
    """How to point at a list entry in words: "the first mug listed", "the card “Fix the
    login page”", "the first product listed whose colour is “Red”". `preds` are the task's
    (attribute, operator, value) conditions; `ranked` says the entry was chosen by its
    place in a list (then no name is given away)."""
    noun = str(attrs.get("type") or kind.lower())
    named: Any = None
    conditions = []
    for attr, op, value in preds:
        if attr in ("type", "rank"):
            continue
        if attr.endswith("_type") and op == "=":
            noun = str(value)
        elif attr in NAME_ATTRS and op == "=" and not ranked:
            named = value
        else:
            verb = {"=": "is", "~=": "contains", ">": "is above", "<": "is below"}.get(op, op)
            conditions.append(f"{attr_words(attr)} {verb} {quote(value)}")
    if named is not None and not ranked:
        tail = f" whose {' and '.join(conditions)}" if conditions else ""
        return f"the {noun} {quote(named)}{tail}"
    rank = position
    ordinal = ORDINALS[rank - 1] if 0 < rank <= len(ORDINALS) else f"number {rank}"
    tail = f" whose {' and '.join(conditions)}" if conditions else ""
    return f"the {ordinal} {noun} listed{tail}"


def answer_surface(attr: str, target: str) -> str:
    return f"the {attr_words(attr)} of {target}"


def answer_surface_state(path: Sequence[str], shown: Mapping[str, str]) -> str:
    """ "the status of the order shown" for `viewed_order.status`."""
    *head, last = path
    if not head:
        return f"the {attr_words(last)}"
    owner = head[0]
    if owner in shown:
        return f"the {attr_words(last)} of the {attr_words(owner).replace('viewed ', '')} shown"
    if owner in ("feedback", "results", "search"):
        return f"the {attr_words(last)}"
    return f"the {attr_words(last)} of the {attr_words(owner)}"


def path_words(path: Sequence[str], name_of: Callable[[str, str], str | None]) -> str:
    """A state path in words; `table.<id>` becomes the entity's name where it has one."""
    if len(path) >= 3:
        name = name_of(path[0], path[1])
        noun = path[0][:-1] if path[0].endswith("s") else path[0]
        who = f"the {noun} {quote(name)}" if name else f"that {noun}"
        return f"the {attr_words(path[-1])} of {who}"
    if len(path) == 2:
        return f"the {attr_words(path[0])}'s {attr_words(path[1])}"
    return "the " + " ".join(attr_words(p) for p in path)


# Second wordings of the step sentences, one rule per sentence shape (the first rule that
# matches wins; a sentence no rule knows is kept as it is).
_REWORDINGS = _rules(
    (
        (r"^Go to the (.+) page\.$", r"Navigate to the \1 page."),
        (r"^Enter (\u201c.*\u201d) in the (\u201c.+\u201d) field\.$", r"Type \1 into \2."),
        (
            r"^Enter (\u201c.*\u201d) in the (\u201c.+?\u201d) field and (pick .+)$",
            r"Type \1 into \2 and \3",
        ),
        (r"^Set (\u201c.+?\u201d) to (\u201c.*\u201d)\.$", r"Choose \2 for \1."),
        (
            r"^Choose (\u201c.*\u201d) from the (\u201c.+\u201d) menu\.$",
            r"Open the \2 menu and pick \1.",
        ),
        (r"^Pick (.+) in the (\u201c.+\u201d) calendar\.$", r"In the \2 calendar, choose \1."),
        (r"^Open the (\u201c.+\u201d) (tab|section)\.$", r"Switch to the \1 \2."),
        (
            r"^If it cannot be done, stop and say why\.$",
            "Should that be impossible, stop and explain why.",
        ),
        (r"^Turn (on|off) (\u201c.+\u201d)\.$", r"Switch \2 \1."),
        (r"^Submit the form with (\u201c.+\u201d)\.$", r"Send the form using \1."),
        (r"^Open (the \S+ .+? listed.*)\.$", r"Find \1 and open it."),
        (r"^Open (the .+)\.$", r"Go to \1."),
        (r"^Click (\u201c.+\u201d)\.$", r"Press \1."),
        (r"^Report (.+)\.$", r"Find out \1 and give it as your answer."),
        (r"^Make sure that (.+)\.$", r"Check that \1."),
        (r"^Keep (.+)\.$", r"Leave \1."),
    )
)


def paraphrase_instruction(sentences: list[str]) -> tuple[str, ...]:
    """Two more wordings of the instruction made of `sentences`: the same steps in other
    words, and the steps as a numbered list."""
    if not sentences:
        return ()
    reworded = [_rewritten(_REWORDINGS, sentence) for sentence in sentences]
    numbered = (
        " ".join(f"{i}. {s}" for i, s in enumerate(sentences, 1)) if len(sentences) > 1 else ""
    )
    return tuple(dict.fromkeys(v for v in (" ".join(reworded), numbered) if v))


# --------------------------------------------------------------------- the goal
# A task's doc comment is its goal in words: a `Goal:` paragraph, then any number of `Or:`
# paraphrases, with `{placeholders}` for what the seed draws or the steps type:
#
#     // Goal: Buy the cheapest red mug and ship it to {full_name}, {address_line1}.
#     // Or: Order the least expensive red mug for {full_name} ({address_line1}).
#
# A placeholder names a parameter of the task, or the `name` of a field or choice a step
# fills or sets (its value, or the label of the option chosen).
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def goal_templates(doc: str | None) -> tuple[str, ...]:
    """The goal and its paraphrases from a task's doc comment (empty without one)."""
    if not doc:
        return ()
    out: list[str] = []
    for line in doc.splitlines():
        text = line.strip()
        head = re.match(r"^(goal|or)\s*:\s*", text, flags=re.I)
        if head:
            out.append(text[head.end() :])
        elif out:
            out[-1] = f"{out[-1]} {text}".strip()
        else:
            out.append(text)
    return tuple(t for t in out if t)


def placeholders(template: str) -> list[str]:
    return _PLACEHOLDER.findall(template)


def spoken(value: Any) -> str:
    """A value as a goal sentence says it: dates in words, booleans as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text)
    if m:
        import datetime as dt

        d = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return f"{WEEKDAY_NAMES[d.weekday()]} {d.day} {MONTH_NAMES[d.month - 1]} {d.year}"
    return text


_STATED = re.compile(r"\{([a-z_][a-z0-9_]*)\}|\u201c([^\u201d{}]+)\u201d")


def stated_values(template: str, values: Mapping[str, Any]) -> tuple[str, ...]:
    """The strings a goal states exactly, in the order it states them: its placeholders'
    values (as the goal says them: dates in words) and the strings it quotes."""
    out = (spoken(values[m[1]]) if m[1] else m[2] for m in _STATED.finditer(template))
    return tuple(dict.fromkeys(v for v in out if v))


def render_goal(template: str, values: Mapping[str, Any]) -> str:
    """`template` with each `{name}` replaced by `values[name]` (KeyError if missing)."""
    return _PLACEHOLDER.sub(lambda m: spoken(values[m.group(1)]), template)


def description_of(template: str) -> str:
    """A template for listings: placeholders shown as `<words>`."""
    return _PLACEHOLDER.sub(lambda m: f"<{m.group(1).replace('_', ' ')}>", template)
