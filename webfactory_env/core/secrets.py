"""Secret values found in whatever spelling a page, a URL or JSON gives them back in.

A value typed into a secret field comes back changed: form-encoded in the URL a GET form
leads to (`pw=correct+horse%21`), HTML-escaped in markup (`Tom&amp;Jerry&lt;3`, `&#38;`),
JSON-escaped (`\\u0026`, `\\"`), upper- or lower-cased by a page's script, cut to a
field's `maxlength`, its spaces collapsed or trimmed. `SecretPattern` matches every one of
those: each character of the secret in any of its encodings, letters in any case, a run of
whitespace as any run of whitespace, and every prefix of at least `MIN_PREFIX` characters
(a prefix shorter than the whole value only where a word ends, so that a page's own words
survive better).

Secrets shorter than `SHORT_SECRET` are matched as whole words only: typing "123" into a
security code field must not blank every price and order number holding those digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from html.entities import codepoint2name

SHORT_SECRET = 6
MIN_PREFIX = 4
REDACTED = "REDACTED"

# Any whitespace, as itself or as forms and escapes spell the common ones.
_SPACE = (
    r"\s|\+|%(?:25)?20|%(?:25)?09|%(?:25)?0a|%(?:25)?0d|&nbsp;|&#0*(?:32|160|9|10|13);?"
    r"|&#x0*(?:20|a0|9|a|d);?|\\u00(?:20|a0|09|0a|0d)|\\[ntr]"
)
# Characters JSON (or JavaScript, or Python) may write as a backslash and themselves.
_SHORT_ESCAPES = frozenset("\"\\/'")


def _char(c: str) -> str:
    """A regex for one character of a secret, in any case, in any of its encodings (an
    upper-case "é" encodes to other bytes and entities than a lower-case one)."""
    cases = sorted({v for v in (c, c.upper(), c.lower()) if len(v) == 1})
    return "(?:" + "|".join(_forms(v) for v in cases) + ")"


def _forms(c: str) -> str:
    point = ord(c)
    markup = [re.escape(c), f"&#0*{point};?", f"&#x0*{point:x};?"]  # as itself, in HTML
    if point in codepoint2name:
        markup.append(f"&{codepoint2name[point]};")
    if c == "'":
        markup.append("&apos;")
    forms = list(markup)
    raw = c.encode("utf-8", "surrogatepass")
    forms.append("".join(f"%(?:25)?{b:02x}" for b in raw))  # URL, and URL of a URL
    if point < 0x10000:
        forms.append(rf"\\u{point:04x}")
    else:  # JSON writes it as a surrogate pair
        high, low = divmod(point - 0x10000, 0x400)
        forms.append(rf"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    if c in _SHORT_ESCAPES:  # a backslash escape, also of JSON written into HTML
        forms.append(r"\\(?:" + "|".join(markup) + ")")
    return "(?:" + "|".join(forms) + ")"


def _units(secret: str) -> list[tuple[str, int]]:
    """The secret's characters as (regex, 1), a run of whitespace as one (regex, length)."""
    units: list[tuple[str, int]] = []
    for part in re.split(r"(\s+)", secret.strip()):
        if not part:
            continue
        if part.isspace():  # a run of any whitespace, the secret's own in any spelling
            spaces = "|".join([_SPACE, *map(_char, sorted(set(part)))])
            units.append((f"(?:{spaces})+", len(part)))
        else:
            units.extend((_char(c), 1) for c in part)
    return units


def _pattern(secret: str, prefixes: bool = True) -> str | None:
    units = _units(secret)
    if not units:
        return None
    regexes = [regex for regex, _ in units]
    whole = "".join(regexes)
    if len(secret.strip()) < SHORT_SECRET:
        whole = rf"(?<!\w){whole}(?!\w)"
    # The shortest prefix allowed: MIN_PREFIX characters of the secret, counted as typed.
    ends = [n for n in range(1, len(units)) if sum(size for _, size in units[:n]) >= MIN_PREFIX]
    if not ends or not prefixes:
        return whole
    # Every proper prefix from there, longest first, ending a word.
    shortest = ends[0]
    tail = ""
    for regex in reversed(regexes[shortest:-1]):
        tail = f"(?:{regex}{tail})?"
    prefix = rf"(?<!\w){''.join(regexes[:shortest])}{tail}(?!\w)"
    return f"{whole}|{prefix}"


class SecretPattern:
    """Finds any of `secrets` in any spelling (see the module docstring), and the `whole`
    values in any spelling but never cut short (personal data: its pseudonym stands for
    the whole value). `which(match)` says which value a match is of; `sub` replaces."""

    def __init__(self, secrets: Iterable[str], whole: Iterable[str] = ()) -> None:
        whole_only = {s for s in whole if s and s.strip()}
        values = whole_only | {s for s in secrets if s and s.strip()}
        # Longest first (a secret holding another is replaced whole), then in a fixed order.
        self.secrets = sorted(values, key=lambda s: (-len(s), s))
        parts = [
            (i, p)
            for i, s in enumerate(self.secrets)
            if (p := _pattern(s, prefixes=s not in whole_only)) is not None
        ]
        self._regex = (
            re.compile("|".join(f"(?P<s{i}>{p})" for i, p in parts), re.IGNORECASE)
            if parts
            else None
        )

    def __bool__(self) -> bool:
        return self._regex is not None

    def which(self, match: re.Match[str]) -> str:
        return self.secrets[int(str(match.lastgroup)[1:])]

    def sub(self, replace: str | Callable[[re.Match[str]], str], text: str) -> str:
        """`text` with every match replaced by `replace` (a string, or a function of the
        match)."""
        if self._regex is None:
            return text
        if isinstance(replace, str):
            return self._regex.sub(lambda _m: replace, text)  # no backslash escapes read
        return self._regex.sub(replace, text)


def redact_secrets(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret, in any spelling, replaced by `REDACTED`."""
    return SecretPattern(secrets).sub(REDACTED, text)
