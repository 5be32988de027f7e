"""Reading a resource server's refusal: ``WWW-Authenticate: Bearer error="invalid_token"``.

RFC 6750 §3.1: a 401 whose Bearer challenge carries ``error="invalid_token"`` says the
access token was expired, revoked or malformed, so a new token may succeed where the
same one cannot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.protocol.events import ResponseHead

_PARAM = re.compile(r'([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def bearer_challenge(headers: Iterable[tuple[str, str]]) -> dict[str, str] | None:
    """The parameters of the first Bearer challenge in ``WWW-Authenticate``, else None."""
    for name, value in headers:
        if name.lower() != "www-authenticate":
            continue
        scheme, _, rest = value.strip().partition(" ")
        if scheme.lower() != "bearer":
            continue
        return {m.group(1).lower(): m.group(2) or m.group(3) or "" for m in _PARAM.finditer(rest)}
    return None


def invalid_token(events: Iterable[object]) -> str:
    """The refusal line when ``events`` hold a 401 ``invalid_token`` answer, else ""."""
    for event in events:
        if isinstance(event, ResponseHead) and event.status == 401:
            params = bearer_challenge(event.headers)
            if params is not None and params.get("error") == "invalid_token":
                description = params.get("error_description", "")
                return "invalid_token" + (f": {description}" if description else "")
    return ""
