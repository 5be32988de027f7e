"""No secret reaches the model: every tool, resource and prompt is called with credentials
given by reference (an environment variable, a saved request whose secret is stored), and
nothing the client receives — results, errors, progress messages — nor the History file
holds the secret."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.paths import history_path
from tests.mcp.harness import data, everything, stdio
from tests.mcp.saved_specs import SEND, saved_collection

pytestmark = pytest.mark.peer


async def test_no_tool_result_holds_a_secret_used(
    sdk_peer_token: dict[str, Any], tmp_path: Path
) -> None:
    peer, secret = sdk_peer_token, sdk_peer_token["token"]
    spec = saved_collection(tmp_path, secret)
    env_auth = {"env": "A2A_TEST_TOKEN"}
    saved_auth = {"collection": str(spec), "operation": SEND}
    seen: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async with stdio(env={"A2A_TEST_TOKEN": secret, "A2A_WB_BASEURL": peer["base_url"]}) as c:

        async def call(name: str, args: dict[str, Any]) -> Any:
            result = await c.call_tool(name, args, progress_callback=on_progress)
            seen.append(everything(result))
            return data(result)

        card = await call("fetch_card", {"url": peer["base_url"]})
        await call("validate_card", {"card": card["card"]})
        await call("verify_card_signature", {"card": card["card"], "jwks_path": peer["jwks_path"]})
        sent = await call("send", {"url": peer["jsonrpc_url"], "auth": env_auth, "text": "12 30"})
        assert sent["ok"]
        # The agent echoes what it gets: were the secret in the text, it comes back masked.
        echo = await call(
            "send", {"url": peer["jsonrpc_url"], "auth": saved_auth, "text": f"say {secret}"}
        )
        assert echo["ok"] and "****" in echo["result"]["message"]["parts"][0]["text"]
        stream = await call(
            "send",
            {
                "url": peer["rest_url"],
                "binding": "HTTP+JSON",
                "method": "SendStreamingMessage",
                "text": "stream 2 10",
                "auth": env_auth,
            },
        )
        task = stream["stream"]["task_id"]
        await call("get_task", {"url": peer["jsonrpc_url"], "task_id": task, "auth": saved_auth})
        await call("cancel_task", {"url": peer["jsonrpc_url"], "task_id": task, "auth": env_auth})
        check = await call(
            "check_agent",
            {"card_url": peer["base_url"], "interface": 0, "only": ["core"], "auth": env_auth},
        )
        assert check["summary"]["fail"] == 0, check["findings"]
        await call("list_collections", {})
        await call("list_saved_requests", {"collection": str(spec)})
        run = await call("run_collection", {"collection": str(spec), "operations": [SEND]})
        assert run["outcome"] == "ok", run
        entries = await call("history_search", {"limit": 200})
        for entry in entries:
            await call("history_show", {"entry_id": entry["id"]})
        await call(
            "explain_versions",
            {"body": sent["request"]["body"], "method": "SendMessage", "version": "1.0"},
        )
        replay = await call("replay_start", {"history_ids": [sent["history_id"]], "speed": 0})
        await call("send", {"url": replay["base_url"] + "/", "text": "12 30"})
        await call("replay_stop", {"replay_id": replay["replay_id"]})
        for resource in (await c.list_resources()).resources:
            seen.append((await c.read_resource(str(resource.uri))).model_dump_json())
        seen.append(
            (await c.get_prompt("debug_agent", {"url": peer["base_url"]})).model_dump_json()
        )

    everything_seen = "\n".join(seen)
    assert secret not in everything_seen
    assert len(entries) >= 10  # the sends, the check's calls and the run were all recorded
    stored = b"".join(p.read_bytes() for p in history_path().parent.glob("history.sqlite3*"))
    assert secret.encode() not in stored
