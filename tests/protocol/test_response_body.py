"""Big response bodies: their parsed value can be let go and is parsed again on demand;
small ones are plain ResponseBody events as before."""

from __future__ import annotations

import asyncio
import dataclasses
import json

from app.protocol.events import KEEP_VALUE_BYTES, NOT_JSON, BigResponseBody, ResponseBody
from app.protocol.net.http import body_event, parse_body
from app.spec.assertions import Assertion, AssertionOp, Observed, capture, evaluate


def _big() -> bytes:
    items = [{"artifactId": f"a{i}", "parts": [{"text": "x" * 100}]} for i in range(12_000)]
    task = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
    body = {"jsonrpc": "2.0", "id": 1, "result": {"task": {**task, "artifacts": items}}}
    return json.dumps(body).encode()


def test_a_big_body_lets_its_value_go_and_parses_it_again() -> None:
    body = _big()
    assert len(body) > KEEP_VALUE_BYTES
    event = body_event(1.0, body, "application/json", *asyncio.run(parse_body(body)))
    assert type(event) is BigResponseBody and isinstance(event, ResponseBody)
    assert event.is_json and not event.released and event.info is not None
    value = event.json
    assert event.json is value  # held: the same object
    assert event.release() is value
    del value
    assert event.released and event.is_json
    assert event.json == json.loads(body) and event.json is not event.json  # parsed anew
    assert event.release() is NOT_JSON  # nothing left to hand over
    # Copies (masking) stay big bodies.
    copy = dataclasses.replace(event, json={"a": 1})
    assert type(copy) is BigResponseBody and copy.json == {"a": 1} and copy.is_json


def test_a_big_body_that_is_not_json_and_a_small_body() -> None:
    junk = b"<html>" + b"x" * KEEP_VALUE_BYTES
    event = body_event(0.5, junk, "text/html", *asyncio.run(parse_body(junk)))
    assert type(event) is BigResponseBody and not event.is_json
    assert event.json is NOT_JSON and event.json_error
    assert event.release() is NOT_JSON and event.json is NOT_JSON
    small = body_event(0.5, b'{"a": 1}', "application/json", {"a": 1}, "", None)
    assert type(small) is ResponseBody and small.is_json and small.json == {"a": 1}


def test_assertions_and_captures_on_a_released_big_body() -> None:
    body = _big()
    event = body_event(1.0, body, "application/json", *asyncio.run(parse_body(body)))
    observed = Observed()
    observed.feed(event)
    assert observed.document is NOT_JSON and observed.big_body is event  # no value kept
    assert observed.final_state == "completed"
    event.release()
    checks = [
        Assertion("/result/task/artifacts/11999/artifactId", AssertionOp.EQUALS, "a11999"),
        Assertion("/result/task/id", AssertionOp.EQUALS, "nope"),
    ]
    results = evaluate(checks, observed)
    assert [r.passed for r in results] == [True, False]
    assert capture({"task": "/result/task/id"}, observed) == ({"task": "t1"}, [])
    plain = Observed()
    plain.feed(ResponseBody(1.0, body, "application/json", json.loads(body)))
    assert [r.passed for r in evaluate(checks, plain)] == [True, False]
    assert [r.message for r in evaluate(checks, plain)] == [r.message for r in results]
