"""``send --task-id`` / ``--context-id``: a task seen earlier, asked about by id."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.test_send import send


@pytest.mark.peer
def test_a_task_is_continued_then_got_by_its_ids(sdk_peer: dict[str, Any]) -> None:
    url = sdk_peer["jsonrpc_url"]
    code, lines = send(url, "--method", "SendMessage", "--text", "ask")
    assert code == 0, lines
    task = lines[1]["body"]["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"

    code, lines = send(
        url, "--method", "SendMessage", "--text", "Ada",
        "--task-id", task["id"], "--context-id", task["contextId"],
    )  # fmt: skip
    assert code == 0, lines
    message = lines[0]["body"]["params"]["message"]
    assert message["taskId"] == task["id"] and message["contextId"] == task["contextId"]
    assert lines[1]["body"]["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"

    code, lines = send(url, "--method", "GetTask", "--task-id", task["id"])
    assert code == 0, lines
    assert lines[0]["body"]["params"]["id"] == task["id"]
    assert lines[1]["body"]["result"]["id"] == task["id"]

    code, lines = send(
        url, "--method", "ListTasks", "--context-id", task["contextId"], "--binding", "JSONRPC"
    )
    assert code == 0, lines
    assert lines[0]["body"]["params"]["contextId"] == task["contextId"]
    assert [t["id"] for t in lines[1]["body"]["result"]["tasks"]] == [task["id"]]


def test_ids_with_a_body_are_a_usage_error() -> None:
    code, lines = send(
        "http://127.0.0.1:9/", "--method", "GetTask", "--body", "-", "--task-id", "t",
        stdin="{}",
    )  # fmt: skip
    assert code == 3
    assert "--task-id and --context-id fill --text templates" in lines[0]["message"]
