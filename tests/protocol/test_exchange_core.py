"""The sans-IO exchange core (app/protocol/exchange_core.py), fed batches without a socket:
bounds, masking, judging and the outcome at the end."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from app.protocol.clock import Clock
from app.protocol.events import (
    ErrorKind,
    EventBatch,
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.exchange_core import STREAM_END_GRACE_S, Bound, ExchangeCore
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.request import A2ARequest
from app.protocol.secrets import MASK
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError

URL = "http://127.0.0.1:9/"
TOKEN = "PAUSED-s3cr3t-token"


class FakeClock(Clock):
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        super().__init__()
        self.t = 0.0

    def now(self) -> float:
        return self.t


def _core(
    method: str = "SendMessage",
    version: ProtocolVersion = ProtocolVersion.V1_0,
    *,
    auth: AuthConfig | None = None,
    timeout: float = 30.0,
    deadline: float | None = None,
) -> tuple[ExchangeCore, FakeClock]:
    request = A2ARequest(URL, method, "{}", version, timeout=timeout, deadline=deadline)
    if auth is not None:
        request = apply_auth(request, auth)
    clock = FakeClock()
    return ExchangeCore(request, clock), clock


def _sent(method: str = "SendMessage") -> RequestSent:
    return RequestSent(0.0, "POST", URL, (), b"{}", method)


def _head(stream: bool = False) -> ResponseHead:
    content_type = "text/event-stream" if stream else "application/json"
    return ResponseHead(0.0, 200, "OK", "HTTP/1.1", (("content-type", content_type),), stream)


def _body(value: Any) -> ResponseBody:
    return ResponseBody(0.0, json.dumps(value).encode(), "application/json", value)


def _update(seq: int, state: str, **extra: Any) -> StreamItem:
    update = {"taskId": "t", "contextId": "c", "status": {"state": state}, **extra}
    value = {"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": update}}
    return StreamItem(0.0, seq, json.dumps(value).encode(), value)


def _update_03(seq: int, state: str, final: bool) -> StreamItem:
    result = {"kind": "status-update", "taskId": "t", "contextId": "c",
              "status": {"state": state}, "final": final}  # fmt: skip
    value = {"jsonrpc": "2.0", "id": 1, "result": result}
    return StreamItem(0.0, seq, json.dumps(value).encode(), value)


def _ok(result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def _kinds(batch: EventBatch) -> list[str]:
    return [type(event).__name__ for event in batch]


def test_a_unary_answer_passes_through_and_ends_ok() -> None:
    core, clock = _core()
    assert core.next_wait() == 30.0 and core.bound is Bound.TIMEOUT
    message = {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "ok"}]}}
    out = core.feed([_sent(), _head(), _body(_ok(message))])
    assert _kinds(out) == ["RequestSent", "ResponseHead", "ResponseBody"]
    sent = out[0]
    assert isinstance(sent, RequestSent)
    assert sent.streaming is False and sent.version is ProtocolVersion.V1_0
    assert core.closed() == []  # unary: nothing to judge at the close
    clock.t = 0.25
    (end,) = core.end()
    assert end == ExchangeEnd(0.25, Outcome.OK)


def test_the_timeout_counts_only_the_waiting_and_stops_at_the_answer() -> None:
    core, clock = _core(timeout=5.0)
    assert core.next_wait() == 5.0
    clock.t = 3.0
    assert core.feed([_sent()])
    clock.t = 10.0  # the consumer took 7 s between batches: not the peer's time
    assert core.next_wait() == pytest.approx(2.0) and core.bound is Bound.TIMEOUT
    (error,) = core.expired()
    assert isinstance(error, ExchangeError) and error.kind is ErrorKind.TRANSPORT
    assert error.message == "No complete answer within 5 s" and error.t == 10.0
    assert core.end()[0] == ExchangeEnd(10.0, Outcome.TRANSPORT_ERROR)
    # Once the body has come the timeout no longer bounds anything.
    core, clock = _core(timeout=5.0)
    core.next_wait()
    core.feed([_sent(), _head(), _body(_ok({}))])
    assert core.next_wait() is None


def test_a_stream_is_bounded_by_the_deadline_once_it_has_started() -> None:
    core, clock = _core("SendStreamingMessage", timeout=30.0, deadline=10.0)
    assert core.next_wait() == 10.0 and core.bound is Bound.DEADLINE
    clock.t = 1.0
    core.feed([_sent("SendStreamingMessage"), _head(stream=True)])
    clock.t = 4.0
    assert core.feed([_update(1, "TASK_STATE_WORKING")])
    assert core.next_wait() == 6.0 and core.bound is Bound.DEADLINE
    clock.t = 10.0
    (error,) = core.expired()
    assert isinstance(error, ExchangeError) and error.code == "DEADLINE_EXCEEDED"
    assert error.message.startswith("DEADLINE_EXCEEDED: the exchange did not end within the 10 s")
    assert core.closed() == []  # an error already: the ending is not judged again
    assert core.end()[0].outcome is Outcome.TRANSPORT_ERROR  # type: ignore[union-attr]


def test_a_stream_kept_open_after_its_task_ended_is_a_finding_not_an_error() -> None:
    core, clock = _core("SendStreamingMessage")
    core.next_wait()
    core.feed([_sent("SendStreamingMessage"), _head(stream=True)])
    clock.t = 1.0
    core.feed([_update(1, "TASK_STATE_WORKING"), _update(2, "TASK_STATE_COMPLETED")])
    assert core.next_wait() == STREAM_END_GRACE_S and core.bound is Bound.GRACE
    clock.t = 1.0 + STREAM_END_GRACE_S
    (lingers,) = core.expired()
    assert isinstance(lingers, ExchangeFinding) and lingers.finding.rule == "stream-lingers"
    assert core.closed() == []  # it ended completed
    assert core.end()[0].outcome is Outcome.OK  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("version", "items", "verdict"),
    [
        (ProtocolVersion.V1_0, [], "The stream ended without any event"),
        (
            ProtocolVersion.V1_0,
            [_update(1, "TASK_STATE_WORKING")],
            "The server closed the stream while the task was still working",
        ),
        (
            ProtocolVersion.V0_3,
            [_update_03(1, "working", final=False)],
            "The 0.3 stream ended without a final: true event",
        ),
        (ProtocolVersion.V1_0, [_update(1, "TASK_STATE_COMPLETED")], None),
        (ProtocolVersion.V0_3, [_update_03(1, "completed", final=True)], None),
    ],
    ids=["empty", "closed-while-working", "no-final", "completed", "final"],
)
def test_the_judge_of_a_stream_the_server_closed(
    version: ProtocolVersion, items: list[StreamItem], verdict: str | None
) -> None:
    method = "SendStreamingMessage" if version is ProtocolVersion.V1_0 else "message/stream"
    core, _ = _core(method, version)
    core.next_wait()
    core.feed([_sent(method), _head(stream=True), *items])
    judged = core.closed()
    if verdict is None:
        assert judged == [] and core.end()[0].outcome is Outcome.OK  # type: ignore[union-attr]
        return
    (error,) = judged
    assert isinstance(error, ExchangeError) and error.kind is ErrorKind.PROTOCOL
    assert error.message == verdict
    assert core.end()[0].outcome is Outcome.PROTOCOL_ERROR  # type: ignore[union-attr]


def test_a_json_answer_to_a_streaming_call_is_judged_like_a_unary_one() -> None:
    core, _ = _core("SendStreamingMessage")
    core.next_wait()
    core.feed([_sent("SendStreamingMessage"), _head(), _body(_ok({"task": {"id": "t"}}))])
    assert core.closed() == []


def test_an_error_after_items_decides_the_outcome_and_skips_the_ending_verdict() -> None:
    core, _ = _core("SendStreamingMessage")
    core.next_wait()
    core.feed([_sent("SendStreamingMessage"), _head(stream=True), _update(1, "TASK_STATE_WORKING")])
    out = core.feed([ExchangeError(0.5, ErrorKind.RPC, "task failed", -32603)])
    assert _kinds(out) == ["ExchangeError"]
    assert core.outcome is Outcome.RPC_ERROR
    assert core.closed() == []  # not also "closed while working"
    # A later, more serious error wins the outcome; a lesser one does not.
    core.usage_error(UsageError("bad"))
    core.feed([ExchangeError(0.6, ErrorKind.RPC, "again")])
    assert core.end()[0].outcome is Outcome.USAGE_ERROR  # type: ignore[union-attr]


def test_every_credential_is_masked_wherever_it_turns_up() -> None:
    core, _ = _core("SendStreamingMessage", auth=AuthConfig.bearer(TOKEN))
    core.next_wait()
    echo = ResponseHead(0.0, 200, "OK", "HTTP/1.1", (("x-echo", TOKEN),), True)
    out = core.feed([_sent("SendStreamingMessage"), echo])
    sent, head = out
    assert isinstance(sent, RequestSent) and TOKEN in sent.secret_values  # its view masks it
    assert isinstance(head, ResponseHead) and head.headers == (("x-echo", MASK),)
    # An item quoting the token (an unknown state): the item and its finding are masked.
    out = core.feed([_update(1, f"TASK_STATE_{TOKEN}")])
    item, finding = out
    assert isinstance(item, StreamItem) and TOKEN.encode() not in item.raw
    assert isinstance(finding, ExchangeFinding) and finding.finding.rule == "state-spelling"
    assert TOKEN not in finding.finding.message and TOKEN not in finding.finding.raw
    (error,) = core.feed([ExchangeError(1.0, ErrorKind.RPC, f"bad token {TOKEN}")])
    assert isinstance(error, ExchangeError) and error.message == f"bad token {MASK}"
    (usage,) = core.usage_error(UsageError(f"cannot use {TOKEN}"))
    assert isinstance(usage, ExchangeError) and TOKEN not in usage.message


def test_findings_follow_the_body_they_concern() -> None:
    core, _ = _core()
    core.next_wait()
    body = {"jsonrpc": "2.0", "id": None, "result": {"task": {"id": "t"}}}
    out = core.feed([_sent(), _head(), _body(body)])
    assert _kinds(out) == ["RequestSent", "ResponseHead", "ResponseBody", "ExchangeFinding"]
    finding = out[-1]
    assert isinstance(finding, ExchangeFinding) and finding.finding.rule == "null-id"
    assert finding.seq is None


@pytest.mark.logs_error("the core is handed an internal error to log at ERROR")
def test_an_internal_error_is_logged_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    core, _ = _core()
    try:
        raise TypeError("a bug")
    except TypeError as exc:
        with caplog.at_level(logging.DEBUG, logger="app.protocol.exchange_core"):
            (error,) = core.internal_error(exc)
    assert isinstance(error, ExchangeError) and error.kind is ErrorKind.INTERNAL
    assert error.message == "Internal error (a bug in A2A Workbench): TypeError: a bug"
    (logged,) = caplog.records
    assert logged.levelno == logging.ERROR and logged.exc_info is not None
    assert core.end()[0].outcome is Outcome.TRANSPORT_ERROR  # type: ignore[union-attr]


def test_a_transport_failure_is_a_transport_error_logged_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    core, _ = _core()
    with caplog.at_level(logging.DEBUG, logger="app.protocol.exchange_core"):
        (error,) = core.transport_failure(ConnectionResetError("reset by peer"))
    assert isinstance(error, ExchangeError) and error.kind is ErrorKind.TRANSPORT
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]


def test_cancelled_ends_the_exchange() -> None:
    core, clock = _core()
    clock.t = 0.5
    assert core.cancelled() == [ExchangeEnd(0.5, Outcome.CANCELLED)]


def test_a_grpc_request_sent_is_filled_in_for_the_views() -> None:
    request = A2ARequest("127.0.0.1:9", "SendStreamingMessage", "{}", binding=Binding.GRPC)
    core = ExchangeCore(request, FakeClock())
    sent = RequestSent(0.0, "gRPC", "grpc://127.0.0.1:9", (), b"", "SendStreamingMessage")
    (filled,) = core.feed([sent])
    assert isinstance(filled, RequestSent) and filled.streaming and not filled.tls_unverified
