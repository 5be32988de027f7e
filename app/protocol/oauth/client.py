"""The HTTP client for authorization-server calls (discovery, device authorization, token).

One function, so the network options (CA bundle, client certificate, proxy) reach these
calls from one place.
"""

from __future__ import annotations

import httpx

TIMEOUT_S = 15.0


def token_client() -> httpx.AsyncClient:
    """A new client for calls to the authorization server; the caller closes it."""
    return httpx.AsyncClient(timeout=TIMEOUT_S, follow_redirects=False)
