"""Record against the real demo agent, export a fixture, replay it: our exchange engine and
``send``, the a2a-sdk Python client and the @a2a-js/sdk client get the peer's answers from
the replay; unmatched requests fail loudly on every binding, naming the closest recorded
request; the fixture holds no secret."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
import pytest_asyncio
from a2a.client import ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest
from google.protobuf.json_format import MessageToDict

from app.protocol import exchange
from app.protocol.events import ExchangeError, ExchangeEvent, ResponseBody, ResponseHead, StreamItem
from app.protocol.types import Binding
from tests.peers.fixtures import SDK_PEER_TOKEN
from tests.replay.session import MARKED, REPO, ReplayProcess, Session, record_session, sent

pytestmark = [pytest.mark.peer, pytest.mark.timeout(90)]
JS_CLIENT = REPO / "tests" / "peers" / "js" / "replay_client.mjs"


@pytest.fixture(scope="module")
def session(sdk_peer_token: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Session:
    return asyncio.run(record_session(sdk_peer_token, tmp_path_factory.mktemp("replay")))


@pytest.fixture(scope="module")
def replay(session: Session) -> Iterator[ReplayProcess]:
    process = ReplayProcess(session.fixture, "--speed", "0", env=session.env())
    try:
        yield process
    finally:
        process.stop()


def _answer(events: list[ExchangeEvent]) -> dict[str, Any]:
    """What an exchange got back, in a form to compare (timing left out)."""
    head = next(e for e in events if isinstance(e, ResponseHead))
    body = next((e for e in events if isinstance(e, ResponseBody)), None)
    errors = [e for e in events if isinstance(e, ExchangeError)]
    return {
        "status": head.status,
        "body": _masked(body.body) if body is not None else None,
        "items": [_masked(e.raw) for e in events if isinstance(e, StreamItem)],
        "errors": [(e.code, e.message, e.details) for e in errors],
    }


def _masked(data: bytes) -> bytes:
    """The peer's bytes as the fixture holds them: the marked value redacted."""
    return data.replace(MARKED.encode(), b"****")


def _to_replay(endpoint: str, binding: Binding, replay: ReplayProcess) -> str:
    if binding is Binding.GRPC:
        return str(replay.info["grpc_target"])
    path = httpx.URL(endpoint).path
    return replay.base_url + path


@pytest.mark.parametrize(
    "key",
    [
        "rpc-send",
        "rpc-stream",
        "rest-send",
        "rest-get",
        "rest-stream",
        "grpc-send",
        "grpc-stream",
        "grpc-missing",
        "rpc03-send",
        "grpc03-send",
    ],
)
async def test_exchange_gets_the_peer_answer(
    session: Session, replay: ReplayProcess, key: str
) -> None:
    recorded = session.recorded[key]
    endpoint = _to_replay(recorded.request.endpoint, recorded.request.binding, replay)
    request = dataclasses.replace(recorded.request, endpoint=endpoint)
    events = [event async for event in exchange.run(request)]
    assert _answer(events) == _answer(recorded.events)


def test_fixture_holds_no_secret(session: Session) -> None:
    data = session.fixture.read_bytes()
    assert SDK_PEER_TOKEN.encode() not in data
    assert MARKED.encode() not in data
    assert b"Bearer ****" in data
    assert data.startswith(b"a2aFixture: 1\n")


def test_send_cli_gets_the_streamed_peer_answer(session: Session, replay: ReplayProcess) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", replay.base_url + "/", "--method",
         "SendStreamingMessage", "--text", "stream 3 10", "--no-history"],
        env=session.env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    items = [
        r["data"] for line in proc.stdout.splitlines() if (r := json.loads(line))["event"] == "item"
    ]
    peer = [e.json for e in session.recorded["rpc-stream"].events if isinstance(e, StreamItem)]
    assert [i["result"] for i in items] == [p["result"] for p in peer]


def _peer_results(session: Session, key: str) -> list[Any]:
    events = session.recorded[key].events
    raws = [e.body if isinstance(e, ResponseBody) else e.raw for e in events
            if isinstance(e, (ResponseBody, StreamItem))]  # fmt: skip
    values = [json.loads(_masked(r).removeprefix(b"data: ")) for r in raws]
    if session.recorded[key].request.binding is Binding.GRPC:
        return values
    return [v.get("result", v) for v in values]


def _host_port_channel(url: str) -> grpc.aio.Channel:
    """a2a-sdk 1.3.0 hands the card's gRPC url to the factory as is; grpc takes host:port,
    not the absolute URL (``http://host:port``) the 1.0 proto asks cards for."""
    return grpc.aio.insecure_channel(url.split("://", 1)[-1].rstrip("/"))


@pytest.mark.parametrize(
    ("binding", "text", "key", "streaming"),
    [
        ("JSONRPC", "12 30", "rpc-send", False),
        ("JSONRPC", "stream 3 10", "rpc-stream", True),
        ("HTTP+JSON", f"5 5 {MARKED}", "rest-send", False),
        ("GRPC", "2 2", "grpc-send", False),
        ("GRPC", "stream 2 10", "grpc-stream", True),
    ],
)
async def test_python_sdk_client_gets_the_peer_answer(
    session: Session, replay: ReplayProcess, binding: str, text: str, key: str, streaming: bool
) -> None:
    async with httpx.AsyncClient() as http:
        config = ClientConfig(
            streaming=streaming,
            supported_protocol_bindings=[binding],
            httpx_client=http,
            grpc_channel_factory=_host_port_channel,
        )
        client = await ClientFactory(config).create_from_url(replay.base_url)
        message = Message(
            role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=text)]
        )
        try:
            answers = [
                MessageToDict(r)
                async for r in client.send_message(SendMessageRequest(message=message))
            ]
        finally:
            await client.close()
    assert answers == _peer_results(session, key)


def _node() -> str:
    node = shutil.which("node")
    if node is None or not (JS_CLIENT.parent / "node_modules" / "@a2a-js").is_dir():
        pytest.skip("node or the @a2a-js/sdk packages are missing")
    return node


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        if value.get("$case") == "text":
            return [str(value["value"])]
        if isinstance(value.get("text"), str):
            return [value["text"]]
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


@pytest.mark.parametrize(
    ("binding", "text", "key", "streaming"),
    [
        ("JSONRPC", "12 30", "rpc-send", False),
        ("JSONRPC", "stream 3 10", "rpc-stream", True),
        ("HTTP+JSON", f"5 5 {MARKED}", "rest-send", False),
        ("GRPC", "2 2", "grpc-send", False),
    ],
)
def test_js_sdk_client_gets_the_peer_answer(
    session: Session, replay: ReplayProcess, binding: str, text: str, key: str, streaming: bool
) -> None:
    args = [
        _node(),
        str(JS_CLIENT),
        replay.base_url,
        binding,
        text,
        *(["--stream"] if streaming else []),
    ]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = [_texts(json.loads(line)) for line in proc.stdout.splitlines()]
    assert got == [_texts(value) for value in _peer_results(session, key)]
    assert any(got)


async def test_unmatched_jsonrpc_names_the_closest(session: Session, replay: ReplayProcess) -> None:
    body = json.loads(sent(session.recorded["rpc-send"]).body)
    body["params"]["message"]["parts"][0]["text"] = "12 31"
    async with httpx.AsyncClient() as client:
        answer = (await client.post(replay.base_url + "/", json=body)).json()
        body["method"] = "CancelTask"
        never = (await client.post(replay.base_url + "/", json=body)).json()
    error = answer["error"]
    assert answer["id"] == body["id"] and error["code"] == -32099
    name = f"#{session.recorded['rpc-send'].entry_id} SendMessage"
    assert (
        name in error["message"]
        and 'text differs: recorded ["12 30"], got ["12 31"]' in error["message"]
    )
    assert error["data"]["differences"] == [
        {"field": "text", "recorded": ["12 30"], "got": ["12 31"]}
    ]
    assert never["error"]["code"] == -32601


async def test_unmatched_rest_is_a_problem(session: Session, replay: ReplayProcess) -> None:
    async with httpx.AsyncClient() as client:
        wrong_task = await client.get(replay.base_url + "/rest/tasks/other-task")
        no_route = await client.post(replay.base_url + "/rest/tasks/x:cancel", json={})
    assert wrong_task.status_code == 400
    assert wrong_task.headers["content-type"] == "application/problem+json"
    problem = wrong_task.json()
    assert f"#{session.recorded['rest-get'].entry_id} GetTask" in problem["detail"]
    assert [d["field"] for d in problem["differences"]] == ["task"]
    assert no_route.status_code == 404 and "closest recorded request" in no_route.json()["detail"]


async def test_unmatched_grpc_names_the_closest(session: Session, replay: ReplayProcess) -> None:
    recorded = session.recorded["grpc-missing"]
    target = str(replay.info["grpc_target"])
    other = dataclasses.replace(recorded.request, endpoint=target, body='{"id": "other"}')
    events = [e async for e in exchange.run(other)]
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    assert error.code == "NOT_FOUND"
    assert (
        f"#{recorded.entry_id} GetTask" in error.message
        and 'task differs: recorded "nope", got "other"' in error.message
    )
    cancel = dataclasses.replace(other, method="CancelTask")
    events = [e async for e in exchange.run(cancel)]
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    assert error.code == "UNIMPLEMENTED" and "closest recorded request" in error.message


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


async def test_card_points_at_the_replay(replay: ReplayProcess, http: httpx.AsyncClient) -> None:
    card = (await http.get(replay.info["card_url"])).json()
    urls = {
        i["protocolBinding"]: i["url"]
        for i in card["supportedInterfaces"]
        if i["protocolVersion"] == "1.0"
    }
    assert urls["JSONRPC"].startswith(replay.base_url) and urls["HTTP+JSON"].startswith(
        replay.base_url
    )
    assert urls["GRPC"].endswith(str(replay.info["grpc_target"]))
    assert "signatures" not in card
    listed = {(i["binding"], i["version"], i["url"]) for i in replay.info["interfaces"]}
    assert ("JSONRPC", "1.0", urls["JSONRPC"]) in listed and ("GRPC", "1.0", urls["GRPC"]) in listed


def test_hand_edited_fixture_is_served_with_its_timing(session: Session, tmp_path: Path) -> None:
    import yaml

    document = yaml.safe_load(session.fixture.read_text(encoding="utf-8"))
    first, stream = document["exchanges"][0], document["exchanges"][1]
    first["response"]["body"] = first["response"]["body"].replace("Sum: 42", "Sum: 43")
    for i, frame in enumerate(stream["response"]["sse"]):
        frame["t"] = 0.2 + 0.2 * i
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    replay = ReplayProcess(edited, "--speed", "2", env=session.env())
    try:
        base = replay.base_url
        with httpx.Client() as client:
            body = json.loads(sent(session.recorded["rpc-send"]).body)
            answer = client.post(base + "/", json=body).json()
            assert answer["result"]["message"]["parts"][0]["text"] == "Sum: 43"
            stream_body = json.loads(sent(session.recorded["rpc-stream"]).body)
            with client.stream("POST", base + "/", json=stream_body) as response:
                frames = list(response.iter_lines())
            elapsed = response.elapsed.total_seconds()
    finally:
        status, records, err = replay.stop()
    last = 0.2 + 0.2 * (len(stream["response"]["sse"]) - 1)
    assert elapsed >= last / 2 - 0.05, (elapsed, last)
    assert sum(1 for f in frames if f.startswith("data:")) == len(stream["response"]["sse"])
    assert status == 0, err
    assert [r["event"] for r in records] == ["served", "served"]


def test_run_cli_gets_the_peer_answers(
    session: Session, replay: ReplayProcess, tmp_path: Path
) -> None:
    from app.spec.document import SpecDocument
    from app.spec.xa2a import SavedRequest

    doc = SpecDocument.new(path=tmp_path / "requests.yaml")
    for key, endpoint in (("rpc-send", "{{baseUrl}}/"), ("grpc-stream", "{{grpcTarget}}")):
        request = session.recorded[key].request
        doc.upsert(SavedRequest(key, request.version, request.binding, endpoint, request.method,
                                request.body, operation_id=key))  # fmt: skip
    doc.save()
    grpc_target = replay.info["grpc_target"]
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", str(doc.path), "--no-history",
         "--var", f"baseUrl={replay.base_url}", "--var", f"grpcTarget={grpc_target}"],
        env=session.env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    body = next(
        r["body"] for r in records if r["event"] == "response" and r["operation"] == "rpc-send"
    )
    assert body["result"] == _peer_results(session, "rpc-send")[0]
    items = [r["data"] for r in records if r["event"] == "item" and r["operation"] == "grpc-stream"]
    assert items == _peer_results(session, "grpc-stream")
