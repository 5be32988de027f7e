"""The authorization code grant with PKCE (RFC 7636, S256) for a native app (RFC 8252).

The system browser (a callable the caller injects) opens the authorization URL; the
redirect comes back to :class:`LoopbackReceiver`; the code is exchanged with its verifier.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import inspect
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

import httpx

from app.protocol.oauth.config import OAuthConfig
from app.protocol.oauth.loopback import LoopbackReceiver
from app.protocol.oauth.oauth_errors import OAuthError
from app.protocol.oauth.tokens import Token, request_token

OpenBrowser = Callable[[str], Awaitable[object] | object]
"""Opens a URL for the user: ``webbrowser.open`` in the app; may be a coroutine function."""

LOGIN_TIMEOUT_S = 300.0


def code_verifier() -> str:
    """43–128 characters from the unreserved set (RFC 7636 §4.1): 64 random bytes, base64url."""
    return secrets.token_urlsafe(64)[:128]


def code_challenge(verifier: str) -> str:
    """``BASE64URL(SHA256(verifier))`` without padding (RFC 7636 §4.2, S256)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def authorization_request_url(
    config: OAuthConfig, redirect_uri: str, state: str, challenge: str
) -> str:
    """The authorization URL with the RFC 6749 §4.1.1 and RFC 7636 §4.3 parameters."""
    params = {
        "response_type": "code",
        "client_id": config.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    if config.scopes:
        params["scope"] = " ".join(config.scopes)
    if "offline_access" in config.scopes:
        # OpenID Connect Core §11: offline_access is only granted with prompt=consent.
        params["prompt"] = "consent"
    sep = "&" if "?" in config.authorization_url else "?"
    return config.authorization_url + sep + urlencode(params)


async def authorization_code_token(
    client: httpx.AsyncClient,
    config: OAuthConfig,
    open_browser: OpenBrowser,
    *,
    timeout: float = LOGIN_TIMEOUT_S,
) -> Token:
    """Run the whole grant: browser, loopback redirect, code exchange.

    Raises:
        OAuthError: denied consent (``access_denied``), a wrong ``state``, no redirect within
            ``timeout``, or an error from the token endpoint.
    """
    verifier = code_verifier()
    state = secrets.token_urlsafe(24)
    async with LoopbackReceiver(state) as receiver:
        url = authorization_request_url(
            config, receiver.redirect_uri, state, code_challenge(verifier)
        )
        opened = open_browser(url)
        if inspect.isawaitable(opened):
            code = await _with_browser(receiver.wait_for_code(timeout), opened)
        else:
            code = await receiver.wait_for_code(timeout)
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": receiver.redirect_uri,
            "code_verifier": verifier,
        }
    return await request_token(client, config, form)


async def _with_browser(waiting: Awaitable[str], browsing: Awaitable[object]) -> str:
    """Wait for the code while an in-process browser (a test driver) runs beside it.

    A browser that fails before the redirect arrives ends the wait with its error
    instead of letting the login time out.
    """
    code_task = asyncio.ensure_future(waiting)
    browser_task = asyncio.ensure_future(browsing)
    try:
        await asyncio.wait({code_task, browser_task}, return_when=asyncio.FIRST_COMPLETED)
        if not code_task.done() and browser_task.exception() is not None:
            exc = browser_task.exception()
            raise OAuthError(f"the browser failed before the redirect: {exc}") from exc
        code = await code_task
        # Let the browser read the loopback page it was sent.
        await asyncio.wait({browser_task}, timeout=5.0)
        return code
    finally:
        for task in (code_task, browser_task):
            task.cancel()
        await asyncio.gather(code_task, browser_task, return_exceptions=True)
