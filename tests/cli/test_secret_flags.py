"""Every flag that takes a secret reads ``@FILE`` (the file's content, its trailing newline
stripped) and ``env:NAME`` (an environment variable); an ``@`` that names no readable file
or an unset variable is a usage error, and nothing is sent (docs/CLI.md, docs/SECURITY.md).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.commands.cli import CliUsageError
from app.commands.oauth import oauth_from_args
from app.commands.secret_args import secret_value
from app.commands.send import build_parser, parse_auth
from app.protocol.net.auth import AuthKind
from tests.peers.fixtures import start_sdk_peer

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, timeout=60, cwd=REPO, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_a_value_comes_from_a_file_the_environment_or_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "token"
    path.write_text("s3cret\n", encoding="utf-8")
    monkeypatch.setenv("A2A_TEST_SECRET", "from-env")
    assert secret_value(f"@{path}", "--bearer") == "s3cret"
    assert secret_value("env:A2A_TEST_SECRET", "--bearer") == "from-env"
    assert secret_value("plain", "--bearer") == "plain"


@pytest.mark.parametrize("value", ["@/no/such/file", "@", "env:A2A_TEST_UNSET", "env:"])
def test_an_unreadable_file_or_unset_variable_is_a_usage_error(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("A2A_TEST_UNSET", raising=False)
    with pytest.raises(CliUsageError, match="--bearer"):
        secret_value(value, "--bearer")


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["http://127.0.0.1:1/", "--method", "SendMessage", *argv])


def test_basic_and_api_key_take_both_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "basic").write_text("alice:pa:ss\n", encoding="utf-8")
    (tmp_path / "key").write_text("k-123\r\n", encoding="utf-8")
    monkeypatch.setenv("A2A_TEST_KEY", "k-env")
    basic = parse_auth(_args("--basic", f"@{tmp_path / 'basic'}"))
    assert (basic.kind, basic.username, basic.password) == (AuthKind.BASIC, "alice", "pa:ss")
    key = parse_auth(_args("--api-key", f"X-Key=@{tmp_path / 'key'}@query"))
    assert (key.key_name, key.key_value, key.key_location.value) == ("X-Key", "k-123", "query")
    key = parse_auth(_args("--api-key", "X-Key=env:A2A_TEST_KEY"))
    assert (key.key_name, key.key_value, key.key_location.value) == ("X-Key", "k-env", "header")


def test_client_secret_takes_both_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_TEST_CLIENT_SECRET", "cs-env")
    base = ["--oauth2", "client-credentials", "--token-url", "http://127.0.0.1:1/token",
            "--client-id", "app"]  # fmt: skip
    oauth = oauth_from_args(_args(*base, "--client-secret", "env:A2A_TEST_CLIENT_SECRET"))
    assert oauth is not None and oauth.config.client_secret == "cs-env"
    (tmp_path / "cs").write_text("cs-file\n", encoding="utf-8")
    oauth = oauth_from_args(_args(*base, "--client-secret", f"@{tmp_path / 'cs'}"))
    assert oauth is not None and oauth.config.client_secret == "cs-file"


@pytest.mark.peer
def test_send_sends_the_token_of_a_file_or_variable(
    sdk_peer_token: dict[str, Any], tmp_path: Path
) -> None:
    url, token = sdk_peer_token["jsonrpc_url"], sdk_peer_token["token"]
    path = tmp_path / "token"
    path.write_text(token + "\n", encoding="utf-8")
    send = ("send", url, "--method", "SendMessage", "--no-history")
    assert cli(*send, "--bearer", f"@{path}").returncode == 0
    assert (
        cli(*send, "--bearer", "env:A2A_TEST_TOKEN", env={"A2A_TEST_TOKEN": token}).returncode == 0
    )
    # Before: "@/path" itself went out as the token.
    missing = cli(*send, "--bearer", f"@{tmp_path / 'nope'}")
    assert missing.returncode == 3
    assert "cannot read --bearer" in missing.stderr
    assert not [line for line in missing.stdout.splitlines() if '"event": "request"' in line]


@pytest.mark.peer
def test_basic_from_a_file_goes_out_as_the_header(sdk_peer: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "basic"
    path.write_text("alice:wonder\n", encoding="utf-8")
    done = cli("send", sdk_peer["jsonrpc_url"], "--method", "SendMessage", "--no-history",
               "--basic", f"@{path}", "--reveal-secrets")  # fmt: skip
    (request,) = [json.loads(x) for x in done.stdout.splitlines() if '"event": "request"' in x]
    expected = "Basic " + base64.b64encode(b"alice:wonder").decode()
    assert request["headers"]["Authorization"] == expected


def test_demo_agent_takes_its_token_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("demo-file-token\n", encoding="utf-8")
    peer = start_sdk_peer("--token", f"@{path}")
    try:
        body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
        headers = {"A2A-Version": "1.0"}
        url = peer.info["jsonrpc_url"]
        assert httpx.post(url, json=body, headers=headers, timeout=10).status_code == 401
        good = {**headers, "Authorization": "Bearer demo-file-token"}
        assert httpx.post(url, json=body, headers=good, timeout=10).status_code == 200
    finally:
        peer.stop()
    bad = cli("demo-agent", "--token", "env:A2A_TEST_UNSET_TOKEN")
    assert bad.returncode == 3 and "--token env:A2A_TEST_UNSET_TOKEN" in bad.stderr
