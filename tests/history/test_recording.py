"""Recording real exchanges — a unary call with a bearer token, a 20 000-event SSE stream,
gRPC — and reading them back, exporting them (HAR 1.2, JSON lines) and the CLI commands.
No credential may appear in the database files or an export (checked on the bytes)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app.history import recorder as recorder_module
from app.history.har_export import har_log
from app.history.jsonl_export import event_records
from app.history.store import HistoryStore
from app.paths import history_path
from app.protocol import exchange
from app.protocol.events import ExchangeEnd, ExchangeEvent, Outcome, RequestSent, StreamItem
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.net.auth import AuthConfig, apply_auth, secret_header_names
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.sse_server import sse_server

REPO = Path(__file__).resolve().parents[2]
HAR_SCHEMA = json.loads((Path(__file__).with_name("har-1.2.schema.json")).read_text())
V1 = ProtocolVersion.V1_0


def _request(endpoint: str, method: str, binding: Binding, text: str = "12 30") -> A2ARequest:
    spec = find_method(V1, method)
    assert spec is not None
    body = render_body(spec, binding, TemplateContext(text=text))
    return A2ARequest(endpoint, method, body, V1, binding, timeout=30.0)


async def _send_recorded(
    store: HistoryStore, request: A2ARequest, secret_headers: tuple[str, ...] = ()
) -> tuple[int, list[ExchangeEvent]]:
    recorder = store.recorder(request, secret_headers=secret_headers, source="test")
    events = []
    async for event in exchange.run(request):
        recorder.feed(event)
        events.append(event)
    assert recorder.close(30)
    exchange_id = recorder.exchange_id
    assert exchange_id is not None
    return exchange_id, events


def _store_bytes(store: HistoryStore) -> bytes:
    return b"".join(p.read_bytes() for p in store.path.parent.glob(store.path.name + "*"))


@pytest.mark.peer
async def test_unary_with_bearer_token(sdk_peer_token: dict[str, Any], tmp_path: Path) -> None:
    token = sdk_peer_token["token"]
    auth = AuthConfig.bearer(token)
    request = apply_auth(
        _request(sdk_peer_token["jsonrpc_url"], "SendMessage", Binding.JSONRPC), auth, ()
    )
    store = HistoryStore.open()
    try:
        exchange_id, events = await _send_recorded(store, request, secret_header_names(auth))
        assert isinstance(events[-1], ExchangeEnd) and events[-1].outcome is Outcome.OK
        stored = store.events(exchange_id)
        sent = stored[0]
        assert isinstance(sent, RequestSent)
        assert ("Authorization", "Bearer ****") in sent.headers
        assert stored[1:] == events[1:]  # everything the peer said, back as it came
        entry = store.entry(exchange_id)
        assert entry is not None
        assert (entry.rpc_method, entry.binding, entry.outcome, entry.status) == (
            "SendMessage", "JSONRPC", "ok", 200)  # fmt: skip
        assert "Sum: 42" in json.dumps(event_records(stored))
        har = har_log([(entry, stored)])
        jsonschema.validate(har, HAR_SCHEMA)
        (har_entry,) = har["log"]["entries"]
        assert har_entry["request"]["method"] == "POST"
        assert {"name": "Authorization", "value": "Bearer ****"} in har_entry["request"]["headers"]
        assert json.loads(har_entry["response"]["content"]["text"])["result"]["message"]
        store.flush()
        assert token.encode() not in _store_bytes(store)
        assert token not in json.dumps(har)
    finally:
        store.close()


def _frame(n: int, last: bool) -> bytes:
    state = "TASK_STATE_COMPLETED" if last else "TASK_STATE_WORKING"
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "statusUpdate": {
                "taskId": "t",
                "contextId": "c",
                "status": {
                    "state": state,
                    "message": {
                        "messageId": f"m{n}",
                        "role": "ROLE_AGENT",
                        "parts": [{"text": f"progress {n}"}],
                    },
                },
            }
        },
    }
    data = json.dumps(body).encode().replace(b'"id": 0', b'"id": @ID@')
    return b"data: " + data + b"\n\n"


async def test_20000_event_stream_is_stored_completely(tmp_path: Path) -> None:
    count = 20_000
    frames = [_frame(n, n == count) for n in range(1, count + 1)]
    script = [b"".join(frames[i : i + 500]) for i in range(0, count, 500)]
    with sse_server(script, pause=0.0) as server:
        request = _request(server.url, "SendStreamingMessage", Binding.JSONRPC)
        store = HistoryStore.open()
        try:
            exchange_id, events = await _send_recorded(store, request)
            items = [e for e in events if isinstance(e, StreamItem)]
            assert len(items) == count
            entry = store.entry(exchange_id)
            assert entry is not None
            assert (entry.items, entry.outcome) == (count, "ok")
            stored = store.events(exchange_id)
            assert stored[1:] == events[1:]  # every item, raw and parsed, with its timing
            har = har_log([(entry, stored)])
            jsonschema.validate(har, HAR_SCHEMA)
            content = har["log"]["entries"][0]["response"]["content"]
            assert content["mimeType"].startswith("text/event-stream")
            assert content["text"].encode() == b"".join(item.raw for item in items)
            assert content["text"].count("data: ") == count
        finally:
            store.close()


async def test_batched_stream_is_stored_like_one_event_at_a_time(tmp_path: Path) -> None:
    # The GUI feeds whole batches (exchange.run_batches → Recorder.feed_all): the stored
    # entry is event for event what the exchange yielded.
    count = 2_000
    frames = [_frame(n, n == count) for n in range(1, count + 1)]
    script = [b"".join(frames[i : i + 300]) for i in range(0, count, 300)]
    with sse_server(script, pause=0.0) as server:
        request = _request(server.url, "SendStreamingMessage", Binding.JSONRPC)
        store = HistoryStore.open()
        try:
            recorder = store.recorder(request, source="test")
            events: list[ExchangeEvent] = []
            async for batch in exchange.run_batches(request):
                assert batch  # never empty
                recorder.feed_all(batch)
                events += batch
            assert recorder.close(30)
            exchange_id = recorder.exchange_id
            assert exchange_id is not None
            assert isinstance(events[-1], ExchangeEnd)
            assert sum(isinstance(e, StreamItem) for e in events) == count
            entry = store.entry(exchange_id)
            assert entry is not None
            assert (entry.items, entry.outcome) == (count, "ok")
            assert store.events(exchange_id)[1:] == events[1:]
        finally:
            store.close()


@pytest.mark.peer
@pytest.mark.parametrize("method", ["SendMessage", "SendStreamingMessage"])
async def test_grpc(sdk_peer: dict[str, Any], method: str) -> None:
    request = _request(sdk_peer["grpc_target"], method, Binding.GRPC, "hello")
    store = HistoryStore.open()
    try:
        exchange_id, events = await _send_recorded(store, request)
        assert isinstance(events[-1], ExchangeEnd) and events[-1].outcome is Outcome.OK
        assert store.events(exchange_id) == events
        entry = store.entry(exchange_id)
        assert entry is not None and entry.binding == "GRPC" and entry.method == "gRPC"
        assert har_log([(entry, events)])["log"]["entries"] == []  # HAR is for HTTP bindings
        records = event_records(store.events(exchange_id))
        assert records[0]["event"] == "request" and records[-1]["event"] == "end"
    finally:
        store.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=60)  # fmt: skip


@pytest.mark.peer
def test_cli_records_lists_shows_exports(sdk_peer_token: dict[str, Any], tmp_path: Path) -> None:
    url, token = sdk_peer_token["jsonrpc_url"], sdk_peer_token["token"]
    sent = _cli("send", url, "--method", "SendMessage", "--text", "12 30", "--bearer", token)
    assert sent.returncode == 0, sent.stderr
    quiet = _cli("send", url, "--method", "SendMessage", "--text", "1 2", "--bearer", token,
                 "--no-history")  # fmt: skip
    assert quiet.returncode == 0, quiet.stderr
    listed = _cli("history", "list", "--output", "jsonl")
    assert listed.returncode == 0, listed.stderr
    (entry,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (entry["rpc_method"], entry["outcome"], entry["source"]) == ("SendMessage", "ok", "cli")
    pretty = _cli("history", "list", "--output", "pretty").stdout
    assert pretty.startswith(f"#{entry['id']} ") and "SendMessage (JSONRPC 1.0)" in pretty
    shown = _cli("history", "show", str(entry["id"]))
    assert shown.stdout == sent.stdout  # the very records send printed
    assert _cli("history", "show", "999").returncode == 3
    har_file, jsonl_file = tmp_path / "out.har", tmp_path / "out.jsonl"
    fixture_file = tmp_path / "session.yaml"
    exported = [
        _cli("history", "export", "--format", "har", "--out", str(har_file)),
        _cli("history", "export", str(entry["id"]), "--format", "jsonl", "--out", str(jsonl_file)),
        _cli("history", "export", "--format", "fixture", "--out", str(fixture_file)),
    ]
    assert [e.returncode for e in exported] == [0, 0, 0]
    # It printed nothing on success; now one line says what went where, as other tools do.
    assert [e.stderr for e in exported] == [
        f"history: wrote 1 exchange(s) to {har_file} as HAR 1.2\n",
        f"history: wrote 1 exchange(s) to {jsonl_file} as JSON lines\n",
        f"history: wrote 1 exchange(s) to {fixture_file} as a replay fixture\n",
    ]
    assert _cli("history", "export", "--format", "jsonl", "--out", "-").stderr == ""
    assert "fixture" in _cli("history", "--help").stdout  # it said "HAR 1.2 or JSON lines"
    jsonschema.validate(json.loads(har_file.read_text()), HAR_SCHEMA)
    lines = [json.loads(line) for line in jsonl_file.read_text().splitlines()]
    assert [{k: v for k, v in r.items() if k != "exchange"} for r in lines] == [
        json.loads(line) for line in sent.stdout.splitlines()
    ]
    assert {r["exchange"] for r in lines} == {entry["id"]}
    db_bytes = b"".join(p.read_bytes() for p in history_path().parent.glob("history.sqlite3*"))
    for data in (db_bytes, har_file.read_bytes(), jsonl_file.read_bytes()):
        assert token.encode() not in data


def test_a_big_body_is_stored_whole_through_incremental_blob_writes(tmp_path: Path) -> None:
    body = bytes(range(256)) * (recorder_module._BLOB_STEP // 256 * 3 + 7)  # over 3 MiB
    db = sqlite3.connect(tmp_path / "h.db")
    db.execute(
        "CREATE TABLE events (exchange_id INTEGER, n INTEGER, kind TEXT, t REAL, meta TEXT,"
        " payload BLOB, PRIMARY KEY (exchange_id, n))"
    )
    recorder_module._insert_events(
        db,
        [
            (1, 1, "head", 0.0, "{}", b""),
            (1, 2, "body", 0.1, "{}", body),
            (1, 3, "end", 0.2, "{}", b"x"),
        ],
    )
    rows = db.execute("SELECT n, payload FROM events ORDER BY n").fetchall()
    assert [n for n, _ in rows] == [1, 2, 3]
    assert rows[1][1] == body and rows[2][1] == b"x"
