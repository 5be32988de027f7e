"""Keeping credentials out of displays, logs and saved files.

Values are masked by header name: the well-known credential headers plus any name the
user configured as an API-key header. Masking keeps the first characters of a scheme word
(``Bearer ****``) so the user can still see which scheme was sent.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.protocol.events import Headers

MASK = "****"
SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}
)


def mask_value(name: str, value: str) -> str:
    """``value`` with its secret part replaced by ``****`` (keeps an auth scheme word)."""
    if name.lower() in ("authorization", "proxy-authorization") and " " in value:
        scheme, _, _ = value.partition(" ")
        return f"{scheme} {MASK}"
    return MASK


def mask_headers(headers: Headers, extra_names: Iterable[str] = ()) -> Headers:
    """``headers`` with the values of sensitive ones masked (names compared case-insensitively)."""
    names = SENSITIVE_HEADERS | {n.lower() for n in extra_names}
    return tuple((n, mask_value(n, v) if n.lower() in names else v) for n, v in headers)
