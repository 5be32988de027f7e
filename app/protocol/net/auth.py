"""Credentials and extension activation, folded into a request as headers or query (no Qt).

A tab (or the CLI) holds one :class:`AuthConfig`. :func:`apply_auth` turns it into the
headers and query parameters of an :class:`A2ARequest` — for the tab's own endpoint only;
Agent Card fetches never receive them. gRPC carries the same headers as (lower-cased)
metadata, which the gRPC transport does.

Schemes (A2A ``securitySchemes``; docs/PROTOCOL.md §8.1.3):

- ``bearer``: ``Authorization: Bearer <token>`` (http bearer, OAuth2, OIDC access tokens);
- ``oauth2``: the same header with the access token an OAuth 2 grant returned
  (``app.protocol.oauth``); the grant's settings ride along for saving;
- ``basic``: ``Authorization: Basic base64(user ":" password)``, UTF-8 (RFC 7617 §2, §2.1);
- ``api_key``: ``<name>: <key>`` in a header, ``?<name>=<key>`` in the query, or
  ``<name>=<key>`` in the ``Cookie`` header (OpenAPI apiKey ``in: header|query|cookie``).

Extensions are activated with ``A2A-Extensions: uri1, uri2``; 0.3 sends also carry the
legacy ``X-A2A-Extensions`` with the same value (a2a-sdk 1.3.0 compat clients send both).

Secret values live in this object in memory only; its ``repr`` never shows them.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from app.protocol.events import Headers
from app.protocol.request import A2ARequest, with_secrets
from app.protocol.types import ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError

if TYPE_CHECKING:
    from app.protocol.oauth.config import OAuthConfig

EXTENSIONS_HEADER = "A2A-Extensions"
LEGACY_EXTENSIONS_HEADER = "X-A2A-Extensions"


class AuthKind(StrEnum):
    """Which credential a request carries."""

    NONE = "none"
    BEARER = "bearer"
    BASIC = "basic"
    API_KEY = "api_key"
    OAUTH2 = "oauth2"


class ApiKeyLocation(StrEnum):
    """Where an API key goes (OpenAPI ``in``)."""

    HEADER = "header"
    QUERY = "query"
    COOKIE = "cookie"


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """One credential. Build it with :meth:`none`, :meth:`bearer`, :meth:`basic`, :meth:`api_key`.

    Attributes:
        kind: the scheme.
        token: the bearer token.
        username, password: HTTP Basic credentials.
        key_name: the API key's header, query parameter or cookie name.
        key_value: the API key.
        key_location: where the API key goes.
        oauth: the OAuth 2 grant (``oauth2``); ``token`` is then its access token ("" until
            one was obtained: nothing is sent).
    """

    kind: AuthKind = AuthKind.NONE
    token: str = field(default="", repr=False)
    username: str = ""
    password: str = field(default="", repr=False)
    key_name: str = ""
    key_value: str = field(default="", repr=False)
    key_location: ApiKeyLocation = ApiKeyLocation.HEADER
    oauth: OAuthConfig | None = None

    @classmethod
    def none(cls) -> AuthConfig:
        """No credentials."""
        return cls()

    @classmethod
    def bearer(cls, token: str) -> AuthConfig:
        """``Authorization: Bearer <token>``."""
        return cls(AuthKind.BEARER, token=token)

    @classmethod
    def basic(cls, username: str, password: str) -> AuthConfig:
        """``Authorization: Basic …`` (RFC 7617)."""
        return cls(AuthKind.BASIC, username=username, password=password)

    @classmethod
    def api_key(
        cls, name: str, value: str, location: ApiKeyLocation = ApiKeyLocation.HEADER
    ) -> AuthConfig:
        """An API key named ``name`` in a header, the query or a cookie."""
        return cls(AuthKind.API_KEY, key_name=name, key_value=value, key_location=location)

    @classmethod
    def oauth2(cls, oauth: OAuthConfig, access_token: str = "") -> AuthConfig:
        """``Authorization: Bearer <access_token>`` from the grant ``oauth``."""
        return cls(AuthKind.OAUTH2, token=access_token, oauth=oauth)


def basic_credentials(username: str, password: str) -> str:
    """The RFC 7617 ``token68``: base64 of the UTF-8 bytes of ``user:password``.

    Raises:
        UsageError: the user-id contains a colon (RFC 7617 §2 forbids it).
    """
    if ":" in username:
        raise UsageError("HTTP Basic user name must not contain ':' (RFC 7617 §2)")
    return base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


def auth_headers(auth: AuthConfig) -> Headers:
    """The headers ``auth`` adds (the cookie one excluded: see :func:`apply_auth`)."""
    if auth.kind is AuthKind.BEARER or (auth.kind is AuthKind.OAUTH2 and auth.token):
        return (("Authorization", f"Bearer {auth.token}"),)
    if auth.kind is AuthKind.BASIC:
        return (("Authorization", f"Basic {basic_credentials(auth.username, auth.password)}"),)
    if auth.kind is AuthKind.API_KEY and auth.key_location is ApiKeyLocation.HEADER:
        return ((_key_name(auth), auth.key_value),)
    return ()


def auth_query(auth: AuthConfig) -> Headers:
    """The query parameters ``auth`` adds (an API key ``in: query``)."""
    if auth.kind is AuthKind.API_KEY and auth.key_location is ApiKeyLocation.QUERY:
        return ((_key_name(auth), auth.key_value),)
    return ()


def extension_headers(version: ProtocolVersion, extensions: Iterable[str]) -> Headers:
    """``A2A-Extensions`` (and ``X-A2A-Extensions`` on 0.3) for the activated URIs."""
    uris = list(dict.fromkeys(u.strip() for u in extensions if u.strip()))
    if not uris:
        return ()
    value = ", ".join(uris)
    headers = [(EXTENSIONS_HEADER, value)]
    if version is ProtocolVersion.V0_3:
        headers.append((LEGACY_EXTENSIONS_HEADER, value))
    return tuple(headers)


def apply_auth(request: A2ARequest, auth: AuthConfig, extensions: Sequence[str] = ()) -> A2ARequest:
    """``request`` with the credential and the extension headers folded in.

    Headers the user set explicitly in ``request.headers`` win over the generated ones of
    the same name (case-insensitive), so a hand-written ``Authorization`` row is sent as
    typed. An API key ``in: cookie`` is appended to the user's ``Cookie`` header if there is
    one (``a=1; key=…``), else sent as its own ``Cookie`` header.

    Raises:
        UsageError: an API key without a name, or a Basic user name with a colon.
    """
    generated = auth_headers(auth) + extension_headers(request.version, extensions)
    user_names = {name.lower() for name, _ in request.headers}
    headers = [*request.headers]
    headers += [(n, v) for n, v in generated if n.lower() not in user_names]
    if auth.kind is AuthKind.API_KEY and auth.key_location is ApiKeyLocation.COOKIE:
        pair = f"{_key_name(auth)}={auth.key_value}"
        for i, (name, value) in enumerate(headers):
            if name.lower() == "cookie":
                headers[i] = (name, f"{value}; {pair}" if value.strip() else pair)
                break
        else:
            headers.append(("Cookie", pair))
    # The exchange masks these names in every event it emits (RequestSent.masked), so no
    # consumer has to know which auth produced them.
    # The values too: the exchange masks them wherever they turn up (an echo, an error).
    done = dataclasses.replace(
        request,
        headers=tuple(headers),
        query=request.query + auth_query(auth),
        secret_headers=_union(request.secret_headers, secret_header_names(auth)),
        secret_query=_union(request.secret_query, secret_query_names(auth)),
    )
    return with_secrets(done, secret_values_of(auth))


def secret_values_of(auth: AuthConfig) -> tuple[str, ...]:
    """The credential values ``auth`` sends: the token, the password and the Basic
    token68 it becomes, the API key."""
    if auth.kind in (AuthKind.BEARER, AuthKind.OAUTH2):
        return (auth.token,) if auth.token else ()
    if auth.kind is AuthKind.BASIC:
        return (auth.password, basic_credentials(auth.username, auth.password))
    if auth.kind is AuthKind.API_KEY:
        return (auth.key_value,)
    return ()


def _union(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    return old + tuple(n for n in new if n not in old)


def secret_header_names(auth: AuthConfig) -> tuple[str, ...]:
    """Header names whose values carry ``auth`` 's secret (for masking)."""
    if auth.kind in (AuthKind.BEARER, AuthKind.BASIC, AuthKind.OAUTH2):
        return ("Authorization",)
    if auth.kind is AuthKind.API_KEY:
        if auth.key_location is ApiKeyLocation.HEADER and auth.key_name.strip():
            return (auth.key_name.strip(),)
        if auth.key_location is ApiKeyLocation.COOKIE:
            return ("Cookie",)
    return ()


def secret_query_names(auth: AuthConfig) -> tuple[str, ...]:
    """Query parameter names whose values carry ``auth`` 's secret (for masking URLs)."""
    if auth.kind is AuthKind.API_KEY and auth.key_location is ApiKeyLocation.QUERY:
        return (auth.key_name.strip(),) if auth.key_name.strip() else ()
    return ()


def _key_name(auth: AuthConfig) -> str:
    name = auth.key_name.strip()
    if not name:
        raise UsageError(f"The API key ({auth.key_location.value}) needs a name")
    return name
