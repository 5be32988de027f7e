"""OAuth 2 flows against a real authorization server (oidc-provider) and an agent it guards."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from app.protocol import exchange
from app.protocol.events import ExchangeEnd, Outcome
from app.protocol.methods.catalog import TemplateContext, default_method
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.oauth import (
    DeviceAuthorization,
    OAuthConfig,
    OAuthError,
    OAuthFlow,
    TokenCache,
    UserAgent,
    card_oauth_options,
    obtain_token,
    pick_option,
)
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.oidc_browser import browse
from tests.peers.oidc_fixtures import (
    CC_CLIENT,
    DEVICE_CLIENT,
    DEVICE_SHORT_CLIENT,
    DEVICE_SLOW_CLIENT,
    PKCE_CLIENT,
)

pytestmark = pytest.mark.peer
V1 = ProtocolVersion.V1_0


async def send_sum(
    agent: dict[str, Any], token: str, binding: Binding = Binding.JSONRPC
) -> list[Any]:
    spec = default_method(V1)
    endpoint = agent["grpc_target"] if binding is Binding.GRPC else agent["jsonrpc_url"]
    request = A2ARequest(
        endpoint=endpoint,
        method=spec.name,
        body=render_body(spec, binding, TemplateContext(text="12 30")),
        version=V1,
        binding=binding,
    )
    return [e async for e in exchange.run(apply_auth(request, AuthConfig.bearer(token)))]


def assert_sum(events: list[Any]) -> None:
    end = events[-1]
    assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.OK, events
    assert "Sum: 42" in json.dumps([getattr(e, "json", None) for e in events], default=str)


def device_agent(seen: list[DeviceAuthorization], *, deny: bool = False) -> UserAgent:
    """Shows the code by logging in at the verification URI, as a person would."""
    import asyncio

    tasks: list[asyncio.Task[None]] = []

    def show(authorization: DeviceAuthorization) -> None:
        seen.append(authorization)
        tasks.append(asyncio.ensure_future(browse(authorization.browser_uri, deny=deny)))

    return UserAgent(show_device_code=show)


async def test_client_credentials_token_then_send(oauth_agent: dict[str, Any]) -> None:
    oidc = oauth_agent["oidc"]
    config = OAuthConfig(
        OAuthFlow.CLIENT_CREDENTIALS, oidc["token_url"], *CC_CLIENT, scopes=("a2a",)
    )
    cache = TokenCache()
    token, _ = await obtain_token(config, cache)
    assert token.expires_at is not None and not token.expired()
    assert_sum(await send_sum(oauth_agent, token.access_token))
    again, _ = await obtain_token(config, cache)
    assert again is token  # cached per (token URL, client, scopes)
    # gRPC: the same token in metadata, introspected by the agent's interceptor.
    assert_sum(await send_sum(oauth_agent, token.access_token, Binding.GRPC))
    refused = await send_sum(oauth_agent, "not-a-token", Binding.GRPC)
    assert refused[-1].outcome is Outcome.RPC_ERROR


async def test_unknown_token_is_refused_with_invalid_token(oauth_agent: dict[str, Any]) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            oauth_agent["jsonrpc_url"], json={}, headers={"Authorization": "Bearer nope"}
        )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


async def test_wrong_secret_shows_invalid_client(oidc_provider: dict[str, Any]) -> None:
    config = OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, oidc_provider["token_url"], "cc-client", "x")
    with pytest.raises(OAuthError) as caught:
        await obtain_token(config, TokenCache())
    assert caught.value.error == "invalid_client"
    assert str(caught.value).startswith("invalid_client: client authentication failed")
    assert "\n" not in str(caught.value)


async def test_device_code_with_slow_down_and_refresh(oauth_agent: dict[str, Any]) -> None:
    oidc = oauth_agent["oidc"]
    seen: list[DeviceAuthorization] = []
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        # The user logs in only after the first poll, which was answered with slow_down.
        waits.append(seconds)
        if len(waits) == 2:
            await browse(seen[0].browser_uri)

    config = OAuthConfig(
        OAuthFlow.DEVICE_CODE,
        oidc["token_url"],
        DEVICE_SLOW_CLIENT,
        scopes=("openid", "a2a"),
        device_authorization_url=oidc["device_authorization_url"],
    )
    cache = TokenCache()
    token, _ = await obtain_token(
        config, cache, UserAgent(show_device_code=seen.append, sleep=sleep)
    )
    assert seen and seen[0].user_code and seen[0].verification_uri.startswith(oidc["issuer"])
    assert waits == [1.0, 6.0]  # interval 1 s, then slow_down adds 5 s
    assert token.refresh_token
    assert_sum(await send_sum(oauth_agent, token.access_token))

    # Get new token: the refresh token is used, no user code is shown again.
    refreshed, _ = await obtain_token(config, cache, UserAgent(), force=True)
    assert refreshed.access_token != token.access_token
    assert len(seen) == 1
    assert_sum(await send_sum(oauth_agent, refreshed.access_token))


async def test_device_code_expires(oidc_provider: dict[str, Any]) -> None:
    config = OAuthConfig(
        OAuthFlow.DEVICE_CODE,
        oidc_provider["token_url"],
        DEVICE_SHORT_CLIENT,
        device_authorization_url=oidc_provider["device_authorization_url"],
    )
    with pytest.raises(OAuthError) as caught:
        await obtain_token(config, TokenCache())
    assert caught.value.error == "expired_token"
    assert "expired" in str(caught.value)


async def test_device_code_denied(oidc_provider: dict[str, Any]) -> None:
    config = OAuthConfig(
        OAuthFlow.DEVICE_CODE,
        oidc_provider["token_url"],
        DEVICE_CLIENT,
        scopes=("openid", "a2a"),
        device_authorization_url=oidc_provider["device_authorization_url"],
    )
    with pytest.raises(OAuthError) as caught:
        await obtain_token(config, TokenCache(), device_agent([], deny=True))
    assert caught.value.error == "access_denied"


async def test_authorization_code_pkce_from_openid_discovery(oauth_agent: dict[str, Any]) -> None:
    card = httpx.get(oauth_agent["card_url"]).json()
    option = pick_option(card_oauth_options(card), "oidc", OAuthFlow.AUTHORIZATION_CODE)
    assert option is not None and option.config.discovery_url
    config = OAuthConfig(
        OAuthFlow.AUTHORIZATION_CODE,
        client_id=PKCE_CLIENT,
        scopes=("openid", "a2a"),
        discovery_url=option.config.discovery_url,
    )
    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)
        await browse(url)

    token, resolved = await obtain_token(config, TokenCache(), UserAgent(open_browser=browser))
    assert "code_challenge_method=S256" in opened[0]
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A" in opened[0]
    assert resolved.token_url == oauth_agent["oidc"]["token_url"]
    assert_sum(await send_sum(oauth_agent, token.access_token))


async def test_authorization_code_denied_consent(oidc_provider: dict[str, Any]) -> None:
    config = OAuthConfig(
        OAuthFlow.AUTHORIZATION_CODE,
        oidc_provider["token_url"],
        PKCE_CLIENT,
        scopes=("openid",),
        authorization_url=oidc_provider["authorization_url"],
    )

    async def browser(url: str) -> None:
        await browse(url, deny=True)

    with pytest.raises(OAuthError) as caught:
        await obtain_token(config, TokenCache(), UserAgent(open_browser=browser))
    assert caught.value.error == "access_denied"
    assert str(caught.value).startswith("access_denied: End-User aborted interaction")


def test_card_schemes_fill_urls_and_scopes(oauth_agent: dict[str, Any]) -> None:
    card = httpx.get(oauth_agent["card_url"]).json()
    options = card_oauth_options(card)
    cc = pick_option(options, "oauthClientCredentials", OAuthFlow.CLIENT_CREDENTIALS)
    device = pick_option(options, "oauthDeviceCode")
    assert cc is not None and cc.config.token_url == oauth_agent["oidc"]["token_url"]
    assert cc.config.scopes == ("a2a",)
    assert device is not None and device.config.device_authorization_url.endswith("/device/auth")


def test_card_schemes_read_the_0_3_shape() -> None:
    card = {
        "securitySchemes": {
            "o": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "https://t/", "scopes": {"s": ""}}},
            },
            "k": {"type": "apiKey", "in": "header", "name": "X"},
            "i": {"type": "openIdConnect", "openIdConnectUrl": "https://i/.well-known/x"},
        }
    }
    options = card_oauth_options(card)
    assert [o.scheme for o in options] == ["o", "i", "i", "i"]
    assert options[0].config.token_url == "https://t/" and options[0].config.scopes == ("s",)
    assert options[1].config.discovery_url == "https://i/.well-known/x"
