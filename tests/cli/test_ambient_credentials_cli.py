"""Ambient credentials at the command line (issue 29, kind 2): ``send`` reaches a loopback
agent directly under the system proxy, reads no ``~/.netrc``, and prints no proxy
credential, not even the ones a hostile proxy echoes back."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.echo_server import echo_server
from tests.peers.tls_fixtures import PROXY_PASSWORD, PROXY_USER, ProxyServer

REPO = Path(__file__).resolve().parents[2]
TOKEN = base64.b64encode(f"{PROXY_USER}:{PROXY_PASSWORD}".encode()).decode()


def _send(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("output", ["jsonl", "pretty"])
def test_send_prints_no_proxy_credential_a_proxy_echoes(output: str) -> None:
    with echo_server("error") as url:
        proxy = url.replace("http://", f"http://{PROXY_USER}:{PROXY_PASSWORD}@").rstrip("/")
        _, out = _send(
            "http://agent.test:8000/", "--method", "GetTask", "--task-id", "t1",
            "--proxy", proxy, "--output", output,
        )  # fmt: skip
    assert "Proxy-Authorization" in out  # the echo arrived
    assert TOKEN not in out and PROXY_PASSWORD not in out


@pytest.mark.peer
def test_send_reaches_a_loopback_agent_directly_under_the_system_proxy(
    sdk_peer: dict[str, Any], proxy_server: ProxyServer
) -> None:
    before = proxy_server.log.read_text("utf-8") if proxy_server.log.exists() else ""
    proxied = {"HTTP_PROXY": proxy_server.credentialed(), "HTTPS_PROXY": proxy_server.url}
    code, out = _send(sdk_peer["jsonrpc_url"], "--method", "SendMessage", "--text", "1 2",
                      env=proxied)  # fmt: skip
    assert code == 0, out
    request = json.loads(out.splitlines()[0])
    assert request["event"] == "request" and "proxy" not in request
    time.sleep(0.3)  # proxy.py logs a request when its connection closes
    seen = proxy_server.log.read_text("utf-8")[len(before) :] if proxy_server.log.exists() else ""
    assert sdk_peer["base_url"].rsplit(":", 1)[1] not in seen, seen


def test_send_reads_no_netrc(tmp_path: Path) -> None:
    (tmp_path / ".netrc").write_text("default login netrc-user password netrc-password\n")
    (tmp_path / ".netrc").chmod(0o600)
    canned = Canned(body=b'{"jsonrpc": "2.0", "id": 1, "result": {"id": "t1"}}')
    with bad_server(canned) as url:
        _send(url, "--method", "GetTask", "--task-id", "t1",
              env={"HOME": str(tmp_path), "NETRC": str(tmp_path / ".netrc")})  # fmt: skip
    ((_, _, headers, _),) = canned.received
    assert "Authorization" not in headers
