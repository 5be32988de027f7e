"""Keeping credentials out of displays, logs and saved files.

Values are masked by header name: the well-known credential headers plus any name the
user configured as an API-key header. Masking keeps the first characters of a scheme word
(``Bearer ****``) so the user can still see which scheme was sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

if TYPE_CHECKING:
    pass

# The event seam's header pairs (app.protocol.events.Headers), spelled out: the events
# module imports this one to offer its masked view.
Headers = tuple[tuple[str, str], ...]

MASK = "****"
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)


# Header or query names that carry credentials even when not configured as such.
_SENSITIVE_WORDS = ("token", "secret", "password", "passwd", "apikey", "api-key", "api_key",
                    "auth", "session", "cookie")  # fmt: skip


def looks_sensitive(name: str) -> bool:
    """True for the well-known credential headers and names that say they hold one."""
    lowered = name.lower()
    return lowered in SENSITIVE_HEADERS or any(word in lowered for word in _SENSITIVE_WORDS)


def mask_value(name: str, value: str) -> str:
    """``value`` with its secret part replaced by ``****`` (keeps an auth scheme word)."""
    if name.lower() in ("authorization", "proxy-authorization") and " " in value:
        scheme, _, _ = value.partition(" ")
        return f"{scheme} {MASK}"
    return MASK


def mask_headers(headers: Headers, extra_names: Iterable[str] = ()) -> Headers:
    """``headers`` with the values of sensitive ones masked (names compared case-insensitively)."""
    names = {n.lower() for n in extra_names}
    return tuple(
        (n, mask_value(n, v) if n.lower() in names or looks_sensitive(n) else v) for n, v in headers
    )


def mask_url_query(url: str, names: Iterable[str]) -> str:
    """``url`` with secret parts replaced by ``****``: the password of its user info, and
    the values of the named query parameters and of parameters whose names say they hold a
    credential (:func:`looks_sensitive`)."""
    wanted = {n.lower() for n in names if n}
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password:
        userinfo = f"{parts.username or ''}:{MASK}"
        parts = parts._replace(netloc=f"{userinfo}@{parts.netloc.rpartition('@')[2]}")
    if not parts.query:
        return urlunsplit(parts)
    pairs = parse_qsl(parts.query, keep_blank_values=True)

    def secret(key: str) -> bool:
        return key.lower() in wanted or looks_sensitive(key)

    if not any(secret(k) for k, _ in pairs):
        return urlunsplit(parts)
    query = "&".join(
        f"{quote(k, safe='')}={MASK if secret(k) else quote(v, safe='')}" for k, v in pairs
    )
    return urlunsplit(parts._replace(query=query))


def secret_values(headers: Headers, query: Headers, url: str) -> tuple[str, ...]:
    """The credential strings a request carries, to redact from any text shown to the user.

    Sensitive header values (whole, and without their ``Bearer``/``Basic`` scheme word),
    sensitive query values, and the password in the URL's user info. Values shorter than
    four characters are left out: redacting them would mangle ordinary text.
    """
    found: list[str] = []
    for name, value in (*headers, *query):
        if looks_sensitive(name):
            found.append(value)
            found.append(value.partition(" ")[2])
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        found.append(password)
    return tuple(sorted({v for v in found if len(v) >= 4}, key=len, reverse=True))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret (and its repr-escaped form) masked."""
    for secret in secrets:
        text = text.replace(secret, MASK)
        escaped = repr(secret)[1:-1]
        if escaped != secret:
            text = text.replace(escaped, MASK)
    return text
