"""The TLS and proxy options shared by ``send``, ``run``, ``card`` and ``verify``.

``--ca-cert``, ``--client-cert``, ``--client-key``, ``--insecure``, ``--server-name``,
``--proxy URL`` and ``--no-proxy``. Without ``--proxy`` / ``--no-proxy`` the environment's
proxies apply (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``), as in curl, except for a
loopback target, which is reached directly, as browsers do.
"""

from __future__ import annotations

import argparse
import dataclasses
from urllib.parse import unquote, urlsplit

from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings, TlsSettings


def add_network_options(p: argparse.ArgumentParser, *, grpc: bool = True) -> None:
    """Add the TLS and proxy options to ``p`` (``--server-name`` only where gRPC is sent)."""
    tls = p.add_argument_group("TLS")
    tls.add_argument("--ca-cert", metavar="FILE", help="trust this CA (PEM file or folder)")
    tls.add_argument(
        "--client-cert", metavar="FILE", help="client certificate (PEM, or PKCS#12 .p12/.pfx)"
    )
    tls.add_argument("--client-key", metavar="FILE", help="the client certificate's PEM key")
    tls.add_argument(
        "--insecure", action="store_true", help="do not verify the server's certificate"
    )
    if grpc:
        tls.add_argument(
            "--server-name", metavar="NAME", help="gRPC: check the certificate for this name"
        )
    proxy = p.add_mutually_exclusive_group()
    proxy.add_argument(
        "--proxy",
        metavar="URL",
        type=_proxy_url,
        help="send through this HTTP proxy (http://[user:pass@]host:port)",
    )
    proxy.add_argument(
        "--no-proxy", action="store_true", help="connect directly, ignoring HTTP(S)_PROXY"
    )


def _proxy_url(text: str) -> str:
    parts = urlsplit(text if "://" in text else f"http://{text}")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected http://host:port, got {parts.scheme}://…")
    return text


def tls_from_args(args: argparse.Namespace) -> TlsSettings:
    """The TLS settings the options give (all empty: the defaults)."""
    return TlsSettings(
        ca_cert=args.ca_cert or "",
        client_cert=args.client_cert or "",
        client_key=args.client_key or "",
        insecure=bool(args.insecure),
        server_name=getattr(args, "server_name", None) or "",
    )


def proxy_from_args(args: argparse.Namespace) -> ProxySettings | None:
    """The proxy the options ask for, or None when they name none (the caller's default)."""
    if args.no_proxy:
        return ProxySettings(ProxyMode.NONE)
    if not args.proxy:
        return None
    parts = urlsplit(args.proxy if "://" in args.proxy else f"http://{args.proxy}")
    host = parts.netloc.rpartition("@")[2]
    return ProxySettings(
        ProxyMode.CUSTOM,
        f"{parts.scheme}://{host}",
        unquote(parts.username or ""),
        unquote(parts.password or ""),
    )


def network_from_args(args: argparse.Namespace) -> NetworkOptions:
    """The network settings of the options (system proxy unless told otherwise)."""
    return NetworkOptions(tls_from_args(args), proxy_from_args(args) or ProxySettings())


def override(network: NetworkOptions, args: argparse.Namespace) -> NetworkOptions:
    """``network`` (from a saved request) with the options given on the command line on top."""
    given = tls_from_args(args)
    tls = network.tls
    changes = {f.name: getattr(given, f.name) for f in dataclasses.fields(given)}
    tls = dataclasses.replace(tls, **{k: v for k, v in changes.items() if v})
    proxy = proxy_from_args(args) or network.proxy
    return NetworkOptions(tls, proxy)
