"""Pytest fixtures: a real OpenID provider (``oidc-provider`` from npm) and an agent it guards.

``oidc_provider`` runs tests/peers/js/oidc.mjs on loopback and yields its ready dict
(``issuer``, ``discovery_url``, ``token_url``, ``device_authorization_url``,
``authorization_url``, ``introspection_url``, ``revocation_url``). ``oauth_agent`` runs the
bundled demo agent with ``--oauth-issuer``: its card declares the provider's flows and it
accepts a bearer token only after introspecting it (401 ``invalid_token`` otherwise).
The client names below are the ones oidc.mjs registers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.fixtures import start_sdk_peer
from tests.peers.js_fixtures import JS_PEER_DIR, _node, ensure_js_peer_installed
from tests.peers.launch import PeerProcess, start_peer

CC_CLIENT = ("cc-client", "cc-secret")
DEVICE_CLIENT = "device-client"
DEVICE_SLOW_CLIENT = "device-slow"  # its first pending poll answers slow_down
DEVICE_SHORT_CLIENT = "device-short"  # device codes expire after 2 s
PKCE_CLIENT = "pkce-client"
AGENT_CLIENT = ("a2a-agent", "agent-secret")


def start_oidc_provider() -> PeerProcess:
    """Start oidc.mjs on a free loopback port."""
    node = _node()
    ensure_js_peer_installed()
    cmd = [node, "oidc.mjs", "--host", "127.0.0.1", "--port", "0"]
    return start_peer(cmd, timeout=30.0, cwd=str(JS_PEER_DIR))


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[dict[str, Any]]:
    """The authorization server's ready dict."""
    peer = start_oidc_provider()
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def oauth_agent(oidc_provider: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The demo agent guarded by ``oidc_provider`` (adds ``info["oidc"]``)."""
    peer = start_sdk_peer(
        "--oauth-issuer", oidc_provider["issuer"], "--oauth-client", ":".join(AGENT_CLIENT)
    )
    try:
        yield {**peer.info, "oidc": oidc_provider}
    finally:
        peer.stop()
