"""From a saved request to something sendable: variables resolved, auth folded in.

Also the reverse direction for the auth settings: :func:`auth_to_saved` turns the protocol
layer's :class:`~app.protocol.auth.AuthConfig` into the file's :class:`SavedAuth`.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.protocol.auth import (
    ApiKeyLocation,
    AuthConfig,
    AuthKind,
    apply_auth,
    secret_header_names,
    secret_query_names,
)
from app.protocol.errors import UsageError
from app.protocol.request import DEFAULT_TIMEOUT_S, A2ARequest
from app.spec.variables import Resolver
from app.spec.xa2a import SavedAuth, SavedRequest


def auth_to_saved(auth: AuthConfig) -> SavedAuth:
    """The file form of ``auth``: kind plus fields (secrets still as typed; see
    :func:`app.spec.xa2a.extract_secrets`)."""
    if auth.kind is AuthKind.BEARER:
        return SavedAuth("bearer", (("token", auth.token),))
    if auth.kind is AuthKind.BASIC:
        return SavedAuth("basic", (("username", auth.username), ("password", auth.password)))
    if auth.kind is AuthKind.API_KEY:
        return SavedAuth(
            "api_key",
            (("in", auth.key_location.value), ("name", auth.key_name), ("value", auth.key_value)),
        )
    return SavedAuth()


def saved_to_auth(saved: SavedAuth, substitute: Resolver | None = None) -> AuthConfig:
    """The :class:`AuthConfig` for ``saved``; references are resolved when ``substitute``
    is given, else kept verbatim (``{{token}}``)."""

    def value(key: str) -> str:
        text = saved.get(key)
        return substitute.substitute(text, f"x-a2a.auth.{key}") if substitute else text

    if saved.kind == "bearer":
        return AuthConfig.bearer(value("token"))
    if saved.kind == "basic":
        return AuthConfig.basic(value("username"), value("password"))
    if saved.kind == "api_key":
        try:
            location = ApiKeyLocation(saved.get("in", "header"))
        except ValueError as exc:
            raise UsageError(f"x-a2a.auth.in: {saved.get('in')!r} is not a location") from exc
        return AuthConfig.api_key(value("name"), value("value"), location)
    return AuthConfig.none()


@dataclass(frozen=True, slots=True)
class Sendable:
    """A ready request plus the header/query names whose values must be masked."""

    request: A2ARequest
    secret_headers: tuple[str, ...]
    secret_query: tuple[str, ...]


def to_a2a_request(saved: SavedRequest, resolver: Resolver | None) -> Sendable:
    """Resolve ``saved``'s variables (when ``resolver`` is given) and build the request.

    Raises:
        UsageError: an unresolvable ``{{variable}}`` (the message names it and where it is
            used), or auth that cannot be encoded.
    """

    def sub(text: str, where: str) -> str:
        return resolver.substitute(text, where) if resolver else text

    op = saved.operation_id or saved.name
    request = A2ARequest(
        endpoint=sub(saved.endpoint, f"{op}: x-a2a.endpoint"),
        method=saved.method,
        body=sub(saved.body, f"{op}: x-a2a.example"),
        version=saved.version,
        binding=saved.binding,
        headers=tuple((n, sub(v, f"{op}: x-a2a.headers.{n}")) for n, v in saved.headers),
        query=tuple((n, sub(v, f"{op}: x-a2a.query.{n}")) for n, v in saved.query),
        tenant=sub(saved.tenant, f"{op}: x-a2a.tenant"),
        timeout=saved.timeout or DEFAULT_TIMEOUT_S,
    )
    auth = saved_to_auth(saved.auth, resolver)
    sendable = apply_auth(request, auth, saved.extensions)
    return Sendable(sendable, secret_header_names(auth), secret_query_names(auth))
