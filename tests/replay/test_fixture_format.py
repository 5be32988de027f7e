"""The fixture format without a network: YAML and JSON hold the same data byte for byte,
bad files are refused naming the field, ids are made stable consistently, matching modes,
the card a replay serves, and the export command's inputs."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.commands import history
from app.history.store import HistoryStore
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.protocol.request import A2ARequest
from app.replay.answers import with_request_id
from app.replay.fixture import (
    Answer,
    Fixture,
    FixtureError,
    Frame,
    GrpcMessage,
    RecordedExchange,
    dumps,
    from_document,
    load,
    to_document,
)
from app.replay.matching import Matcher, grpc_shape, http_shape
from app.replay.replay_card import served_card
from app.replay.stable_ids import stable_ids
from tests.replay.session import REPO

TASK = "0f9c2a8e-1111-4d4e-9a61-5f8cde0a1b2c"
CONTEXT = "7d0e1f6a-2222-4c1b-8f9e-a1b2c3d4e5f6"


def _rpc(method: str, params: dict[str, Any], rid: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def _send(text: str, answer: bytes = b'{"jsonrpc":"2.0","id":1,"result":{}}') -> RecordedExchange:
    params = {"message": {"messageId": "msg-0001", "role": "ROLE_USER", "parts": [{"text": text}]}}
    return RecordedExchange(
        f"send {text}",
        "JSONRPC",
        "1.0",
        "SendMessage",
        False,
        "POST",
        "/",
        (),
        _rpc("SendMessage", params),
        Answer(0.01, 200, "OK", (("content-type", "application/json"),), body=answer, end=0.02),
    )


def _sample() -> Fixture:
    task = {"id": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_WORKING"}}
    frame = b'data: {"result": {"task": ' + json.dumps(task).encode() + b"}}\r\n\r\n"
    stream = RecordedExchange(
        "stream",
        "JSONRPC",
        "1.0",
        "SendStreamingMessage",
        True,
        "POST",
        "/",
        (("Accept", "text/event-stream"),),
        _rpc("SendStreamingMessage", {"message": {"parts": [{"text": "stream 1"}]}}),
        Answer(
            0.02, 200, "OK", (), frames=(Frame(0.03, frame), Frame(0.05, b": ping  \n\n")), end=0.06
        ),
    )
    binary = RecordedExchange(
        "rest get",
        "HTTP+JSON",
        "1.0",
        "GetTask",
        False,
        "GET",
        f"/rest/tasks/{TASK}?historyLength=2",
        (),
        b"",
        Answer(0.01, 200, "OK", (), body=b"\xff\xfe not utf-8 \x00", end=0.01),
    )
    grpc = RecordedExchange(
        "grpc get",
        "GRPC",
        "0.3",
        "GetTask",
        False,
        "gRPC",
        "/a2a.v1.A2AService/GetTask",
        (("a2a-version", "0.3"),),
        json.dumps({"name": f"tasks/{TASK}"}).encode(),
        Answer(
            0.01,
            0,
            "",
            (),
            messages=(GrpcMessage(0.02, {"id": TASK, "contextId": CONTEXT}),),
            grpc_status="OK",
            trailers=(("x-trace-bin", "AAE="),),
            end=0.03,
        ),
    )
    card = {
        "name": "Agent",
        "supportedInterfaces": [
            {"url": "http://agent.example:8000/", "protocolBinding": "JSONRPC"}
        ],
    }
    return Fixture((_send("Grüße 12 30\n"), stream, binary, grpc), card, "test")


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_both_spellings_keep_every_byte(fmt: str, tmp_path: Path) -> None:
    fixture = _sample()
    path = tmp_path / f"f.{fmt}"
    path.write_text(dumps(to_document(fixture), fmt), encoding="utf-8")
    assert load(path) == fixture
    text = path.read_text(encoding="utf-8")
    assert "bodyBase64" in text and "Grüße" in text


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(a2aFixture=2), "a2aFixture: version 2 is not supported"),
        (lambda d: d["exchanges"][0].pop("method"), "exchanges[0].method: missing"),
        (lambda d: d["exchanges"][1]["response"].pop("sse"), "exchanges[1].response: needs body"),
        (
            lambda d: d["exchanges"][2]["response"].update(bodyBase64="%%%"),
            "bodyBase64: not base64",
        ),
        (
            lambda d: d["exchanges"][0]["response"].update(status="200"),
            "response.status: expected an integer",
        ),
        (lambda d: d["exchanges"][0].update(binding="SOAP"), "'SOAP' is not JSONRPC"),
    ],
)
def test_a_bad_document_names_the_field(change: Any, words: str) -> None:
    document = json.loads(json.dumps(to_document(_sample())))
    change(document)
    with pytest.raises(FixtureError, match=words.replace("[", r"\[").replace("]", r"\]")):
        from_document(document)


def test_replay_refuses_a_bad_file_with_exit_3(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a2aFixture: 1\nexchanges:\n- binding: JSONRPC\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "app", "replay", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 3
    assert "exchanges[0].request: missing" in proc.stderr and proc.stdout == ""


def test_stable_ids_replace_every_occurrence_consistently() -> None:
    fixture = stable_ids(_sample())
    text = dumps(to_document(fixture), "json")
    assert TASK not in text and CONTEXT not in text
    rest, grpc = fixture.exchanges[2], fixture.exchanges[3]
    assert rest.path == "/rest/tasks/task-1?historyLength=2"
    assert json.loads(grpc.body) == {"name": "tasks/task-1"}
    assert grpc.answer.messages[0].json == {"id": "task-1", "contextId": "context-1"}
    assert b'"id": "task-1", "contextId": "context-1"' in fixture.exchanges[1].answer.frames[0].data
    assert json.loads(fixture.exchanges[0].body)["params"]["message"]["messageId"] == "message-1"


def test_matching_modes_order_and_redacted_values() -> None:
    exchanges = (_send("12 30", b"first"), _send("12 30", b"second"), _send("name ****"))
    matcher = Matcher(exchanges)
    shape = http_shape(
        "POST",
        "/",
        _rpc("SendMessage", {"message": {"messageId": "x", "parts": [{"text": "12 30"}]}}, "r9"),
    )
    assert [matcher.match(shape).index for _ in range(3)] == [
        0,
        1,
        1,
    ]  # in order, then the last again
    secret = http_shape(
        "POST", "/", _rpc("SendMessage", {"message": {"parts": [{"text": "name Alice"}]}})
    )
    assert matcher.match(secret).index == 2
    other = http_shape("POST", "/", _rpc("SendMessage", {"message": {"parts": [{"text": "1 1"}]}}))
    verdict = matcher.match(other)
    assert verdict.index is None and verdict.closest == 0
    assert [str(d) for d in verdict.differences] == [
        'text differs: recorded ["12 30"], got ["1 1"]'
    ]
    assert Matcher(exchanges, "method").match(other).index == 0
    extra = http_shape(
        "POST",
        "/",
        _rpc("SendMessage", {"message": {"parts": [{"text": "12 30"}]}, "configuration": {}}),
    )
    assert Matcher(exchanges, "method+params").match(extra).index is None
    assert Matcher(exchanges).match(extra).index == 0


def test_grpc_and_rest_shapes() -> None:
    assert grpc_shape("/a2a.v1.A2AService/GetTask", {"name": "tasks/t1"}).task == "t1"
    rest = http_shape("POST", "/rest/tasks/t%201:cancel", b"")
    assert (rest.binding, rest.method, rest.task) == (
        "HTTP+JSON",
        "POST /rest/tasks/{id}:cancel",
        "t 1",
    )


def test_the_client_request_id_replaces_the_recorded_one() -> None:
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"id": 1, "n": 10}}'
    assert (
        with_request_id(answer, 1, "abc")
        == b'{"jsonrpc":"2.0","id":"abc","result":{"id": "abc", "n": 10}}'
    )
    assert with_request_id(b'{"id":"r1","x":"r1"}', "r1", 7) == b'{"id":7,"x":"r1"}'


def test_card_interfaces_point_at_the_replay() -> None:
    card03 = {
        "name": "Old",
        "url": "http://agent.example/a2a",
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": "agent.example:50051", "transport": "GRPC"}],
        "signatures": [{"protected": "x", "signature": "y"}],
    }
    served = served_card(Fixture((), card03), "http://127.0.0.1:9", "127.0.0.1:10")
    assert served["url"] == "http://127.0.0.1:9/a2a" and "signatures" not in served
    assert served["additionalInterfaces"][0]["url"] == "127.0.0.1:10"
    made = served_card(Fixture(_sample().exchanges), "http://127.0.0.1:9", "127.0.0.1:10")
    assert {(i["protocolBinding"], i["url"]) for i in made["supportedInterfaces"]} == {
        ("JSONRPC", "http://127.0.0.1:9/"),
        ("HTTP+JSON", "http://127.0.0.1:9/rest"),
        ("GRPC", "127.0.0.1:10"),
    }


def _store_with_entries() -> tuple[int, int]:
    store = HistoryStore.open()
    try:
        request = A2ARequest("http://127.0.0.1:9/", "SendMessage", "{}")
        ok = store.recorder(request, source="test")
        for event in (
            RequestSent(
                0.0,
                "POST",
                "http://127.0.0.1:9/",
                (("Cookie", "sid=abc12345"),),
                _rpc("SendMessage", {}),
                "SendMessage",
            ),
            ResponseHead(0.01, 200, "OK", "HTTP/1.1", (("Set-Cookie", "sid=abc12345"),)),
            ResponseBody(0.02, b'{"jsonrpc":"2.0","id":1,"result":{}}', "application/json"),
            ExchangeEnd(0.03, Outcome.OK),
        ):
            ok.feed(event)
        refused = store.recorder(request, source="test")
        refused.feed(RequestSent(0.0, "POST", "http://127.0.0.1:9/", (), b"{}", "SendMessage"))
        refused.feed(ExchangeError(0.01, ErrorKind.TRANSPORT, "refused"))
        refused.feed(ExchangeEnd(0.01, Outcome.TRANSPORT_ERROR))
        assert ok.close(10) and refused.close(10)
        assert ok.exchange_id is not None and refused.exchange_id is not None
        return ok.exchange_id, refused.exchange_id
    finally:
        store.close()


def test_history_export_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok, refused = _store_with_entries()
    out = tmp_path / "f.yaml"
    assert (
        history.main(["export", str(ok), str(refused), "--format", "fixture", "--out", str(out)])
        == 0
    )
    assert "has no answer to replay; left out" in capsys.readouterr().err
    fixture = load(out)
    assert [x.name for x in fixture.exchanges] == [f"#{ok} SendMessage"]
    assert b"abc12345" not in out.read_bytes()
    bad_card = tmp_path / "card.json"
    bad_card.write_text("[1]", encoding="utf-8")
    args = ["export", str(ok), "--format", "fixture", "--out", str(out), "--card", str(bad_card)]
    assert history.main(args) == 3
    assert "an Agent Card is a JSON object" in capsys.readouterr().err
    assert history.main(["export", str(ok), "--format", "fixture", "--out", "-"]) == 0
    assert capsys.readouterr().out.startswith("a2aFixture: 1\n")


def _replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", "replay", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def test_replay_refuses_a_message_its_rpc_cannot_hold(tmp_path: Path) -> None:
    document = to_document(_sample())
    document["exchanges"][3]["response"]["messages"][0]["json"] = {"colour": "blue"}
    path = tmp_path / "f.json"
    path.write_text(dumps(document, "json"), encoding="utf-8")
    proc = _replay(str(path))
    assert proc.returncode == 3
    assert "exchanges[3].response.messages[0].json: not a a2a.v1.Task" in proc.stderr


def test_replay_on_a_busy_port_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(dumps(to_document(_sample()), "yaml"), encoding="utf-8")
    with socket.create_server(("127.0.0.1", 0)) as busy:
        proc = _replay(str(path), "--port", str(busy.getsockname()[1]))
    assert proc.returncode == 1 and proc.stderr.startswith("replay: cannot listen on 127.0.0.1:")


def test_fixture_flags_need_the_fixture_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert history.main(["export", "--format", "har", "--out", "-", "--stable-ids"]) == 3
    assert "--stable-ids: only with --format fixture" in capsys.readouterr().err
