"""OAuth results that misled (issue 29, kind 8), against the real oidc-provider, the demo
agent it guards, the real proxy and the mutual-TLS agent:

- authorization code + PKCE from the card asks for the scopes the card requires, and for
  ``openid`` on an OpenID Connect scheme (no scope at all was ``access_denied``);
- ``check --oauth2`` reaches the token endpoint through the command's proxy;
- ``--oauth2-from-card`` fetches the card with the command's CA bundle, client certificate
  and proxy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from app.commands import oauth as cli_oauth
from app.commands.oauth import CliOAuth
from app.protocol.oauth import OAuthConfig, OAuthFlow
from app.protocol.oauth.card_schemes import card_oauth_options, pick_option, required_scopes
from tests.helpers.oidc_browser import browse
from tests.peers.oidc_fixtures import CC_CLIENT, PKCE_CLIENT
from tests.peers.tls_fixtures import ProxyServer, TlsFiles

pytestmark = pytest.mark.peer
REPO = Path(__file__).resolve().parents[2]


def _card(agent: dict[str, Any]) -> dict[str, Any]:
    return dict(httpx.get(agent["card_url"]).json())


def test_the_card_s_required_scopes_and_openid_are_asked_for(oauth_agent: dict[str, Any]) -> None:
    card = _card(oauth_agent)
    assert required_scopes(card)["oidc"] == ("a2a",)
    options = card_oauth_options(card)
    oidc_code = pick_option(options, "oidc", OAuthFlow.AUTHORIZATION_CODE)
    oidc_device = pick_option(options, "oidc", OAuthFlow.DEVICE_CODE)
    oidc_cc = pick_option(options, "oidc", OAuthFlow.CLIENT_CREDENTIALS)
    code = pick_option(options, "oauthAuthorizationCode")
    assert oidc_code is not None and oidc_code.config.scopes == ("openid", "a2a")
    assert oidc_device is not None and oidc_device.config.scopes == ("openid", "a2a")
    assert oidc_cc is not None and oidc_cc.config.scopes == ("a2a",)  # no openid without a user
    assert code is not None and code.config.scopes == ("a2a",)


def test_required_scopes_of_a_0_3_card() -> None:
    card = {"security": [{"o": ["read", "write"]}, {"o": ["read"], "k": []}]}
    assert required_scopes(card) == {"o": ("read", "write"), "k": ()}


async def test_authorization_code_from_the_card_s_oidc_scheme_gets_a_token(
    oauth_agent: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)
        await browse(url)

    # What `send --oauth2 authorization-code --oauth2-from-card CARD#oidc` runs.
    monkeypatch.setattr(cli_oauth.webbrowser, "open", browser)
    config = OAuthConfig(OAuthFlow.AUTHORIZATION_CODE, client_id=PKCE_CLIENT)
    oauth = CliOAuth(config, oauth_agent["card_url"], "oidc", flow_given=True)
    token = await oauth.token()
    assert parse_qs(urlsplit(opened[0]).query)["scope"] == ["openid a2a"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m", "role": "ROLE_USER",
                                   "parts": [{"text": "1 2"}]}}}  # fmt: skip
    answer = httpx.post(
        oauth_agent["jsonrpc_url"],
        json=body,
        headers={"Authorization": f"Bearer {token.access_token}", "A2A-Version": "1.0"},
    )
    assert answer.status_code == 200 and "Sum: 3" in answer.text


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, cwd=REPO, timeout=90, env=dict(os.environ), check=False,
    )  # fmt: skip


def test_check_gets_its_token_through_the_command_s_proxy(
    oauth_agent: dict[str, Any], proxy_server: ProxyServer
) -> None:
    before = proxy_server.log.read_text("utf-8") if proxy_server.log.exists() else ""
    proc = _cli(
        "check", oauth_agent["card_url"], "--budget", "20", "--proxy",
        proxy_server.credentialed(), "--oauth2", "client-credentials",
        "--token-url", oauth_agent["oidc"]["token_url"], "--client-id", CC_CLIENT[0],
        "--client-secret", CC_CLIENT[1], "--scope", "a2a",
    )  # fmt: skip
    assert "oauth2:" not in proc.stderr, proc.stderr
    token_path = urlsplit(oauth_agent["oidc"]["token_url"]).path
    deadline = time.monotonic() + 10  # proxy.py logs a request when its connection closes
    while token_path not in (seen := proxy_server.log.read_text("utf-8")[len(before) :]):
        assert time.monotonic() < deadline, seen
        time.sleep(0.05)


def test_oauth2_from_card_fetches_the_card_with_the_command_s_tls_settings(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    proc = _cli(
        "send", tls_peer["jsonrpc_url"], "--method", "SendMessage", "--text", "1 2",
        "--ca-cert", tls_files.ca, "--client-cert", tls_files.client_cert,
        "--client-key", tls_files.client_key,
        "--oauth2-from-card", tls_peer["card_url"], "--client-id", "x",
    )  # fmt: skip
    # The card was read (through the CA and with the client certificate): it just declares
    # no OAuth scheme. Before, the fetch ignored both and failed on the unknown CA.
    assert "declares no oauth2 or openIdConnect scheme" in proc.stderr, proc.stderr
    end = json.loads(proc.stdout.splitlines()[-1])
    assert end["event"] == "end" and proc.returncode == 2
