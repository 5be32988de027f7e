"""From a saved request to something sendable: variables resolved, scopes checked, then
composed (:mod:`app.protocol.compose`) with the auth folded in.

Also the reverse direction for the auth settings: :func:`auth_to_saved` turns the protocol
layer's :class:`~app.protocol.net.auth.AuthConfig` into the file's :class:`SavedAuth`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.protocol.compose import RequestInputs, compose
from app.protocol.net.auth import (
    ApiKeyLocation,
    AuthConfig,
    AuthKind,
    secret_header_names,
    secret_query_names,
)
from app.protocol.oauth import OAuthConfig
from app.protocol.request import DEFAULT_TIMEOUT_S, A2ARequest, with_secrets
from app.protocol.wire.a2a_errors import UsageError
from app.spec.oauth_saved import oauth_to_saved, saved_to_oauth
from app.spec.variables import VARIABLE, Resolver, ScopeError, references, split_scope
from app.spec.xa2a import (
    SavedAuth,
    SavedRequest,
    endpoint_host,
    is_sensitive_name,
    secret_scope,
    split_endpoint,
)
from app.spec.xa2a_network import resolve_network


def auth_to_saved(auth: AuthConfig) -> SavedAuth:
    """The file form of ``auth``: kind plus fields (secrets still as typed; see
    :func:`app.spec.xa2a.extract_secrets`)."""
    if auth.kind is AuthKind.BEARER:
        return SavedAuth("bearer", (("token", auth.token),))
    if auth.kind is AuthKind.BASIC:
        return SavedAuth("basic", (("username", auth.username), ("password", auth.password)))
    if auth.kind is AuthKind.OAUTH2 and auth.oauth is not None:
        return oauth_to_saved(auth.oauth)  # the token itself is never saved
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
        if substitute is None:
            return text
        return substitute.substitute(text, f"x-a2a.auth.{key}", credential=True)

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
    oauth: OAuthConfig | None = None
    """For ``oauth2`` auth: the grant whose token the sender still has to add."""


def to_a2a_request(
    saved: SavedRequest, resolver: Resolver | None, *, check_scopes: bool = True
) -> Sendable:
    """Resolve ``saved``'s variables (when ``resolver`` is given) and build the request.

    Scoped variables (``{{token.HOST-PORT}}``, see :func:`app.spec.xa2a.secret_scope`) are
    credentials of one host. They resolve only when the request goes to that host — the
    scope of the *resolved* endpoint — and only where a credential may go: ``auth``,
    ``headers``, ``query``, and the endpoint's user info or query string. Anywhere else
    (another host, the body, the tenant, the endpoint's host) is a :class:`ScopeError`,
    raised before any value is looked up. ``check_scopes=False`` is for code snippets,
    whose resolver never yields secret values.

    Raises:
        UsageError: an unresolvable ``{{variable}}`` (the message names it and where it is
            used), or auth that cannot be encoded.
        ScopeError: a scoped variable used for another host or in the wrong place (a
            :class:`UsageError`, so callers need no extra handling).
    """

    def sub(text: str, where: str, credential: bool = False) -> str:
        return resolver.substitute(text, where, credential=credential) if resolver else text

    op = saved.operation_id or saved.name
    where_endpoint = f"{op}: x-a2a.endpoint"
    if resolver is not None and check_scopes:
        # Every check runs before a scoped variable is even looked up.
        checker = _ScopeCheck(op)
        checker.endpoint_places(saved.endpoint)
        checker.set_target(sub(_blank_scoped(saved.endpoint), where_endpoint))
        checker.here(saved.endpoint, "x-a2a.endpoint")
        for key, value in saved.auth.params:
            checker.here(value, f"x-a2a.auth.{key}")
        for name, value in saved.headers:
            checker.here(value, f"x-a2a.headers.{name}")
        for name, value in saved.query:
            checker.here(value, f"x-a2a.query.{name}")
        checker.nowhere(saved.body, "x-a2a.example")
        checker.nowhere(saved.tenant, "x-a2a.tenant")
        checker.nowhere(saved.command, "x-a2a.command")
        endpoint = sub(saved.endpoint, where_endpoint)
        checker.same_target(endpoint)
    else:
        endpoint = sub(saved.endpoint, where_endpoint)
    body = sub(saved.body, f"{op}: x-a2a.example")
    headers = tuple(
        (n, sub(v, f"{op}: x-a2a.headers.{n}", is_sensitive_name(n))) for n, v in saved.headers
    )
    query = tuple(
        (n, sub(v, f"{op}: x-a2a.query.{n}", is_sensitive_name(n))) for n, v in saved.query
    )
    tenant = sub(saved.tenant, f"{op}: x-a2a.tenant")
    command = sub(saved.command, f"{op}: x-a2a.command")
    network = resolve_network(saved.network, sub, op)
    oauth = saved_to_oauth(saved.auth, resolver)
    # OAuth: the token is fetched by the sender; only Authorization is masked here.
    auth = AuthConfig.bearer("") if oauth else saved_to_auth(saved.auth, resolver)
    sendable = compose(
        RequestInputs(
            saved.method,
            endpoint=endpoint,
            version=saved.version,
            binding=saved.binding,
            body=body,  # the saved example, sent as saved
            headers=headers,
            query=query,
            tenant=tenant,
            timeout=saved.timeout or DEFAULT_TIMEOUT_S,
            network=network,
            auth=AuthConfig.none() if oauth else auth,
            extensions=tuple(saved.extensions),
            command=command,
        )
    )
    if resolver is not None:
        sendable = with_secrets(sendable, _secret_variable_values(saved, resolver))

    # Mask what carried a scoped or environment secret too (X-Auth-Token: {{xAuthToken.host}}).
    def carries_secret(text: str) -> bool:
        return _has_scoped(text) or (
            resolver is not None and any(resolver.is_secret(n) for n in references(text))
        )

    extra_headers = tuple(n for n, v in saved.headers if carries_secret(v))
    extra_query = tuple(n for n, v in saved.query if carries_secret(v))
    return Sendable(
        sendable,
        tuple(dict.fromkeys((*secret_header_names(auth), *extra_headers))),
        tuple(dict.fromkeys((*secret_query_names(auth), *extra_query))),
        oauth,
    )


def _secret_variable_values(saved: SavedRequest, resolver: Resolver) -> list[str]:
    """The values of the variables that hold credentials, registered on the request so
    the exchange masks them wherever they turn up: every variable of ``auth``, of a
    credential-named header or query parameter, every scoped variable, every secret of
    the selected environment, and every variable whose own name says it holds a
    credential (``{{apiToken}}``), wherever used."""
    texts = [saved.endpoint, saved.body, saved.tenant]
    texts += [v for n, v in (*saved.headers, *saved.query) if not is_sensitive_name(n)]
    secret = [name for _, v in saved.auth.params for name in references(v)]
    secret += [
        name for n, v in (*saved.headers, *saved.query) if is_sensitive_name(n)
        for name in references(v)
    ]  # fmt: skip
    secret += [
        name for text in texts for name in references(text)
        if split_scope(name)[1] or is_sensitive_name(split_scope(name)[0])
        or resolver.is_secret(name)
    ]  # fmt: skip
    secret += [
        name for _, v in (*saved.headers, *saved.query) for name in references(v)
        if resolver.is_secret(name)
    ]  # fmt: skip
    values = (resolver.lookup(name) for name in dict.fromkeys(secret))
    return [v for v in values if v]


def _blank_scoped(text: str) -> str:
    return VARIABLE.sub(lambda m: "" if split_scope(m.group(1))[1] else m.group(0), text)


def _display_host(endpoint: str) -> str:
    """``host:port`` of ``endpoint`` for messages (never its user info)."""
    target = endpoint_host(endpoint)
    if target is None:
        return repr(split_endpoint(endpoint.strip())[2] or endpoint.strip())
    return target[0] if target[1] is None else f"{target[0]}:{target[1]}"


def _has_scoped(text: str) -> bool:
    return any(split_scope(name)[1] for name in references(text))


def _scoped_names(text: str) -> list[str]:
    return [name for name in references(text) if split_scope(name)[1]]


def target_scope(endpoint: str) -> str:
    """The scope secrets may be sent under for a request to the resolved ``endpoint``.

    :func:`secret_scope`, except ``""`` (no scoped secret at all) when the host needed
    rewriting to become a scope (``my_host`` and ``my-host`` would share one) — only
    letters, digits, dots and hyphens, or an IPv6 literal, name one host unambiguously.
    """
    scope = secret_scope(endpoint)
    target = endpoint_host(endpoint)
    if not scope or target is None:
        return ""
    host = target[0]
    if re.fullmatch(r"[A-Za-z0-9.-]+", host) or (
        ":" in host and re.fullmatch(r"[0-9a-f:.]+", host)
    ):
        return scope
    return ""


class _ScopeCheck:
    """Checks where scoped variables are used, for one request (see to_a2a_request)."""

    def __init__(self, op: str) -> None:
        self.op = op
        self.scope = ""
        self.host = ""

    def _error(self, name: str, where: str, reason: str) -> ScopeError:
        return ScopeError(
            f"{self.op}: {{{{{name}}}}} (used in {where}) is a credential of "
            f"{split_scope(name)[1]}; {reason}. Nothing was sent."
        )

    def endpoint_places(self, endpoint: str) -> None:
        """Scoped variables may sit in the endpoint's user info or query only."""
        prefix, _, hostport, rest = split_endpoint(endpoint)
        names = _scoped_names(prefix + hostport)
        if names:
            raise self._error(
                names[0], "x-a2a.endpoint", "it cannot choose the host a request goes to"
            )
        path, _, fragment = rest.partition("#")
        names = _scoped_names(path.partition("?")[0] + "#" + fragment)
        if names:
            raise self._error(names[0], "x-a2a.endpoint", "only its user info or query may hold it")

    def set_target(self, endpoint: str) -> None:
        """The resolved endpoint (scoped variables left out) fixes the allowed scope."""
        self.scope = target_scope(endpoint)
        self.host = _display_host(endpoint)

    def same_target(self, endpoint: str) -> None:
        """The fully resolved endpoint must still go to the checked host."""
        if target_scope(endpoint) != self.scope:
            raise ScopeError(
                f"{self.op}: x-a2a.endpoint resolves to {_display_host(endpoint)}, not "
                f"{self.host}, once its secrets are filled in. Nothing was sent."
            )

    def here(self, text: str, where: str) -> None:
        """Scoped variables in ``text`` must belong to the request's host."""
        for name in _scoped_names(text):
            if split_scope(name)[1] != self.scope:
                theirs = f"scope {self.scope}" if self.scope else "no scope for secrets"
                raise self._error(
                    name,
                    where,
                    f"this request goes to {self.host} ({theirs}), another host",
                )

    def nowhere(self, text: str, where: str) -> None:
        """No scoped variable may appear in ``text`` (it is not a credential's place)."""
        names = _scoped_names(text)
        if names:
            raise self._error(
                names[0],
                where,
                f"credentials go only in auth, headers and query (this request goes to "
                f"{self.host})",
            )
