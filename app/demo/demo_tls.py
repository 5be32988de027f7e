"""The demo agent over TLS: its ``--tls-*`` options, the gRPC server credentials and
uvicorn's ``ssl_*`` settings (client certificates required when a client CA is given)."""

from __future__ import annotations

import argparse
import ssl
from pathlib import Path
from typing import Any

import grpc


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--tls-cert``, ``--tls-key`` and ``--tls-client-ca``."""
    parser.add_argument("--tls-cert", metavar="PEM", help="serve HTTPS and gRPC over TLS")
    parser.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    parser.add_argument(
        "--tls-client-ca", metavar="PEM", help="require client certificates issued by this CA"
    )


def grpc_server_credentials(args: argparse.Namespace) -> grpc.ServerCredentials | None:
    """The gRPC port's TLS credentials, None for plaintext (no ``--tls-cert``)."""
    if not args.tls_cert:
        return None
    pair = (Path(args.tls_key or args.tls_cert).read_bytes(), Path(args.tls_cert).read_bytes())
    roots = Path(args.tls_client_ca).read_bytes() if args.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [pair], root_certificates=roots, require_client_auth=roots is not None
    )


def uvicorn_options(args: argparse.Namespace) -> dict[str, Any]:
    """uvicorn's ``ssl_*`` keyword arguments ({} for plain HTTP)."""
    if not args.tls_cert:
        return {}
    options: dict[str, Any] = {"ssl_certfile": args.tls_cert, "ssl_keyfile": args.tls_key}
    if args.tls_client_ca:
        options |= {"ssl_ca_certs": args.tls_client_ca, "ssl_cert_reqs": ssl.CERT_REQUIRED}
    return options
