"""Classification of stream items in every wire shape (docs/PEERS.md Q7)."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol.events import NOT_JSON, StreamItem
from app.protocol.stream.stream_items import (
    ItemKind,
    TaskState,
    classify_item,
    classify_json,
    normalize_state,
)


@pytest.mark.parametrize(
    ("raw", "state"),
    [
        ("TASK_STATE_INPUT_REQUIRED", TaskState.INPUT_REQUIRED),
        ("input-required", TaskState.INPUT_REQUIRED),
        ("completed", TaskState.COMPLETED),
        ("TASK_STATE_CANCELLED", TaskState.CANCELED),
        ("TASK_STATE_CANCELED", TaskState.CANCELED),
        ("canceled", TaskState.CANCELED),
        (5, TaskState.CANCELED),
        ("TASK_STATE_UNSPECIFIED", TaskState.UNSPECIFIED),
        ("bogus", None),
        (True, None),
    ],
)
def test_states_are_normalised(raw: Any, state: TaskState | None) -> None:
    assert normalize_state(raw) is state


def test_state_classes() -> None:
    assert TaskState.CANCELED.terminal and TaskState.REJECTED.terminal
    assert TaskState.AUTH_REQUIRED.interrupted and not TaskState.AUTH_REQUIRED.terminal
    assert TaskState.WORKING.active


V1_STATUS = {
    "statusUpdate": {
        "taskId": "t",
        "contextId": "c",
        "status": {"state": "TASK_STATE_WORKING", "message": {"parts": [{"text": "step 1"}]}},
    }
}
V03_STATUS = {
    "kind": "status-update",
    "taskId": "t",
    "contextId": "c",
    "final": True,
    "status": {"state": "completed"},
}


@pytest.mark.parametrize(
    ("value", "kind", "state", "summary"),
    [
        ({"jsonrpc": "2.0", "id": 1, "result": V1_STATUS}, ItemKind.STATUS_UPDATE,
         TaskState.WORKING, "working · step 1"),
        (V1_STATUS, ItemKind.STATUS_UPDATE, TaskState.WORKING, "working · step 1"),
        ({"jsonrpc": "2.0", "id": 1, "result": V03_STATUS}, ItemKind.STATUS_UPDATE,
         TaskState.COMPLETED, "completed · final"),
        ({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}}},
         ItemKind.TASK, TaskState.SUBMITTED, "task submitted"),
        ({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "canceled"}},
         ItemKind.TASK, TaskState.CANCELED, "task canceled"),
        ({"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_CANCELLED"}},
         ItemKind.TASK, TaskState.CANCELED, "task canceled"),
        ({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "Sum: 42"}]}},
         ItemKind.MESSAGE, None, "agent: Sum: 42"),
        ({"message": {"messageId": "m", "role": "ROLE_AGENT", "content": [{"text": "hi"}]}},
         ItemKind.MESSAGE, None, "agent: hi"),
        ({"kind": "message", "messageId": "m", "role": "agent",
          "parts": [{"kind": "text", "text": "yo"}]}, ItemKind.MESSAGE, None, "agent: yo"),
        ({"artifactUpdate": {"taskId": "t", "contextId": "c", "append": True,
                             "artifact": {"artifactId": "a", "name": "result",
                                          "parts": [{"text": "done"}]}}},
         ItemKind.ARTIFACT_UPDATE, None, "artifact result (append) · done"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "nope"}},
         ItemKind.ERROR, None, "error -32001: nope"),
        ({"error": {"code": 404, "status": "NOT_FOUND", "message": "nope"}},
         ItemKind.ERROR, None, "error 404 NOT_FOUND: nope"),
    ],
)  # fmt: skip
def test_shapes(value: Any, kind: ItemKind, state: TaskState | None, summary: str) -> None:
    info = classify_json(value)
    assert (info.kind, info.state, info.summary) == (kind, state, summary)
    if kind not in (ItemKind.ERROR, ItemKind.MESSAGE):
        assert (info.task_id, info.context_id) == ("t", "c")


def test_final_flag_and_artifact_fields() -> None:
    assert classify_json(V03_STATUS).final is True
    assert classify_json(V1_STATUS).final is None
    info = classify_json(
        {"kind": "artifact-update", "taskId": "t", "artifact": {"artifactId": "a"},
         "append": True, "lastChunk": True}
    )  # fmt: skip
    assert (info.artifact_id, info.append, info.last_chunk) == ("a", True, True)


def test_items_comment_invalid_json_and_error_event() -> None:
    comment = StreamItem(0, 1, b": ping\r\n\r\n")
    assert classify_item(comment).kind is ItemKind.COMMENT
    assert classify_item(comment).summary == ": ping"
    bad = StreamItem(0, 2, b"data: {x\n\n", NOT_JSON, "line 1, column 2: Expecting")
    assert classify_item(bad).kind is ItemKind.ERROR
    assert "invalid JSON" in classify_item(bad).summary
    event_error = StreamItem(0, 3, b"", {"task": {"id": "t", "status": {}}}, sse_event="error")
    assert classify_item(event_error).kind is ItemKind.ERROR


def test_long_summaries_are_one_line_and_cut() -> None:
    text = "line\n" * 100
    info = classify_json({"message": {"role": "ROLE_AGENT", "parts": [{"text": text}]}})
    assert "\n" not in info.summary and len(info.summary) <= 160


def test_a_task_message_or_artifact_update_is_not_kept_alive_by_its_classification() -> None:
    """Their summaries are written at once: a lazy one would keep the whole object (a
    25 MiB result whose value the big body views let go of); only a status update's waits."""
    import gc

    big = [{"artifactId": "a", "parts": [{"text": "x" * 1000}]}]
    task = {"id": "t", "contextId": "c", "status": {"state": "working"}, "artifacts": big}
    message = {"messageId": "m", "role": "agent", "parts": [{"text": "hi"}]}
    update = {"taskId": "t", "artifact": big[0]}
    for value in (task, message, update):
        info = classify_json(value)
        held = gc.get_referents(info)
        held += [inner for item in held if isinstance(item, tuple) for inner in item]
        assert not any(item is value for item in held), value
    status = {"taskId": "t", "contextId": "c", "status": {"state": "working"}}
    assert classify_json({"statusUpdate": status}).summary == "working"
