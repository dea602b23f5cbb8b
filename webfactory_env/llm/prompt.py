"""What a language model is told each step, and how its action is read back from a reply.

The system prompt is rendered from the text actions' own documentation
(`actions.TEXT_ACTIONS`: one source for the parser, its errors and this prompt); the user
turn is the env's text observation plus the recent actions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from webfactory_env.actions import (
    MAX_TEXT_ACTION,
    TEXT_ACTIONS,
    Decoded,
    TextAction,
    parse_text_action,
)

OPENING = "You operate a website in a web browser to complete one task for a user."

TEXT_VIEW = """\
Each turn you are shown the task (Goal), the exact strings it needs (Values), how your last \
action went, and the visible part of the page as a tree. Interactive elements carry an \
index in brackets, like [12]: actions name elements by that index, and indices change when \
the page changes, so always use the ones of the page you are shown now. Text lines and \
containers (banner, navigation, main, form, list, dialog, ...) have no index. Only what is \
in view is listed: scroll to see more."""

RULES = """\
Strings go in double quotes; write \\" for a quote inside a string and \\n for a new line. \
An action the page cannot take is refused: nothing happens, the step is used up, and the \
next turn says why.

Do only what the task asks. Changing anything else the site keeps (placing another order, \
deleting or editing another record, switching another setting, saving another item) fails \
the task, even when the task itself is done. Looking around, searching and filtering are \
fine."""


def reply_format(example: str) -> str:
    """How a reply carries its action: alone on its last line."""
    return (
        "Reply with exactly one action per turn. You may think briefly first; then write the"
        " action alone on the last line of your reply, with nothing after it, for example:\n"
        + example
    )


INTRO = "\n\n".join([OPENING, TEXT_VIEW, reply_format("click(12)"), RULES])

STOPPING = """\
The episode ends by itself the moment the task is done (an order placed, a form saved). \
Otherwise only done(...) ends it, or running out of steps: every reply uses one step, \
valid or not, and each turn shows how many you have had."""


def action_docs(actions: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """The actions as the prompt lists them: forms, what each does, an example."""
    lines = []
    for a in actions:
        lines.append(f"- {' or '.join(a.forms)}: {a.doc}")
        if a.examples:
            lines.append(f"  Example: {a.examples[0]}")
    return "\n".join(lines)


def system_prompt(intro: str = INTRO, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """The system prompt: how turns work (`intro`), every action of `grammar`, and how an
    episode ends."""
    ending = [a for a in grammar if a.name == "done"]
    acting = [a for a in grammar if a.name != "done"]
    return "\n\n".join(
        [
            intro,
            "Actions:\n" + action_docs(acting),
            "Ending the episode:\n" + action_docs(ending) + "\n" + STOPPING,
        ]
    )


def prompt_digest(prompt: str | None = None) -> str:
    """SHA-256 of a system prompt (the text agent's by default): which prompt a results
    file was made with."""
    return hashlib.sha256((system_prompt() if prompt is None else prompt).encode()).hexdigest()


def instruction(info: Mapping[str, Any]) -> str:
    """The task as the agent is told it. Every agent here reads it through this one
    function, so a change of how the env words tasks (`instruction_style`) reaches all."""
    return str(info.get("instruction") or "")


@dataclass(frozen=True)
class PastStep:
    """One earlier step as the model is reminded of it (secret values already hidden)."""

    action: str
    outcome: str


def user_turn(observation: str, history: Sequence[PastStep], notes: Sequence[str] = ()) -> str:
    """The user message of one step: the env's text observation, then the recent actions."""
    parts = [observation]
    if history:
        lines = [f"{i}. {h.action} -> {h.outcome}" for i, h in enumerate(history, 1)]
        parts.append("Your recent actions, oldest first:\n" + "\n".join(lines))
    parts.extend(notes)
    parts.append("Your action:")
    return "\n\n".join(parts)


_DECOR = re.compile(r"^(?:[-*>]\s+|(?:final\s+)?action\s*:\s*)", re.IGNORECASE)


@lru_cache(maxsize=4)
def _call_patterns(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A line that is one call of `names` alone, and such a call inside a sentence."""
    either = "|".join(sorted(names, key=len, reverse=True))
    return (
        re.compile(r"^(?:" + either + r")\s*\(.*\)$", re.IGNORECASE),
        re.compile(r"\b(?:" + either + r")\([^()\n]*\)", re.IGNORECASE),
    )


def _patterns(grammar: Sequence[TextAction]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    return _call_patterns(tuple(sorted({n for a in grammar for n in (a.name, *a.aliases)})))


def extract_action(reply: str, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str | None:
    """The action a reply ends with: its last line that is one action call of `grammar`
    (code fences, backticks, a list bullet or an "Action:" label around it are fine); None
    if no line is."""
    call = _patterns(grammar)[0]
    for raw in reversed(reply.strip().splitlines()):
        line = raw.strip()
        if not line or line.startswith("```"):
            continue
        line = _DECOR.sub("", line).strip().strip("`").strip()
        if call.match(line) and len(line) <= MAX_TEXT_ACTION:
            return line
    return None


# What goes to the env for an unreadable reply whose last line would read as an action
# (a reply cut off at the token limit can end in a whole call): the env refuses it.
NOT_AN_ACTION = "(no readable action in the reply)"


def fallback_action(reply: str, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """What to hand the env when a reply holds no readable action: its last non-empty line
    (the env refuses it and the trace keeps it), "" for an empty reply — never a line that
    would be carried out as an action."""
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    last = lines[-1][:200] if lines else ""
    return NOT_AN_ACTION if isinstance(parse_text_action(last, grammar), Decoded) else last


@dataclass(frozen=True)
class Unreadable:
    """Why a reply gave no action: how the history shows it, and the note of the next turn."""

    shown: str
    note: str


def why_unreadable(
    reply: str, truncated: bool, grammar: Sequence[TextAction] = TEXT_ACTIONS
) -> Unreadable:
    """How a reply without a readable action is told back to the model."""
    if truncated:
        return Unreadable(
            "(your reply was cut off at the token limit)",
            "Your last reply was cut off at the token limit, so it was not carried out: keep "
            "your thinking short and end with the action.",
        )
    if not reply.strip():
        return Unreadable(
            "(an empty reply)", "Your last reply was empty: end every reply with one action."
        )
    inline = _patterns(grammar)[1].findall(reply)
    if inline:
        return Unreadable(
            "(an action inside a sentence)",
            f"Your last reply had the action {inline[-1]} inside a sentence, so it was not "
            "carried out: write the call alone on the last line of your reply, with nothing "
            "after it.",
        )
    return Unreadable(
        "(no action in your reply)",
        "Your last reply had no action: write one call alone on the last line of your "
        f"reply, for example {grammar[0].examples[0]}.",
    )
