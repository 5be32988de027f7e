"""Findings: deviations the client understands are reported, not failed; streams end when
their task does; the deadline bounds the whole exchange."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import (
    NOT_JSON,
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    StreamItem,
)
from app.protocol.findings import Finding, Severity
from app.protocol.methods.deviations import body_findings, item_findings
from app.protocol.request import A2ARequest
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_json
from app.protocol.stream.stream_session import StreamSession
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.sse_server import HANG, sse_server

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
J, R, G = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC


def task(state: Any) -> dict[str, Any]:
    return {"id": "t1", "contextId": "c1", "status": {"state": state}}


async def events_of(request: A2ARequest) -> list[Any]:
    return [event async for event in exchange.run(request)]


def findings(events: list[Any]) -> list[Finding]:
    return [e.finding for e in events if isinstance(e, ExchangeFinding)]


def end(events: list[Any]) -> ExchangeEnd:
    assert isinstance(events[-1], ExchangeEnd)
    return events[-1]


# --- the kind: a state the client can read, spelt another way -------------------------


@pytest.mark.parametrize(
    ("version", "binding", "raw", "state", "severity"),
    [
        (V1, J, "completed", TaskState.COMPLETED, Severity.ERROR),  # 0.3 spelling in 1.0
        (V1, R, "TASK_STATE_CANCELLED", TaskState.CANCELED, Severity.ERROR),  # 0.3 proto
        (V1, G, "cancelled", TaskState.CANCELED, Severity.ERROR),  # British
        (V1, J, 3, TaskState.COMPLETED, Severity.WARNING),  # ProtoJSON enum number
        (V1, J, "TASK_STATE_PAUSED", None, Severity.ERROR),  # unknown
        (V03, J, "TASK_STATE_COMPLETED", TaskState.COMPLETED, Severity.ERROR),  # 1.0 in 0.3
        (V03, J, 3, TaskState.COMPLETED, Severity.ERROR),  # no numbers in 0.3 JSON-RPC
        (V03, R, "TASK_STATE_CANCELED", TaskState.CANCELED, Severity.ERROR),  # 1.0 in proto
    ],
)
def test_a_deviating_state_is_normalised_and_reported(
    version: ProtocolVersion, binding: Binding, raw: Any, state: Any, severity: Severity
) -> None:
    body = (
        {"jsonrpc": "2.0", "id": 1, "result": {"task": task(raw)}}
        if binding is J
        else {"task": task(raw)}
    )
    (found,) = body_findings(version, binding, body)
    assert found.rule == "state-spelling" and found.severity is severity
    assert found.section == "§5.3" and found.spec.startswith("A2A")
    prefix = "$.result" if binding is J else "$"
    assert found.path == f"{prefix}.task.status.state"
    assert found.raw == str(raw)
    info = classify_json(body)
    assert info.state is state and info.raw_state == str(raw)


@pytest.mark.parametrize(
    ("version", "binding", "state"),
    [
        (V1, J, "TASK_STATE_WORKING"),
        (V03, J, "working"),
        (V03, R, "TASK_STATE_CANCELLED"),
        (V03, G, "TASK_STATE_WORKING"),
    ],
)
def test_the_dialects_own_spelling_is_no_finding(
    version: ProtocolVersion, binding: Binding, state: str
) -> None:
    assert body_findings(version, binding, {"task": task(state)}) == []
    assert body_findings(version, binding, task(state)) == []


def test_states_in_lists_and_status_updates_have_their_paths() -> None:
    listed = {"tasks": [task("TASK_STATE_WORKING"), task("working")]}
    assert [f.path for f in body_findings(V1, R, listed)] == ["$.tasks[1].status.state"]
    update = {"statusUpdate": {"taskId": "t1", "status": {"state": "completed"}}}
    info = classify_json(update)
    (found,) = item_findings(V1, R, update, info)
    assert found.path == "$.statusUpdate.status.state"
    assert info.state is TaskState.COMPLETED and info.state.terminal


def test_a_success_with_a_null_id_is_a_finding_an_error_is_not() -> None:
    ok = {"jsonrpc": "2.0", "id": None, "result": {"task": task("TASK_STATE_WORKING")}}
    (found,) = body_findings(V1, J, ok)
    assert (found.rule, found.path, found.spec) == ("null-id", "$.id", "JSON-RPC 2.0 §5")
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}}
    assert body_findings(V1, J, error) == []
    assert body_findings(V1, R, ok) == []  # no ids outside JSON-RPC


def test_finding_records_are_json_and_name_their_source() -> None:
    record = Finding("r", "m", Severity.ERROR, "§5.3", "A2A 1.0", "$.x", "3").as_record()
    assert json.loads(json.dumps(record)) == {
        "severity": "error",
        "rule": "r",
        "message": "m",
        "section": "§5.3",
        "spec": "A2A 1.0",
        "path": "$.x",
        "raw": "3",
    }
    assert Finding("r", "m").as_record() == {"severity": "warning", "rule": "r", "message": "m"}


# --- end to end over HTTP: findings instead of protocol errors ------------------------


@pytest.mark.parametrize("raw", ["completed", "cancelled", 3, "TASK_STATE_PAUSED"])
async def test_a_1_0_answer_with_a_deviating_state_succeeds_with_a_finding(raw: Any) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "result": task(raw)}
    canned = Canned(body=json.dumps(body).encode())
    with bad_server(canned) as url:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}}
        events = await events_of(A2ARequest(url, "GetTask", json.dumps(envelope), timeout=5))
    assert end(events).outcome is Outcome.OK
    assert not [e for e in events if isinstance(e, ExchangeError)]
    (found,) = findings(events)
    assert found.rule == "state-spelling" and found.raw == str(raw)


async def test_a_stream_item_with_a_deviating_state_is_followed_by_its_finding() -> None:
    frame = (
        b'data: {"jsonrpc":"2.0","id":@ID@,"result":{"task":'
        + json.dumps(task("completed")).encode()
        + b"}}\n\n"
    )
    with sse_server([frame]) as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
        events = await events_of(
            A2ARequest(srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5)
        )
    assert end(events).outcome is Outcome.OK
    index = next(i for i, e in enumerate(events) if isinstance(e, StreamItem))
    after = events[index + 1]
    assert isinstance(after, ExchangeFinding) and after.seq == events[index].seq


# --- a stream ends when its task does ----------------------------------------------------


def _frame(result: dict[str, Any]) -> bytes:
    return b'data: {"jsonrpc":"2.0","id":@ID@,"result":' + json.dumps(result).encode() + b"}\n\n"


@pytest.mark.parametrize(
    ("version", "method", "last"),
    [
        (V1, "SendStreamingMessage", {"task": task("TASK_STATE_COMPLETED")}),
        (V1, "SendStreamingMessage", {"task": task("TASK_STATE_INPUT_REQUIRED")}),
        (
            V03,
            "message/stream",
            {"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": True,
             "status": {"state": "completed"}},
        ),
    ],
)  # fmt: skip
async def test_a_server_lingering_with_comments_after_the_task_ended_is_closed(
    version: ProtocolVersion, method: str, last: dict[str, Any]
) -> None:
    script = [_frame(last), *([b": keep-alive\n\n", 0.2] * 100), HANG]
    with sse_server(script) as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
        started = time.monotonic()
        events = await events_of(
            A2ARequest(srv.url, method, json.dumps(envelope), version=version, timeout=5)
        )
        elapsed = time.monotonic() - started
    assert elapsed < exchange.STREAM_END_GRACE_S + 2
    assert end(events).outcome is Outcome.OK
    assert [f.rule for f in findings(events)] == ["stream-lingers"]
    # comments within the grace period are still shown
    assert sum(isinstance(e, StreamItem) for e in events) > 2


async def test_an_active_stream_is_not_cut_by_the_grace_period() -> None:
    working = _frame({"task": task("TASK_STATE_WORKING")})
    done = _frame({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}})
    script = [working, *([b": ping\n\n", 0.5] * 6), done]
    with sse_server(script) as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
        events = await events_of(
            A2ARequest(srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5)
        )
    assert end(events).outcome is Outcome.OK
    assert findings(events) == []


# --- the deadline bounds the whole exchange ------------------------------------------------


async def test_the_deadline_bounds_a_stream_that_would_run_forever() -> None:
    script = [_frame({"task": task("TASK_STATE_WORKING")}), *([b": ping\n\n", 0.2] * 100)]
    with sse_server(script) as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
        started = time.monotonic()
        events = await events_of(
            A2ARequest(
                srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5, deadline=1.0
            )
        )
        assert time.monotonic() - started < 3
    assert end(events).outcome is Outcome.TRANSPORT_ERROR
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    assert error.code == "DEADLINE_EXCEEDED" and "1 s deadline" in error.message


async def test_the_deadline_bounds_a_unary_call_and_timeout_keeps_its_meaning() -> None:
    with sse_server([2.0, b"{}"], content_type="application/json") as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}
        body = json.dumps(envelope)
        events = await events_of(A2ARequest(srv.url, "GetTask", body, timeout=5, deadline=0.5))
        (error,) = [e for e in events if isinstance(e, ExchangeError)]
        assert error.code == "DEADLINE_EXCEEDED"
        events = await events_of(A2ARequest(srv.url, "GetTask", body, timeout=0.5))
        (error,) = [e for e in events if isinstance(e, ExchangeError)]
        assert error.code is None and "within 0.5 s" in error.message


@pytest.mark.parametrize("deadline", [0.0, -1.0, float("inf"), float("nan")])
async def test_a_bad_deadline_is_a_usage_error(deadline: float) -> None:
    events = await events_of(A2ARequest("http://127.0.0.1:9/", "GetTask", "{}", deadline=deadline))
    assert end(events).outcome is Outcome.USAGE_ERROR


# --- SSE per WHATWG and classification --------------------------------------------------


async def test_the_last_event_id_persists_and_an_unfinished_event_is_not_dispatched() -> None:
    frame = _frame({"task": task("TASK_STATE_WORKING")})
    script = [b"id: 7\n" + frame, frame, b"id\n" + frame, b'data: {"half": tr']
    with sse_server(script) as srv:
        envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
        events = await events_of(
            A2ARequest(srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5)
        )
    items = [e for e in events if isinstance(e, StreamItem)]
    assert [i.last_event_id for i in items[:3]] == ["7", "7", ""]
    last = items[-1]
    assert last.raw == b'data: {"half": tr' and last.info is not None
    assert last.info.kind is ItemKind.INCOMPLETE and last.json is NOT_JSON
    assert "not dispatched" in last.info.summary


def test_a_bare_task_carrying_a_message_key_is_a_task() -> None:
    bare = {**task("TASK_STATE_WORKING"), "message": {"role": "ROLE_AGENT", "parts": []}}
    assert classify_json(bare).kind is ItemKind.TASK
    envelope = {"jsonrpc": "2.0", "id": 1, "result": bare}
    assert classify_json(envelope).kind is ItemKind.TASK
    # the wrappers and the other bare objects are unchanged
    assert classify_json({"message": {"role": "ROLE_AGENT"}}).kind is ItemKind.MESSAGE
    update = {"taskId": "t1", "status": {"state": "working"}, "message": {}}
    assert classify_json(update).kind is ItemKind.STATUS_UPDATE


def test_a_1_0_stream_that_does_not_begin_with_the_task_is_linted() -> None:
    session = StreamSession(V1)
    session.begin_connection()
    update = {"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_WORKING"}}}
    _, found = session.feed(StreamItem(0.0, 1, b"", update))
    assert [f.rule for f in found] == ["first-not-task"]
    _, found = session.feed(StreamItem(0.0, 2, b"", update))
    assert found == []
    for first in ({"task": task("TASK_STATE_WORKING")}, {"message": {"role": "ROLE_AGENT"}}):
        session = StreamSession(V1)
        session.begin_connection()
        assert session.feed(StreamItem(0.0, 1, b"", first))[1] == []
    session = StreamSession(V03)
    session.begin_connection()
    v03 = {"kind": "status-update", "taskId": "t1", "status": {"state": "working"}}
    assert session.feed(StreamItem(0.0, 1, b"", v03))[1] == []
