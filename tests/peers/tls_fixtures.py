"""TLS and proxy fixtures: trustme certificates, the demo agent over mutual TLS, a real proxy.

- ``tls_files``: a CA, a server certificate for 127.0.0.1/localhost/agent.test, a client certificate
  (PEM and PKCS#12), a client certificate of another CA, an expired server certificate and
  one issued to another name (all files in a session temp folder).
- ``tls_peer``: ``python -m app demo-agent --tls-cert … --tls-client-ca …``: HTTPS and gRPC
  over TLS, client certificates required.
- ``tls_stub``: a loopback TLS server presenting a given certificate (the handshake is all
  it does), for the failures a real agent would not be started for.
- ``proxy_server``: ``proxy.py`` from PyPI on loopback with Basic proxy authentication;
  its log file shows every CONNECT. It resolves ``*.test`` names to 127.0.0.1
  (tests/peers/proxy_names.py): ``agent.test`` reaches a loopback peer through the proxy
  while the client, seeing no loopback name, does not bypass it.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509 import load_pem_x509_certificate

from tests.peers.fixtures import start_sdk_peer
from tests.peers.js_fixtures import start_js_peer

REPO = Path(__file__).resolve().parents[2]
PKCS12_PASSWORD = "p12-secret"
PROXY_USER, PROXY_PASSWORD = "alice", "proxy-secret"


@dataclass(frozen=True)
class TlsFiles:
    """Paths of the generated PEM files (``str`` for CLI arguments)."""

    ca: str
    ca_name: str
    server: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str
    client_p12: str
    rogue_client_cert: str
    rogue_client_key: str
    expired_server: str
    other_name_server: str


def _write_p12(cert: trustme.LeafCert, path: Path) -> None:
    key = serialization.load_pem_private_key(cert.private_key_pem.bytes(), None)
    leaf = load_pem_x509_certificate(cert.cert_chain_pems[0].bytes())
    data = pkcs12.serialize_key_and_certificates(
        b"client",
        key,  # type: ignore[arg-type]
        leaf,
        None,
        serialization.BestAvailableEncryption(PKCS12_PASSWORD.encode()),
    )
    path.write_bytes(data)


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """Certificates from trustme, written once per session."""
    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA(organization_name="Workbench Test CA")
    rogue = trustme.CA(organization_name="Rogue CA")
    server = ca.issue_cert("127.0.0.1", "localhost", "agent.test")
    client = ca.issue_cert("client@example.test")
    rogue_client = rogue.issue_cert("mallory@example.test")
    past = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
    expired = ca.issue_cert(
        "127.0.0.1", not_before=past - datetime.timedelta(days=30), not_after=past
    )
    other = ca.issue_cert("agent.example.test")

    def write(blob: trustme.Blob, name: str) -> str:
        blob.write_to_path(folder / name)
        return str(folder / name)

    _write_p12(client, folder / "client.p12")
    return TlsFiles(
        ca=write(ca.cert_pem, "ca.pem"),
        ca_name="Workbench Test CA",
        server=write(server.private_key_and_cert_chain_pem, "server.pem"),
        server_cert=write(server.cert_chain_pems[0], "server.crt"),
        server_key=write(server.private_key_pem, "server.key"),
        client_cert=write(client.cert_chain_pems[0], "client.crt"),
        client_key=write(client.private_key_pem, "client.key"),
        client_p12=str(folder / "client.p12"),
        rogue_client_cert=write(rogue_client.cert_chain_pems[0], "rogue.crt"),
        rogue_client_key=write(rogue_client.private_key_pem, "rogue.key"),
        expired_server=write(expired.private_key_and_cert_chain_pem, "expired.pem"),
        other_name_server=write(other.private_key_and_cert_chain_pem, "other.pem"),
    )


@pytest.fixture(scope="session")
def tls_peer(tls_files: TlsFiles) -> Iterator[dict[str, Any]]:
    """The demo agent over TLS (HTTP and gRPC), client certificates of the test CA required."""
    peer = start_sdk_peer("--tls-cert", tls_files.server, "--tls-client-ca", tls_files.ca)
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def tls_js_peer(tls_files: TlsFiles) -> Iterator[dict[str, Any]]:
    """The @a2a-js/sdk peer over TLS (``https.createServer``, gRPC ``createSsl``), client
    certificates of the test CA required."""
    peer = start_js_peer(
        "--tls-cert", tls_files.server_cert, "--tls-key", tls_files.server_key,
        "--tls-client-ca", tls_files.ca,
    )  # fmt: skip
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


class TlsStub:
    """A loopback server that completes TLS handshakes with ``cert_file`` and hangs up."""

    def __init__(self, cert_file: str) -> None:
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(cert_file)
        self._context.set_alpn_protocols(["h2", "http/1.1"])
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with contextlib.suppress(OSError), conn:
                conn.settimeout(2.0)
                with self._context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()


@pytest.fixture
def tls_stub() -> Iterator[Callable[[str], TlsStub]]:
    """A factory of :class:`TlsStub` s, all closed after the test."""
    stubs: list[TlsStub] = []

    def start(cert_file: str) -> TlsStub:
        stubs.append(TlsStub(cert_file))
        return stubs[-1]

    yield start
    for stub in stubs:
        stub.close()


@dataclass
class ProxyServer:
    """A running ``proxy.py``: ``url`` without credentials; ``log`` holds its access log."""

    url: str
    port: int
    log: Path

    def credentialed(self, user: str = PROXY_USER, password: str = PROXY_PASSWORD) -> str:
        return f"http://{user}:{password}@127.0.0.1:{self.port}"

    def tunnels_to(self, target: str, more_than: int = -1) -> int:
        """How many ``CONNECT target`` lines its access log has; waits (up to 10 s) until
        there are more than ``more_than`` (a line is written when the tunnel closes)."""
        deadline = time.monotonic() + 10
        while True:
            count = self.connects().count(target)
            if count > more_than or time.monotonic() > deadline:
                return count
            time.sleep(0.05)

    def connects(self) -> list[str]:
        text = self.log.read_text("utf-8", "replace") if self.log.exists() else ""
        return [
            line.split(" - CONNECT ", 1)[1].split(" ", 1)[0]
            for line in text.splitlines()
            if " - CONNECT " in line
        ]


@pytest.fixture(scope="session")
def proxy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyServer]:
    """``proxy.py`` on 127.0.0.1 requiring ``alice:proxy-secret`` (Basic)."""
    folder = tmp_path_factory.mktemp("proxy")
    port_file, log = folder / "port", folder / "proxy.log"
    cmd = [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", "0"]
    cmd += ["--port-file", str(port_file), "--num-workers", "1", "--num-acceptors", "1"]
    cmd += ["--log-level", "INFO", "--log-file", str(log)]
    cmd += ["--basic-auth", f"{PROXY_USER}:{PROXY_PASSWORD}"]
    cmd += ["--plugins", "tests.peers.proxy_names.TestNamesResolveToLoopback"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO, env=env
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("proxy.py did not start")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        yield ProxyServer(f"http://127.0.0.1:{port}", port, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
