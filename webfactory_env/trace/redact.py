"""Redaction: secrets and personal data never reach a trace, bundle or viewer.

What is kept out of every artefact an episode leaves (trace lines, bundle files, reports):

- **secrets** — values typed or selected into fields marked `redact` (passwords, one-time
  codes, card numbers, security codes). They become `REDACTED`. They are known before the
  agent types them: the task's own plan says which of its values go into such fields
  (`plan_privacy`), so even the header's instruction ("Enter “…” as the password") is
  written without them; and whatever the agent types into such a field is added as it
  happens.
- **personal data** — email addresses and card numbers wherever they appear (found by
  pattern: the address syntax, 13–19 digits passing the Luhn check), and the values the
  task's plan types into fields that hold personal data (email, phone, account, member,
  loyalty and card fields, by field name). They become a stable pseudonym, `PII-` and 12 hex
  digits of their SHA-256, so equal values stay equal across a trace.

What stays, on purpose: the agent's own inputs (`info["instruction"]`, `info["values"]`:
the agent must be told what to type) and the bundled `task/source.task`, which replay
recompiles — a value written literally into a task file is part of the task's code and
travels with it (give real secrets to a task through `pick(...)` or parameters instead).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from webfactory_env.core.pii import luhn_ok, pseudonym, scrub_patterns, scrub_selector
from webfactory_env.core.secrets import SecretPattern
from webfactory_env.trace.schema import REDACTED

__all__ = [
    "PlanPrivacy",
    "Redactor",
    "luhn_ok",
    "plan_privacy",
    "pseudonym",
    "scrub_patterns",
    "scrub_secret_fields",
    "scrub_selector",
]

if TYPE_CHECKING:
    from webfactory_env.sitegen.registry import Site
    from webfactory_env.sitegen.spec import Affordance
    from webfactory_env.tasks import CompiledTask

PERSONAL_FIELDS = re.compile(r"e-?mail|phone|tel|card|account|iban|member|loyalty|passport")
# Not a bare "code": coupon, airport, airline and dialling codes are ground truth, not secrets.
SECRET_KEYS = re.compile(r"password|passcode|secret|otp|one_time|cvc|cvv|card_number|^pin$")


def scrub_secret_fields(obj: Any) -> Any:
    """`obj` (JSON-like) with the values of secret-named keys (password, code, cvc, ...)
    replaced by `REDACTED`: a site's ground truth, written to a bundle."""
    if isinstance(obj, dict):
        return {
            k: REDACTED
            if isinstance(v, str) and SECRET_KEYS.search(str(k).lower())
            else scrub_secret_fields(v)
            for k, v in obj.items()
        }
    if isinstance(obj, list | tuple):
        return [scrub_secret_fields(v) for v in obj]
    return obj


class Redactor:
    """Remembers the episode's secrets and personal values and replaces them in anything
    about to be written.

    A secret shows up again after it is typed — in the field's value in the observed DOM,
    in the page events the app received, in app-state deltas — and in any spelling a page
    gives it back in (escaped, encoded, cased, cut to a field's `maxlength`: see
    `core.secrets`), so every string written is scrubbed, not just the action's own value.
    """

    def __init__(self) -> None:
        self._secrets: list[str] = []
        self._personal: list[str] = []
        self._pattern: SecretPattern | None = None

    def add(self, secret: str) -> None:
        """A secret: replaced by `REDACTED` from now on."""
        if secret and secret not in self._secrets:
            self._secrets.append(secret)
            self._pattern = None

    def add_personal(self, value: str) -> None:
        """Personal data: replaced by its pseudonym from now on."""
        if value and value not in self._personal and value not in self._secrets:
            self._personal.append(value)
            self._pattern = None

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(self._secrets)

    @property
    def active(self) -> bool:
        return bool(self._secrets or self._personal)

    def _compiled(self) -> SecretPattern:
        if self._pattern is None:
            personal = [v for v in self._personal if v not in self._secrets]
            self._pattern = SecretPattern(self._secrets, whole=personal)
        return self._pattern

    def scrub_text(self, text: str) -> str:
        pattern = self._compiled()
        if pattern:
            secrets = set(self._secrets)

            def replace(match: re.Match[str]) -> str:
                value = pattern.which(match)
                return REDACTED if value in secrets else pseudonym(value)

            text = pattern.sub(replace, text)
        return scrub_patterns(text)

    def scrub(self, obj: Any) -> Any:
        """`obj` (JSON-like) with every secret and piece of personal data replaced."""
        if isinstance(obj, str):
            return self.scrub_text(obj)
        if isinstance(obj, dict):
            return {self.scrub(k): self.scrub(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.scrub(v) for v in obj]
        return obj


@dataclass(frozen=True)
class PlanPrivacy:
    """The task values its plan types into secret fields and into personal-data fields."""

    secrets: tuple[str, ...]
    personal: tuple[str, ...]

    def redactor(self) -> Redactor:
        r = Redactor()
        for value in self.secrets:
            r.add(value)
        for value in self.personal:
            r.add_personal(value)
        return r


_PLANS: OrderedDict[tuple[str, str], PlanPrivacy] = OrderedDict()
_PLANS_LOCK = threading.Lock()


def plan_privacy(site: Site, task: CompiledTask) -> PlanPrivacy:
    """Walk the task's plan over a fresh app (no browser) and note what each typed value
    is typed into. Cached per (site, task) digest."""
    key = (site.digest, task.digest)
    with _PLANS_LOCK:  # recorders on several threads share the cache
        known = _PLANS.get(key)
        if known is not None:
            _PLANS.move_to_end(key)
            return known
    from webfactory_env.adversarial import AppDriver, oracle_policy
    from webfactory_env.core.seeding import SeedStream

    typed: list[tuple[Affordance, str]] = []

    class Watcher(AppDriver):
        def act(self, aff: Affordance, verb: str, value: str | None = None) -> Any:
            if verb in ("fill", "select") and value:
                typed.append((aff, value))
            return super().act(aff, verb, value)

    table = set(task.values)
    try:
        oracle_policy(Watcher(site, task), SeedStream(0), len(task.plan) + 1)
    except Exception:  # a plan the driver cannot walk: fall back to what is typed live
        typed.clear()
    by_sid = {step.sid: step.value for step in task.plan if step.value is not None}
    secrets: list[str] = []
    personal: list[str] = []
    for aff, value in typed:
        value = by_sid.get(aff.sid, value)  # the value table's text, not an option's id
        if value not in table:
            continue
        name = str(aff.attr_map().get("name") or aff.sid)
        if aff.redact:
            secrets.append(value)
        elif PERSONAL_FIELDS.search(name.lower()) or scrub_patterns(value) != value:
            personal.append(value)
    result = PlanPrivacy(tuple(dict.fromkeys(secrets)), tuple(dict.fromkeys(personal)))
    with _PLANS_LOCK:
        _PLANS[key] = result
        if len(_PLANS) > 64:
            _PLANS.popitem(last=False)
    return result
