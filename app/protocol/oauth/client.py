"""The HTTP client for authorization-server calls (discovery, device authorization, token).

One function, so the network options reach these calls from one place. The request's CA
bundle (a private CA often issues the identity provider's certificate too), its
"verification off" switch and its proxy apply; its client certificate does not: that
identity is for the agent, and sending it to another host would hand it to a party the user
did not choose (docs/SECURITY.md, "Where secrets go").
"""

from __future__ import annotations

import dataclasses

import httpx

from app.protocol.net.http import client_for
from app.protocol.net.network import NetworkOptions

TIMEOUT_S = 15.0


def authorization_server_network(network: NetworkOptions) -> NetworkOptions:
    """``network`` without the client certificate (and gRPC's name override)."""
    tls = dataclasses.replace(
        network.tls, client_cert="", client_key="", key_password="", server_name=""
    )
    return NetworkOptions(tls, network.proxy)


def token_client(network: NetworkOptions | None = None, url: str = "") -> httpx.AsyncClient:
    """A new client for calls to the authorization server at ``url``; the caller closes it.

    Without ``network``: the defaults of every other call (the system trust store, the
    system proxy, loopback direct), never httpx's own reading of the environment. Reads
    certificate files: call it off a GUI's event loop.

    Raises:
        UsageError: a CA file of ``network`` is unusable, or its proxy URL is.
    """
    network = authorization_server_network(network or NetworkOptions())
    return client_for(url, network, timeout=TIMEOUT_S)
