"""Keeping credentials out of displays, logs and saved files.

Two complementary mechanisms:

- by name: the well-known credential headers plus any name the user configured as an
  API-key header are masked in the request view (keeping a scheme word, ``Bearer ****``,
  so the user can still see which scheme was sent);
- by value: every credential a request carries is registered on it
  (``A2ARequest.secret_values``: configured auth, URL user info, values of secret
  ``{{variables}}``) and :func:`request_secrets` adds what its headers, cookies and query
  reveal; every text that leaves the exchange is :func:`redact` ed with that list (events,
  errors, server echoes), whatever name or place the secret turns up under.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

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


def request_secrets(
    headers: Headers,
    query: Headers,
    url: str,
    *,
    registered: Iterable[str] = (),
    header_names: Iterable[str] = (),
    query_names: Iterable[str] = (),
) -> tuple[str, ...]:
    """The credential strings a request carries, to redact from any text shown to the user.

    The one registry of an exchange's secrets, by value: ``registered`` (what
    :func:`app.protocol.net.auth.apply_auth` and the variable resolver put on the request),
    the values of sensitive headers and query parameters (of ``query`` and of the URL's
    own query string; whole, without their
    ``Bearer``/``Basic`` scheme word, and each ``name=value`` of a ``Cookie``), those of
    the configured ``header_names`` / ``query_names``, and the URL's user info (the
    password as written and decoded, and the ``Basic`` token httpx builds from it).
    Values shorter than four characters are left out: redacting them would mangle
    ordinary text. Longest first, so a secret containing another is masked whole.
    """
    wanted = {n.lower() for n in (*header_names, *query_names)}
    found: list[str] = list(registered)
    for name, value in (*headers, *query, *_url_query(url)):
        if looks_sensitive(name) or name.lower() in wanted:
            found += [value, value.partition(" ")[2]]
            if name.lower() == "cookie":
                found += [pair.partition("=")[2].strip() for pair in value.split(";")]
    found += userinfo_secrets(url)
    return tuple(sorted({v for v in found if len(v) >= 4}, key=len, reverse=True))


def _url_query(url: str) -> list[tuple[str, str]]:
    try:
        return parse_qsl(urlsplit(url.strip()).query, keep_blank_values=True)
    except ValueError:
        return []


def userinfo_secrets(url: str) -> tuple[str, ...]:
    """The password of ``url`` 's user info (as written and percent-decoded) and the
    ``Basic`` token68 an HTTP client derives from ``user:password`` (RFC 7617 §2)."""
    try:
        parts = urlsplit(url.strip() if "://" in url else f"//{url.strip()}")
        username, password = parts.username, parts.password
    except ValueError:
        return ()
    if password is None:
        return ()
    user, secret = unquote(username or ""), unquote(password)
    token = base64.b64encode(f"{user}:{secret}".encode()).decode("ascii")
    return (password, secret, token)


def redact_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    """``data`` with every occurrence of each secret (UTF-8, and JSON-escaped) masked."""
    for secret in secrets:
        for form in _forms(secret):
            data = data.replace(form.encode("utf-8", "replace"), MASK.encode())
    return data


def redact_json(value: Any, secrets: tuple[str, ...]) -> Any:
    """A parsed JSON value with the secrets masked in its strings (keys included)."""
    if not secrets:
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [redact_json(v, secrets) for v in value]
    if isinstance(value, dict):
        return {redact(k, secrets): redact_json(v, secrets) for k, v in value.items()}
    return value


def _forms(secret: str) -> tuple[str, ...]:
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(secret)[1:-1]
    return tuple(dict.fromkeys((secret, escaped, ascii_escaped, repr(secret)[1:-1])))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret (and its repr-escaped form) masked."""
    for secret in secrets:
        for form in _forms(secret):
            text = text.replace(form, MASK)
    return text
