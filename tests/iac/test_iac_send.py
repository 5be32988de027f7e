"""``send`` against the real iac-code server over JSON-RPC, HTTP+JSON and gRPC: a turn of its
agent (the LLM stub behind it), the task fetched and listed, a stream, a working task
cancelled, the extended card, and a 0.3 send.

iac-code ends every agent turn in ``input-required`` (the conversation goes on), not
``completed``. Its gRPC server ignores the token (docs/PEERS.md Q26), so the gRPC calls carry
none.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.iac.iac_cli import Cli, cli
from tests.peers.iac_llm_stub import API_KEY, MODEL, REPLY_PREFIX, LlmStub, user_text

pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]  # a first run builds .venv-iac

BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"]


def endpoint(binding: str, request: pytest.FixtureRequest) -> list[str]:
    """The URL, binding and credentials arguments of ``send`` for ``binding``."""
    if binding == "GRPC":
        info = request.getfixturevalue("iac_grpc")
        return [info["grpc_target"], "--binding", "GRPC", "--no-history"]
    info = request.getfixturevalue("iac_http")
    url = info["jsonrpc_url"] if binding == "JSONRPC" else info["rest_url"]
    return [url, "--binding", binding, "--bearer", info["token"], "--no-history"]


def send(binding: str, request: pytest.FixtureRequest, method: str, *args: str) -> Cli:
    return cli("send", *endpoint(binding, request), "--method", method, *args)


def result(binding: str, run: Cli) -> Any:
    """The method's result: JSON-RPC wraps it in ``result``, HTTP+JSON and gRPC do not."""
    assert run.code == 0, run.output
    body = run.body()
    return body["result"] if binding == "JSONRPC" else body


def agent_texts(task: dict[str, Any]) -> list[str]:
    return [
        part.get("text", "")
        for message in task.get("history", [])
        if message.get("role") == "ROLE_AGENT"
        for part in message.get("parts", [])
    ]


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_turn_is_sent_fetched_and_listed_and_not_cancelled(
    binding: str, request: pytest.FixtureRequest, iac_llm: LlmStub
) -> None:
    text = f"hello over {binding} {uuid.uuid4()}"
    task = result(binding, send(binding, request, "SendMessage", "--text", text))["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert REPLY_PREFIX + text in agent_texts(task)
    (call,) = [c for c in iac_llm.calls if user_text(c.body) == text]
    assert call.body["model"] == MODEL and call.authorization == f"Bearer {API_KEY}"

    task_id, context_id = task["id"], task["contextId"]
    fetched = result(binding, send(binding, request, "GetTask", "--task-id", task_id))
    assert fetched["id"] == task_id and fetched["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    listed = result(binding, send(binding, request, "ListTasks", "--context-id", context_id))
    assert [t["id"] for t in listed["tasks"]] == [task_id]
    # A finished turn waits for the next message; iac-code refuses to cancel it (Q27).
    refused = send(binding, request, "CancelTask", "--task-id", task_id)
    assert refused.code == 1, refused.output
    (error,) = refused.events("error")
    assert error["details"] == ["ErrorInfo: reason=TASK_NOT_CANCELABLE domain=a2a-protocol.org"]


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_stream_runs_from_the_task_to_input_required(
    binding: str, request: pytest.FixtureRequest
) -> None:
    text = f"stream over {binding}"
    run = send(binding, request, "SendStreamingMessage", "--text", text)
    assert run.code == 0, run.output
    items = run.events("item")
    assert items[0]["kind"] == "task" and items[0]["state"] == "submitted"
    assert {item["kind"] for item in items[1:]} == {"status-update"}
    assert items[-1]["state"] == "input-required"
    assert any(REPLY_PREFIX + text in item["summary"] for item in items)
    assert not run.events("error") and run.events("end")[0]["outcome"] == "ok"


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_working_task_is_cancelled(
    binding: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # "slow 20" holds the stub's answer back; returnImmediately hands the working task back.
    parts = [{"text": "slow 20"}]
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": parts}
    body = tmp_path / "send.json"
    body.write_text(json.dumps({"message": message, "configuration": {"returnImmediately": True}}))
    task = result(binding, send(binding, request, "SendMessage", "--body", str(body)))["task"]
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    cancelled = result(binding, send(binding, request, "CancelTask", "--task-id", task["id"]))
    assert cancelled["status"]["state"] == "TASK_STATE_CANCELED"


@pytest.mark.parametrize("binding", BINDINGS)
def test_the_extended_card_has_the_runtime_skill(
    binding: str, request: pytest.FixtureRequest
) -> None:
    card = result(binding, send(binding, request, "GetExtendedAgentCard"))
    assert "iac_code_runtime_details" in [skill["id"] for skill in card["skills"]]
    # Declared on every carrier; only the HTTP server asks for it (Q26). (Without the token
    # the HTTP server refuses the extended card: check's extended-card.without-credentials.)
    assert list(card["securitySchemes"]) == ["bearerAuth"]
    first = card["supportedInterfaces"][0]
    if binding == "GRPC":  # a bare lower-case word and a grpc:// URL (docs/PEERS.md Q25)
        assert first["protocolBinding"] == "grpc" and first["url"].startswith("grpc://")
    else:
        assert first["protocolBinding"] == "JSONRPC"


def test_a_0_3_send_over_json_rpc_is_answered(iac_http: dict[str, Any]) -> None:
    run = cli("send", iac_http["jsonrpc_url"], "--method", "message/send", "--version", "0.3",
              "--text", "hello 0.3", "--bearer", iac_http["token"], "--no-history")  # fmt: skip
    assert run.code == 0, run.output
    task = run.body()["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "input-required"
