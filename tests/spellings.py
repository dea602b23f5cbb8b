"""How a page, a URL or JSON can give a typed secret back: the spellings the redaction tests
search every answer, log and trace for."""

from __future__ import annotations

import html
import json
from urllib.parse import quote, quote_plus


def spellings(secret: str, shortest: int = 4) -> set[str]:
    """`secret` and every prefix of `shortest` characters or more, each as typed, upper and
    lower case, HTML-escaped, JSON-escaped (and both), URL- and form-encoded."""
    found: set[str] = set()
    for n in range(shortest, len(secret) + 1):
        for part in {secret[:n], secret[:n].upper(), secret[:n].lower()}:
            escaped = json.dumps(part)[1:-1]
            found |= {
                part,
                html.escape(part),
                html.escape(part, quote=False),
                escaped,
                html.escape(escaped),
                json.dumps(html.escape(part))[1:-1],
                quote(part, safe=""),
                quote_plus(part, safe=""),
            }
    return found


def leaks(secret: str, *texts: str) -> list[str]:
    """The spellings of `secret` found in any of `texts`."""
    return sorted({form for form in spellings(secret) for text in texts if form in text})
