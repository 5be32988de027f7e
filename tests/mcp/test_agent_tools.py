"""Every tool against the real peers of the suite (the a2a-sdk demo agent and the
@a2a-js/sdk peer), through the ``mcp`` SDK's client over stdio: cards, sends and streams
with progress, tasks, checks, the history and its resources, the version explainer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.harness import data, stdio, text

pytestmark = pytest.mark.peer

TOKEN_ENV = {"A2A_TEST_TOKEN": "secret-token"}  # the token sdk_peer_token requires
AUTH = {"env": "A2A_TEST_TOKEN"}


@pytest.mark.parametrize("peer", ["sdk_peer", "js_peer_signed"])
async def test_card_tools(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    async with stdio() as client:
        card = data(await client.call_tool("fetch_card", {"url": info["base_url"]}))
        assert card["outcome"] == "valid" and card["status"] == 200
        assert {i["binding"] for i in card["interfaces"]} >= {"JSONRPC", "HTTP+JSON", "GRPC"}
        assert card["picked"]["1.0"] is not None and card["card"]["name"]

        inline = data(await client.call_tool("validate_card", {"card": card["card"]}))
        assert inline["outcome"] == "valid" and inline["source"] == "inline card"
        broken = dict(card["card"], supportedInterfaces="nope")
        found = data(await client.call_tool("validate_card", {"card": broken}))
        assert found["outcome"] in ("problems", "not_a_card")
        assert any(p["path"].startswith("supportedInterfaces") for p in found["problems"])

        signed = data(
            await client.call_tool(
                "verify_card_signature", {"card": card["card"], "jwks_path": info["jwks_path"]}
            )
        )
        assert signed["status"] == "valid", signed
        assert signed["signatures"][0]["verdict"].startswith("valid")
        keys = json.loads(Path(info["jwks_path"]).read_text())
        other = dict(card["card"], name="someone else")  # the signed payload changed
        tampered = data(
            await client.call_tool("verify_card_signature", {"card": other, "jwks": keys})
        )
        assert tampered["status"] == "invalid"


async def test_send_stream_get_cancel_and_history(sdk_peer_token: dict[str, Any]) -> None:
    peer = sdk_peer_token
    progress: list[tuple[float, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, message))

    async with stdio(env=TOKEN_ENV) as client:
        sent = data(
            await client.call_tool(
                "send", {"url": peer["jsonrpc_url"], "text": "12 30", "auth": AUTH}
            )
        )
        assert sent["ok"] and sent["outcome"] == "ok" and sent["http_status"] == 200
        assert sent["target"] == f"JSONRPC 1.0 {peer['jsonrpc_url']} (SendMessage)"
        assert sent["result"]["message"]["parts"][0]["text"] == "Sum: 42"
        assert sent["request"]["headers"]["Authorization"] == "Bearer ****"
        assert "credential: bearer from $A2A_TEST_TOKEN" in sent["notes"]

        streamed = data(
            await client.call_tool(
                "send",
                {
                    "url": peer["rest_url"],
                    "binding": "HTTP+JSON",
                    "method": "SendStreamingMessage",
                    "text": "stream 3 50",
                    "auth": AUTH,
                },
                progress_callback=on_progress,
            )
        )
        stream = streamed["stream"]
        assert streamed["ok"] and stream["items_total"] == len(stream["items"]) >= 5
        assert stream["ending"] == "closed by server, task in a terminal state"
        assert stream["state"] and stream["task_id"]
        assert progress and progress[0][0] >= 1 and progress[0][1]  # items reported as they came

        got = data(
            await client.call_tool(
                "get_task",
                {
                    "url": peer["grpc_target"],
                    "binding": "GRPC",
                    "task_id": stream["task_id"],
                    "auth": AUTH,
                },
            )
        )
        assert got["ok"] and got["result"]["id"] == stream["task_id"]
        assert got["result"]["status"]["state"] == "TASK_STATE_COMPLETED"

        cancelled = data(
            await client.call_tool(
                "cancel_task",
                {"url": peer["jsonrpc_url"], "task_id": stream["task_id"], "auth": AUTH},
            )
        )
        # A finished task cannot be cancelled: an A2A error, in words, not a tool error.
        assert cancelled["outcome"] == "rpc_error"
        assert cancelled["errors"][0]["name"] == "TaskNotCancelableError"

        found = data(await client.call_tool("history_search", {"method": "GetTask"}))
        assert found[0]["id"] == got["history_id"] and found[0]["source"] == "mcp"
        shown = data(await client.call_tool("history_show", {"entry_id": streamed["history_id"]}))
        assert shown["entry"]["items"] == stream["items_total"]
        assert shown["exchange"]["stream"]["items_total"] == stream["items_total"]

        entry = await client.read_resource(f"a2a-wb://history/{sent['history_id']}")
        assert '"Sum: 42"' in entry.contents[0].text  # type: ignore[union-attr]


async def test_the_js_peer_answers_on_every_binding(js_peer: dict[str, Any]) -> None:
    targets = [
        ("JSONRPC", js_peer["jsonrpc_url"]),
        ("HTTP+JSON", js_peer["rest_url"]),
        ("GRPC", js_peer["grpc_target"]),
    ]
    async with stdio() as client:
        for binding, url in targets:
            for version in ("1.0", "0.3"):
                if version == "0.3" and binding == "GRPC":
                    continue  # the JS peer's gRPC service is 1.0 only (docs/PEERS.md)
                sent = data(
                    await client.call_tool(
                        "send",
                        {"url": url, "binding": binding, "version": version, "text": "12 30"},
                    )
                )
                assert sent["ok"], (binding, version, sent["errors"])
        streamed = data(
            await client.call_tool(
                "send",
                {
                    "url": js_peer["jsonrpc_url"],
                    "method": "SendStreamingMessage",
                    "text": "stream 2 10",
                },
            )
        )
        assert streamed["ok"] and streamed["stream"]["items_total"] >= 3
        task = streamed["stream"]["task_id"]
        got = data(
            await client.call_tool(
                "get_task", {"url": js_peer["rest_url"], "binding": "HTTP+JSON", "task_id": task}
            )
        )
        cancelled = data(
            await client.call_tool(
                "cancel_task", {"url": js_peer["grpc_target"], "binding": "GRPC", "task_id": task}
            )
        )
        check = data(
            await client.call_tool(
                "check_agent", {"card_url": js_peer["base_url"], "interface": 0, "only": ["core"]}
            )
        )
    assert got["ok"] and got["result"]["id"] == task
    assert cancelled["outcome"] == "rpc_error" and cancelled["errors"][0]["message"]
    assert check["reason"] == "completed" and check["summary"]["fail"] == 0, check["findings"]


async def test_check_agent_reports_findings_with_sections_and_tck(
    sdk_peer: dict[str, Any],
) -> None:
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with stdio() as client:
        report = data(
            await client.call_tool(
                "check_agent",
                {
                    "card_url": sdk_peer["base_url"],
                    "only": ["card", "core"],
                    "interface": 0,
                    "include": "all",
                },
                progress_callback=on_progress,
            )
        )
        last = await client.read_resource("a2a-wb://check/last")
    assert report["reason"] == "completed" and report["summary"]["fail"] == 0, report
    assert report["left_out"] == 0
    assert report["agent"] == "A2A Workbench demo agent"
    assert progress, "no progress while checking"
    by_id = {f["id"]: f for f in report["findings"]}
    assert by_id["card.valid"]["section"] and by_id["card.valid"]["tck"]
    sent = [f for f in report["findings"] if f["exchanges"]]
    assert sent, "no finding names its History entries"
    assert json.loads(last.contents[0].text)["findings"] == report["findings"]  # type: ignore[union-attr]


async def test_check_agent_lists_only_the_problems_unless_asked_for_all(
    js_peer: dict[str, Any],
) -> None:
    """A full report of a healthy agent was ~95 KB of passes and n/a: by default only
    failures and warnings are listed, the summary still counts every result."""
    async with stdio() as client:
        report = data(
            await client.call_tool(
                "check_agent", {"card_url": js_peer["base_url"], "interface": 0, "only": ["errors"]}
            )
        )
        last = json.loads(
            (await client.read_resource("a2a-wb://check/last")).contents[0].text  # type: ignore[union-attr]
        )
        tools = {t.name: t for t in (await client.list_tools()).tools}
    statuses = {f["status"] for f in report["findings"]}
    assert statuses <= {"fail", "warn"}, statuses
    counted = sum(report["summary"].values())
    assert report["left_out"] == counted - len(report["findings"]) > 0
    assert report["summary"]["pass"] > 0  # the passes are counted, not listed
    assert len(last["findings"]) == counted  # the resource keeps every result
    schema = tools["check_agent"].input_schema["properties"]["include"]
    assert schema["default"] == "problems" and set(schema["enum"]) == {"problems", "all"}


async def test_explain_versions_and_the_prompts() -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m1",
                "role": "user",
                "parts": [{"kind": "text", "text": "hi"}],
            }
        },
    }
    async with stdio() as client:
        explained = data(
            await client.call_tool(
                "explain_versions", {"body": body, "method": "message/send", "version": "0.3"}
            )
        )
        bad = await client.call_tool(
            "explain_versions", {"body": "{not json", "method": "message/send", "version": "0.3"}
        )
        debug = await client.get_prompt("debug_agent", {"url": "http://127.0.0.1:9"})
        why = await client.get_prompt("why_did_this_request_fail", {"history_id": "7"})
    assert explained["v10"]["method"] == "SendMessage"
    aspects = {d["aspect"] for d in explained["differences"]}
    assert {"method", "role"} <= aspects and all(d["section"] for d in explained["differences"])
    assert bad.is_error and "Traceback" not in text(bad)
    steps = debug.messages[0].content.text  # type: ignore[union-attr]
    assert "fetch_card" in steps and "check_agent" in steps and "send" in steps
    assert "history_show entry_id=7" in why.messages[0].content.text  # type: ignore[union-attr]
