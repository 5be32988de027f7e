"""Public Agent Card discovery: one careful GET, reported in full.

The request goes out through the HTTP primitives the bindings use (:mod:`app.protocol.net.http`:
client construction, request building, sending, transport-error wording, the response head),
so a card fetch fails and reads like any other exchange. What is card-specific is the policy,
which is deliberately paranoid (docs/PROTOCOL.md §6.3.2):

- it sends **no credentials**: a fresh client with no auth, no cookies and no environment
  configuration (``trust_env=False``, so neither ``.netrc`` nor proxy URLs with user info
  can add any), whatever the request tab's Auth says. A caller-supplied client carrying
  credentials is refused, and the headers about to go out are checked once more before the
  request is sent. Only when the user opts in (:class:`~app.protocol.card.card_auth.CardAuth`,
  ``--card-auth``) do the request's credentials go — to their endpoint's origin alone;
- it follows **no redirects**: a 3xx is a result, with its ``Location``;
- it reads **at most** ``max_bytes`` (1 MiB by default) while streaming; a larger body is an
  error and nothing is parsed (a declared ``Content-Length`` over the limit is not read at all);
- it has an overall deadline, not only httpx's per-phase timeouts, so a slow-drip server
  cannot hold the fetch open;
- network problems are **results** (``CardFetchResult.error``), never exceptions. Only
  programming errors (a caller-supplied client carrying credentials) raise.

``A2A-Version`` is sent only when the caller asks for it, because servers shape the card by
it (the JS SDK serves a 0.3 card without it; docs/PEERS.md Q10). ``CardCache`` keeps ETag /
Last-Modified per URL for conditional refetches (RFC 9110 §13.1).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from app.protocol.card.card_auth import CardAuth
from app.protocol.card.card_json import ParseFailure, parse_card_json
from app.protocol.clock import Clock
from app.protocol.events import ExchangeError, Headers, RequestSent
from app.protocol.net.http import (
    HttpCall,
    client_for,
    content_type,
    describe_transport_error,
    head_of,
    open_response,
)
from app.protocol.net.network import NetworkOptions
from app.protocol.secrets import mask_headers
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.decoding import decoded_chunks
from app.protocol.wire.json_duplicates import DuplicateMember

__all__ = [
    "DEFAULT_MAX_BYTES",
    "LEGACY_CARD_PATH",
    "WELL_KNOWN_CARD_PATH",
    "CacheEntry",
    "CardCache",
    "CardFetchResult",
    "fetch_card",
    "resolve_card_url",
]

WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json"
"""Card path since A2A 0.3.0 (A2A spec §8.2)."""

LEGACY_CARD_PATH = "/.well-known/agent.json"
"""Card path of A2A ≤0.2.x; a2a-python 0.3.x still served it (docs/PROTOCOL.md §6.3.1)."""

DEFAULT_MAX_BYTES = 1_048_576
"""1 MiB: the most a public card fetch reads."""

# Header names whose presence on a request means it carries credentials.
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")

# httpx's per-phase timeouts of the fetch's own client sit this far past the overall
# deadline, so the deadline always decides and a timeout always reads the same.
_PHASE_GRACE_S = 1.0


@dataclass(frozen=True, slots=True)
class CardFetchResult:
    """Everything one card fetch saw, for display and for later steps.

    Attributes:
        url: the URL the caller passed, unchanged.
        card_url: the URL actually requested (base URL + ``/.well-known/agent-card.json``,
            or ``url`` itself when it already names a card).
        request_headers: headers sent, in order, as ``(name, value)`` pairs.
        status: HTTP status code, or ``None`` when no response arrived.
        reason: HTTP reason phrase ("" when none).
        headers: response headers as ``(name, value)`` pairs, duplicates kept.
        raw: the body bytes read (at most ``max_bytes``; empty when no body arrived).
        json: the parsed JSON value (any JSON type) for a 2xx body that parsed; else ``None``.
        parse_error: why a 2xx body did not parse, else ``None``.
        duplicate_keys: member names written more than once in one object, by path and lines
            (the parser keeps the last; other parsers may keep the first, which matters for
            signatures).
        etag: the ``ETag`` response header, verbatim (weak validators keep ``W/``).
        last_modified: the ``Last-Modified`` response header, verbatim.
        content_type: the ``Content-Type`` response header ("" when absent).
        not_modified: ``True`` for a 304 answer to a conditional request.
        redirect_location: absolute target of a 3xx ``Location`` (not followed), else ``None``.
        legacy_hint: the legacy ``/.well-known/agent.json`` URL to offer after a 404 on the
            well-known path, else ``None``.
        too_large: the body exceeded ``max_bytes``; nothing was parsed.
        error: transport or size failure in words (refused, timeout, too large), else ``None``.
        elapsed_ms: wall time of the whole fetch in milliseconds.
    """

    url: str
    card_url: str
    request_headers: tuple[tuple[str, str], ...] = ()
    status: int | None = None
    reason: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    raw: bytes = b""
    json: Any = None
    parse_error: ParseFailure | None = None
    duplicate_keys: tuple[DuplicateMember, ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    content_type: str = ""
    not_modified: bool = False
    redirect_location: str | None = None
    legacy_hint: str | None = None
    too_large: bool = False
    error: str | None = None
    elapsed_ms: float = 0.0

    @property
    def ok(self) -> bool:
        """True when a 2xx body arrived and parsed as JSON (of any type)."""
        return (
            self.error is None
            and self.status is not None
            and 200 <= self.status < 300
            and self.parse_error is None
        )

    def header(self, name: str) -> str | None:
        """First response header value called ``name`` (case-insensitive), else ``None``."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """Validators remembered for one card URL.

    Attributes:
        etag: last ``ETag`` seen, verbatim.
        last_modified: last ``Last-Modified`` seen, verbatim.
        raw: the body of the last 200 answer, so a 304 can be shown next to what it confirms.
    """

    etag: str | None
    last_modified: str | None
    raw: bytes = b""


@dataclass(slots=True)
class CardCache:
    """Per-URL ETag / Last-Modified store for conditional card refetches.

    Qt-free and synchronous; the UI keeps one per workspace. Keys are ``card_url`` values.
    """

    _entries: dict[str, CacheEntry] = field(default_factory=dict)

    def get(self, card_url: str) -> CacheEntry | None:
        """The remembered validators for ``card_url``, if any."""
        return self._entries.get(card_url)

    def conditional_kwargs(self, card_url: str) -> dict[str, str]:
        """``fetch_card`` keyword arguments for a conditional refetch of ``card_url``.

        Returns:
            ``{"if_none_match": …, "if_modified_since": …}`` with only the known validators.
        """
        entry = self._entries.get(card_url)
        if entry is None:
            return {}
        kwargs: dict[str, str] = {}
        if entry.etag:
            kwargs["if_none_match"] = entry.etag
        if entry.last_modified:
            kwargs["if_modified_since"] = entry.last_modified
        return kwargs

    def update(self, result: CardFetchResult) -> None:
        """Learn validators from a fetch result (200 stores, 304 refreshes, others ignored)."""
        if result.status == 200 and not result.too_large:
            if result.etag or result.last_modified:
                self._entries[result.card_url] = CacheEntry(
                    result.etag, result.last_modified, result.raw
                )
            else:
                self._entries.pop(result.card_url, None)
        elif result.not_modified:
            old = self._entries.get(result.card_url)
            # RFC 9110 §15.4.5: a 304 may carry updated validators.
            self._entries[result.card_url] = CacheEntry(
                result.etag or (old.etag if old else None),
                result.last_modified or (old.last_modified if old else None),
                old.raw if old else b"",
            )


def resolve_card_url(url: str) -> tuple[str, bool]:
    """Map what the user typed to the card URL to GET.

    A URL whose path ends in ``.json`` or contains ``/.well-known/`` names a card and is used
    as-is; anything else is a base URL and gets ``/.well-known/agent-card.json`` appended to
    its path (as the SDK's ``A2ACardResolver`` does), dropping query and fragment.

    Args:
        url: absolute ``http``/``https`` URL.

    Returns:
        ``(card_url, is_base_url)``.

    Raises:
        ValueError: the URL is not absolute http(s), or carries user info.
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    if "@" in parts.netloc:
        # httpx would turn user info into an Authorization header: a card fetch sends none.
        raise ValueError("the card URL carries user info (user:password@); card fetches send "
                         "no credentials, remove it")  # fmt: skip
    path = parts.path
    if path.endswith(".json") or "/.well-known/" in path:
        return urlunsplit(parts), False
    base_path = path.rstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, base_path + WELL_KNOWN_CARD_PATH, "", "")), True


def _check_client(client: httpx.AsyncClient) -> None:
    # A shared client could add the tab's credentials to an unauthenticated, possibly
    # attacker-chosen URL; refusing it is cheaper than auditing every caller.
    if client.auth is not None:
        raise ValueError("fetch_card must not use a client that carries auth")
    if any(name in client.headers for name in _CREDENTIAL_HEADERS):
        raise ValueError("fetch_card must not use a client with credential headers")
    if len(client.cookies.jar) > 0:
        raise ValueError("fetch_card must not use a client with cookies")
    if client.follow_redirects:
        raise ValueError("fetch_card must not use a client that follows redirects")


def _refuse_credentials(sent: RequestSent, opted_in: Headers) -> None:
    # The last look before the bytes go out: whatever added it, a credential never travels
    # unless the user opted in to exactly that one.
    names = {name.lower() for name, _ in sent.headers} - {n.lower() for n, _ in opted_in}
    if found := names.intersection(_CREDENTIAL_HEADERS):
        raise ValueError(f"fetch_card refused to send credential headers {sorted(found)}")


def _legacy_url(card_url: str) -> str | None:
    parts = urlsplit(card_url)
    if not parts.path.endswith(WELL_KNOWN_CARD_PATH):
        return None
    path = parts.path[: -len(WELL_KNOWN_CARD_PATH)] + LEGACY_CARD_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _request_headers(
    a2a_version: str | None, if_none_match: str | None, if_modified_since: str | None
) -> Headers:
    headers = [
        ("Accept", "application/json"),
        # Caches in front of agents (the JS SDK sets max-age=3600) would otherwise answer.
        ("Cache-Control", "no-cache"),
    ]
    if a2a_version:
        headers.append(("A2A-Version", a2a_version))
    if if_none_match:
        headers.append(("If-None-Match", if_none_match))
    if if_modified_since:
        headers.append(("If-Modified-Since", if_modified_since))
    return tuple(headers)


async def fetch_card(
    url: str,
    *,
    a2a_version: str | None = None,
    if_none_match: str | None = None,
    if_modified_since: str | None = None,
    timeout: float = 10.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    client: httpx.AsyncClient | None = None,
    network: NetworkOptions | None = None,
    auth: CardAuth | None = None,
) -> CardFetchResult:
    """GET a public Agent Card without credentials, redirects or unbounded reads.

    Args:
        url: base URL (``https://host/``) or full card URL.
        a2a_version: value for ``A2A-Version`` (``"1.0"``, ``"0.3"``); ``None`` sends none.
        if_none_match: ETag to send as ``If-None-Match`` (RFC 9110 §13.1.2).
        if_modified_since: HTTP-date to send as ``If-Modified-Since``.
        timeout: overall deadline in seconds (connect + headers + body).
        max_bytes: most body bytes to read (after content decoding); more is an error.
        client: client to use instead of a fresh one (tests: ``httpx.MockTransport``). It must
            carry no auth, credential headers or cookies and must not follow redirects.
        network: TLS (CA bundle, client certificate) and proxy settings for a fresh client;
            None: the default trust store and the system proxy.
        auth: credentials the user opted in to send; they go only when the card URL is on
            their origin (a card elsewhere is fetched without them).

    Returns:
        A ``CardFetchResult``; network and HTTP problems are reported in it, not raised.

    Raises:
        ValueError: ``client`` carries credentials or follows redirects, or
            ``max_bytes``/``timeout`` is not positive.
    """
    if max_bytes <= 0 or timeout <= 0:
        raise ValueError("max_bytes and timeout must be positive")
    if client is not None:
        _check_client(client)
    clock = Clock()
    try:
        card_url, _ = resolve_card_url(url)
    except ValueError as exc:
        return CardFetchResult(url=url, card_url=url, error=str(exc))

    headers = _request_headers(a2a_version, if_none_match, if_modified_since)
    opted_in: Headers = ()
    query: Headers = ()
    shown = headers
    if auth is not None and auth.applies_to(card_url):
        opted_in, query = auth.headers, auth.query
        shown = headers + mask_headers(opted_in, auth.secret_headers)
        headers += opted_in
    call = HttpCall("GET", card_url, headers, b"", rpc_method="", query=query)
    base = CardFetchResult(url=url, card_url=card_url, request_headers=shown)
    if client is not None:
        http = client
    else:
        try:
            http = await asyncio.to_thread(
                client_for, card_url, network, timeout=timeout + _PHASE_GRACE_S
            )
        except UsageError as exc:
            return replace(base, error=str(exc))
    try:
        async with asyncio.timeout(timeout):
            result = await _exchange(http, call, base, max_bytes, clock, timeout, opted_in)
    except TimeoutError:
        result = replace(base, error=f"timed out after {timeout:g} s")
    except OSError as exc:  # httpx wraps socket errors; this only keeps the no-raise promise
        result = replace(base, error=f"network error: {exc}")
    finally:
        if client is None:
            await http.aclose()
    return replace(result, elapsed_ms=clock.now() * 1000.0)


async def _exchange(
    http: httpx.AsyncClient,
    call: HttpCall,
    base: CardFetchResult,
    max_bytes: int,
    clock: Clock,
    timeout: float,
    opted_in: Headers,
) -> CardFetchResult:
    response: httpx.Response | None = None
    async with contextlib.aclosing(open_response(http, call, clock, timeout=timeout)) as steps:
        async for step in steps:
            if isinstance(step, RequestSent):
                _refuse_credentials(step, opted_in)
            elif isinstance(step, ExchangeError):
                return replace(base, error=step.message)
            elif isinstance(step, httpx.Response):
                response = step
    if response is None:  # open_response ends with a response or an error; be safe anyway
        return replace(base, error="no response")
    try:
        result = await _read(response, base, max_bytes, clock)
    except httpx.HTTPError as exc:
        return replace(base, error=describe_transport_error(exc, call.url, timeout))
    finally:
        await response.aclose()
    return result if result.too_large else _interpret(result)


async def _read(
    response: httpx.Response, base: CardFetchResult, max_bytes: int, clock: Clock
) -> CardFetchResult:
    head = head_of(response, clock)
    result = replace(
        base,
        status=head.status,
        reason=head.reason,
        headers=head.headers,
        etag=response.headers.get("etag"),
        last_modified=response.headers.get("last-modified"),
        content_type=content_type(response),
        not_modified=head.status == 304,
    )
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        return replace(
            result,
            too_large=True,
            error=(
                f"card too large: Content-Length {int(declared)} bytes exceeds the "
                f"{max_bytes}-byte limit; nothing read or parsed"
            ),
        )
    body = bytearray()
    async for chunk in decoded_chunks(response):
        body.extend(chunk)
        if len(body) > max_bytes:
            return replace(
                result,
                raw=bytes(body[:max_bytes]),
                too_large=True,
                error=(
                    f"card too large: more than {max_bytes} bytes; reading stopped and "
                    "nothing was parsed"
                ),
            )
    return replace(result, raw=bytes(body))


def _interpret(result: CardFetchResult) -> CardFetchResult:
    status = result.status or 0
    if 300 <= status < 400 and status != 304:
        location = result.header("location")
        target = urljoin(result.card_url, location) if location else None
        return replace(result, redirect_location=target)
    if status == 404:
        # Also offered for a typed full well-known URL: same situation, same remedy.
        return replace(result, legacy_hint=_legacy_url(result.card_url))
    if 200 <= status < 300:
        value, failure, duplicates = parse_card_json(result.raw)
        return replace(result, json=value, parse_error=failure, duplicate_keys=duplicates)
    return result
