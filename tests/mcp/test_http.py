"""``a2a-workbench mcp --http``: the Streamable HTTP transport with the SDK's own client —
the per-run bearer token, loopback only, progress over HTTP, and a client that hangs up in
the middle of a call while another keeps working."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import httpx2
import pytest

from tests.mcp.harness import REPO, data, everything, http_server, server_env

pytestmark = pytest.mark.peer

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_a_client_with_the_token_uses_every_kind_of_call(sdk_peer: dict[str, Any]) -> None:
    steps: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        steps.append(done)

    with http_server() as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")
        assert len(server.token) >= 40
        async with server.client() as client:
            names = {t.name for t in (await client.list_tools()).tools}
            card = await client.call_tool("fetch_card", {"url": sdk_peer["base_url"]})
            stream = await client.call_tool(
                "send",
                {
                    "url": sdk_peer["jsonrpc_url"],
                    "method": "SendStreamingMessage",
                    "text": "stream 4 100",
                },
                progress_callback=on_progress,
            )
            prompt = await client.get_prompt("debug_agent", {"url": sdk_peer["base_url"]})
    assert {"send", "fetch_card", "check_agent", "history_show"} <= names
    assert data(card)["outcome"] == "valid"
    assert data(stream)["ok"] and steps, "no progress over Streamable HTTP"
    for result in (card, stream, prompt):
        assert server.token not in everything(result)


async def test_no_token_no_service() -> None:
    with http_server() as server:
        async with httpx2.AsyncClient() as http:
            plain = await http.post(server.url, headers=ACCEPT, content=b"{}")
            wrong = await http.post(
                server.url, headers={**ACCEPT, "Authorization": "Bearer nope"}, content=b"{}"
            )
    assert plain.status_code == wrong.status_code == 401
    assert "bearer token" in plain.text and server.token not in plain.text
    assert plain.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--http", "0.0.0.0:0"], "--allow-remote"),
        (["--http", "0.0.0.0:0", "--allow-remote"], "--tls-cert"),
        (["--http", "127.0.0.1"], "HOST:PORT"),
        (["--tls-cert", "c.pem", "--tls-key", "k.pem"], "go with --http"),
    ],
)
def test_beyond_loopback_only_with_allow_remote_and_tls(args: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app", "mcp", *args],
        cwd=REPO,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3 and words in done.stderr, done.stderr
    assert done.stdout == ""


async def test_a_client_that_hangs_up_mid_call_leaves_the_server_serving(
    sdk_peer: dict[str, Any],
) -> None:
    with http_server() as server:
        headers = {**ACCEPT, "Authorization": f"Bearer {server.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            opened = await http.post(
                server.url,
                json=_rpc(
                    1,
                    "initialize",
                    {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "hangs-up", "version": "0"},
                    },
                ),
            )
            assert opened.status_code == 200, opened.text
            session = {
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            await http.post(
                server.url,
                headers=session,
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            )
            call = _rpc(
                2,
                "tools/call",
                {
                    "name": "send",
                    "_meta": {"progressToken": "p"},
                    "arguments": {
                        "url": sdk_peer["jsonrpc_url"],
                        "method": "SendStreamingMessage",
                        "text": "stream 100000 100",
                        "deadline": 30,
                    },
                },
            )
            with anyio.fail_after(30):
                async with http.stream("POST", server.url, headers=session, json=call) as sse:
                    async for line in sse.aiter_lines():
                        if "notifications/progress" in line:
                            break  # the stream runs: hang up now, mid-call
        # The server is still there for the next client, while that call may still wind down.
        async with server.client() as client:
            with anyio.fail_after(30):
                sent = data(await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"]}))
                found = data(
                    await client.call_tool("history_search", {"method": "SendStreamingMessage"})
                )
    assert sent["ok"] and found


def _rpc(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
