"""Calls to the authorization server use the request's proxy and CA settings, never its
client certificate (a real oidc-provider behind a real proxy.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings, TlsSettings
from app.protocol.oauth import OAuthConfig, OAuthError, OAuthFlow, TokenCache, obtain_token
from app.protocol.oauth.client import authorization_server_network
from tests.peers.oidc_fixtures import CC_CLIENT
from tests.peers.tls_fixtures import PROXY_PASSWORD, PROXY_USER, ProxyServer

pytestmark = pytest.mark.peer


async def test_token_request_goes_through_the_requests_proxy(
    oidc_provider: dict[str, Any], proxy_server: ProxyServer
) -> None:
    config = OAuthConfig(
        OAuthFlow.CLIENT_CREDENTIALS, oidc_provider["token_url"], *CC_CLIENT, scopes=("a2a",)
    )
    proxy = ProxySettings(ProxyMode.CUSTOM, proxy_server.url, PROXY_USER, PROXY_PASSWORD)
    before = proxy_server.log.read_text("utf-8") if proxy_server.log.exists() else ""
    token, _ = await obtain_token(config, TokenCache(), network=NetworkOptions(proxy=proxy))
    assert token.access_token
    path = oidc_provider["token_url"].split("://", 1)[1].split("/", 1)[1]
    deadline = time.monotonic() + 10  # proxy.py logs a request when its connection closes
    while path not in (seen := proxy_server.log.read_text("utf-8")[len(before) :]):
        assert time.monotonic() < deadline, seen
        await asyncio.sleep(0.05)


async def test_an_unusable_proxy_is_an_oauth_error_naming_it(
    oidc_provider: dict[str, Any],
) -> None:
    config = OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, oidc_provider["token_url"], *CC_CLIENT)
    bad = NetworkOptions(proxy=ProxySettings(ProxyMode.CUSTOM, "socks9://h:1", "u", "pw-secret"))
    with pytest.raises(OAuthError) as caught:
        await obtain_token(config, TokenCache(), network=bad)
    assert "socks9://" in str(caught.value) and "pw-secret" not in str(caught.value)


def test_client_certificate_is_not_offered_to_the_authorization_server() -> None:
    tls = TlsSettings(
        ca_cert="ca.pem", client_cert="me.p12", client_key="k.pem", key_password="pw",
        insecure=True, server_name="agent.internal",
    )  # fmt: skip
    network = authorization_server_network(NetworkOptions(tls))
    assert network.tls == TlsSettings(ca_cert="ca.pem", insecure=True)
