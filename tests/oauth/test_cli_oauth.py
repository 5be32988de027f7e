"""``send --oauth2 …`` against the real provider and the agent it guards."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.oidc_browser import browse
from tests.peers.oidc_fixtures import CC_CLIENT, DEVICE_CLIENT

pytestmark = pytest.mark.peer
REPO = Path(__file__).resolve().parents[2]
SEND = [sys.executable, "-m", "app", "send"]


def _send(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [*SEND, *args], capture_output=True, text=True, cwd=REPO, timeout=60, check=False
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines, proc.stderr


def _sum_text(lines: list[dict[str, Any]]) -> str:
    return str(lines[1]["body"]["result"]["message"]["parts"][0]["text"])


def test_client_credentials_with_secret_file(oauth_agent: dict[str, Any], tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(CC_CLIENT[1] + "\n")
    code, lines, err = _send(
        oauth_agent["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30",
        "--oauth2", "client-credentials", "--token-url", oauth_agent["oidc"]["token_url"],
        "--client-id", CC_CLIENT[0], "--client-secret", f"@{secret}", "--scope", "a2a",
    )  # fmt: skip
    assert code == 0, (lines, err)
    assert lines[0]["headers"]["Authorization"] == "Bearer ****"
    assert _sum_text(lines) == "Sum: 42"


def test_from_card_scheme_fills_the_token_url(oauth_agent: dict[str, Any]) -> None:
    code, lines, err = _send(
        oauth_agent["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30",
        "--oauth2-from-card", oauth_agent["card_url"] + "#oauthClientCredentials",
        "--client-id", CC_CLIENT[0], "--client-secret", CC_CLIENT[1],
    )  # fmt: skip
    assert code == 0, (lines, err)
    assert _sum_text(lines) == "Sum: 42"


def test_wrong_secret_exits_2_with_invalid_client(oauth_agent: dict[str, Any]) -> None:
    code, lines, err = _send(
        oauth_agent["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30",
        "--oauth2", "client-credentials", "--token-url", oauth_agent["oidc"]["token_url"],
        "--client-id", CC_CLIENT[0], "--client-secret", "wrong",
    )  # fmt: skip
    assert code == 2
    assert lines[0]["event"] == "error" and lines[0]["code"] == "invalid_client"
    assert lines[-1] == {"event": "end", "outcome": "transport_error", "elapsed_ms": 0.0}
    assert "oauth2: invalid_client: client authentication failed" in err
    assert "wrong" not in err + json.dumps(lines)


def test_unknown_card_scheme_lists_the_offered_ones(oauth_agent: dict[str, Any]) -> None:
    code, _lines, err = _send(
        oauth_agent["jsonrpc_url"], "--method", "SendMessage",
        "--oauth2-from-card", oauth_agent["card_url"] + "#nope", "--client-id", "x",
    )  # fmt: skip
    assert code == 2
    assert "the card offers no nope OAuth option (its schemes: oauthAuthorizationCode, " in err


async def test_device_code_prints_the_code_and_polls(oauth_agent: dict[str, Any]) -> None:
    oidc = oauth_agent["oidc"]
    proc = await asyncio.create_subprocess_exec(
        *SEND, oauth_agent["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30",
        "--oauth2", "device-code", "--token-url", oidc["token_url"],
        "--device-authorization-url", oidc["device_authorization_url"],
        "--client-id", DEVICE_CLIENT, "--scope", "openid", "--scope", "a2a",
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    first = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
    match = re.match(r"oauth2: to sign in, open (\S+) and enter the code (\S+)", first)
    assert match, first
    await browse(f"{match.group(1)}?user_code={match.group(2)}")
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert _sum_text(lines) == "Sum: 42"


def test_invalid_token_renews_once_then_the_refusal_stands(oauth_agent: dict[str, Any]) -> None:
    # A token endpoint of our own hands out a token the provider never issued.
    canned = Canned(body=b'{"access_token": "forged", "token_type": "Bearer", "expires_in": 60}')
    with bad_server(canned) as base:
        code, lines, err = _send(
            oauth_agent["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30",
            "--oauth2", "client-credentials", "--token-url", base + "token",
            "--client-id", "c", "--client-secret", "s",
        )  # fmt: skip
    assert code == 1, (lines, err)
    assert (
        "oauth2: the agent refused the token (invalid_token: token is not active); "
        "getting a new one" in err
    )
    assert len(canned.received) == 2  # one renewal, no loop
    assert [line["event"] for line in lines].count("end") == 2
    assert "forged" not in json.dumps(lines)


def test_a_setting_no_card_can_supply_is_a_usage_error() -> None:
    # Nothing is sent (the port is closed): the command line itself is incomplete.
    status, lines, stderr = _send(
        "http://127.0.0.1:9/", "--method", "SendMessage", "--text", "hi",
        "--oauth2", "client-credentials", "--token-url", "http://127.0.0.1:9/token",
    )  # fmt: skip
    assert status == 3
    assert lines[0]["kind"] == "usage"
    assert "needs a client id (--client-id)" in lines[0]["message"] and "--client-id" in stderr
