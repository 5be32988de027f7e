"""The pure pieces: PKCE, the loopback receiver, Bearer challenges, token parsing, caching."""

from __future__ import annotations

import httpx
import pytest

from app.protocol.events import ResponseHead
from app.protocol.oauth import OAuthConfig, OAuthError, OAuthFlow, Token, TokenCache
from app.protocol.oauth.challenge import bearer_challenge, invalid_token
from app.protocol.oauth.loopback import LoopbackReceiver
from app.protocol.oauth.pkce import authorization_request_url, code_challenge, code_verifier
from app.protocol.oauth.tokens import parse_token_response


def test_pkce_s256_matches_rfc_7636_appendix_b() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert code_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    fresh = code_verifier()
    assert 43 <= len(fresh) <= 128 and fresh != code_verifier()


def test_authorization_url_carries_pkce_state_and_consent_for_offline_access() -> None:
    config = OAuthConfig(
        OAuthFlow.AUTHORIZATION_CODE,
        client_id="c",
        scopes=("openid", "offline_access"),
        authorization_url="https://idp/auth?tenant=x",
    )
    url = authorization_request_url(config, "http://127.0.0.1:5/", "st", "ch")
    assert url.startswith("https://idp/auth?tenant=x&response_type=code&client_id=c&")
    assert "state=st" in url and "code_challenge=ch&code_challenge_method=S256" in url
    assert "prompt=consent" in url and "scope=openid+offline_access" in url


async def _redirect(receiver: LoopbackReceiver, query: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(receiver.redirect_uri + query)


async def test_loopback_accepts_the_code_with_the_right_state() -> None:
    async with LoopbackReceiver("s1") as receiver:
        assert receiver.redirect_uri.startswith("http://127.0.0.1:")
        page = await _redirect(receiver, "?code=abc&state=s1")
        assert page.status_code == 200 and "Authorization received" in page.text
        assert await receiver.wait_for_code(1.0) == "abc"


async def test_loopback_refuses_a_wrong_state_and_ignores_other_paths() -> None:
    async with LoopbackReceiver("s1") as receiver:
        assert (await _redirect(receiver, "favicon.ico")).status_code == 404
        await _redirect(receiver, "?code=abc&state=forged")
        with pytest.raises(OAuthError, match="state does not match"):
            await receiver.wait_for_code(1.0)


async def test_loopback_times_out_in_words() -> None:
    async with LoopbackReceiver("s1") as receiver:
        with pytest.raises(OAuthError, match=r"no redirect reached http://127\.0\.0\.1:\d+/"):
            await receiver.wait_for_code(0.05)


def test_bearer_challenge_and_invalid_token() -> None:
    value = 'Bearer realm="a2a", error="invalid_token", error_description="expired, sorry"'
    assert bearer_challenge([("WWW-Authenticate", value)]) == {
        "realm": "a2a",
        "error": "invalid_token",
        "error_description": "expired, sorry",
    }
    head = ResponseHead(0.0, 401, "Unauthorized", "1.1", (("www-authenticate", value),))
    assert invalid_token([head]) == "invalid_token: expired, sorry"
    bare = ResponseHead(0.0, 401, "Unauthorized", "1.1", (("WWW-Authenticate", "Bearer"),))
    assert invalid_token([bare]) == ""  # no token was sent: nothing to renew


def test_token_response_expiry_and_errors() -> None:
    body = {"access_token": "AT-1", "expires_in": 60, "refresh_token": "RT-1"}
    ok = httpx.Response(200, json=body)
    token = parse_token_response(ok, "u", now=lambda: 1000.0)
    assert token.expires_at == 1060.0 and token.refresh_token == "RT-1"
    assert not token.expired(now=1000.0) and token.expired(now=1031.0)  # 30 s leeway
    assert "AT-1" not in repr(token) and "RT-1" not in repr(token)
    bad = httpx.Response(400, json={"error": "invalid_scope"})
    with pytest.raises(OAuthError, match=r"^invalid_scope \(token endpoint u\)$"):
        parse_token_response(bad, "u")
    empty = httpx.Response(200, json={"token_type": "Bearer"})
    with pytest.raises(OAuthError, match="without an access_token"):
        parse_token_response(empty, "u")


def test_cache_key_ignores_scope_order() -> None:
    cache = TokenCache()
    a = OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, "t", "c", scopes=("x", "y"))
    b = OAuthConfig(OAuthFlow.DEVICE_CODE, "t", "c", scopes=("y", "x"))
    cache.put(a, Token("tok"))
    assert cache.get(b) == Token("tok")
    assert cache.get(OAuthConfig(OAuthFlow.CLIENT_CREDENTIALS, "t", "other")) is None
