"""Requests through a real HTTP proxy (``proxy.py`` on loopback, Basic proxy authentication).

Its access log proves each request went through it (``CONNECT host:port``): JSON-RPC, REST,
the card fetch and gRPC (HTTP CONNECT, ``grpc.http_proxy``), with the agent over mutual TLS.
Refused credentials and a proxy that is down are reported in words. The system mode
(``HTTPS_PROXY`` / ``NO_PROXY``, loopback direct) is tested in test_ambient_credentials.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.errors import UsageError
from app.protocol.card.fetch import fetch_card
from app.protocol.events import Outcome, RequestSent
from app.protocol.net.http import client_for
from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from tests.peers.tls_fixtures import PROXY_PASSWORD, PROXY_USER, ProxyServer, TlsFiles
from tests.protocol.test_tls import (
    BINDINGS,
    endpoint,
    error_of,
    exchange,
    mutual,
    outcome,
    request_for,
)

pytestmark = pytest.mark.peer


def through(
    proxy: ProxySettings, binding: Binding, peer: dict[str, Any], files: TlsFiles
) -> A2ARequest:
    request = request_for(binding, endpoint(peer, binding), mutual(files))
    return dataclasses.replace(request, network=NetworkOptions(request.network.tls, proxy))


def port_of(peer: dict[str, Any], binding: Binding) -> str:
    where = peer["grpc_target"] if binding is Binding.GRPC else peer["base_url"]
    return where.rsplit(":", 1)[1]


def custom(proxy_server: ProxyServer, password: str = PROXY_PASSWORD) -> ProxySettings:
    return ProxySettings(ProxyMode.CUSTOM, proxy_server.url, PROXY_USER, password)


@pytest.mark.parametrize("binding", BINDINGS)
async def test_every_binding_goes_through_the_proxy(
    binding: Binding, tls_peer: dict[str, Any], tls_files: TlsFiles, proxy_server: ProxyServer
) -> None:
    target = f"127.0.0.1:{port_of(tls_peer, binding)}"
    before = proxy_server.tunnels_to(target)
    events = await exchange(through(custom(proxy_server), binding, tls_peer, tls_files))
    assert outcome(events) is Outcome.OK, events
    sent = next(e for e in events if isinstance(e, RequestSent))
    assert sent.proxy == f"http://{PROXY_USER}:***@127.0.0.1:{proxy_server.port}"
    assert PROXY_PASSWORD not in repr(events)
    assert proxy_server.tunnels_to(target, more_than=before) == before + 1


async def test_card_fetch_goes_through_the_proxy(
    tls_peer: dict[str, Any], tls_files: TlsFiles, proxy_server: ProxyServer
) -> None:
    target = f"127.0.0.1:{port_of(tls_peer, Binding.JSONRPC)}"
    before = proxy_server.tunnels_to(target)
    network = NetworkOptions(mutual(tls_files), custom(proxy_server))
    result = await fetch_card(tls_peer["card_url"], network=network)
    assert result.status == 200, result.error
    assert proxy_server.tunnels_to(target, more_than=before) == before + 1


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.GRPC])
async def test_refused_proxy_credentials(
    binding: Binding, tls_peer: dict[str, Any], tls_files: TlsFiles, proxy_server: ProxyServer
) -> None:
    proxy = custom(proxy_server, password="wrong-password")
    message = error_of(await exchange(through(proxy, binding, tls_peer, tls_files)))
    assert "407 Proxy Authentication Required" in message, message
    assert "wrong-password" not in message


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.GRPC])
async def test_proxy_down(binding: Binding, tls_peer: dict[str, Any], tls_files: TlsFiles) -> None:
    proxy = ProxySettings(ProxyMode.CUSTOM, "http://127.0.0.1:9")
    message = error_of(await exchange(through(proxy, binding, tls_peer, tls_files)))
    assert "Could not connect to the proxy http://127.0.0.1:9: connection refused" in message


def test_no_proxy_mode_ignores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert ProxySettings(ProxyMode.NONE).proxy_for("https://example.test/") is None
    assert ProxySettings().proxy_for("https://example.test/") == "http://127.0.0.1:9"
    assert ProxySettings().proxy_for("example.test:50051") is None  # gRPC host:port is http


def test_custom_proxy_urls() -> None:
    assert ProxySettings(ProxyMode.CUSTOM, "proxy:3128", "a b", "p@ss").proxy_for("https://x/") == (
        "http://a%20b:p%40ss@proxy:3128"
    )
    bad = NetworkOptions(proxy=ProxySettings(ProxyMode.CUSTOM, "socks9://h:1", "u", "pw-secret"))
    with pytest.raises(UsageError, match="is not usable") as caught:
        client_for("https://x/", bad)
    assert "pw-secret" not in str(caught.value)
