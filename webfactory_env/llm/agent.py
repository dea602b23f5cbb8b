"""`LLMAgent`: a language model as a WebTask-v0 policy, one chat call per step.

Each step the model gets the system prompt (`prompt.system_prompt`) and one user turn: the
env's text observation (goal, values, last action's result, the page tree) and its last
`history` steps (fewer only before that many were taken). The action is the last line of
the reply that is one call alone. A reply with no such line — prose, an action inside a
sentence, an empty reply, or one cut off at `max_tokens` (even if a whole call came before
the cut) — is malformed and never carried out: the env gets its last line (or, were that a
call, a text that is none), refuses it, charges the invalid penalty and the trace keeps
it; the history shows why and the next turn says how to do better. The agent gives up —
raising `AgentAbort`, which the evaluation harness turns into an outcome with a reason —
when the endpoint fails for good (after its retries) or the model gives `max_malformed`
unreadable replies in a row. Usage (tokens, latency, waits, cost, failures) is counted
per episode, failed calls included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from webfactory_env.actions import TEXT_ACTIONS, Decoded, TextAction, parse_text_action
from webfactory_env.llm.client import ChatClient, ChatError, ChatReply, Failure
from webfactory_env.llm.prompt import (
    PastStep,
    Unreadable,
    extract_action,
    fallback_action,
    system_prompt,
    user_turn,
    why_unreadable,
)
from webfactory_env.observation.text import shortened


class AgentAbort(Exception):
    """The agent cannot go on with this episode; the message says why."""


@dataclass
class EpisodeUsage:
    """What one episode's model calls cost and how they went."""

    calls: int = 0  # replies received
    requests: int = 0  # HTTP attempts, retries included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_missing: int = 0  # replies without token counts
    malformed_replies: int = 0  # no readable action (truncated and empty ones included)
    truncated_replies: int = 0  # cut at max_tokens
    empty_replies: int = 0
    retries: int = 0
    timeouts: int = 0
    http_errors: Counter[str] = field(default_factory=Counter)
    transport_errors: int = 0
    bad_replies: int = 0  # HTTP 200 bodies that were no chat completion
    backoff_s: float = 0.0  # planned waits between attempts (logical, not measured)
    latencies_s: list[float] = field(default_factory=list)  # wall clock, per call (failed too)
    failure: str | None = None

    def add(self, reply: ChatReply) -> None:
        self.calls += 1
        self.requests += reply.attempts
        self.retries += reply.attempts - 1
        self.backoff_s += reply.waited_s
        self.latencies_s.append(reply.latency_s)
        self._count(reply.failures)
        if reply.prompt_tokens is None or reply.completion_tokens is None:
            self.usage_missing += 1
        else:
            self.prompt_tokens += reply.prompt_tokens
            self.completion_tokens += reply.completion_tokens

    def failed(self, error: ChatError) -> None:
        self.failure = str(error)
        self.requests += len(error.failures)
        self.retries += len(error.failures) - 1
        self.backoff_s += error.waited_s
        self.latencies_s.append(error.latency_s)
        self._count(error.failures)

    def _count(self, failures: Sequence[Failure]) -> None:
        for f in failures:
            if f.kind == "timeout":
                self.timeouts += 1
            elif f.kind == "http" and f.status is not None:
                self.http_errors[str(f.status)] += 1
            elif f.kind == "transport":
                self.transport_errors += 1
            else:
                self.bad_replies += 1

    def cost(self, prices: tuple[float, float] | None) -> float | None:
        """USD at `prices` (input, output per million tokens); None when unpriced or the
        server reported no token counts."""
        if prices is None or self.usage_missing == self.calls:
            return None
        return round((self.prompt_tokens * prices[0] + self.completion_tokens * prices[1]) / 1e6, 6)


class LLMAgent:
    """A policy whose actions are a chat model's replies (see the module docstring).

    `env` is the text-mode env it acts in (unused: everything comes through `act`, so the
    agent works on wrappers and recorded observations alike)."""

    def __init__(
        self,
        env: Any,
        client: ChatClient,
        *,
        seed: int | None = None,
        history: int = 8,
        max_malformed: int = 5,
    ) -> None:
        self.client = client
        self.seed = seed
        self.history_size = max(history, 0)
        self.max_malformed = max(max_malformed, 1)
        self.system = system_prompt()
        self.reset()

    def reset(self) -> None:
        self.usage = EpisodeUsage()
        self.history: list[PastStep] = []
        self._sent: str | None = None  # the action text given to the env last step
        self._unreadable: str | None = None  # how the history shows last step's bad reply
        self._note: str | None = None
        self._malformed_run = 0
        self._abort: str | None = None

    # The text actions the model writes, and the functions its requests offer (none: it
    # writes its actions as text).
    grammar: Sequence[TextAction] = TEXT_ACTIONS
    tools: Sequence[Mapping[str, Any]] = ()

    def act(self, obs: Any, info: Mapping[str, Any] | None = None) -> str:
        """The next text action; `AgentAbort` when the episode cannot go on."""
        self._remember((info or {}).get("record"))
        if self._abort:
            raise AgentAbort(self._abort)
        notes = [self._note] if self._note else []
        recent = self.history[-self.history_size :] if self.history_size else []
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user_content(obs, info or {}, recent, notes)},
        ]
        self._note = None
        try:
            # Tools only when offered: a client of the text agent need not know of them.
            offered = {"tools": self.tools} if self.tools else {}
            reply = self.client.chat(messages, seed=self.seed, **offered)
        except ChatError as exc:
            self.usage.failed(exc)
            raise AgentAbort(f"the model endpoint failed: {exc}") from None
        self.usage.add(reply)
        return self._action(reply)

    def user_content(
        self, obs: Any, info: Mapping[str, Any], recent: Sequence[PastStep], notes: list[str]
    ) -> Any:
        """The user message's content: the text observation, then the recent actions."""
        if not isinstance(obs, str):
            raise TypeError("LLMAgent needs the env's text observation (obs_mode='text')")
        return user_turn(obs, recent, notes)

    def read_action(self, reply: ChatReply) -> str | None:
        """The action a whole reply gives, or None (its last line that is one call)."""
        return extract_action(reply.text, self.grammar)

    def unreadable(self, reply: ChatReply, truncated: bool) -> Unreadable:
        """How a reply without a readable action is told back to the model."""
        return why_unreadable(reply.text, truncated, self.grammar)

    def fallback(self, reply: ChatReply) -> str:
        """What the env gets for a reply without a readable action (and refuses)."""
        return fallback_action(reply.text, self.grammar)

    def _action(self, reply: ChatReply) -> str:
        truncated = reply.finish_reason == "length"
        # A reply cut off at the token limit is never acted on, even when a whole call
        # came before the cut: the model had not finished deciding.
        action = None if truncated else self.read_action(reply)
        if truncated:
            self.usage.truncated_replies += 1
        elif not reply.text.strip():
            self.usage.empty_replies += 1
        if action is None:
            self.usage.malformed_replies += 1
            self._malformed_run += 1
            if self._malformed_run >= self.max_malformed:
                # This reply still goes to the env (and the trace); the next act() stops.
                self._abort = (
                    f"the model gave no readable action in {self._malformed_run} replies in a row"
                )
            why = self.unreadable(reply, truncated)
            self._unreadable, self._note = why.shown, why.note
            self._sent = self.fallback(reply)
            return self._sent
        self._malformed_run = 0
        self._unreadable = None
        self._sent = action
        return action

    def _remember(self, record: Mapping[str, Any] | None) -> None:
        """Add the step the env just took to the history the model is reminded of."""
        if record is None or self._sent is None:
            return
        error = record.get("error")
        if self._unreadable is not None:
            # The env's parse error would only repeat it: the shown text says why.
            self.history.append(PastStep(self._unreadable, "refused"))
        else:
            shown = _shown(self._sent, bool(record["action"].get("redact")), self.grammar)
            outcome = f"refused: {error}" if error else "done"
            self.history.append(PastStep(shown, shortened(outcome, 300)))
        self._sent = None


def _shown(action: str, redact: bool, grammar: Sequence[TextAction] = TEXT_ACTIONS) -> str:
    """The action as the history shows it: a value typed into a secret field is hidden."""
    if not redact:
        return action
    decoded = parse_text_action(action, grammar)
    if isinstance(decoded, Decoded) and decoded.verb in ("type", "select"):
        if decoded.index < 0:  # the keyboard typed it into whatever had focus
            return f'{decoded.verb}("REDACTED")'
        return f'{decoded.verb}({decoded.index}, "REDACTED")'
    return "(an action on a secret field)"
