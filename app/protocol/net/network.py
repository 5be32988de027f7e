"""Network settings of an exchange: TLS trust and client certificate, and the proxy.

Plain data (no I/O here): :mod:`app.protocol.net.tls_context` turns :class:`TlsSettings` into an
``ssl.SSLContext`` or gRPC credentials, :func:`app.protocol.net.http.client_for` into an httpx
client, and the gRPC binding into channel options.

Proxy modes: ``none`` connects directly; ``system`` uses the environment's proxies
(``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY`` and ``NO_PROXY``, read through
:func:`urllib.request.getproxies`, which also reads the OS settings on macOS and Windows);
``custom`` uses one URL for every target. ``system`` is the default, as in curl and browsers.

In ``system`` mode a loopback target (``localhost`` and ``*.localhost``, 127.0.0.0/8, ``::1``)
is always reached directly, as browsers do: a proxy cannot reach this machine's loopback
interface, and a corporate proxy must not see the traffic to a local agent (its requests
and their credentials). ``custom`` is an explicit choice and applies to every target.
"""

from __future__ import annotations

import ipaddress
import urllib.request
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import quote, urlsplit, urlunsplit


class ProxyMode(Enum):
    """How requests reach the network."""

    NONE = "none"
    SYSTEM = "system"
    CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class ProxySettings:
    """Which HTTP proxy carries the requests (HTTP CONNECT for TLS and gRPC).

    Attributes:
        mode: none, system (environment) or custom.
        url: the proxy (``http://host:port``) in custom mode.
        username, password: proxy credentials (Basic), added to ``url`` when connecting;
            the password never appears in events or saved files (a ``{{variable}}`` there).
    """

    mode: ProxyMode = ProxyMode.SYSTEM
    url: str = ""
    username: str = ""
    password: str = field(default="", repr=False)

    def proxy_for(self, target: str) -> str | None:
        """The proxy URL (credentials included) to reach ``target`` through, or None.

        ``target`` is an absolute URL or a gRPC ``host:port`` (read as ``http://``). In
        system mode a loopback target gets None (see the module docstring).
        """
        if self.mode is ProxyMode.NONE:
            return None
        url = target if "://" in target else f"http://{target}"
        if self.mode is ProxyMode.CUSTOM:
            custom = self.url.strip()
            if custom and "://" not in custom:
                custom = f"http://{custom}"
            return self._with_credentials(custom) if custom else None
        parts = urlsplit(url)
        host = parts.hostname or ""
        if is_loopback(host) or (host and urllib.request.proxy_bypass(host)):
            return None
        proxies = urllib.request.getproxies()
        found = proxies.get(parts.scheme.lower()) or proxies.get("all")
        return found or None

    def shown_for(self, target: str) -> str | None:
        """:meth:`proxy_for` with the password masked, for events and logs."""
        proxy = self.proxy_for(target)
        return mask_proxy_password(proxy) if proxy else None

    def _with_credentials(self, url: str) -> str:
        if not self.username:
            return url
        parts = urlsplit(url)
        user = quote(self.username, safe="")
        secret = f":{quote(self.password, safe='')}" if self.password else ""
        netloc = f"{user}{secret}@{parts.netloc.rpartition('@')[2]}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface without a name lookup:
    ``localhost`` and its subdomains (RFC 6761 §6.3), 127.0.0.0/8 and ``::1``."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def mask_proxy_password(url: str) -> str:
    """``url`` with the password of its user info replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user, _, host = parts.netloc.rpartition("@")
    name = user.partition(":")[0]
    return urlunsplit((parts.scheme, f"{name}:***@{host}", parts.path, parts.query, ""))


@dataclass(frozen=True, slots=True)
class TlsSettings:
    """How the client checks the server and proves itself (HTTP bindings and gRPC alike).

    Attributes:
        ca_cert: a PEM file or a folder of PEM files with CA certificates to trust.
        ca_only: trust only ``ca_cert`` (replace the default store) instead of adding to it.
        client_cert: the client certificate: PEM (optionally with its key) or PKCS#12
            (``.p12`` / ``.pfx``, key included).
        client_key: the PEM private key when not in ``client_cert``.
        key_password: the key's or the PKCS#12 file's password (a secret).
        insecure: do not verify the server's certificate (local experiments only).
        server_name: gRPC only: the name to check the certificate against instead of the
            target's host (``grpc.ssl_target_name_override``).
    """

    ca_cert: str = ""
    ca_only: bool = False
    client_cert: str = ""
    client_key: str = ""
    key_password: str = field(default="", repr=False)
    insecure: bool = False
    server_name: str = ""

    @property
    def is_default(self) -> bool:
        """True when nothing differs from the default trust store without a client cert."""
        return self == TlsSettings()


@dataclass(frozen=True, slots=True)
class NetworkOptions:
    """The TLS and proxy settings one exchange (or card fetch) uses."""

    tls: TlsSettings = TlsSettings()
    proxy: ProxySettings = ProxySettings()

    def is_plain(self, target: str) -> bool:
        """True when ``target`` is reached directly with the default TLS settings (a shared
        default client then serves it)."""
        return self.tls.is_default and self.proxy.proxy_for(target) is None


DIRECT = NetworkOptions(proxy=ProxySettings(ProxyMode.NONE))
"""No proxy, default TLS: what card fetches and exchanges used before these settings."""
