"""Getting a token for an :class:`OAuthConfig`: from the cache, by refresh, or by its flow."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from app.errors import UsageError
from app.protocol.net.network import NetworkOptions
from app.protocol.oauth.client import token_client
from app.protocol.oauth.config import OAuthConfig, OAuthFlow
from app.protocol.oauth.device import (
    DeviceAuthorization,
    Sleep,
    poll_device_token,
    start_device_authorization,
)
from app.protocol.oauth.discovery import discover, with_metadata
from app.protocol.oauth.oauth_errors import OAuthError
from app.protocol.oauth.pkce import OpenBrowser, authorization_code_token
from app.protocol.oauth.tokens import Token, TokenCache, request_token


def _no_browser(url: str) -> None:
    raise OAuthError("no browser to open the authorization URL")


def _ignore_device(authorization: DeviceAuthorization) -> None:
    return None


@dataclass(frozen=True, slots=True)
class UserAgent:
    """How a flow reaches the user.

    Attributes:
        open_browser: opens a URL (``webbrowser.open`` in the app; a test driver in tests).
        show_device_code: called once with the user code and verification URI, before
            polling starts (GUI prompt, CLI stderr lines).
        sleep: the wait between device-code polls.
    """

    open_browser: OpenBrowser = _no_browser
    show_device_code: Callable[[DeviceAuthorization], None] = _ignore_device
    sleep: Sleep = asyncio.sleep


async def resolve(client: httpx.AsyncClient, config: OAuthConfig) -> OAuthConfig:
    """``config`` with endpoints from its OpenID Connect discovery document filled in."""
    if not config.discovery_url:
        return config
    return with_metadata(config, await discover(client, config.discovery_url))


async def obtain_token(
    config: OAuthConfig,
    cache: TokenCache,
    agent: UserAgent | None = None,
    *,
    force: bool = False,
    network: NetworkOptions | None = None,
) -> tuple[Token, OAuthConfig]:
    """A token for ``config``, and the config with discovered endpoints filled in.

    A cached token that has not expired is returned as is unless ``force``. Otherwise a
    refresh token, when one is cached, is tried first (RFC 6749 §6); when the server
    refuses it (``invalid_grant``), the flow runs again. ``network`` is the request's TLS
    and proxy settings (:func:`~app.protocol.oauth.client.token_client` says which apply).

    Raises:
        OAuthError: a setting is missing, or the flow failed (one-line message).
    """
    agent = agent or UserAgent()
    first_url = config.discovery_url or config.token_url or config.device_authorization_url
    try:
        client = await asyncio.to_thread(token_client, network, first_url)
    except UsageError as exc:  # the request's CA file or proxy URL is unusable
        raise OAuthError(f"cannot reach the authorization server: {exc}") from None
    async with client:
        config = await resolve(client, config)
        missing = config.missing()
        if missing:
            raise OAuthError(f"OAuth 2 {config.flow.label.lower()} needs {missing}")
        cached = cache.get(config)
        if cached is not None and not force and not cached.expired():
            return cached, config
        token = None
        if cached is not None and cached.refresh_token:
            token = await _refreshed(client, config, cached)
        if token is None:
            token = await run_flow(client, config, agent)
    cache.put(config, token)
    return token, config


async def _refreshed(client: httpx.AsyncClient, config: OAuthConfig, old: Token) -> Token | None:
    form = {"grant_type": "refresh_token", "refresh_token": old.refresh_token}
    if config.scopes:
        form["scope"] = " ".join(config.scopes)
    try:
        token = await request_token(client, config, form)
    except OAuthError as exc:
        if exc.error in ("invalid_grant", "invalid_token"):
            return None  # the refresh token is spent or revoked: start over
        raise
    # A server may keep the refresh token unchanged and not send it again (RFC 6749 §6).
    return (
        token
        if token.refresh_token
        else dataclasses.replace(token, refresh_token=old.refresh_token)
    )


async def run_flow(client: httpx.AsyncClient, config: OAuthConfig, agent: UserAgent) -> Token:
    """Run ``config.flow`` from the start."""
    if config.flow is OAuthFlow.CLIENT_CREDENTIALS:
        form = {"grant_type": "client_credentials"}
        if config.scopes:
            form["scope"] = " ".join(config.scopes)
        return await request_token(client, config, form)
    if config.flow is OAuthFlow.DEVICE_CODE:
        authorization = await start_device_authorization(client, config)
        agent.show_device_code(authorization)
        return await poll_device_token(client, config, authorization, sleep=agent.sleep)
    return await authorization_code_token(client, config, agent.open_browser)
