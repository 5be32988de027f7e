"""``send``, ``check`` and ``run`` over iac-code's custom carriers as bindings: WebSocket, Unix
socket, stdio (the app starts the agent from ``--command`` and stops it at the end) and Redis
Streams (docs/PROTOCOL.md §12, docs/PEERS.md §3.3).

A turn of its agent, the task fetched and listed, a stream from the Task to input-required, a
working task cancelled, the extended card, and ``check`` reaching the interface its card
lists. The carriers ignore the token their card declares (Q26): no call carries one.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.iac.iac_cli import Cli, cli
from tests.peers.iac_llm_stub import REPLY_PREFIX
from tests.peers.iac_servers import dump_json

pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]  # a first run builds .venv-iac

CARRIERS = ["websocket", "unix", "redis-streams", "stdio"]


def info_of(carrier: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    return dict(request.getfixturevalue("iac_" + carrier.replace("-", "_")))


def endpoint(carrier: str, request: pytest.FixtureRequest) -> list[str]:
    """The URL, binding and (stdio) command line arguments of ``send`` for ``carrier``."""
    info = info_of(carrier, request)
    args = [info["url"], "--binding", carrier, "--no-history"]
    if carrier == "stdio":
        args += ["--command", info["command_line"]]
    return args


def send(carrier: str, request: pytest.FixtureRequest, method: str, *args: str) -> Cli:
    return cli("send", *endpoint(carrier, request), "--method", method, *args)


def result(run: Cli) -> Any:
    assert run.code == 0, run.output
    return run.body()["result"]


@pytest.mark.parametrize("carrier", CARRIERS)
def test_a_turn_is_sent_fetched_and_listed(carrier: str, request: pytest.FixtureRequest) -> None:
    text = f"hello over {carrier} {uuid.uuid4()}"
    sent = send(carrier, request, "SendMessage", "--text", text)
    (sent_record,) = sent.events("request")
    verbs = {"websocket": "WebSocket", "unix": "unix", "redis-streams": "XADD", "stdio": "stdio"}
    assert sent_record["method"] == verbs[carrier]
    task = result(sent)["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert REPLY_PREFIX + text in json.dumps(task)
    fetched = result(send(carrier, request, "GetTask", "--task-id", task["id"]))
    assert fetched["id"] == task["id"]
    listed = result(send(carrier, request, "ListTasks", "--context-id", task["contextId"]))
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]


@pytest.mark.parametrize("carrier", CARRIERS)
def test_a_stream_runs_from_the_task_to_input_required(
    carrier: str, request: pytest.FixtureRequest
) -> None:
    text = f"stream over {carrier}"
    run = send(carrier, request, "SendStreamingMessage", "--text", text)
    assert run.code == 0, run.output
    (response,) = run.events("response")
    assert response["stream"] is True
    items = run.events("item")
    assert items[0]["kind"] == "task" and items[0]["state"] == "submitted"
    assert {item["kind"] for item in items[1:]} == {"status-update"}
    assert items[-1]["state"] == "input-required"
    assert any(REPLY_PREFIX + text in item["summary"] for item in items)
    # The carrier's closing frame is framing, not an item.
    assert all("result" in item["data"] for item in items)
    assert not run.events("error") and run.events("end")[0]["outcome"] == "ok"


@pytest.mark.parametrize("carrier", CARRIERS)
def test_a_working_task_is_cancelled_and_the_extended_card_read(
    carrier: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "slow 20"}]}
    body = dump_json(
        tmp_path / "send.json", {"message": message, "configuration": {"returnImmediately": True}}
    )
    args = ["--body", str(body)]
    if carrier == "stdio":
        # One command line, one agent: the cancel must reach the process that runs the task.
        run_file = _stdio_spec(tmp_path, info_of(carrier, request), body)
        run = cli("run", str(run_file), "--no-history")
        assert run.code == 0, run.output
        cancelled = [r for r in run.events("response") if r["body"]["result"].get("status")]
        assert cancelled[-1]["body"]["result"]["status"]["state"] == "TASK_STATE_CANCELED"
        return
    task = result(send(carrier, request, "SendMessage", *args))["task"]
    assert task["status"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    cancelled = result(send(carrier, request, "CancelTask", "--task-id", task["id"]))
    assert cancelled["status"]["state"] == "TASK_STATE_CANCELED"
    card = result(send(carrier, request, "GetExtendedAgentCard"))
    assert "iac_code_runtime_details" in [skill["id"] for skill in card["skills"]]
    assert card["supportedInterfaces"][0]["protocolBinding"] == carrier


def _stdio_spec(tmp_path: Path, info: dict[str, Any], body: Path) -> Path:
    """A spec of three saved stdio requests (send, cancel with the captured task id, the
    extended card), for ``run``: every request goes to the one agent the run starts."""
    params = json.loads(body.read_text())

    def operation(op_id: str, method: str, example: dict[str, Any], **more: Any) -> Any:
        x_a2a = {"version": "1.0", "binding": "stdio", "endpoint": info["url"],
                 "command": info["command_line"], "method": method, "timeout": 60,
                 "example": {"jsonrpc": "2.0", "id": op_id, "method": method,
                             "params": example}, **more}  # fmt: skip
        return {"post": {"operationId": op_id, "x-protocol": "a2a", "x-a2a": x_a2a,
                         "responses": {"200": {"description": "ok"}}}}  # fmt: skip

    paths = {
        "/send": operation("send", "SendMessage", params, captures={"taskId": "$.result.task.id"}),
        "/cancel": operation("cancel", "CancelTask", {"id": "{{taskId}}"}),
        "/card": operation("card", "GetExtendedAgentCard", {}),
    }
    doc = {"openapi": "3.2.0", "info": {"title": "stdio", "version": "1"}, "paths": paths}
    path = tmp_path / "stdio.a2a.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("carrier", CARRIERS)
def test_check_reaches_a_custom_carrier_from_its_card(
    carrier: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # Redis: a server of its own, as the parse-error check stops it serving (Q32).
    info = info_of("redis-streams-spare" if carrier == "redis-streams" else carrier, request)
    extra = ["--command", info["command_line"]] if carrier == "stdio" else []
    if carrier == "redis-streams":
        extra = ["--budget", "40"]  # the calls after the parse error only wait
    card = info.get("card") or result(send(carrier, request, "GetExtendedAgentCard"))
    run = cli("check", str(dump_json(tmp_path / "card.json", card)), "--no-history", *extra)
    found = {f["id"]: f for f in run.events("finding")}
    assert found["card.interface-answers"]["status"] == "pass", run.output
    for passing in ("core.send-message", "core.get-task", "core.cancel-task", "core.list-tasks",
                    "errors.task-not-found", "errors.invalid-params"):  # fmt: skip
        assert found[passing]["status"] == "pass", (passing, run.output)
    if carrier == "redis-streams":
        parse_error = found["errors.parse-error"]
        assert parse_error["status"] == "fail" and "DEADLINE_EXCEEDED" in parse_error["detail"]
        return  # every later call waits for a server that no longer serves
    assert found["streaming.lifecycle"]["status"] == "pass", run.output
    # Server-side findings: the token the card declares is not asked for (Q26).
    unauthenticated = found["security.unauthenticated"]
    assert unauthenticated["status"] == "fail"
    assert "the card requires bearerAuth" in unauthenticated["detail"]
    if carrier != "websocket":  # no headers: the version header cannot be sent
        assert found["card.version-unsupported"]["status"] == "n/a"
