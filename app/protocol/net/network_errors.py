"""TLS and proxy failures in words, for every binding and the card fetch alike.

Python's ``ssl`` (under httpx) reports a failed verification with an OpenSSL code
(``verify_code``) and a terse message; gRPC's core reports a line of status details. Both are
turned into one sentence that says what failed: an unknown CA (with the issuer's name), a
name mismatch (the name asked for and the names in the certificate), an expired certificate
(its dates), a server that wants a client certificate, or a port that speaks plain HTTP.

The facts come from the server's own certificate, read with a second handshake that does not
verify (:func:`peer_certificate`); gRPC's verification failures carry no code, so the same
trust settings are re-checked with ``ssl`` (:func:`reverify`) to learn which check failed.
"""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

import httpx
from cryptography import x509

from app.protocol.net.network import TlsSettings
from app.protocol.net.not_http import not_http_at
from app.protocol.net.tls_context import ssl_context

_PROBE_TIMEOUT_S = 3.0

# OpenSSL X509_V_ERR_* codes (include/openssl/x509_vfy.h).
_UNKNOWN_ISSUER = frozenset({2, 18, 19, 20, 21})
_SELF_SIGNED = 18
_NOT_YET_VALID = 9
_EXPIRED = 10
_NAME_MISMATCH = frozenset({62, 63, 64})

# Reasons (OpenSSL's and BoringSSL's spellings) for "a TLS client met a plain-HTTP port".
_PLAIN_HTTP = ("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG", "RECORD LAYER")
_CLIENT_CERT_REQUIRED = ("CERTIFICATE_REQUIRED", "HANDSHAKE_FAILURE", "PEER_DID_NOT_RETURN")
_CLIENT_CERT_REJECTED = ("BAD_CERTIFICATE", "UNKNOWN_CA", "CERTIFICATE_UNKNOWN", "DECRYPT_ERROR")
# OpenSSL's words for a peer that hung up before the handshake was done (SSLEOFError), and
# what _converse says for a reset then.
_CLOSED_IN_HANDSHAKE = ("UNEXPECTED_EOF", "EOF_OCCURRED_IN_VIOLATION", "CLOSED_IN_HANDSHAKE")

HANDSHAKE_CLOSED = "the server closed the connection during the TLS handshake"


@dataclass(frozen=True, slots=True)
class PeerFacts:
    """What the server's certificate says about itself."""

    subject: str
    issuer: str
    names: tuple[str, ...]
    not_before: datetime
    not_after: datetime
    self_signed: bool


def facts_of(der: bytes) -> PeerFacts:
    """The names and dates of a DER certificate."""
    cert = x509.load_der_x509_certificate(der)
    names: list[str] = []
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        pass
    else:
        names += san.get_values_for_type(x509.DNSName)
        names += [str(ip) for ip in san.get_values_for_type(x509.IPAddress)]
    if not names:
        names += [
            str(a.value) for a in cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
        ]
    return PeerFacts(
        subject=cert.subject.rfc4514_string() or "(empty subject)",
        issuer=cert.issuer.rfc4514_string() or "(empty issuer)",
        names=tuple(names),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
        self_signed=cert.issuer == cert.subject,
    )


def _probe(host: str, port: int, server_name: str, context: ssl.SSLContext) -> bytes | None:
    context.set_alpn_protocols(["h2", "http/1.1"])
    with (
        socket.create_connection((host, port), timeout=_PROBE_TIMEOUT_S) as sock,
        context.wrap_socket(sock, server_hostname=server_name or host) as tls,
    ):
        return tls.getpeercert(binary_form=True)


# What a client says first after the handshake: an HTTP/1.1 request, or the HTTP/2 preface
# with an empty SETTINGS frame (gRPC). A server that accepted the connection answers it.
_HTTP1_HELLO = b"OPTIONS * HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n"
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _converse(host: str, port: int, context: ssl.SSLContext, http2: bool) -> str:
    """``"answered"``, ``"closed"`` (the server hung up after the handshake without a word:
    what servers do to a client whose certificate they refuse under TLS 1.3) or the reason
    of the TLS alert or failure."""
    context.set_alpn_protocols(["h2"] if http2 else ["http/1.1"])
    try:
        with socket.create_connection((host, port), timeout=_PROBE_TIMEOUT_S) as sock:
            try:
                tls = context.wrap_socket(sock, server_hostname=host)
            except (ConnectionResetError, BrokenPipeError):
                return "CLOSED_IN_HANDSHAKE"  # a reset before the handshake was done
            with tls:
                tls.sendall(_HTTP2_HELLO if http2 else _HTTP1_HELLO)
                return "answered" if tls.recv(1) else "closed"
    except ssl.SSLError as exc:
        return f"{exc.reason or ''} {exc}"
    except (ConnectionResetError, BrokenPipeError):
        return "closed"


async def after_handshake(host: str, port: int, tls: TlsSettings, *, http2: bool) -> str | None:
    """What the server does after a handshake offering ``tls``'s client certificate (its
    own certificate not verified): see :func:`_converse`; None when it cannot be reached."""
    try:
        identity = TlsSettings(
            client_cert=tls.client_cert,
            client_key=tls.client_key,
            key_password=tls.key_password,
            insecure=True,
        )
        context = ssl_context(identity)
        return await asyncio.to_thread(_converse, host, port, context, http2)
    except Exception:
        return None


async def speaks_tls(host: str, port: int) -> bool:
    """Whether the port completes a TLS handshake (a plaintext client met a TLS port)."""
    return await peer_certificate(host, port) is not None


def _hung_up_words(sent_client_cert: bool) -> str:
    if sent_client_cert:
        return (
            "the server closed the connection right after the handshake: it does not accept "
            "the client certificate"
        )
    return (
        "the server closed the connection right after the handshake: it requires a client "
        "certificate and none was sent"
    )


async def explain_hang_up(host: str, port: int, tls: TlsSettings, *, http2: bool) -> str | None:
    """Words for a TLS connection the server dropped without an answer, or None."""
    outcome = await after_handshake(host, port, tls, http2=http2)
    if outcome is None or outcome == "answered":
        return None
    if outcome == "closed":
        return _hung_up_words(bool(tls.client_cert))
    return handshake_words(outcome, bool(tls.client_cert))


# gRPC core's words for a connection the server ended right after the handshake (a hang-up,
# a reset — Node's TLS server resets a rejected client certificate's connection at times —
# or a TLS alert it could not decrypt as data).
_HUNG_UP = ("SOCKET CLOSED", "CONNECTION RESET", "TSI_DATA_CORRUPTED", "UNWRAP FAILED")

_TLS_PORT_WORDS = "the port speaks TLS, not plain HTTP (use https:// for it)"
_PLAIN_HTTP_WORDS = "the port speaks plain HTTP, not TLS (use http:// for it)"


async def _not_tls_words(words: str | None, host: str, port: int, probe: bool) -> str | None:
    """``words``, unless they say "plain HTTP" of a port whose plain answer is no HTTP at
    all (an SSH port met over TLS): then that, in words."""
    if words != _PLAIN_HTTP_WORDS or not probe:
        return words
    other = await not_http_at(host, port, secure=False)
    return f"the port does not speak TLS, and {other}" if other else words


def _unverified() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def peer_certificate(host: str, port: int) -> PeerFacts | None:
    """The server's certificate facts (no verification), or None when none can be read."""
    try:
        der = await asyncio.to_thread(_probe, host, port, "", _unverified())
    except (OSError, ValueError):
        return None
    return facts_of(der) if der else None


async def reverify(host: str, port: int, tls: TlsSettings) -> ssl.SSLError | None:
    """The ``ssl`` error that ``tls``'s trust settings give for this server, if any."""
    try:
        context = ssl_context(TlsSettings(ca_cert=tls.ca_cert, ca_only=tls.ca_only))
        await asyncio.to_thread(_probe, host, port, tls.server_name, context)
    except ssl.SSLError as exc:
        return exc
    except Exception:
        return None
    return None


def _reset(exc: BaseException | None) -> bool:
    """Whether a connection reset is behind an httpx failure (its cause chain)."""
    for _ in range(10):
        if exc is None:
            return False
        if isinstance(exc, ConnectionResetError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def find_ssl_error(exc: BaseException | None) -> ssl.SSLError | None:
    """The ``ssl.SSLError`` behind an httpx / httpcore failure (its cause chain)."""
    for _ in range(10):
        if exc is None:
            return None
        if isinstance(exc, ssl.SSLError):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _date(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def verification_words(code: int, message: str, host: str, peer: PeerFacts | None) -> str:
    """One sentence for an OpenSSL verification failure ``code`` on a connection to ``host``."""
    if code in _UNKNOWN_ISSUER:
        if peer is None:
            return f"the server's certificate is not signed by a trusted CA ({message})"
        if peer.self_signed or code == _SELF_SIGNED:
            return (
                f"the server's certificate is self-signed ({peer.subject}) and not trusted; "
                "add it as a CA certificate to trust it"
            )
        return (
            f"the server's certificate was issued by {peer.issuer}, a CA this client does not "
            "trust; add that CA's certificate (CA certificate / --ca-cert)"
        )
    if code in _NAME_MISMATCH:
        names = ", ".join(peer.names) if peer and peer.names else "other names"
        return (
            f"the certificate is for {names}, not for {host} (the name connected to); "
            "connect by one of its names or set the server name"
        )
    if code == _EXPIRED and peer is not None:
        return (
            f"the server's certificate expired on {_date(peer.not_after)} "
            f"(valid from {_date(peer.not_before)})"
        )
    if code == _NOT_YET_VALID and peer is not None:
        return f"the server's certificate is not valid before {_date(peer.not_before)}"
    return f"the server's certificate failed verification: {message}"


def handshake_words(reason: str, sent_client_cert: bool) -> str | None:
    """One sentence for a failed handshake's ``reason`` (not a verification), or None."""
    upper = reason.upper().replace(" ", "_")
    if any(key in upper for key in _CLOSED_IN_HANDSHAKE):
        return HANDSHAKE_CLOSED
    if any(key.replace(" ", "_") in upper for key in _PLAIN_HTTP):
        return _PLAIN_HTTP_WORDS
    if any(key in upper for key in _CLIENT_CERT_REQUIRED) and not sent_client_cert:
        return "the server requires a client certificate and none was sent"
    if any(key in upper for key in _CLIENT_CERT_REJECTED) and sent_client_cert:
        return f"the server does not accept the client certificate ({reason.strip()})"
    if any(key in upper for key in _CLIENT_CERT_REQUIRED):
        return f"the server refused the handshake ({reason}); check the client certificate"
    return None


async def explain_ssl_error(
    error: ssl.SSLError, host: str, port: int, tls: TlsSettings, *, probe: bool = True
) -> str | None:
    """``error`` in words, with the peer's certificate facts when they help (and ``probe``
    allows reading them); None when it is not a TLS failure we can say more about."""
    if isinstance(error, ssl.SSLCertVerificationError):
        code = error.verify_code
        peer = await peer_certificate(host, port) if probe else None
        return verification_words(code, error.verify_message, host, peer)
    return handshake_words(f"{error.reason or ''} {error}", bool(tls.client_cert))


async def explain_http_failure(
    exc: BaseException, url: str, tls: TlsSettings, *, probe: bool = True
) -> str | None:
    """A TLS sentence for an httpx failure reaching ``url``, or None (not about TLS).

    ``probe``: a second connection may be opened to the server to learn more (its
    certificate, what it does after the handshake). Callers behind a proxy pass False: the
    probes connect directly, which the proxy setting says not to do.
    """
    error = find_ssl_error(exc)
    parts = urlsplit(url)
    host = parts.hostname
    if host is None:
        return None
    secure = parts.scheme.lower() == "https"
    port = parts.port or (443 if secure else 80)
    dropped = isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError)
    if error is not None:
        words = await explain_ssl_error(error, host, port, tls, probe=probe)
    elif secure and isinstance(exc, httpx.ConnectError) and _reset(exc):
        words = HANDSHAKE_CLOSED  # TCP was up (a refusal is no reset): TLS never finished
    elif dropped and secure and probe:
        words = await explain_hang_up(host, port, tls, http2=False)
    elif dropped and probe and await speaks_tls(host, port):
        return f"The server at {host}:{port} hung up: {_TLS_PORT_WORDS}"
    else:
        return None
    words = await _not_tls_words(words, host, port, probe)
    return f"TLS with {host}:{port} failed: {words}" if words else None


async def explain_grpc_details(
    details: str,
    host: str,
    port: int,
    tls: TlsSettings,
    *,
    secure: bool = True,
    probe: bool = True,
) -> str | None:
    """A TLS sentence for a gRPC status ``details`` line, or None (not about TLS);
    ``probe`` as for :func:`explain_http_failure`."""
    upper = details.upper()
    words: str | None = None
    if not probe:  # what the details line says, nothing more
        words = handshake_words(details, bool(tls.client_cert)) if secure else None
        return f"TLS handshake failed: {words}" if words else None
    if not secure:
        if "SOCKET CLOSED" in upper and await speaks_tls(host, port):
            return f"the server at {host}:{port} hung up: {_TLS_PORT_WORDS}"
        return None
    if "HOSTNAME VERIFICATION" in upper or (
        "PEER NAME" in upper and "NOT IN PEER CERTIFICATE" in upper
    ):
        peer = await peer_certificate(host, port)
        words = verification_words(62, "name mismatch", tls.server_name or host, peer)
    elif "CERTIFICATE_VERIFY_FAILED" in upper:
        error = await reverify(host, port, tls)
        if isinstance(error, ssl.SSLCertVerificationError):
            words = await explain_ssl_error(error, host, port, tls)
        else:
            words = "the server's certificate failed verification"
    elif any(key in upper for key in _HUNG_UP):
        words = await explain_hang_up(host, port, tls, http2=True)
    elif "SSL" in upper or "TLS" in upper or "HANDSHAKE" in upper:
        words = handshake_words(details, bool(tls.client_cert))
    words = await _not_tls_words(words, host, port, probe)
    return f"TLS handshake failed: {words}" if words else None


def explain_proxy_failure(text: str, proxy: str, *, refused: bool = False) -> str | None:
    """Words for a failure of the proxy ``proxy`` (password masked) itself, or None.

    ``text`` is httpx's error text or gRPC's status details; ``refused``: the connection
    was refused (with a proxy set, that is the proxy's port).
    """
    if not proxy:
        return None
    upper = text.upper()
    if "407" in upper:
        return (
            f"The proxy {proxy} refused the request: 407 Proxy Authentication Required "
            "(check the proxy username and password)"
        )
    if refused or ("CONNECTION REFUSED" in upper and "REMOTE HOST" in upper):
        return f"Could not connect to the proxy {proxy}: connection refused (is it running?)"
    if "PROXY" in upper and (code := _status_code(upper)):
        return f"The proxy {proxy} refused the request: HTTP {code}"
    return None


def _status_code(upper: str) -> str | None:
    found = re.search(r"(?:RESPONSE CODE|PROXY[^0-9]*)\s(\d{3})\b", upper)
    return found.group(1) if found else None
