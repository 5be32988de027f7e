"""Bad input at the exchange boundary: clear errors, no tracebacks, no leaked credentials."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.clock import Clock
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import A2ARequest, PreparedCall
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.bad_server import Canned, bad_server

REPO = Path(__file__).resolve().parents[2]
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}})


async def events_of(request: A2ARequest) -> list[Any]:
    return [event async for event in exchange.run(request)]


def errors(events: list[Any]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


def end(events: list[Any]) -> ExchangeEnd:
    assert isinstance(events[-1], ExchangeEnd)
    return events[-1]


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"endpoint": "http://127.0.0.1:99999/"}, "not usable"),
        ({"timeout": float("nan")}, "positive number of seconds"),
        ({"timeout": -1.0}, "positive number of seconds"),
        ({"headers": (("Authorization", "Bearer S3CRET\n"),)}, "line break"),
        ({"headers": (("Authorization", "Bearer sécrét"),)}, "non-ASCII"),
        ({"headers": (("Bad Name", "x"),)}, "not a valid header name"),
        ({"body": "[" * 200_000}, "nested too deeply"),
    ],
)
async def test_unsendable_requests_are_usage_errors_without_the_secret(
    changes: dict[str, Any], needle: str
) -> None:
    fields: dict[str, Any] = {"endpoint": "http://127.0.0.1:9/", "method": "SendMessage"}
    fields["body"] = BODY
    fields.update(changes)
    events = await events_of(A2ARequest(**fields))
    (error,) = errors(events)
    assert needle in error.message
    assert "S3CRET" not in error.message and "sécrét" not in error.message
    assert end(events).outcome is Outcome.USAGE_ERROR


async def test_grpc_refuses_query_credentials() -> None:
    request = A2ARequest(
        "127.0.0.1:9", "GetTask", '{"id": "t"}', binding=Binding.GRPC, query=(("key", "v"),)
    )
    (error,) = errors(await events_of(request))
    assert "gRPC has no query string" in error.message


async def test_a_url_password_is_masked_in_events_and_errors() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    request = A2ARequest(f"http://alice:URLPASSWORD@127.0.0.1:{port}/", "SendMessage", BODY)
    events = await events_of(request)
    assert "URLPASSWORD" not in repr(events)
    assert "alice:****@" in events[0].url


@pytest.fixture
def trickle_server() -> Iterator[str]:
    """Answers 200 with a chunked body that never ends, one byte every 50 ms."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            try:
                while not stop.is_set():
                    conn.sendall(b"1\r\n \r\n")
                    time.sleep(0.05)
            except OSError:
                pass
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    stop.set()
    thread.join()
    server.close()


async def test_the_timeout_bounds_the_whole_answer(trickle_server: str) -> None:
    started = time.perf_counter()
    events = await events_of(A2ARequest(trickle_server, "SendMessage", BODY, timeout=1.0))
    assert time.perf_counter() - started < 5
    assert "No complete answer within 1 s" in errors(events)[-1].message
    assert end(events).outcome is Outcome.TRANSPORT_ERROR


def sse(*frames: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(f).encode() + b"\r\n\r\n" for f in frames)


async def test_a_0_3_stream_ending_without_final_is_a_protocol_error() -> None:
    update = {"kind": "status-update", "taskId": "t", "contextId": "c", "final": False,
              "status": {"state": "working"}}  # fmt: skip
    frames = [{"jsonrpc": "2.0", "id": None, "result": update}] * 2
    canned = Canned(headers={"Content-Type": "text/event-stream"}, body=sse(*frames))
    with bad_server(canned) as url:
        events = await events_of(
            A2ARequest(url, "message/stream", BODY, version=ProtocolVersion.V0_3)
        )
    assert any("final: true" in e.message for e in errors(events))
    assert end(events).outcome is Outcome.PROTOCOL_ERROR


async def test_an_empty_stream_is_a_protocol_error() -> None:
    canned = Canned(headers={"Content-Type": "text/event-stream"}, body=b"")
    with bad_server(canned) as url:
        events = await events_of(A2ARequest(url, "SendStreamingMessage", BODY))
    assert any("without any event" in e.message for e in errors(events))


def test_cli_usage_errors_never_echo_credentials() -> None:
    for args in (["--basic", "S3CRETnocolon"], ["--api-key", "S3CRETnoeq"]):
        proc = subprocess.run(
            [sys.executable, "-m", "app", "send", "http://127.0.0.1:9/", "--method",
             "SendMessage", *args],
            capture_output=True, text=True, cwd=REPO, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 3
        assert "S3CRET" not in proc.stdout + proc.stderr


async def test_request_sent_carries_streaming_version_and_a_masked_view() -> None:
    update = {"kind": "status-update", "taskId": "t", "contextId": "c", "final": True,
              "status": {"state": "completed"}}  # fmt: skip
    frames = [{"jsonrpc": "2.0", "id": 1, "result": update}]
    canned = Canned(headers={"Content-Type": "text/event-stream"}, body=sse(*frames))
    with bad_server(canned) as url:
        events = await events_of(
            A2ARequest(
                url,
                "message/stream",
                BODY,
                version=ProtocolVersion.V0_3,
                headers=(("X-Agent-Key", "k-S3CRET"),),
                query=(("k", "q-S3CRET"),),
                secret_headers=("X-Agent-Key",),
                secret_query=("k",),
            )
        )
    sent = events[0]
    assert isinstance(sent, RequestSent)
    assert sent.streaming and sent.version is ProtocolVersion.V0_3
    shown = sent.masked()
    assert "S3CRET" not in repr((shown.url, shown.headers))
    assert ("X-Agent-Key", "k-S3CRET") in sent.headers  # the event itself is what was sent
    assert end(events).outcome is Outcome.OK


@pytest.mark.logs_error("a bug is planted in the binding to see the exchange log it at ERROR")
async def test_a_bug_inside_the_exchange_is_an_internal_error_logged_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def buggy(*args: Any) -> Any:
        raise ZeroDivisionError("planted S3CRET")
        yield  # an async generator, like every binding

    _use_binding(monkeypatch, buggy)
    request = A2ARequest(
        endpoint="http://127.0.0.1:9/",
        method="SendMessage",
        body=BODY,
        headers=(("Authorization", "Bearer S3CRET"),),
    )
    events = await events_of(request)
    (error,) = errors(events)
    assert error.kind is ErrorKind.INTERNAL
    assert error.message.startswith("Internal error (a bug in A2A Workbench): ZeroDivisionError")
    assert "S3CRET" not in error.message
    assert end(events).outcome is Outcome.TRANSPORT_ERROR
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "app.protocol.exchange_core" and record.exc_info is not None
    assert record.exc_info[0] is ZeroDivisionError


async def test_a_connection_lost_mid_answer_is_a_transport_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def dropped(prepared: PreparedCall, client: Any, clock: Clock) -> Any:
        sent = RequestSent(clock.now(), "POST", prepared.request.endpoint, (), b"{}", "x")
        yield [sent, ResponseHead(clock.now(), 200, "OK", "HTTP/1.1", ())]
        raise ConnectionResetError("Connection reset by peer")

    _use_binding(monkeypatch, dropped)
    events = await events_of(A2ARequest("http://127.0.0.1:9/", "SendMessage", BODY))
    (error,) = errors(events)
    assert error.kind is ErrorKind.TRANSPORT and "Connection reset by peer" in error.message
    assert end(events).outcome is Outcome.TRANSPORT_ERROR


async def test_a_binding_that_never_pauses_stops_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def busy(prepared: PreparedCall, client: Any, clock: Clock) -> Any:
        sent = RequestSent(clock.now(), "POST", prepared.request.endpoint, (), b"{}", "x")
        yield [sent, ResponseHead(clock.now(), 200, "OK", "HTTP/1.1", ())]
        for _ in range(100):
            time.sleep(0.06)  # a batch is always ready: the loop never gets to time out
            yield []
        raise AssertionError("read past the deadline")

    _use_binding(monkeypatch, busy)
    request = A2ARequest("http://127.0.0.1:9/", "SendStreamingMessage", BODY, deadline=0.1)
    events = await events_of(request)
    (error,) = errors(events)
    assert "deadline" in error.message, error
    assert end(events).outcome is Outcome.TRANSPORT_ERROR


async def test_a_1_0_stream_closed_while_working_looks_past_a_trailing_message() -> None:
    # The ending is judged by the last item that carries a task state: a message has none.
    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
    message = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "still on it"}]}
    frames = [
        {"jsonrpc": "2.0", "id": 1, "result": {"task": task}},
        {"jsonrpc": "2.0", "id": 1, "result": {"message": message}},
    ]
    canned = Canned(headers={"Content-Type": "text/event-stream"}, body=sse(*frames))
    with bad_server(canned) as url:
        events = await events_of(A2ARequest(url, "SendStreamingMessage", BODY))
    (error,) = errors(events)
    assert error.message == "The server closed the stream while the task was still working"
    assert end(events).outcome is Outcome.PROTOCOL_ERROR


def _use_binding(monkeypatch: pytest.MonkeyPatch, exchange_fn: Any) -> None:
    """Every binding's transport replaced by one whose ``exchange`` is ``exchange_fn``."""

    class _Transport:
        exchange = staticmethod(exchange_fn)

    monkeypatch.setattr(exchange, "transport_for", lambda binding: _Transport)


def _fake_binding(
    monkeypatch: pytest.MonkeyPatch, *answer: ResponseBody | StreamItem
) -> A2ARequest:
    """A binding of the exchange's contract (docs/ARCHITECTURE.md §6.1), answering a
    streaming call with ``answer`` and no error of its own."""

    async def binding(prepared: PreparedCall, client: Any, clock: Clock) -> Any:
        sent = RequestSent(clock.now(), "POST", prepared.request.endpoint, (), b"{}", "x")
        yield [sent, ResponseHead(clock.now(), 200, "OK", "HTTP/1.1", ())]
        yield list(answer)

    _use_binding(monkeypatch, binding)
    return A2ARequest("http://127.0.0.1:9/", "SendStreamingMessage", BODY)


async def test_an_item_the_binding_left_unclassified_is_classified_by_the_exchange(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done = {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}
    item = StreamItem(0.0, 1, b"data: {}\n\n", {"jsonrpc": "2.0", "id": 1, "result": done})
    assert item.info is None
    events = await events_of(_fake_binding(monkeypatch, item))
    assert not errors(events)
    assert end(events).outcome is Outcome.OK


async def test_a_plain_answer_to_a_streaming_call_is_not_judged_as_an_empty_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = {"jsonrpc": "2.0", "id": 1, "result": {"message": {"messageId": "m"}}}
    body = ResponseBody(0.0, json.dumps(result).encode(), "application/json", result)
    events = await events_of(_fake_binding(monkeypatch, body))
    assert not errors(events)
    assert end(events).outcome is Outcome.OK
