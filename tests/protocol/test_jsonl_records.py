"""The records module (app/protocol/records.py): every record keyed by ``event``, credentials
masked unless revealed, lint between a stream's items and its end."""

from __future__ import annotations

import json

import pytest

from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.records import ExchangeRecords, end_record, error_record, line, record
from app.protocol.secrets import MASK
from app.protocol.types import ProtocolVersion


def test_a_record_is_keyed_by_event_and_type_only_when_asked() -> None:
    assert record("check", {"planned": 3}) == {"event": "check", "planned": 3}
    kept = record("end", {"deliveries": 1}, with_type=True)
    assert list(kept) == ["event", "type", "deliveries"] and kept["type"] == "end"
    assert error_record(ErrorKind.USAGE, "bad") == {"event": "error", "kind": "usage",
                                                    "message": "bad"}  # fmt: skip
    assert end_record(Outcome.USAGE_ERROR, 0.04) == {"event": "end", "outcome": "usage_error",
                                                     "elapsed_ms": 0.0}  # fmt: skip


def test_a_line_is_strict_json_with_text_as_is() -> None:
    assert line({"event": "x", "text": "é"}) == '{"event": "x", "text": "é"}'
    with pytest.raises(ValueError):
        line({"event": "x", "n": float("nan")})


def test_the_request_record_masks_credentials_unless_revealed() -> None:
    sent = RequestSent(0.0, "POST", "http://h/", (("Authorization", "Bearer tok-12345"),),
                       b"{}", "SendMessage")  # fmt: skip
    masked = ExchangeRecords().record(sent)
    assert masked is not None and masked["headers"]["Authorization"] == f"Bearer {MASK}"
    revealed = ExchangeRecords(reveal_secrets=True).record(sent)
    assert revealed is not None and revealed["headers"]["Authorization"] == "Bearer tok-12345"


def test_the_head_waits_for_the_body() -> None:
    encoder = ExchangeRecords()
    head = ResponseHead(0.1, 200, "OK", "HTTP/1.1", (("a", "1"), ("a", "2")))
    assert encoder.records(head) == []
    (response,) = encoder.records(ResponseBody(0.2, b'{"ok": 1}', "application/json", {"ok": 1}))
    assert response == {"event": "response", "status": 200, "reason": "OK", "elapsed_ms": 200.0,
                        "headers": {"a": "1, 2"}, "body": {"ok": 1}}  # fmt: skip


def test_a_stream_gets_its_lint_before_the_end() -> None:
    encoder = ExchangeRecords()
    sent = RequestSent(0.0, "POST", "http://h/", (), b"{}", "SendStreamingMessage",
                       streaming=True, version=ProtocolVersion.V1_0)  # fmt: skip
    encoder.records(sent)
    head = ResponseHead(0.1, 200, "OK", "HTTP/1.1", (), event_stream=True)
    assert [r["event"] for r in encoder.records(head)] == ["response"]
    working = {"jsonrpc": "2.0", "id": 1, "result": {"task": {
        "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}}  # fmt: skip
    item = StreamItem(0.2, 1, json.dumps(working).encode(), working)
    (shown,) = encoder.records(item)
    assert shown["event"] == "item" and shown["state"] == "working"
    ended = encoder.records(ExchangeEnd(0.3, Outcome.OK))
    assert [r["event"] for r in ended] == ["lint", "end"]
    assert ended[0]["rule"] == "closed-while-active" and ended[0]["seq"] is None
