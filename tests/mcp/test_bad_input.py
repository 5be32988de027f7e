"""Bad input gets a clear error in words — an MCP tool error (``isError``), never a
traceback — and the server keeps serving: unknown tools, wrong argument types, a URL that is
no A2A endpoint, a host outside the allow-list, a 50 MiB body, a stream that never ends,
and a call cancelled mid-stream."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.harness import data, stdio, text

pytestmark = pytest.mark.peer


def refused(result: Any) -> str:
    assert result.is_error, result
    words = text(result)
    assert "Traceback" not in words and 'File "' not in words
    return words


async def test_unknown_tools_wrong_types_and_foreign_hosts(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    card = tmp_path / "card.json"
    card.write_text(
        json.dumps(
            {
                "name": "elsewhere",
                "description": "d",
                "version": "1",
                "capabilities": {},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [],
                "supportedInterfaces": [
                    {
                        "url": "http://10.255.255.1/a2a",
                        "protocolBinding": "JSONRPC",
                        "protocolVersion": "1.0",
                    }
                ],
            }
        )
    )
    async with stdio() as client:
        assert "nope" in refused(await client.call_tool("nope", {}))
        words = refused(
            await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"], "timeout": "soon"})
        )
        assert "timeout" in words
        words = refused(await client.call_tool("send", {"url": "http://example.com/a2a"}))
        assert "example.com" in words and "--allow-host" in words
        words = refused(await client.call_tool("fetch_card", {"url": "https://example.com"}))
        assert "--allow-host example.com" in words
        words = refused(await client.call_tool("check_agent", {"card_url": str(card)}))
        assert "10.255.255.1" in words  # a card's interface elsewhere: nothing is sent
        words = refused(
            await client.call_tool(
                "send", {"url": sdk_peer["jsonrpc_url"], "headers": {"Authorization": "x"}}
            )
        )
        assert "by reference" in words
        words = refused(
            await client.call_tool(
                "send", {"url": sdk_peer["jsonrpc_url"], "auth": {"env": "NO_SUCH_VAR_X"}}
            )
        )
        assert "NO_SUCH_VAR_X" in words and "not set" in words
        legacy = {"message": {"kind": "message", "messageId": "m1", "role": "user",
                              "parts": [{"kind": "text", "text": "12 30"}]}}  # fmt: skip
        old = {"url": sdk_peer["jsonrpc_url"], "params": legacy}
        words = refused(await client.call_tool("send", old))
        assert "does not fit a 1.0 JSONRPC request" in words and "force" in words
        forced = data(await client.call_tool("send", {**old, "force": True}))
        assert forced["shape_problems"] and forced["history_id"] is not None
        # Still serving.
        assert data(await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"]}))["ok"]


async def test_a_url_that_is_no_a2a_endpoint_is_an_outcome_in_words(
    sdk_peer: dict[str, Any],
) -> None:
    elsewhere = sdk_peer["base_url"] + "/no/such/endpoint"
    async with stdio() as client:
        sent = data(await client.call_tool("send", {"url": elsewhere}))
        card = data(await client.call_tool("fetch_card", {"url": elsewhere + "/card.json"}))
    assert not sent["ok"] and sent["outcome"] != "usage_error"  # sent, and judged
    assert sent["errors"] and all(e["message"] for e in sent["errors"])
    assert "404" in json.dumps(sent["errors"])
    assert sent["http_status"] == 404 and sent["history_id"] is not None
    assert card["outcome"] == "not_fetched" and "404" in card["message"]


async def test_a_50_mib_body_is_refused_and_the_server_keeps_serving(
    sdk_peer: dict[str, Any],
) -> None:
    async with stdio() as client:
        big = "x" * (50 * 1024 * 1024)
        words = refused(
            await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"], "text": big})
        )
        assert "4194304" in words  # the limit, named
        words = refused(
            await client.call_tool(
                "explain_versions",
                {"body": big[:2_000_000], "method": "SendMessage", "version": "1.0"},
            )
        )
        assert "at most" in words
        assert data(await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"]}))["ok"]


async def test_a_stream_that_never_ends_stops_at_the_deadline(sdk_peer: dict[str, Any]) -> None:
    async with stdio() as client:
        with anyio.fail_after(30):
            ended = data(
                await client.call_tool(
                    "send",
                    {
                        "url": sdk_peer["jsonrpc_url"],
                        "method": "SendStreamingMessage",
                        "text": "stream 100000 500",
                        "deadline": 2,
                    },
                )
            )
    assert ended["outcome"] == "transport_error"
    assert any("DEADLINE_EXCEEDED" in json.dumps(e) for e in ended["errors"]), ended["errors"]
    assert 1500 < ended["elapsed_ms"] < 10_000
    assert ended["stream"]["items_total"] >= 1


async def test_cancelling_a_call_mid_stream_closes_it_and_the_server_keeps_serving(
    sdk_peer: dict[str, Any],
) -> None:
    first = anyio.Event()

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        first.set()

    async with stdio() as client:
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                await client.call_tool(
                    "send",
                    {
                        "url": sdk_peer["jsonrpc_url"],
                        "method": "SendStreamingMessage",
                        "text": "stream 100000 200",
                        "deadline": 120,
                    },
                    progress_callback=on_progress,
                )

            tg.start_soon(call)
            with anyio.fail_after(30):
                await first.wait()
            tg.cancel_scope.cancel()
        with anyio.fail_after(30):
            while True:
                found = data(await client.call_tool("history_search", {"outcome": "cancelled"}))
                if found:
                    break
                await anyio.sleep(0.2)
        assert found[0]["rpc_method"] == "SendStreamingMessage" and found[0]["source"] == "mcp"
        assert data(await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"]}))["ok"]
