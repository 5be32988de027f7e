"""The CLI printer: the event seam's masked view, and lint records on streams."""

from __future__ import annotations

import io
import json

from app.commands.printer import Printer
from app.protocol.events import (
    ExchangeEnd,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.types import ProtocolVersion

_HEADERS = (("Authorization", "Bearer abcdef"), ("X-Key", "k-12345"), ("Accept", "x"))


def sent(*, streaming: bool, version: ProtocolVersion = ProtocolVersion.V0_3) -> RequestSent:
    return RequestSent(
        0.0,
        "POST",
        "http://127.0.0.1:1/?key=k-12345&a=1",
        _HEADERS,
        b"{}",
        "message/stream",
        streaming=streaming,
        version=version,
        secret_headers=("X-Key",),
        secret_query=("key",),
    )


def status(seq: int, state: str) -> StreamItem:
    value = {
        "kind": "status-update",
        "taskId": "t1",
        "contextId": "c1",
        "status": {"state": state},
    }
    return StreamItem(seq / 1000, seq, json.dumps(value).encode(), value)


def run(fmt: str, events: list[object]) -> list[str]:
    out = io.StringIO()
    printer = Printer(fmt, out)
    for event in events:
        printer.emit(event)  # type: ignore[arg-type]
    return out.getvalue().splitlines()


def test_masked_view_hides_configured_and_well_known_credentials() -> None:
    shown = sent(streaming=False).masked()
    assert dict(shown.headers) == {"Authorization": "Bearer ****", "X-Key": "****", "Accept": "x"}
    assert shown.url == "http://127.0.0.1:1/?key=****&a=1"
    (line,) = run("jsonl", [sent(streaming=False)])
    record = json.loads(line)
    assert record["headers"]["X-Key"] == "****" and "k-12345" not in line


def test_a_stream_gets_lint_records_after_the_item_and_before_the_end() -> None:
    events = [
        sent(streaming=True),
        ResponseHead(0.0, 200, "OK", "HTTP/1.1", (), event_stream=True),
        status(1, "working"),
        ExchangeEnd(0.5, Outcome.OK),
    ]
    records = [json.loads(line) for line in run("jsonl", events)]
    assert [r["event"] for r in records] == ["request", "response", "item", "lint", "end"]
    assert records[3] == {
        "event": "lint",
        "rule": "no-final",
        "message": "The 0.3 stream ended without a final: true event",
        "seq": None,
    }
    assert records[1]["stream"] is True and records[1]["body"] is None
    pretty = run("pretty", events)
    assert "⚠ end no-final: The 0.3 stream ended without a final: true event" in pretty
    assert "  null" not in pretty  # a stream has no body line; its items follow


def test_lint_on_an_item_names_its_seq() -> None:
    changed = status(2, "working")
    changed.json["taskId"] = "t2"
    events = [sent(streaming=True, version=ProtocolVersion.V1_0), status(1, "working"), changed]
    records = [json.loads(line) for line in run("jsonl", events)]
    # A 1.0 stream that begins with a status update, not the Task, is linted too.
    assert [r["event"] for r in records] == ["request", "item", "lint", "item", "lint"]
    assert records[2]["rule"] == "first-not-task" and records[2]["seq"] == 1
    assert records[4]["rule"] == "id-changed" and records[4]["seq"] == 2
    assert run("pretty", events)[-1].startswith("⚠ #2 id-changed: Task id changed")


def test_a_unary_call_prints_no_lint() -> None:
    events = [
        sent(streaming=False),
        ResponseHead(0.0, 200, "OK", "HTTP/1.1", ()),
        ResponseBody(0.1, b"{}", "application/json", {}),
        ExchangeEnd(0.2, Outcome.OK),
    ]
    assert [json.loads(line)["event"] for line in run("jsonl", events)] == [
        "request",
        "response",
        "end",
    ]


def test_a_finding_has_a_record_and_a_pretty_line() -> None:
    from app.protocol.events import ExchangeFinding
    from app.protocol.findings import Finding, Severity

    finding = Finding("null-id", "A null id", Severity.ERROR, "§2.1", "JSON-RPC 2.0 §5", "$.id")
    events = [sent(streaming=False), ExchangeFinding(0.1, finding)]
    (record,) = [json.loads(line) for line in run("jsonl", events)[1:]]
    assert record == {"event": "finding", "severity": "error", "rule": "null-id",
                      "message": "A null id", "section": "§2.1", "spec": "JSON-RPC 2.0 §5",
                      "path": "$.id", "seq": None}  # fmt: skip
    assert run("pretty", events)[-1] == (
        "◆ error null-id: A null id at $.id (§2.1, JSON-RPC 2.0 §5)"
    )
