"""The ``tls`` and ``proxy`` keys of ``x-a2a``: file paths and variable references only.

::

    x-a2a:
      tls:
        caCert: certs/corp-ca.pem        # PEM file or folder, or '{{caCert}}'
        caOnly: true                     # trust only caCert (default: added to the store)
        clientCert: '{{clientCert}}'     # PEM or PKCS#12 file path
        clientKey: certs/client.key
        keyPassword: '{{keyPassword}}'   # a {{variable}}, never the password
        insecure: true                   # do not verify the server (local experiments)
        serverName: agent.internal       # gRPC: the certificate's name
      proxy:
        url: http://proxy.corp:3128      # or mode: none | system
        username: '{{proxyUser}}'
        password: '{{proxyPassword}}'    # a {{variable}}, never the password

Key material never goes in a spec: certificates and keys are named by path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings, TlsSettings

_TLS_TEXT = {
    "caCert": "ca_cert",
    "clientCert": "client_cert",
    "clientKey": "client_key",
    "keyPassword": "key_password",
    "serverName": "server_name",
}
_TLS_FLAGS = {"caOnly": "ca_only", "insecure": "insecure"}
_PROXY_TEXT = {"url": "url", "username": "username", "password": "password"}
_SECRETS = ("keyPassword", "password")
_REFERENCE = re.compile(r"\s*\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}\s*")  # as xa2a.is_reference


@dataclass(frozen=True, slots=True)
class SavedNetwork:
    """A request's saved TLS settings and proxy; text fields may hold ``{{variables}}``.

    ``proxy`` None: the spec names no proxy (the app's setting or the system's applies).
    """

    tls: TlsSettings = field(default_factory=TlsSettings)
    proxy: ProxySettings | None = None


def network_to_x_a2a(saved: SavedNetwork) -> dict[str, Any]:
    """The ``tls`` / ``proxy`` entries for ``saved`` (none for the defaults)."""
    out: dict[str, Any] = {}
    tls = {k: getattr(saved.tls, a) for k, a in _TLS_TEXT.items() if getattr(saved.tls, a)}
    tls |= {k: True for k, a in _TLS_FLAGS.items() if getattr(saved.tls, a)}
    if tls:
        out["tls"] = tls
    if saved.proxy is not None:
        proxy: dict[str, Any] = {}
        if saved.proxy.mode is not ProxyMode.CUSTOM:
            proxy["mode"] = saved.proxy.mode.value
        proxy |= {
            k: getattr(saved.proxy, a) for k, a in _PROXY_TEXT.items() if getattr(saved.proxy, a)
        }
        out["proxy"] = proxy
    return out


def network_from_x_a2a(
    x: Mapping[str, Any], path: str, error: Callable[[str, str], Exception]
) -> SavedNetwork:
    """Parse ``x``'s ``tls`` and ``proxy``; ``error(path, message)`` builds what is raised."""
    tls = TlsSettings(**_fields(x.get("tls"), f"{path}.tls", _TLS_TEXT, _TLS_FLAGS, error))
    proxy: ProxySettings | None = None
    raw = x.get("proxy")
    if raw is not None:
        where = f"{path}.proxy"
        values = _fields(raw, where, {**_PROXY_TEXT, "mode": "mode"}, {}, error)
        mode_text = str(values.pop("mode", "custom" if values.get("url") else "system"))
        try:
            mode = ProxyMode(mode_text)
        except ValueError:
            allowed = ", ".join(m.value for m in ProxyMode)
            raise error(f"{where}.mode", f"{mode_text!r} is not one of {allowed}") from None
        if mode is ProxyMode.CUSTOM and not values.get("url"):
            raise error(f"{where}.url", "is required for a custom proxy")
        proxy = ProxySettings(mode, **values)
    return SavedNetwork(tls, proxy)


def _fields(
    raw: Any,
    where: str,
    texts: Mapping[str, str],
    flags: Mapping[str, str],
    error: Callable[[str, str], Exception],
) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise error(where, "must be an object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in flags:
            if not isinstance(value, bool):
                raise error(f"{where}.{key}", "must be true or false")
            out[flags[key]] = value
        elif key in texts:
            if not isinstance(value, str):
                raise error(f"{where}.{key}", "must be a string (a file path or {{variable}})")
            if key in _SECRETS and value and not _REFERENCE.fullmatch(value):
                raise error(f"{where}.{key}", "must be a {{variable}} reference, not a secret")
            out[texts[key]] = value
        else:
            known = ", ".join((*texts, *flags))
            raise error(f"{where}.{key}", f"is not a known key ({known})")
    return out


def resolve_network(saved: SavedNetwork, sub: Callable[[str, str], str], op: str) -> NetworkOptions:
    """``saved`` with its ``{{variables}}`` resolved (``sub(text, where)``)."""
    tls = saved.tls
    values = {a: sub(getattr(tls, a), f"{op}: x-a2a.tls.{k}") for k, a in _TLS_TEXT.items()}
    resolved_tls = TlsSettings(ca_only=tls.ca_only, insecure=tls.insecure, **values)
    proxy = saved.proxy or ProxySettings()
    resolved_proxy = ProxySettings(
        proxy.mode,
        **{a: sub(getattr(proxy, a), f"{op}: x-a2a.proxy.{k}") for k, a in _PROXY_TEXT.items()},
    )
    return NetworkOptions(resolved_tls, resolved_proxy)
