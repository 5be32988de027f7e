"""The TLS and proxy options of ``send``, ``card``, ``verify`` and ``run``; x-a2a tls/proxy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.protocol.net.network import ProxyMode
from app.spec.xa2a import XA2AError, from_x_a2a, to_x_a2a
from tests.peers.tls_fixtures import PROXY_PASSWORD, ProxyServer, TlsFiles

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, lines, proc.stderr


def mtls_args(files: TlsFiles) -> list[str]:
    return [
        "--ca-cert",
        files.ca,
        "--client-cert",
        files.client_cert,
        "--client-key",
        files.client_key,
    ]


def test_send_over_mutual_tls_through_the_proxy(
    tls_peer: dict[str, Any], tls_files: TlsFiles, proxy_server: ProxyServer
) -> None:
    code, lines, _ = cli(
        "send", tls_peer["jsonrpc_url"], "--method", "SendMessage", *mtls_args(tls_files),
        "--proxy", proxy_server.credentialed(),
    )  # fmt: skip
    assert code == 0, lines
    assert lines[0]["proxy"].endswith(f":***@127.0.0.1:{proxy_server.port}")
    assert PROXY_PASSWORD not in json.dumps(lines)
    code, lines, _ = cli(
        "send", tls_peer["grpc_target"], "--binding", "GRPC", "--method", "SendMessage",
        *mtls_args(tls_files), "--server-name", "localhost", "--no-proxy",
    )  # fmt: skip
    assert code == 0, lines


def test_send_insecure_says_so_and_errors_read_in_words(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    code, lines, _ = cli(
        "send", tls_peer["jsonrpc_url"], "--method", "SendMessage", "--insecure",
        "--client-cert", tls_files.client_cert, "--client-key", tls_files.client_key,
    )  # fmt: skip
    assert code == 0 and lines[0]["tls_verification"] == "off"
    code, lines, _ = cli("send", tls_peer["jsonrpc_url"], "--method", "SendMessage")
    assert code == 2
    (error,) = [line for line in lines if line["event"] == "error"]
    assert "a CA this client does not trust" in error["message"]


def test_pretty_request_shows_the_warning(tls_peer: dict[str, Any], tls_files: TlsFiles) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", tls_peer["jsonrpc_url"], "--method", "GetTask",
         "--body", "-", "--insecure", "--client-cert", tls_files.client_cert,
         "--client-key", tls_files.client_key, "--output", "pretty"],
        input='{"id": "none"}', capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert "! TLS verification OFF" in proc.stdout


def test_card_and_verify_fetch_with_the_options(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    code, lines, _ = cli("card", tls_peer["card_url"], *mtls_args(tls_files))
    assert code == 0, lines
    code, lines, _ = cli("card", tls_peer["card_url"], "--ca-cert", tls_files.ca)
    assert code == 2
    assert "requires a client certificate" in json.dumps(lines)
    code, lines, stderr = cli(
        "verify", tls_peer["card_url"], "--jwks", tls_peer["jwks_path"], *mtls_args(tls_files)
    )
    assert code == 0, (lines, stderr)


def test_run_uses_x_a2a_tls_and_the_command_line_on_top(
    tls_peer: dict[str, Any], tls_files: TlsFiles, tmp_path: Path
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/send:\n    post:\n"
        "      operationId: send\n      x-protocol: a2a\n      x-a2a:\n        version: '1.0'\n"
        "        binding: JSONRPC\n        endpoint: '{{baseUrl}}/'\n        method: SendMessage\n"
        "        tls: {caCert: '{{caCert}}', clientCert: " + json.dumps(tls_files.client_cert)
        + ", clientKey: " + json.dumps(tls_files.client_key) + "}\n"
        "        proxy: {mode: none}\n"
        "        example: {jsonrpc: '2.0', id: 1, method: SendMessage, params: {message: "
        "{messageId: m1, role: ROLE_USER, parts: [{text: hi}]}}}\n"
    )  # fmt: skip
    base = ["run", str(spec), "--var", f"baseUrl={tls_peer['base_url']}"]
    code, lines, stderr = cli(*base, "--var", f"caCert={tls_files.ca}")
    assert code == 0, (lines, stderr)
    code, lines, _ = cli(*base, "--var", "caCert=", "--insecure")
    assert code == 0, lines
    assert lines[0]["tls_verification"] == "off"


def test_x_a2a_round_trip_and_refused_secrets() -> None:
    x = {
        "version": "1.0", "binding": "GRPC", "endpoint": "h:1", "method": "SendMessage",
        "tls": {"caCert": "ca.pem", "clientCert": "{{clientCert}}", "clientKey": "k.pem",
                "keyPassword": "{{keyPassword}}", "insecure": True, "serverName": "agent"},
        "proxy": {"url": "http://proxy:3128", "username": "u", "password": "{{proxyPassword}}"},
        "example": {},
    }  # fmt: skip
    saved = from_x_a2a(x, path="x")
    assert saved.network.tls.server_name == "agent" and saved.network.tls.insecure
    assert saved.network.proxy is not None and saved.network.proxy.mode is ProxyMode.CUSTOM
    out = to_x_a2a(saved, None, None)
    assert out["tls"] == x["tls"] and out["proxy"] == x["proxy"]
    assert list(out).index("tls") < list(out).index("example")
    plain = from_x_a2a({**x, "tls": None, "proxy": None}, path="x")
    assert "tls" not in to_x_a2a(plain, None, None)
    with pytest.raises(XA2AError, match=r"x\.proxy\.password: must be a \{\{variable\}\}"):
        from_x_a2a({**x, "proxy": {"url": "http://p:1", "password": "hunter2"}}, path="x")
    with pytest.raises(XA2AError, match=r"x\.tls\.keyPassword"):
        from_x_a2a({**x, "tls": {"keyPassword": "hunter2"}}, path="x")
    with pytest.raises(XA2AError, match=r"x\.tls\.privateKey: is not a known key"):
        from_x_a2a({**x, "tls": {"privateKey": "-----BEGIN"}}, path="x")
    with pytest.raises(XA2AError, match=r"x\.proxy\.mode"):
        from_x_a2a({**x, "proxy": {"mode": "socks"}}, path="x")
