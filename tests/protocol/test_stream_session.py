"""The Qt-free stream session: ids, state, connections, lint findings and ending."""

from __future__ import annotations

import json

from app.protocol.events import ErrorKind, ExchangeError, Outcome, ResponseBody, StreamItem
from app.protocol.stream.lifecycle import StreamEnding
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.protocol.stream.stream_session import StreamSession
from app.protocol.types import ProtocolVersion


def item(seq: int, value: dict[str, object]) -> StreamItem:
    return StreamItem(float(seq), seq, json.dumps(value).encode(), value)


def status(state: str, *, final: bool | None = None, task: str = "t1") -> dict[str, object]:
    event: dict[str, object] = {
        "kind": "status-update",
        "taskId": task,
        "contextId": "c1",
        "status": {"state": state},
    }
    if final is not None:
        event["final"] = final
    return event


def test_ids_state_and_count_come_from_the_items() -> None:
    session = StreamSession(ProtocolVersion.V0_3)
    assert session.begin_connection() == 1 and session.running
    info, findings = session.feed(item(1, status("working")))
    assert info.kind is ItemKind.STATUS_UPDATE and findings == []
    assert (session.task_id, session.context_id, session.state) == ("t1", "c1", TaskState.WORKING)
    session.feed(item(2, status("completed", final=True)))
    assert session.state is TaskState.COMPLETED and session.event_count == 2
    ending, findings = session.end(Outcome.OK)
    assert ending is StreamEnding.TERMINAL and findings == []
    assert session.ending is ending and not session.running


def test_lint_findings_on_items_and_on_the_end() -> None:
    session = StreamSession(ProtocolVersion.V0_3)
    session.begin_connection()
    session.feed(item(1, status("working")))
    _, findings = session.feed(item(2, status("working", task="t2")))
    assert [f.rule for f in findings] == ["id-changed"]
    ending, findings = session.end(Outcome.OK)
    assert ending is StreamEnding.ACTIVE
    assert [f.rule for f in findings] == ["no-final"]


def test_a_resubscription_keeps_the_ids_and_lints_afresh() -> None:
    session = StreamSession(ProtocolVersion.V1_0)
    session.begin_connection()
    session.feed(item(1, status("TASK_STATE_COMPLETED")))
    session.end(Outcome.OK)
    assert session.begin_connection() == 2
    _, findings = session.feed(item(1, status("TASK_STATE_WORKING")))
    assert findings == []  # a new connection: the terminal state of the first is not held
    assert session.task_id == "t1"


def test_errors_decide_the_ending() -> None:
    session = StreamSession()
    session.begin_connection()
    session.note_error(ExchangeError(0.0, ErrorKind.TRANSPORT, "cut off"))
    assert session.end(Outcome.OK)[0] is StreamEnding.TRANSPORT_ERROR
    session.begin_connection()
    assert session.end(Outcome.RPC_ERROR)[0] is StreamEnding.ERROR
    session.begin_connection()
    assert session.end(Outcome.CANCELLED) == (StreamEnding.STOPPED, [])


def test_a_plain_body_is_classified_and_noted() -> None:
    session = StreamSession()
    task = {"id": "t9", "contextId": "c9", "status": {"state": "TASK_STATE_CANCELED"}}
    info = session.note_body(ResponseBody(0.0, b"{}", "application/json", task))
    assert info is not None and info.kind is ItemKind.TASK
    assert (session.task_id, session.state) == ("t9", TaskState.CANCELED)
    assert session.note_body(ResponseBody(0.0, b"<html>", "text/html")) is None


def test_the_state_text_says_what_is_known() -> None:
    session = StreamSession(ProtocolVersion.V0_3)
    assert session.state_text() == "no stream"
    session.begin_connection()
    assert session.state_text() == "streaming…"
    session.feed(item(1, status("working")))
    assert session.state_text() == "working" and not session.state_is_stale
    assert session.summary() == "Stream: 1 event · still open · state working · task t1"
    session.end(Outcome.CANCELLED)  # Stop: the agent was not told anything
    assert session.state_is_stale
    assert session.state_text() == "stopped locally — task last seen working"
    assert session.summary() == (
        "Stream: 1 event · stopped locally — task last seen working · task t1 · stopped locally"
    )
    session.begin_connection()  # Resubscribe, refused
    session.note_error(ExchangeError(0.1, ErrorKind.RPC, "Task not found"))
    session.end(Outcome.RPC_ERROR)
    assert session.state_text() == "resubscribe failed — task last seen working"
    session.begin_connection()
    session.feed(item(1, status("completed", final=True)))
    session.end(Outcome.OK)
    assert session.state_text() == "completed" and not session.state_is_stale
    assert "final state completed" in session.summary()
    waiting = StreamSession(ProtocolVersion.V0_3)
    waiting.begin_connection()
    waiting.feed(item(1, status("input-required", final=True)))
    waiting.end(Outcome.OK)
    assert waiting.state_text() == "input-required"  # it stays so until the client answers


def test_outcome_severity_is_one_order() -> None:
    assert Outcome.OK.worse(Outcome.RPC_ERROR) is Outcome.RPC_ERROR
    assert Outcome.RPC_ERROR.worse(Outcome.CANCELLED) is Outcome.CANCELLED
    assert Outcome.USAGE_ERROR.worse(Outcome.TRANSPORT_ERROR) is Outcome.USAGE_ERROR
    assert Outcome.PROTOCOL_ERROR.worse(Outcome.TRANSPORT_ERROR) is Outcome.TRANSPORT_ERROR


def test_the_method_is_resolved_once_into_a_prepared_call() -> None:
    from app.protocol.request import A2ARequest, prepare
    from app.protocol.types import Binding

    request = A2ARequest("http://127.0.0.1:1/", "SendStreamingMessage", "{}", binding=Binding.GRPC)
    prepared = prepare(request)
    assert prepared.spec is not None and prepared.spec.name == "SendStreamingMessage"
    assert prepared.streaming and prepared.binding is Binding.GRPC
    assert prepare(prepared) is prepared
    unknown = prepare(A2ARequest("http://127.0.0.1:1/", "x/custom", "{}"))
    assert unknown.spec is None and not unknown.streaming
