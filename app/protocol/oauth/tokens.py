"""Tokens: the token endpoint's answer parsed (RFC 6749 §5.1), and the in-memory cache."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

import httpx

from app.protocol.oauth.config import OAuthConfig
from app.protocol.oauth.oauth_errors import OAuthError, error_from_json, not_json, unreachable

# A token this close to its expiry is treated as expired: it could lapse in flight.
EXPIRY_LEEWAY_S = 30.0


@dataclass(frozen=True, slots=True)
class Token:
    """An access token and what came with it.

    Attributes:
        access_token: sent as ``Authorization: Bearer …``.
        token_type: ``Bearer`` as a rule.
        expires_at: wall-clock time (``time.time()``) of expiry, None when not given.
        refresh_token: "" when none was issued.
        scope: the granted scopes, space-separated ("" when the server did not say).
    """

    access_token: str = field(repr=False)
    token_type: str = "Bearer"
    expires_at: float | None = None
    refresh_token: str = field(default="", repr=False)
    scope: str = ""

    def expired(self, now: float | None = None) -> bool:
        """True when the token is past (or within a few seconds of) its expiry."""
        if self.expires_at is None:
            return False
        return (time.time() if now is None else now) >= self.expires_at - EXPIRY_LEEWAY_S

    def secrets(self) -> tuple[str, ...]:
        """The values to mask wherever they turn up."""
        return tuple(v for v in (self.access_token, self.refresh_token) if v)


def parse_token_response(
    response: httpx.Response, url: str, now: Callable[[], float] = time.time
) -> Token:
    """The token in a token endpoint's answer.

    Raises:
        OAuthError: an RFC 6749 §5.2 error object (its ``error`` and ``error_description``),
            an answer that is not JSON (HTML login page, proxy page), or no ``access_token``.
    """
    body = json_object(response)
    if body is None:
        raise not_json("token endpoint", url, response)
    if "error" in body:
        raise error_from_json("token endpoint", url, body)
    access = body.get("access_token")
    if response.status_code != 200 or not isinstance(access, str) or not access:
        raise OAuthError(
            f"token endpoint {url} answered HTTP {response.status_code} without an access_token"
        )
    expires_in = body.get("expires_in")
    expires_at = None
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
        expires_at = now() + float(expires_in)
    refresh = body.get("refresh_token")
    return Token(
        access_token=access,
        token_type=str(body.get("token_type") or "Bearer"),
        expires_at=expires_at,
        refresh_token=refresh if isinstance(refresh, str) else "",
        scope=str(body.get("scope") or ""),
    )


def json_object(response: httpx.Response) -> dict[str, Any] | None:
    """The body as a JSON object, None when it is anything else."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def client_auth(config: OAuthConfig) -> tuple[dict[str, str], dict[str, str]]:
    """``(headers, form fields)`` that authenticate the client at the token endpoint.

    A confidential client uses HTTP Basic with form-encoded id and secret (RFC 6749
    §2.3.1); a public client names itself with ``client_id`` in the form (§3.2.1).
    """
    if config.client_secret:
        pair = f"{quote_plus(config.client_id)}:{quote_plus(config.client_secret)}"
        basic = base64.b64encode(pair.encode()).decode("ascii")
        return {"Authorization": f"Basic {basic}"}, {}
    return {}, {"client_id": config.client_id}


async def post_form(
    client: httpx.AsyncClient, what: str, url: str, config: OAuthConfig, form: dict[str, str]
) -> httpx.Response:
    """POST ``form`` (plus the client's authentication) to ``url``."""
    headers, extra = client_auth(config)
    try:
        return await client.post(
            url, data={**form, **extra}, headers={"Accept": "application/json", **headers}
        )
    except httpx.HTTPError as exc:
        raise unreachable(what, url, exc) from exc


async def request_token(
    client: httpx.AsyncClient, config: OAuthConfig, form: dict[str, str]
) -> Token:
    """One token request (RFC 6749 §4.4.2, §6, RFC 8628 §3.4, RFC 7636 §4.5)."""
    response = await post_form(client, "token endpoint", config.token_url, config, form)
    return parse_token_response(response, config.token_url)


class TokenCache:
    """Tokens in memory per :attr:`OAuthConfig.cache_key`; nothing is written anywhere."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str, tuple[str, ...]], Token] = {}

    def get(self, config: OAuthConfig) -> Token | None:
        """The cached token for ``config`` (expired or not), None when there is none."""
        return self._tokens.get(config.cache_key)

    def put(self, config: OAuthConfig, token: Token) -> None:
        """Remember ``token`` for ``config``."""
        self._tokens[config.cache_key] = token

    def drop(self, config: OAuthConfig) -> None:
        """Forget the token for ``config``."""
        self._tokens.pop(config.cache_key, None)
