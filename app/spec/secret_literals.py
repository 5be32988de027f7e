"""Literal credential text written beside ``{{variables}}`` in one value.

A credential value that is all literal becomes one ``{{variable}}`` when saved
(:func:`app.spec.xa2a.extract_secrets`). A value that already holds a variable may still
hold literal secrets beside it: ``Cookie: session={{sid}}; csrftoken=abc123`` carries the
CSRF token in clear, ``X-Auth-Token: {{tenant}}:s3cr3t`` a key. Each such literal is a
secret like any credential: :func:`claim_literals` replaces it by a variable of its own and
leaves the variables, the cookie names, an auth scheme word (``Bearer``) and the
separators around them as they were.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_VARIABLE = re.compile(r"(\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\})")
# Separators at the edges of a literal run: not part of the secret (``; ``, ``:``, ``-``).
_EDGE = re.compile(r"^([\s;:,=&/._-]*)(.*?)([\s;:,=&/._-]*)$", re.DOTALL)
_SCHEME_WORD = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9_-]*\s+)")
_COOKIE_PAIR = re.compile(r"([^;]*)(;\s*|$)")

MIN_SECRET_CHARS = 4
"""Shorter literal runs are left as they are (as :func:`app.protocol.secrets.request_secrets`
leaves them unmasked): a ``-v2`` suffix is no credential."""

Claim = Callable[[str, str], str]
"""``claim(base_name, literal)`` → the variable name that now holds ``literal``."""


def has_variable(value: str) -> bool:
    """Whether ``value`` holds a ``{{variable}}``."""
    return bool(_VARIABLE.search(value))


def claim_literals(
    value: str, base: str, claim: Claim, *, header: str = "", name_for: Callable[[str], str]
) -> str:
    """``value`` (which holds a ``{{variable}}``) with each literal secret beside its
    variables replaced by ``{{claim(base, literal)}}``.

    A ``Cookie`` header (``header``) is read pair by pair: each cookie's value is a secret
    of its own, its variable named ``name_for(cookie name)``, and the names stay. An
    ``Authorization`` header keeps its scheme word (``Bearer {{t}}``). A run shorter than
    :data:`MIN_SECRET_CHARS` stays.
    """
    if header.strip().lower() == "cookie":
        return "".join(
            _cookie_pair(pair, separator, claim, name_for)
            for pair, separator in _COOKIE_PAIR.findall(value)
            if pair or separator
        )
    scheme_word = header.strip().lower() in ("authorization", "proxy-authorization")
    return _claim_runs(value, base, claim, scheme_word=scheme_word)


def _cookie_pair(pair: str, separator: str, claim: Claim, name_for: Callable[[str], str]) -> str:
    name, equals, value = pair.partition("=")
    if not equals or not value.strip():
        return pair + separator
    base = name_for(name.strip()) if name.strip() else "cookie"
    if not has_variable(value):
        stripped = value.strip()
        if len(stripped) < MIN_SECRET_CHARS:
            return pair + separator
        lead = value[: len(value) - len(value.lstrip())]
        trail = value[len(value.rstrip()) :]
        return f"{name}={lead}{{{{{claim(base, stripped)}}}}}{trail}{separator}"
    return f"{name}={_claim_runs(value, base, claim, scheme_word=False)}{separator}"


def _claim_runs(value: str, base: str, claim: Claim, *, scheme_word: bool) -> str:
    pieces = _VARIABLE.split(value)  # literal, variable, literal, … (literals at even places)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2 or not piece:
            out.append(piece)
            continue
        kept = ""
        if i == 0 and scheme_word and (word := _SCHEME_WORD.match(piece)):
            kept, piece = word.group(1), piece[word.end() :]
        match = _EDGE.match(piece)
        assert match is not None  # the pattern matches every text
        lead, core, trail = match.groups()
        if len(core) >= MIN_SECRET_CHARS:
            core = "{{" + claim(base, core) + "}}"
        out.append(kept + lead + core + trail)
    return "".join(out)
