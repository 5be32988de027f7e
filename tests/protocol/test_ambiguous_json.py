"""Ambiguous JSON (issue 29, kind 4): duplicate member names are named by path and line
wherever the client reads JSON it acts on (cards, unary answers), a signature over an
ambiguous card is never valid, and a success response's ``id`` follows JSON-RPC 2.0 §5."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from app.protocol import exchange
from app.protocol.card.card_json import parse_card_json
from app.protocol.card.card_shape import Severity as CardSeverity
from app.protocol.card.read import examine, read_bytes
from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
)
from app.protocol.findings import Severity
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.json_duplicates import (
    MAX_REPORTED,
    DuplicateMember,
    duplicates_in,
    locate,
    may_have_duplicates,
)
from app.protocol.wire.jsonrpc_envelope import RpcMalformed, RpcResult, classify_response
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.sse_server import sse_server
from tests.protocol.test_matrix import body_for, endpoint

MESSAGE = {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}}

# --- finding them ------------------------------------------------------------------------


def test_locate_names_path_and_lines_of_every_duplicate() -> None:
    text = (
        '{"a": 1,\n'
        ' "b": [{"x": 1, "x": 2}, {"x": 3}],\n'
        ' "s": "not a \\"name\\": here", "odd key": 1,\n'
        ' "a": {"c": 1}, "odd key": 2}'
    )
    assert locate(text) == (
        DuplicateMember("a", (1, 4)),
        DuplicateMember("b[0].x", (2, 2)),
        DuplicateMember('["odd key"]', (3, 4)),
    )
    assert locate(text)[2].json_path() == '$["odd key"]'
    assert locate(text)[0].describe().startswith("member name written twice in one object")
    assert "lines 1 and 4" in locate(text)[0].describe()


def test_a_hostile_name_is_shown_escaped() -> None:
    (found,) = locate('{"\\u001b[2J": 1, "\\u001b[2J": 2}')
    assert "\x1b" not in found.path and "\\u001b[2J" in found.path


def test_only_the_first_duplicates_are_named() -> None:
    text = "[" + ",".join('{"k": 1, "k": 2}' for _ in range(MAX_REPORTED + 5)) + "]"
    assert len(locate(text)) == MAX_REPORTED


@pytest.mark.parametrize(
    "text",
    [
        b'{"id": 1, "id": 2}',
        b'{"id" : 1, "id"\n: 2}',  # whitespace between the name and the colon
        b'{"a": {"id":\t1, "id"\r\n  :2}}',
        b'{"t": "x\\": y", "id": 1, "id": 2}',  # a colon after a quote inside a string
    ],
)
def test_the_cheap_check_never_misses_a_duplicate(text: bytes) -> None:
    value = orjson.loads(text)
    assert may_have_duplicates(text, value)
    assert [d.path for d in duplicates_in(text, value)][-1].endswith("id")


def test_the_usual_answer_costs_a_count_and_finds_nothing() -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": "1", "result": {"task": {"id": "t"}}}).encode()
    assert not may_have_duplicates(text, json.loads(text))
    tricky = b'{"text": "a \\"quoted\\": colon"}'  # counts more name ends than members
    assert may_have_duplicates(tricky, orjson.loads(tricky))
    assert duplicates_in(tricky, orjson.loads(tricky)) == ()


# --- cards ------------------------------------------------------------------------------


def test_a_card_with_a_duplicate_is_an_error_naming_path_and_lines() -> None:
    raw = b'{"name": "Evil",\n "name": "Good",\n "skills": [{"id": "a",\n "id": "b"}]}'
    value, failure, duplicates = parse_card_json(raw)
    assert failure is None and value["name"] == "Good"
    assert duplicates == (DuplicateMember("name", (1, 2)), DuplicateMember("skills[0].id", (3, 4)))
    problems = [p for p in examine(read_bytes(raw, "card.json")).problems if "twice" in p.message]
    assert [(p.path, p.severity) for p in problems] == [
        ("name", CardSeverity.ERROR),
        ("skills[0].id", CardSeverity.ERROR),
    ]
    assert "lines 1 and 2" in problems[0].message


# --- JSON-RPC answers -------------------------------------------------------------------


async def _run(body: bytes, binding: Binding = Binding.JSONRPC, **request: Any) -> list[Any]:
    with bad_server(Canned(body=body)) as url:
        method = request.pop("method", "SendMessage")
        text = request.pop("text", body_for(ProtocolVersion.V1_0, binding, method, text="hi"))
        req = A2ARequest(url, method, text, binding=binding, timeout=5, **request)
        return [event async for event in exchange.run(req)]


def _findings(events: list[Any], rule: str) -> list[Any]:
    return [e.finding for e in events if isinstance(e, ExchangeFinding) and e.finding.rule == rule]


async def test_a_unary_answer_with_a_duplicate_member_is_a_finding_with_path_and_line() -> None:
    body = (
        b'{"jsonrpc": "2.0",\n "id": null,\n "result": '
        + json.dumps(MESSAGE).encode()
        + b',\n "jsonrpc": "2.0"}'
    )
    events = await _run(body)
    (found,) = _findings(events, "duplicate-member")
    assert found.path == "$.jsonrpc" and found.severity is Severity.ERROR
    assert "lines 1 and 4" in found.message and found.spec.startswith("RFC 8259 §4")


async def test_a_second_id_is_named_beside_the_null_id_it_hides() -> None:
    # The first id is the request's, the last (what this client reads) null: a first-wins
    # parser takes the answer for the request's, this one sees a null id.
    body = b'{"jsonrpc": "2.0", "id": "mine", "id": null, "result": ' + json.dumps(MESSAGE).encode()
    events = await _run(body + b"}")
    assert [f.path for f in _findings(events, "duplicate-member")] == ["$.id"]
    assert _findings(events, "null-id")


async def test_a_rest_answer_with_a_duplicate_member_is_a_finding() -> None:
    body = b'{"message": {"messageId": "m", "messageId": "n", "role": "ROLE_AGENT", "parts": []}}'
    events = await _run(body, Binding.HTTP_JSON)
    (found,) = _findings(events, "duplicate-member")
    assert found.path == "$.message.messageId"


@pytest.mark.peer
@pytest.mark.parametrize("peer", ["sdk_peer", "js_peer"])
@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON])
@pytest.mark.parametrize("method", ["SendMessage", "ListTasks"])
async def test_real_peers_answers_have_no_duplicate_members(
    peer: str, binding: Binding, method: str, request: pytest.FixtureRequest
) -> None:
    info = request.getfixturevalue(peer)
    body = body_for(ProtocolVersion.V1_0, binding, method, text="12 30")
    req = A2ARequest(endpoint(info, binding), method, body, binding=binding, timeout=15)
    events = [event async for event in exchange.run(req)]
    assert events[-1].outcome is Outcome.OK, events
    assert _findings(events, "duplicate-member") == []


# --- the id of a success response (JSON-RPC 2.0 §5) ---------------------------------------


@pytest.mark.parametrize(
    ("answered", "request_id", "same"),
    [
        (True, 1, False),  # Python's True == 1
        (False, 0, False),
        ("1", 1, False),
        (1.0, 1, True),  # the same JSON number
        ("abc", "abc", True),
    ],
)
def test_a_success_id_must_be_the_requests_own_json_value(
    answered: Any, request_id: Any, same: bool
) -> None:
    outcome = classify_response({"jsonrpc": "2.0", "id": answered, "result": {}}, request_id)
    assert isinstance(outcome, RpcResult if same else RpcMalformed)
    if not same:
        assert isinstance(outcome, RpcMalformed) and "JSON-RPC 2.0 §5" in outcome.reason


async def test_a_unary_answer_to_another_id_is_a_protocol_error() -> None:
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": True, "result": MESSAGE}).encode()
    events = await _run(body, text=json.dumps(envelope))
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    assert "response id true is not the request's id 1" in error.message
    assert isinstance(events[-1], ExchangeEnd)
    assert events[-1].outcome is Outcome.PROTOCOL_ERROR


async def test_a_stream_item_to_another_id_is_a_protocol_error() -> None:
    item = json.dumps({"jsonrpc": "2.0", "id": True, "result": MESSAGE}).encode()
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
    with sse_server([b"data: " + item + b"\n\n"]) as srv:
        req = A2ARequest(srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5)
        events = [event async for event in exchange.run(req)]
    errors = [e.message for e in events if isinstance(e, ExchangeError)]
    assert any("response id true is not the request's id 1" in m for m in errors), errors
