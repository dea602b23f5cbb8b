"""Personal data found by its shape — emails, card and account numbers — and its pseudonyms.

Shared by the trace redactor (`trace.redact`) and the web executor, whose selectors and
field summaries must not carry literal personal data either.
"""

from __future__ import annotations

import hashlib
import re

# An address, also as a URL spells it (`ana%40example.org`, a GET form's query).
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Card numbers: 13-19 digits starting with 2-6, whole or in groups of 3-6 (Luhn-checked),
# the groups parted by a space, a dash, or a space as a form-encoded URL writes it.
CARD = re.compile(r"(?<![\d-])(?<!\d[.,])[2-6]\d{3}(?:(?:[ +-]|%20)?\d{3,6}){2,4}(?![\d-]|[.,]\d)")
# In selectors only (a page's prices and dates would match too): IBANs, and runs of eight or
# more digits, or three or more space-separated groups, as account numbers are written.
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
ACCOUNT = re.compile(r"(?<!\d)\d{8,}(?!\d)|(?<![\w-])\d{2,6}(?: \d{2,6}){2,}(?![\w-])")


def pseudonym(value: str) -> str:
    """The stable stand-in for a piece of personal data: `PII-` and 12 hex digits."""
    return "PII-" + hashlib.sha256(value.encode()).hexdigest()[:12]


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"%20|\D", "", match.group(0))
    return pseudonym(digits) if 13 <= len(digits) <= 19 and luhn_ok(digits) else match.group(0)


def scrub_patterns(text: str) -> str:
    """`text` with email addresses and card numbers replaced by their pseudonyms."""
    if "@" in text or "%40" in text:
        # One pseudonym per address, however the URL spelled its "@".
        text = EMAIL.sub(lambda m: pseudonym(m.group(0).replace("%40", "@")), text)
    if sum(c.isdigit() for c in text) >= 13:
        text = CARD.sub(_card, text)
    return text


def scrub_selector(selector: str) -> str:
    """A CSS selector fit to report, log or persist: emails, card, IBAN and account numbers
    in it (`[value="ana@example.org"]`, `#acct-004512345678`) become pseudonyms."""
    text = scrub_patterns(selector)
    text = IBAN.sub(lambda m: pseudonym(m.group(0).replace(" ", "")), text)
    return ACCOUNT.sub(lambda m: pseudonym(re.sub(r"\D", "", m.group(0))), text)
