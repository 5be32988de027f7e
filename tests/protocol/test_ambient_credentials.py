"""Ambient credentials (issue 29, kind 2): nothing rides along that the user did not give for
this request.

- The system proxy (``HTTPS_PROXY``) never carries a loopback target (127.0.0.0/8, ``::1``,
  ``localhost``), as browsers do: every binding, the card fetch and the OAuth token client,
  against the real ``proxy.py`` (its log shows each tunnel). Other names still go through it.
- No cookie a server set comes back on a later request through the same client (the
  window's shared client, a check's client).
- ``~/.netrc`` is never read: not by an exchange, the card fetch or the OAuth token client.
- A proxy's credentials never appear in what the exchange reports, even when a hostile
  proxy echoes the ``Proxy-Authorization`` it got.
- The demo agent's own clients (push deliveries, token introspection) ignore the
  environment's proxy for a loopback webhook.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.protocol.card.fetch import fetch_card
from app.protocol.events import ExchangeEvent, Outcome, RequestSent
from app.protocol.exchange import run
from app.protocol.net.http import new_client
from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings, is_loopback
from app.protocol.oauth import OAuthConfig, OAuthFlow, TokenCache, obtain_token
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from app.push.receiver import PushReceiver
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.echo_server import echo_server
from tests.peers.launch import start_peer
from tests.peers.oidc_fixtures import CC_CLIENT
from tests.peers.tls_fixtures import PROXY_PASSWORD, PROXY_USER, ProxyServer, TlsFiles
from tests.protocol.test_tls import BINDINGS, endpoint, exchange, mutual, outcome, request_for

pytestmark = pytest.mark.peer
REPO = Path(__file__).resolve().parents[2]

SYSTEM = ProxySettings(ProxyMode.SYSTEM)


def _system(request: A2ARequest) -> A2ARequest:
    return dataclasses.replace(request, network=NetworkOptions(request.network.tls, SYSTEM))


def _port(peer: dict[str, Any], binding: Binding) -> str:
    where = peer["grpc_target"] if binding is Binding.GRPC else peer["base_url"]
    return where.rsplit(":", 1)[1]


def _sent(events: list[ExchangeEvent]) -> RequestSent:
    return next(e for e in events if isinstance(e, RequestSent))


# --- loopback bypasses the system proxy ---------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("agent.localhost", True),
        ("agent.test", False),
        ("10.0.0.1", False),
        ("localhost.example.com", False),
        ("", False),
    ],
)
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_system_mode_leaves_loopback_to_a_direct_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.test:3128")
    for target in ("https://127.0.0.1:8443/", "http://localhost:8000/", "http://[::1]:1/",
                   "127.0.0.1:50051", "localhost:50051"):  # fmt: skip
        assert SYSTEM.proxy_for(target) is None, target
    assert SYSTEM.proxy_for("https://agent.test/") == "http://proxy.test:3128"
    monkeypatch.setenv("NO_PROXY", "agent.test")
    assert SYSTEM.proxy_for("https://agent.test/") is None
    custom = ProxySettings(ProxyMode.CUSTOM, "http://proxy.test:3128")
    assert custom.proxy_for("https://127.0.0.1/") == "http://proxy.test:3128"  # explicit


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_loopback_agent_is_not_reached_through_the_system_proxy(
    binding: Binding,
    tls_peer: dict[str, Any],
    tls_files: TlsFiles,
    proxy_server: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy_server.credentialed())
    monkeypatch.setenv("HTTP_PROXY", proxy_server.credentialed())
    target = f"127.0.0.1:{_port(tls_peer, binding)}"
    before = proxy_server.tunnels_to(target)
    events = await exchange(
        _system(request_for(binding, endpoint(tls_peer, binding), mutual(tls_files)))
    )
    assert outcome(events) is Outcome.OK, events
    assert _sent(events).proxy == ""
    time.sleep(0.3)  # a tunnel is logged when it closes
    assert proxy_server.tunnels_to(target, more_than=-1) == before


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.GRPC])
async def test_any_other_name_goes_through_the_system_proxy(
    binding: Binding,
    tls_peer: dict[str, Any],
    tls_files: TlsFiles,
    proxy_server: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # agent.test is no loopback name to the client; the proxy resolves it to 127.0.0.1
    # (tests/peers/proxy_names.py), and the server's certificate names it.
    monkeypatch.setenv("HTTPS_PROXY", proxy_server.credentialed())
    port = _port(tls_peer, binding)
    url = f"agent.test:{port}" if binding is Binding.GRPC else f"https://agent.test:{port}/"
    before = proxy_server.tunnels_to(f"agent.test:{port}")
    events = await exchange(_system(request_for(binding, url, mutual(tls_files))))
    assert outcome(events) is Outcome.OK, events
    assert _sent(events).proxy == f"http://{PROXY_USER}:***@127.0.0.1:{proxy_server.port}"
    assert proxy_server.tunnels_to(f"agent.test:{port}", more_than=before) == before + 1


async def test_a_loopback_card_is_fetched_without_the_system_proxy(
    tls_peer: dict[str, Any],
    tls_files: TlsFiles,
    proxy_server: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy_server.credentialed())
    target = f"127.0.0.1:{_port(tls_peer, Binding.JSONRPC)}"
    before = proxy_server.tunnels_to(target)
    result = await fetch_card(
        tls_peer["card_url"], network=NetworkOptions(mutual(tls_files), SYSTEM)
    )
    assert result.status == 200, result.error
    time.sleep(0.3)
    assert proxy_server.tunnels_to(target, more_than=-1) == before


async def test_the_token_client_without_settings_skips_the_proxy_for_loopback(
    oidc_provider: dict[str, Any], proxy_server: ProxyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without network settings (check --oauth2 had none) the token client was httpx's
    # default one, which reads HTTP_PROXY itself and sends loopback through it.
    monkeypatch.setenv("HTTP_PROXY", proxy_server.credentialed())
    before = proxy_server.log.read_text("utf-8") if proxy_server.log.exists() else ""
    config = OAuthConfig(
        OAuthFlow.CLIENT_CREDENTIALS, oidc_provider["token_url"], *CC_CLIENT, scopes=("a2a",)
    )
    token, _ = await obtain_token(config, TokenCache())
    assert token.access_token
    await asyncio.sleep(0.3)
    seen = proxy_server.log.read_text("utf-8")[len(before) :] if proxy_server.log.exists() else ""
    assert "/token" not in seen, seen


# --- cookies ------------------------------------------------------------------------------


def _get_task(url: str) -> A2ARequest:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}})
    return A2ARequest(url, "GetTask", body, timeout=10)


async def test_a_cookie_an_agent_set_is_not_sent_back_by_the_shared_client() -> None:
    canned = Canned(
        headers={"Content-Type": "application/json", "Set-Cookie": "sid=agent-set-cookie; Path=/"},
        body=b'{"jsonrpc": "2.0", "id": 1, "result": {"id": "t"}}',
    )
    with bad_server(canned) as url:
        client = new_client(10.0)  # as the window's and a check's client are made
        try:
            for _ in range(2):
                events = [e async for e in run(_get_task(url), http=client)]
                assert not any(n.lower() == "cookie" for n, _ in _sent(events).headers)
        finally:
            await client.aclose()
    assert len(canned.received) == 2
    assert all("Cookie" not in headers for _, _, headers, _ in canned.received)


# --- ~/.netrc -----------------------------------------------------------------------------


@pytest.fixture
def netrc_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose .netrc holds a login for 127.0.0.1 and localhost."""
    netrc = tmp_path / ".netrc"
    netrc.write_text(
        "machine 127.0.0.1 login netrc-user password netrc-password\n"
        "machine localhost login netrc-user password netrc-password\n"
        "default login netrc-user password netrc-password\n"
    )
    netrc.chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(netrc))
    return netrc


NETRC_BASIC = "Basic " + base64.b64encode(b"netrc-user:netrc-password").decode()


async def test_netrc_is_never_read(netrc_home: Path) -> None:
    canned = Canned(body=b'{"jsonrpc": "2.0", "id": 1, "result": {"id": "t"}}')
    with bad_server(canned) as url:
        events = await exchange(_get_task(url))
        await fetch_card(url + ".well-known/agent-card.json")
        config = OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, url + "token", "client-id", "s3cret")
        with pytest.raises(Exception):  # noqa: B017 - the canned answer is no token
            await obtain_token(config, TokenCache())
    assert len(canned.received) == 3
    for _, path, headers, _ in canned.received:
        # The token request carries the client's own credentials (client_secret_basic).
        expected = {"/token": "Basic " + base64.b64encode(b"client-id:s3cret").decode()}
        assert headers.get("Authorization") == expected.get(path), (path, headers)
    assert NETRC_BASIC not in repr(events)


# --- proxy credentials ----------------------------------------------------------------------


async def test_proxy_credentials_a_proxy_echoes_are_masked() -> None:
    # A hostile forward proxy answers every request itself, quoting the request line and
    # headers it got: Proxy-Authorization included.
    with echo_server("error") as url:
        proxy = ProxySettings(ProxyMode.CUSTOM, url.rstrip("/"), PROXY_USER, PROXY_PASSWORD)
        request = dataclasses.replace(
            _get_task("http://agent.test:8000/"), network=NetworkOptions(proxy=proxy)
        )
        events = await exchange(request)
    token = base64.b64encode(f"{PROXY_USER}:{PROXY_PASSWORD}".encode()).decode()
    shown = repr(events) + repr(_sent(events).masked())
    assert "Proxy-Authorization" in shown  # the echo arrived
    assert token not in shown and PROXY_PASSWORD not in shown


# --- the demo agent's own clients ------------------------------------------------------------


async def test_the_demo_agent_delivers_to_a_loopback_webhook_despite_the_system_proxy(
    proxy_server: ProxyServer,
) -> None:
    # The proxy wants credentials the demo agent does not have: a delivery through it fails.
    env = {**os.environ, "HTTP_PROXY": proxy_server.url, "HTTPS_PROXY": proxy_server.url}
    cmd = [sys.executable, "-m", "app", "demo-agent", "--host", "127.0.0.1", "--port", "0",
           "--grpc-port", "0"]  # fmt: skip
    agent = start_peer(cmd, env=env, cwd=str(REPO), timeout=30)
    try:
        async with PushReceiver() as receiver:
            token = receiver.new_token()
            message = {"messageId": "m-push", "role": "ROLE_USER", "parts": [{"text": "ask"}]}
            config = {"taskPushNotificationConfig": {"url": receiver.url, "token": token}}
            body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                    "params": {"message": message, "configuration": config}}  # fmt: skip
            request = A2ARequest(
                agent.info["jsonrpc_url"], "SendMessage", json.dumps(body), timeout=10
            )
            events = await exchange(request)
            assert outcome(events) is Outcome.OK, events
            delivery = await receiver.wait_for(lambda d: True, timeout=10)
            assert delivery is not None, "no push delivery reached the loopback receiver"
    finally:
        agent.stop()
