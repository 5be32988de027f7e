"""A ``proxy.py`` plugin: names under ``.test`` (RFC 2606) resolve to 127.0.0.1 at the proxy.

A target named ``agent.test`` is not loopback to the client, so in system proxy mode it goes
through the proxy (only loopback names and addresses bypass it), and the proxy, through
this plugin, still reaches the loopback peer. Nothing is looked up in DNS.
"""

from __future__ import annotations

from proxy.common.types import HostPort
from proxy.http.proxy import HttpProxyBasePlugin


class TestNamesResolveToLoopback(HttpProxyBasePlugin):
    """Resolve ``*.test`` to 127.0.0.1; leave every other name to the system."""

    def resolve_dns(self, host: str, port: int) -> tuple[str | None, HostPort | None]:
        if host == "test" or host.endswith(".test"):
            return "127.0.0.1", None
        return None, None
