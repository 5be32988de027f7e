"""OpenID Connect discovery (OpenID Connect Discovery 1.0 §4; RFC 8414 metadata names)."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlsplit

import httpx

from app.protocol.oauth.config import OAuthConfig
from app.protocol.oauth.oauth_errors import OAuthError, not_json, unreachable
from app.protocol.oauth.tokens import json_object

WELL_KNOWN = "/.well-known/openid-configuration"


def discovery_document_url(url: str) -> str:
    """``url`` itself when it names a ``/.well-known/`` document, else the issuer's one."""
    if "/.well-known/" in urlsplit(url).path:
        return url
    return url.rstrip("/") + WELL_KNOWN


async def discover(client: httpx.AsyncClient, url: str) -> dict[str, object]:
    """The provider metadata at ``url`` (an issuer or its discovery document).

    Raises:
        OAuthError: unreachable, not a JSON object, an HTTP error, or no ``token_endpoint``.
    """
    doc_url = discovery_document_url(url)
    try:
        response = await client.get(doc_url, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise unreachable("discovery document", doc_url, exc) from exc
    body = json_object(response)
    if body is None:
        raise not_json("discovery document", doc_url, response)
    if response.status_code != 200 or not isinstance(body.get("token_endpoint"), str):
        raise OAuthError(
            f"discovery document {doc_url} answered HTTP {response.status_code} "
            "without a token_endpoint"
        )
    return body


def with_metadata(config: OAuthConfig, metadata: dict[str, object]) -> OAuthConfig:
    """``config`` with its empty endpoints filled from provider metadata."""

    def pick(current: str, key: str) -> str:
        value = metadata.get(key)
        return current or (value if isinstance(value, str) else "")

    return dataclasses.replace(
        config,
        token_url=pick(config.token_url, "token_endpoint"),
        device_authorization_url=pick(
            config.device_authorization_url, "device_authorization_endpoint"
        ),
        authorization_url=pick(config.authorization_url, "authorization_endpoint"),
    )
