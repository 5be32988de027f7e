"""Bounded outputs: an answer or stream item over ``--max-body`` comes back as its size and
the History entry that holds it; a long stream lists its first and last items."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mcp.harness import data, stdio

pytestmark = pytest.mark.peer


async def test_big_answers_and_long_streams_are_summarised(sdk_peer: dict[str, Any]) -> None:
    async with stdio("--max-body", "4096") as client:
        echoed = data(
            await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"], "text": "y" * 10_000})
        )
        long = data(
            await client.call_tool(
                "send",
                {
                    "url": sdk_peer["jsonrpc_url"],
                    "method": "SendStreamingMessage",
                    "text": "stream 150 0",
                },
            )
        )
        shown = data(
            await client.call_tool(
                "history_show", {"entry_id": echoed["history_id"], "max_body_bytes": 65536}
            )
        )
    assert echoed["ok"]
    omitted = echoed["result"]
    assert omitted["bytes"] > 10_000 and "4.0 KiB limit" in omitted["omitted"]
    assert echoed["request"]["body"]["bytes"] > 10_000  # what was sent, too
    assert f"history_show {echoed['history_id']}" in " ".join(echoed["notes"])
    # history_show with a larger bound gives the whole answer.
    assert "y" * 10_000 in shown["exchange"]["result"]["message"]["parts"][0]["text"]

    stream = long["stream"]
    assert long["ok"] and stream["items_total"] > 150
    assert len(stream["items"]) == 100
    assert stream["items_omitted"] == stream["items_total"] - 100
    seqs = [item["seq"] for item in stream["items"]]
    assert seqs[:3] == [1, 2, 3] and seqs[-1] == stream["items_total"]  # first and last kept
    assert any("items in the middle" in note for note in long["notes"])
