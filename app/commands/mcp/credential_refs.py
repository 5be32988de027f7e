"""Credentials by reference: what a tool's ``auth`` argument names, made into the credential
a request carries — and never a value the model typed or reads back.

A reference is either an environment variable of the server's process (``env``) or a saved
request of one of the user's collections (``collection`` + ``operation``), whose ``auth``
resolves as the window and ``run`` resolve it (its secrets from the OS keyring). Every value
found is entered in the run's :class:`~app.commands.mcp.mcp_state.SecretLedger`, so no
result shows it. A saved credential goes only to the host and port of the request it was
saved with, as a scoped variable does (docs/SECURITY.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.commands.mcp.known_collections import collection_resolver, open_collection
from app.commands.mcp.mcp_state import ServerState
from app.errors import UsageError
from app.protocol.net.auth import ApiKeyLocation, AuthConfig, secret_values_of
from app.protocol.oauth import OAuthConfig, OAuthFlow
from app.protocol.secrets import looks_sensitive
from app.spec.document import SpecError
from app.spec.oauth_saved import saved_to_oauth
from app.spec.requests import saved_to_auth
from app.spec.xa2a import endpoint_host


class CredentialRef(BaseModel):
    """Where the server finds a credential; the value itself is never given nor returned."""

    model_config = ConfigDict(extra="forbid")

    env: str | None = Field(
        default=None,
        description="Name of an environment variable of the MCP server's process that holds "
        "the credential: the bearer token, 'user:password' for basic, or the API key.",
    )
    scheme: Literal["bearer", "basic", "api_key"] = Field(
        default="bearer", description="How the `env` credential is sent."
    )
    api_key_name: str = Field(default="", description="api_key: the header, query or cookie name.")
    api_key_in: Literal["header", "query", "cookie"] = Field(
        default="header", description="api_key: where the key goes."
    )
    collection: str | None = Field(
        default=None,
        description="Path of one of the user's collections (see list_collections) whose "
        "saved request's auth to use; its secrets come from the OS keyring.",
    )
    operation: str | None = Field(default=None, description="The saved request's operationId.")
    environment: str = Field(default="", description="The collection's named environment, if any.")


@dataclass(frozen=True, slots=True)
class Credential:
    """A resolved reference: the credential (or the OAuth grant that gets one), where a
    saved one may go, and how to name it in a result (never its value)."""

    auth: AuthConfig
    label: str
    oauth: OAuthConfig | None = None
    bound_to: tuple[str, int | None] | None = None


NO_CREDENTIAL = Credential(AuthConfig.none(), "none")


def resolve(ref: CredentialRef | None, state: ServerState) -> Credential:
    """The credential ``ref`` names (none without one); its values go to the ledger.

    Raises:
        UsageError: the reference is incomplete, names an unset variable, an unknown
            collection or operation, or a saved request without a credential.
    """
    if ref is None:
        return NO_CREDENTIAL
    if (ref.env is None) == (ref.collection is None):
        raise UsageError(
            "auth needs exactly one reference: `env` (an environment variable's name) or "
            "`collection` with `operation` (a saved request's auth)"
        )
    found = _from_env(ref) if ref.env is not None else _from_saved(ref)
    state.ledger.add(secret_values_of(found.auth))
    if found.oauth is not None:
        state.ledger.add([found.oauth.client_secret])
    return found


def check_target(credential: Credential, target: str) -> None:
    """Refuse to send a saved credential to another host or port than it was saved for.

    Raises:
        UsageError: ``target`` is elsewhere.
    """
    if credential.bound_to is None:
        return
    if endpoint_host(target) != credential.bound_to:
        host, port = credential.bound_to
        where = host if port is None else f"{host}:{port}"
        raise UsageError(
            f"the credential of {credential.label} is sent only to {where}, where it was "
            f"saved for, not to {target}"
        )


def check_headers(headers: dict[str, str]) -> None:
    """Refuse credentials typed as plain headers: they go by reference, in ``auth``.

    Raises:
        UsageError: a header name that carries credentials (Authorization, *key*, *token*…).
    """
    for name in headers:
        if looks_sensitive(name):
            raise UsageError(
                f"header {name!r} carries a credential: give it by reference in `auth` "
                "(an environment variable or a saved request), never as a value"
            )


def _from_env(ref: CredentialRef) -> Credential:
    name = ref.env or ""
    value = os.environ.get(name, "")
    if not value:
        raise UsageError(
            f"environment variable {name!r} is not set for the MCP server (set it in the "
            "`env` of the server's configuration, or where the server is started)"
        )
    label = f"{ref.scheme} from ${name}"
    if ref.scheme == "bearer":
        return Credential(AuthConfig.bearer(value), label)
    if ref.scheme == "basic":
        user, sep, password = value.partition(":")
        if not sep:
            raise UsageError(f"${name} must hold 'user:password' for basic (value not shown)")
        return Credential(AuthConfig.basic(user, password), label)
    if not ref.api_key_name.strip():
        raise UsageError("api_key needs `api_key_name` (the header, query or cookie name)")
    location = ApiKeyLocation(ref.api_key_in)
    return Credential(AuthConfig.api_key(ref.api_key_name.strip(), value, location), label)


def _from_saved(ref: CredentialRef) -> Credential:
    if not ref.operation:
        raise UsageError("`collection` needs `operation`: the saved request's operationId")
    try:
        doc = open_collection(ref.collection or "")
    except SpecError as exc:
        raise UsageError(str(exc)) from exc
    op = doc.find(ref.operation)
    if op is None:
        known = ", ".join(sorted(doc.operation_ids())) or "(none)"
        raise UsageError(f"no saved request {ref.operation!r} in {ref.collection} ({known})")
    saved = op.request
    label = f"{Path(ref.collection or '').name} → {ref.operation}"
    resolver = collection_resolver(doc, ref.environment)
    endpoint = resolver.substitute(saved.endpoint, f"{ref.operation}: x-a2a.endpoint")
    bound = endpoint_host(endpoint)
    oauth = saved_to_oauth(saved.auth, resolver)
    if oauth is not None:
        if oauth.flow is not OAuthFlow.CLIENT_CREDENTIALS:
            raise UsageError(
                f"{label} gets its token with the {oauth.flow.label} flow, which needs a "
                "person at the browser; send it from the window or the command line"
            )
        return Credential(AuthConfig.none(), label, oauth, bound)
    auth = saved_to_auth(saved.auth, resolver)
    if not secret_values_of(auth):
        raise UsageError(f"{label} has no credential saved (auth: {saved.auth.kind or 'none'})")
    return Credential(auth, label, None, bound)
