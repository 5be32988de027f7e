"""What an OAuth 2 grant needs: the flow, the endpoints, the client and the scopes (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from app.errors import UsageError


class OAuthFlow(StrEnum):
    """The grants the workbench runs, named as A2A ``OAuthFlows`` members are."""

    CLIENT_CREDENTIALS = "clientCredentials"
    DEVICE_CODE = "deviceCode"
    AUTHORIZATION_CODE = "authorizationCode"

    @property
    def label(self) -> str:
        """Words for a combo box or a message."""
        return {
            OAuthFlow.CLIENT_CREDENTIALS: "Client credentials",
            OAuthFlow.DEVICE_CODE: "Device code",
            OAuthFlow.AUTHORIZATION_CODE: "Authorization code + PKCE",
        }[self]

    @property
    def cli_name(self) -> str:
        """The ``--oauth2`` value, e.g. ``client-credentials``."""
        return {
            OAuthFlow.CLIENT_CREDENTIALS: "client-credentials",
            OAuthFlow.DEVICE_CODE: "device-code",
            OAuthFlow.AUTHORIZATION_CODE: "authorization-code",
        }[self]

    @classmethod
    def from_cli(cls, name: str) -> OAuthFlow:
        """The flow for an ``--oauth2`` value."""
        for flow in cls:
            if name == flow.cli_name:
                return flow
        raise UsageError(f"--oauth2: {name!r} is not one of {', '.join(f.cli_name for f in cls)}")


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """One OAuth 2 client configuration.

    Attributes:
        flow: the grant to run.
        token_url: the token endpoint (RFC 6749 §3.2).
        client_id: the client identifier.
        client_secret: the secret of a confidential client ("" for a public one); sent with
            HTTP Basic (RFC 6749 §2.3.1).
        scopes: requested scopes (RFC 6749 §3.3).
        device_authorization_url: the RFC 8628 §3.1 endpoint (device code flow).
        authorization_url: the authorization endpoint (authorization code flow).
        discovery_url: an OpenID Connect discovery document that fills the endpoints left
            empty (OpenID Connect Discovery 1.0 §4).
    """

    flow: OAuthFlow
    token_url: str = ""
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    scopes: tuple[str, ...] = ()
    device_authorization_url: str = ""
    authorization_url: str = ""
    discovery_url: str = ""

    @property
    def cache_key(self) -> tuple[str, str, tuple[str, ...]]:
        """Tokens are cached per (token URL, client id, scopes)."""
        return (self.token_url, self.client_id, tuple(sorted(set(self.scopes))))

    def missing(self) -> str:
        """The first setting the flow cannot run without, in words ("" when complete)."""
        if not self.client_id.strip():
            return "a client id"
        if not self.token_url.strip():
            return "a token URL"
        if self.flow is OAuthFlow.DEVICE_CODE and not self.device_authorization_url.strip():
            return "a device authorization URL"
        if self.flow is OAuthFlow.AUTHORIZATION_CODE and not self.authorization_url.strip():
            return "an authorization URL"
        if self.flow is OAuthFlow.CLIENT_CREDENTIALS and not self.client_secret:
            return "a client secret"
        return ""


def split_scopes(text: str) -> tuple[str, ...]:
    """Scopes from user text: separated by spaces or commas, duplicates dropped."""
    return tuple(dict.fromkeys(s for s in text.replace(",", " ").split() if s))
