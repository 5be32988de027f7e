"""The resubscribe gap detector: the items seen against a GetTask snapshot, 1.0 and 0.3
shapes, and on the real a2a-sdk peer with a stream dropped mid-way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ResponseBody, StreamItem
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import A2ARequest, render_body
from app.protocol.stream.gaps import Gaps, find_gaps, missed_updates
from app.protocol.stream.stream_items import TaskState, classify_json
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
T = "task-1"


def _msg1(mid: str, text: str, role: str = "ROLE_AGENT") -> dict[str, Any]:
    return {"messageId": mid, "role": role, "parts": [{"text": text}]}


def _status1(state: str, stamp: str, msg: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state, "timestamp": stamp}
    if msg:
        status["message"] = msg
    return status


def _v1_seen() -> list[Any]:
    first = {
        "task": {
            "id": T,
            "status": _status1("TASK_STATE_SUBMITTED", "t0"),
            "history": [_msg1("u1", "hi", "ROLE_USER")],
        }
    }
    working = {
        "statusUpdate": {
            "taskId": T,
            "status": _status1("TASK_STATE_WORKING", "t1", _msg1("m1", "step 1")),
        }
    }
    # JSON-RPC envelopes as a stream carries them.
    return [
        {"jsonrpc": "2.0", "id": 1, "result": first},
        {"jsonrpc": "2.0", "id": 1, "result": working},
    ]


def _v1_snapshot(**extra: Any) -> dict[str, Any]:
    task = {
        "id": T,
        "status": _status1("TASK_STATE_INPUT_REQUIRED", "t3", _msg1("m3", "Your name?")),
        "artifacts": [{"artifactId": "a1", "name": "report", "parts": [{"text": "x"}]}],
        "history": [_msg1("u1", "hi", "ROLE_USER"), _msg1("m1", "step 1"), _msg1("m2", "step 2")],
        **extra,
    }
    return {"jsonrpc": "2.0", "id": 2, "result": task}


def test_v1_lists_artifact_transition_and_history() -> None:
    (finding,) = missed_updates(_v1_seen(), _v1_snapshot(), V1)
    assert finding.rule == "missed-updates" and finding.spec == "A2A 1.0 §3.1.6"
    assert finding.message == (
        "missed: artifact `report`, working → input-required, 1 history entry (“step 2”)"
    )


def test_nothing_missed_when_everything_was_seen() -> None:
    seen = _v1_seen()
    seen += [
        {
            "statusUpdate": {
                "taskId": T,
                "status": _status1("TASK_STATE_WORKING", "t2", _msg1("m2", "step 2")),
            }
        },
        {
            "artifactUpdate": {
                "taskId": T,
                "artifact": {"artifactId": "a1", "parts": [{"text": "x"}]},
            }
        },
        {
            "statusUpdate": {
                "taskId": T,
                "status": _status1("TASK_STATE_INPUT_REQUIRED", "t3", _msg1("m3", "Your name?")),
            }
        },
    ]
    assert missed_updates(seen, _v1_snapshot(), V1) == []
    # A Task snapshot seen (the first event of a resubscription) covers everything it holds.
    assert missed_updates([_v1_snapshot()], _v1_snapshot(), V1) == []


def test_artifact_chunks_and_a_later_status_of_the_same_state() -> None:
    seen = [
        {"task": {"id": T, "status": _status1("TASK_STATE_WORKING", "t1")}},
        {
            "artifactUpdate": {
                "taskId": T,
                "artifact": {"artifactId": "a1", "parts": [{"text": "1"}]},
            }
        },
        {
            "artifactUpdate": {
                "taskId": T,
                "append": True,
                "artifact": {"artifactId": "a1", "parts": [{"text": "2"}]},
            }
        },
    ]
    parts = [{"text": "1"}, {"text": "2"}, {"text": "3"}]
    snapshot = {
        "id": T,
        "status": _status1("TASK_STATE_WORKING", "t9"),
        "artifacts": [{"artifactId": "a1", "name": "log", "parts": parts}],
    }
    gaps = find_gaps(seen, snapshot)
    assert gaps.artifacts == [("log", 2, 3)]
    assert gaps.transition == (TaskState.WORKING, TaskState.WORKING)
    assert gaps.describe() == "missed: artifact `log` (2 of 3 parts), a later working status"


def test_v03_jsonrpc_kind_objects() -> None:
    seen = [
        {"kind": "task", "id": T, "status": {"state": "submitted"}},
        {
            "kind": "status-update",
            "taskId": T,
            "final": False,
            "status": {
                "state": "working",
                "message": {"kind": "message", "messageId": "m1", "role": "agent", "parts": []},
            },
        },
    ]
    snapshot = {
        "kind": "task",
        "id": T,
        "status": {"state": "completed"},
        "artifacts": [{"artifactId": "a9", "parts": [{"kind": "text", "text": "done"}]}],
        "history": [
            {
                "kind": "message",
                "messageId": "m2",
                "role": "agent",
                "parts": [{"kind": "text", "text": "almost"}],
            }
        ],
    }
    (finding,) = missed_updates(seen, snapshot, V03)
    assert (
        finding.message == "missed: artifact `a9`, working → completed, 1 history entry (“almost”)"
    )
    assert finding.spec == "A2A 0.3 §7.9"


def test_v03_proto_shapes_msg_wrapper_and_content() -> None:
    seen = [
        {"task": {"id": T, "status": {"state": "TASK_STATE_WORKING"}}},
        {"msg": {"messageId": "m1", "role": "ROLE_AGENT", "content": [{"text": "hello"}]}},
    ]
    snapshot = {
        "id": T,
        "status": {"state": "TASK_STATE_CANCELLED"},
        "history": [
            {"messageId": "m1", "role": "ROLE_AGENT", "content": [{"text": "hello"}]},
            {"messageId": "m5", "role": "ROLE_AGENT", "content": []},
        ],
    }
    gaps = find_gaps(seen, snapshot)
    assert gaps.transition == (TaskState.WORKING, TaskState.CANCELED)
    assert gaps.history == [""]
    assert gaps.describe() == "missed: working → canceled, 1 history entry"


def test_other_tasks_errors_and_garbage_are_ignored() -> None:
    seen: list[Any] = [
        None,
        3,
        "x",
        [],
        {"error": {"code": -32001}},
        {"statusUpdate": {"taskId": "other", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}},
    ]
    snapshot = {"id": T, "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}
    assert find_gaps(seen, snapshot).transition == (None, TaskState.INPUT_REQUIRED)
    assert missed_updates(seen, snapshot, V1)[0].message == "missed: status input-required"
    assert find_gaps(seen, {"error": {"code": -32001}}) == Gaps()  # no Task: nothing to say
    assert missed_updates([], {"jsonrpc": "2.0", "id": 1, "result": None}, V1) == []


# --- the real a2a-sdk peer ---------------------------------------------------------------

NAMES = {
    V1: ("SendStreamingMessage", "GetTask", "SubscribeToTask"),
    V03: ("message/stream", "tasks/get", "tasks/resubscribe"),
}


def _request(
    info: dict[str, Any], version: ProtocolVersion, name: str, ctx: TemplateContext
) -> A2ARequest:
    spec = find_method(version, name)
    assert spec is not None
    body = render_body(spec, Binding.JSONRPC, ctx)
    return A2ARequest(info["jsonrpc_url"], name, body, version, timeout=10.0)


async def _items(request: A2ARequest, stop_after: int | None = None) -> list[Any]:
    seen: list[Any] = []
    async for event in exchange.run(request):
        if isinstance(event, StreamItem | ResponseBody):
            seen.append(event.json)
            if stop_after is not None and len(seen) >= stop_after:
                break  # the dropped stream: the client goes away mid-way
    return seen


@pytest.mark.peer
@pytest.mark.parametrize("version", [V1, V03], ids=lambda v: v.value)
async def test_a_stream_dropped_mid_way_then_resubscribed(
    sdk_peer: dict[str, Any], version: ProtocolVersion
) -> None:
    stream, get, subscribe = NAMES[version]
    seen = await _items(
        _request(sdk_peer, version, stream, TemplateContext(text="stream 4 100")), 2
    )
    task_id = classify_json(seen[0]).task_id
    await asyncio.sleep(0.8)  # the task completes while no stream is open
    # The resubscription is refused (terminal task): everything after the drop is lost.
    seen += await _items(_request(sdk_peer, version, subscribe, TemplateContext(task_id=task_id)))
    (snapshot,) = await _items(_request(sdk_peer, version, get, TemplateContext(task_id=task_id)))
    (finding,) = missed_updates(seen, snapshot, version)
    assert finding.message == (
        "missed: artifact `result`, working → completed, "
        "3 history entries (“progress 2/4”, “progress 3/4”, “progress 4/4”)"
    )


@pytest.mark.peer
async def test_a_resubscription_in_time_misses_nothing(sdk_peer: dict[str, Any]) -> None:
    stream, get, subscribe = NAMES[V1]
    seen = await _items(_request(sdk_peer, V1, stream, TemplateContext(text="stream 4 150")), 2)
    task_id = classify_json(seen[0]).task_id
    await asyncio.sleep(0.2)  # one update goes by unseen; the resubscription's Task has it
    seen += await _items(_request(sdk_peer, V1, subscribe, TemplateContext(task_id=task_id)))
    (snapshot,) = await _items(_request(sdk_peer, V1, get, TemplateContext(task_id=task_id)))
    assert missed_updates(seen, snapshot, V1) == []
