"""The user's collections through the MCP server: listed, read as resources, run with their
assertions and captures; stored secrets only for the user's own collections, and a saved
credential only to its own host. Then a recording replayed on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from app.shipped import resource_path
from tests.mcp.harness import data, stdio, text
from tests.mcp.saved_specs import SEND, saved_collection

pytestmark = pytest.mark.peer

SCENARIO = resource_path("examples/demo-scenario.a2a.yaml")


async def test_collections_are_listed_read_and_run(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    mine = saved_collection(tmp_path)
    steps: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        steps.append(message)

    async with stdio() as client:
        listed = {c["path"]: c for c in data(await client.call_tool("list_collections", {}))}
        saved = data(await client.call_tool("list_saved_requests", {"collection": str(mine)}))
        resource = await client.read_resource(saved[0]["resource"])
        run = data(
            await client.call_tool(
                "run_collection",
                {"collection": str(SCENARIO), "variables": {"baseUrl": sdk_peer["base_url"]}},
                progress_callback=on_progress,
            )
        )
    assert listed[str(mine.resolve())]["origin"] == "recent"
    assert listed[str(SCENARIO.resolve())]["origin"] == "example"
    assert listed[str(mine.resolve())]["environments"] == ["demo"]
    assert len(saved) == listed[str(mine.resolve())]["requests"] == 12
    assert json.loads(resource.contents[0].text)["operation"]["x-a2a"]["method"]  # type: ignore[union-attr]
    assert run["outcome"] == "ok" and run["assertions_failed"] == 0, run
    assert [o["operation"] for o in run["operations"]] == [
        "stream",
        "ask",
        "get-task",
        "cancel-task",
    ]
    ask = run["operations"][1]
    assert ask["captures"] and ask["captures"][0]["captured"] is True
    assert all(
        o["assertions"] and all(a["passed"] for a in o["assertions"]) for o in run["operations"]
    )
    assert steps[:4] == ["stream", "ask", "get-task", "cancel-task"]


async def test_stored_secrets_only_for_the_users_collections_and_only_to_their_host(
    sdk_peer_token: dict[str, Any], js_peer: dict[str, Any], tmp_path: Path
) -> None:
    peer = sdk_peer_token
    mine = saved_collection(tmp_path, peer["token"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stranger = elsewhere / "written-by-someone.a2a.yaml"
    stranger.write_text(mine.read_text())  # the same requests, not one of the user's
    variables = {"baseUrl": peer["base_url"]}
    async with stdio(env={"A2A_WB_BASEURL": peer["base_url"]}) as client:
        own = data(
            await client.call_tool(
                "run_collection",
                {"collection": str(mine), "operations": [SEND], "variables": variables},
            )
        )
        foreign = data(
            await client.call_tool(
                "run_collection",
                {"collection": str(stranger), "operations": [SEND], "variables": variables},
            )
        )
        moved = await client.call_tool(
            "send",
            {"url": js_peer["jsonrpc_url"], "auth": {"collection": str(mine), "operation": SEND}},
        )
    assert own["outcome"] == "ok"
    error = foreign["operations"][0]["error"]
    assert "{{token}}" in error and "your own collections" in error
    assert moved.is_error and "sent only to" in text(moved)


async def test_a_saved_endpoint_outside_the_allow_list_is_not_called(tmp_path: Path) -> None:
    spec = saved_collection(tmp_path, known=False)
    data_ = yaml.safe_load(spec.read_text())
    data_["paths"][f"/a2a/{SEND}"]["post"]["x-a2a"]["endpoint"] = "http://10.255.255.1/a2a"
    spec.write_text(yaml.safe_dump(data_, sort_keys=False))
    async with stdio() as client:
        run = data(
            await client.call_tool(
                "run_collection", {"collection": str(spec), "operations": [SEND]}
            )
        )
    assert run["outcome"] == "usage_error"
    assert "refused to call 10.255.255.1" in run["operations"][0]["error"]
    assert run["operations"][0]["exchange"] is None


async def test_recorded_exchanges_are_replayed_on_loopback(sdk_peer: dict[str, Any]) -> None:
    async with stdio() as client:
        sent = data(
            await client.call_tool("send", {"url": sdk_peer["jsonrpc_url"], "text": "12 30"})
        )
        replay = data(
            await client.call_tool(
                "replay_start", {"history_ids": [sent["history_id"]], "speed": 0}
            )
        )
        again = data(
            await client.call_tool("send", {"url": replay["base_url"] + "/", "text": "12 30"})
        )
        unmatched = data(
            await client.call_tool(
                "send", {"url": replay["base_url"] + "/", "text": "something else"}
            )
        )
        stopped = data(await client.call_tool("replay_stop", {"replay_id": replay["replay_id"]}))
        gone = await client.call_tool("replay_stop", {"replay_id": replay["replay_id"]})
        left = data(await client.call_tool("replay_start", {"history_ids": [sent["history_id"]]}))
    # The server stopped the replay it left running when its client went away.
    with pytest.raises(httpx.ConnectError):
        httpx.get(left["card_url"], timeout=5)
    assert replay["base_url"].startswith("http://127.0.0.1:") and replay["exchanges"] == 1
    assert again["ok"] and again["result"] == sent["result"]
    assert not unmatched["ok"]
    assert stopped["served"] == 1 and stopped["unmatched"] == 1
    assert gone.is_error and "no replay" in text(gone)
