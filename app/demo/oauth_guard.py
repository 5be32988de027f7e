"""OAuth 2 protection for the demo agent: tokens checked by introspection (RFC 7662).

With ``--oauth-issuer``, the agent reads the provider's discovery document at start-up,
declares its flows on the card (one ``oauth2SecurityScheme`` per flow, since A2A 1.0
``OAuthFlows`` holds one flow, plus an ``openIdConnectSecurityScheme``), and accepts a
bearer token (HTTP header or gRPC metadata) only when the introspection endpoint says it
is ``active``. Anything else
gets HTTP 401 with ``WWW-Authenticate: Bearer error="invalid_token"`` (RFC 6750 §3.1);
no token at all gets the bare ``Bearer`` challenge.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote_plus

import httpx
from a2a.types import (
    AgentCard,
    AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow,
    DeviceCodeOAuthFlow,
    OAuth2SecurityScheme,
    OAuthFlows,
    OpenIdConnectSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.protocol.net.network import ProxySettings

SCOPES = {"a2a": "Talk to the demo agent"}


async def discover(issuer: str) -> dict[str, Any]:
    """The provider metadata of ``issuer`` (OpenID Connect Discovery 1.0 §4)."""
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    async with provider_client(url) as client:
        response = await client.get(url)
        response.raise_for_status()
        metadata: dict[str, Any] = response.json()
    return metadata


def provider_client(url: str, *, keepalive: bool = True) -> httpx.AsyncClient:
    """A client for the provider at ``url``: the system proxy as the app applies it
    (loopback direct), nothing else from the environment (no ``.netrc``)."""
    return httpx.AsyncClient(
        timeout=10.0,
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=20 if keepalive else 0),
        trust_env=False,
        proxy=ProxySettings().proxy_for(url),
    )


def declare_schemes(card: AgentCard, issuer: str, metadata: dict[str, Any]) -> None:
    """Add the provider's flows to ``card`` as alternative security requirements."""
    token_url = str(metadata["token_endpoint"])
    flows = {
        "oauthClientCredentials": OAuthFlows(
            client_credentials=ClientCredentialsOAuthFlow(token_url=token_url, scopes=SCOPES)
        ),
        "oauthDeviceCode": OAuthFlows(
            device_code=DeviceCodeOAuthFlow(
                device_authorization_url=str(metadata["device_authorization_endpoint"]),
                token_url=token_url,
                scopes=SCOPES,
            )
        ),
        "oauthAuthorizationCode": OAuthFlows(
            authorization_code=AuthorizationCodeOAuthFlow(
                authorization_url=str(metadata["authorization_endpoint"]),
                token_url=token_url,
                scopes=SCOPES,
                pkce_required=True,
            )
        ),
    }
    for name, oauth_flows in flows.items():
        card.security_schemes[name].CopyFrom(
            SecurityScheme(oauth2_security_scheme=OAuth2SecurityScheme(flows=oauth_flows))
        )
    card.security_schemes["oidc"].CopyFrom(
        SecurityScheme(
            open_id_connect_security_scheme=OpenIdConnectSecurityScheme(
                open_id_connect_url=issuer.rstrip("/") + "/.well-known/openid-configuration"
            )
        )
    )
    for name in (*flows, "oidc"):
        card.security_requirements.append(
            SecurityRequirement(schemes={name: StringList(list=list(SCOPES))})
        )


class Introspector:
    """Asks the provider's introspection endpoint whether a token is active (RFC 7662 §2)."""

    def __init__(
        self, issuer: str, metadata: dict[str, Any], client_id: str, client_secret: str
    ) -> None:
        """``metadata`` is the provider's discovery document; the client is the agent's own."""
        self.issuer = issuer
        self.metadata = metadata
        self._url = str(metadata["introspection_endpoint"])
        pair = f"{quote_plus(client_id)}:{quote_plus(client_secret)}"
        self._auth = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        # No keep-alive: a pooled connection the provider closes while idle (Node's 5 s
        # keepAliveTimeout) would fail the next check now and then.
        self._client = provider_client(self._url, keepalive=False)

    async def active(self, token: str) -> bool:
        """Whether the provider says ``token`` is an active access token (False when the
        provider cannot be asked)."""
        try:
            response = await self._client.post(
                self._url,
                data={"token": token, "token_type_hint": "access_token"},
                headers={"Authorization": self._auth, "Accept": "application/json"},
            )
            body = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            return False
        return isinstance(body, dict) and body.get("active") is True


class IntrospectionAuthMiddleware:
    """Pure-ASGI guard: every path but ``public_paths`` needs an active access token."""

    def __init__(
        self, app: ASGIApp, introspector: Introspector, public_paths: frozenset[str]
    ) -> None:
        """Wraps ``app``."""
        self.app = app
        self._introspector = introspector
        self._public = public_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http" or scope["path"] in self._public:
            await self.app(scope, receive, send)
            return
        supplied = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = supplied.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            if await self._introspector.active(token.strip()):
                await self.app(scope, receive, send)
                return
            challenge = 'Bearer error="invalid_token", error_description="token is not active"'
        else:
            challenge = 'Bearer realm="a2a-demo"'
        response = JSONResponse(
            {
                "error": {
                    "code": 401,
                    "status": "UNAUTHENTICATED",
                    "message": "Missing or invalid bearer token",
                }
            },
            status_code=401,
            headers={"WWW-Authenticate": challenge},
        )
        await response(scope, receive, send)
