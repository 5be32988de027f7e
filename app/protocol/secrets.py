"""Keeping credentials out of displays, logs and saved files.

Values are masked by header name: the well-known credential headers plus any name the
user configured as an API-key header. Masking keeps the first characters of a scheme word
(``Bearer ****``) so the user can still see which scheme was sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from app.protocol.events import Headers, RequestSent

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


def mask_url_query(url: str, names: Iterable[str]) -> str:
    """``url`` with the values of the named query parameters replaced by ``****``."""
    wanted = {n.lower() for n in names if n}
    parts = urlsplit(url)
    if not wanted or not parts.query:
        return url
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(k.lower() in wanted for k, _ in pairs):
        return url
    query = "&".join(
        f"{quote(k, safe='')}={MASK if k.lower() in wanted else quote(v, safe='')}"
        for k, v in pairs
    )
    return urlunsplit(parts._replace(query=query))


def mask_request_sent(
    event: RequestSent, header_names: Iterable[str] = (), query_names: Iterable[str] = ()
) -> RequestSent:
    """``event`` for display: sensitive header values and secret query values masked."""
    return dataclasses.replace(
        event,
        headers=mask_headers(event.headers, header_names),
        url=mask_url_query(event.url, query_names),
    )
