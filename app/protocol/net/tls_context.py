"""TLS settings made concrete: an ``ssl.SSLContext`` for httpx, credentials for gRPC.

The default trust store is httpx's (``certifi``'s Mozilla bundle, or ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` when set), so a request without TLS settings trusts what it always did;
gRPC gets the same bundle so both kinds of binding agree on who is trusted.

Files are read when a client or channel is built; a missing or unreadable file is a
:class:`~app.protocol.wire.a2a_errors.UsageError` naming it (nothing is sent).
"""

from __future__ import annotations

import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import certifi
import grpc
import httpx

from app.protocol.net.network import TlsSettings
from app.protocol.wire.a2a_errors import UsageError

_PKCS12_SUFFIXES = (".p12", ".pfx")
_PEM_SUFFIXES = (".pem", ".crt", ".cer")


def ssl_context(tls: TlsSettings) -> ssl.SSLContext:
    """The client context for ``tls`` (reads the files; ~0.1-0.3 s for the default store).

    Raises:
        UsageError: a CA or certificate file is missing, unreadable or not PEM/PKCS#12.
    """
    if tls.ca_only and tls.ca_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies and checks names
    else:
        context = httpx.create_ssl_context()
    if tls.ca_cert:
        try:
            context.load_verify_locations(cadata=ca_pem(tls.ca_cert))
        except ssl.SSLError as exc:
            raise UsageError(
                f"The CA file {tls.ca_cert!r} holds no usable certificate: {exc}"
            ) from None
    if tls.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if tls.client_cert:
        _load_client_cert(context, tls)
    elif tls.client_key:
        raise UsageError("A client key was given without its client certificate")
    return context


def ca_pem(path: str) -> str:
    """The PEM text of a CA file, or of every ``.pem`` / ``.crt`` / ``.cer`` file of a folder.

    Raises:
        UsageError: nothing readable there.
    """
    where = Path(path).expanduser()
    try:
        if where.is_dir():
            files = sorted(p for p in where.iterdir() if p.suffix.lower() in _PEM_SUFFIXES)
            text = "\n".join(p.read_text("ascii", "replace") for p in files)
        else:
            text = where.read_text("ascii", "replace")
    except OSError as exc:
        raise UsageError(f"Cannot read the CA certificates at {path!r}: {exc.strerror}") from None
    if "-----BEGIN CERTIFICATE-----" not in text:
        raise UsageError(f"No PEM certificate (-----BEGIN CERTIFICATE-----) found in {path!r}")
    return text


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """A client certificate chain and its private key, both PEM bytes (unencrypted)."""

    chain: bytes
    key: bytes


def client_identity(tls: TlsSettings) -> ClientIdentity | None:
    """The client certificate of ``tls`` as PEM (PKCS#12 and encrypted keys opened).

    Raises:
        UsageError: unreadable files, a wrong password, or a certificate without a key.
    """
    if not tls.client_cert:
        return None
    cert_path = Path(tls.client_cert).expanduser()
    data = _read(cert_path, "client certificate")
    password = tls.key_password.encode() or None
    if cert_path.suffix.lower() in _PKCS12_SUFFIXES:
        return _from_pkcs12(data, password, tls.client_cert)
    from cryptography.hazmat.primitives import serialization

    key_data = _read(Path(tls.client_key).expanduser(), "client key") if tls.client_key else data
    if b"PRIVATE KEY-----" not in key_data:
        raise UsageError(
            f"No private key found in {tls.client_key or tls.client_cert!r}; give the key file too"
        )
    try:
        key = serialization.load_pem_private_key(key_data, password)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"Cannot open the client key: {exc}") from None
    pem_key = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    chain = b"".join(_pem_blocks(data, b"CERTIFICATE"))
    if not chain:
        raise UsageError(f"No PEM certificate found in {tls.client_cert!r}")
    return ClientIdentity(chain, pem_key)


def _from_pkcs12(data: bytes, password: bytes | None, where: str) -> ClientIdentity:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, password)
    except ValueError as exc:
        raise UsageError(
            f"Cannot open the PKCS#12 file {where!r} (wrong password?): {exc}"
        ) from None
    if key is None or cert is None:
        raise UsageError(f"The PKCS#12 file {where!r} holds no certificate with its key")
    pem = serialization.Encoding.PEM
    chain = b"".join(c.public_bytes(pem) for c in (cert, *extra))
    pem_key = key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return ClientIdentity(chain, pem_key)


def _pem_blocks(data: bytes, label: bytes) -> list[bytes]:
    begin, end = b"-----BEGIN " + label + b"-----", b"-----END " + label + b"-----"
    blocks: list[bytes] = []
    start = data.find(begin)
    while start >= 0:
        stop = data.find(end, start)
        if stop < 0:
            break
        blocks.append(data[start : stop + len(end)] + b"\n")
        start = data.find(begin, stop)
    return blocks


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"Cannot read the {what} {str(path)!r}: {exc.strerror}") from None


def _load_client_cert(context: ssl.SSLContext, tls: TlsSettings) -> None:
    identity = client_identity(tls)
    assert identity is not None
    # ssl loads a chain only from files: a private temporary one, removed at once.
    fd, name = tempfile.mkstemp(suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(identity.key + identity.chain)
        context.load_cert_chain(name)
    except ssl.SSLError as exc:
        raise UsageError(f"The client certificate does not match its key: {exc}") from None
    finally:
        os.unlink(name)


def grpc_credentials(tls: TlsSettings) -> grpc.ChannelCredentials:
    """Channel credentials for ``tls``: root certificates (the default bundle, plus or
    instead of ``ca_cert``) and the client certificate chain and key.

    Raises:
        UsageError: as :func:`ssl_context`; ``insecure``, which gRPC cannot do (it always
            verifies the server).
    """
    if tls.insecure:
        raise UsageError(
            "gRPC cannot skip certificate verification; trust the server's CA instead "
            "(CA certificate / --ca-cert) and, for another name, set the server name"
        )
    roots = ""  # empty: gRPC's own bundled roots
    if tls.ca_cert:
        roots = "" if tls.ca_only else _default_roots() + "\n"
        roots += ca_pem(tls.ca_cert)
    identity = client_identity(tls)
    return grpc.ssl_channel_credentials(
        roots.encode() if roots else None,
        identity.key if identity else None,
        identity.chain if identity else None,
    )


def _default_roots() -> str:
    path = os.environ.get("SSL_CERT_FILE") or certifi.where()
    try:
        return Path(path).read_text("ascii", "replace")
    except OSError:
        return Path(certifi.where()).read_text("ascii", "replace")
