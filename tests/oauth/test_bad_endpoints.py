"""Token endpoints that are down or answer HTML: one clear line, nothing sent to the agent."""

from __future__ import annotations

import socket

import pytest

from app.protocol.oauth import OAuthConfig, OAuthError, OAuthFlow, TokenCache, obtain_token
from tests.helpers.bad_server import Canned, bad_server

HTML_LOGIN = b"<!doctype html><html><body><form>Sign in</form></body></html>"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cc(token_url: str) -> OAuthConfig:
    return OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, token_url, "cc-client", "cc-secret")


async def test_token_endpoint_down() -> None:
    url = f"http://127.0.0.1:{_free_port()}/token"
    with pytest.raises(OAuthError) as caught:
        await obtain_token(_cc(url), TokenCache())
    message = str(caught.value)
    assert message.startswith(f"token endpoint {url} unreachable:")
    assert "\n" not in message and "cc-secret" not in message


async def test_token_endpoint_answering_html() -> None:
    canned = Canned(headers={"Content-Type": "text/html; charset=utf-8"}, body=HTML_LOGIN)
    with bad_server(canned) as base, pytest.raises(OAuthError) as caught:
        await obtain_token(_cc(base + "token"), TokenCache())
    assert str(caught.value) == (
        f"token endpoint {base}token answered HTTP 200 with text/html, not a JSON object: "
        "is this the right URL?"
    )
    # The client authenticated with HTTP Basic (RFC 6749 §2.3.1), the secret not in the form.
    _, _, headers, body = canned.received[0]
    assert headers["Authorization"].startswith("Basic ")
    assert b"cc-secret" not in body and b"grant_type=client_credentials" in body


async def test_missing_settings_are_named() -> None:
    config = OAuthConfig(OAuthFlow.DEVICE_CODE, "http://127.0.0.1:1/token", "c")
    with pytest.raises(OAuthError, match="needs a device authorization URL"):
        await obtain_token(config, TokenCache())
