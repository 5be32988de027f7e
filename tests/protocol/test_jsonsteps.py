"""Parsing in bounded steps gives the very value orjson gives, or says it cannot."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import orjson
import pytest

from app.protocol.events import NOT_JSON
from app.protocol.wire import jsonsteps
from app.protocol.wire.jsonparse import parse_json


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 5 or roll < 0.3:
        return rng.choice([1, -2.5, 'a,}"]{[', "", None, True, 12345678901, "é€😀", [], {}])
    if roll < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 8))]
    keys = ["a", ',"{', "ü", *(f"k{i}" for i in range(20))]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 8))}


@pytest.mark.parametrize("step", [16, 64, 400])
def test_random_values_parse_to_what_orjson_gives(step: int) -> None:
    rng = random.Random(step)
    parsed = 0
    for _ in range(400):
        value = _random_value(rng)
        text = json.dumps(value, indent=rng.choice([None, 2]), ensure_ascii=False).encode()
        try:
            got = jsonsteps.loads(text, step)
        except jsonsteps.NotStepwise:
            continue
        parsed += 1
        assert orjson.dumps(got) == orjson.dumps(orjson.loads(text))
    assert parsed > 100


def test_a_big_array_of_objects_is_parsed_in_groups() -> None:
    text = json.dumps(
        {
            "result": {
                "artifacts": [{"id": f"a{i}", "parts": [{"text": "x, {y}"}]} for i in range(3000)]
            }
        }
    ).encode()
    parser = jsonsteps._Parser(text, 4096)
    value, end = parser.value(0)
    assert value == orjson.loads(text) and end == len(text)
    assert parser.singles < 60  # members were read in groups, not one by one


@pytest.mark.parametrize(
    "text", [b"[1,2,]", b'{"a":1,}', b"[1 2]", b'{"a" 1}', b'{"a":[1,2}', b"[" + b"1," * 50 + b"]"]
)
def test_not_json_is_never_parsed(text: bytes) -> None:
    with pytest.raises(jsonsteps.NotStepwise):
        jsonsteps.loads(text, 4)


def test_a_big_body_parses_as_before_and_errors_read_the_same() -> None:
    body = json.dumps([{"n": i, "s": "é" * 50} for i in range(40_000)]).encode()
    assert len(body) > 2 * jsonsteps.STEP_BYTES
    assert parse_json(body) == (orjson.loads(body), "")
    broken = body[:-1] + b",]"
    assert parse_json(broken) == parse_json(broken.decode())  # the standard library's words
    assert parse_json(broken)[1].startswith("line 1, column")


def test_a_big_body_is_classified_in_the_worker_with_its_parse() -> None:
    import asyncio

    from app.protocol.net.http import parse_body
    from app.protocol.stream.stream_items import classify_json

    task = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}
    task["artifacts"] = [
        {"artifactId": f"a{i}", "parts": [{"text": "x" * 40}]} for i in range(20_000)
    ]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"task": task}}).encode()
    value, error, info = asyncio.run(parse_body(body))
    assert error == "" and value == orjson.loads(body)
    assert info == classify_json(value) and info.task_id == "t1"
    small = asyncio.run(parse_body(b'{"jsonrpc": "2.0", "id": 1, "result": {}}'))
    assert small[2] is None  # classified where it is used: cheap


@pytest.mark.parametrize("depth", [250, 400, 1100])
def test_a_big_body_nested_deeply_is_refused_with_a_reason_not_an_exception(depth: int) -> None:
    # Each level bigger than a step: parsed in steps, every level is a few Python frames.
    body = b"[" * depth + b'"' + b"x" * (3 * jsonsteps.STEP_BYTES) + b'"' + b"]" * depth
    with pytest.raises(jsonsteps.NotStepwise):
        jsonsteps.loads(body)
    assert parse_json(body) == (NOT_JSON, parse_json(b"[" * depth + b"]" * depth)[1])
    assert "nested too deeply" in parse_json(body)[1]


def test_nesting_within_the_bound_still_parses_in_steps() -> None:
    body = b'{"a": ' * 60 + b"[" + b'"xy", ' * 400 + b"1]" + b"}" * 60
    assert jsonsteps.loads(body, 64) == orjson.loads(body)


@pytest.mark.parametrize(
    "body",
    [
        b"[" + b" " * (16 << 20) + b"1]",
        b"\n" * (16 << 20) + b'{"a": [1, 2]}' + b"\r\n\t " * (1 << 18),
        b'{"k": [' + b'"xyz", ' * (1 << 19) + b"1]" + b" " * (12 << 20) + b"}",
    ],
    ids=["in an array", "around the document", "before a closing brace"],
)
def test_long_runs_of_whitespace_are_skipped_in_c(body: bytes) -> None:
    started = time.perf_counter()
    value = jsonsteps.loads(body)
    elapsed = time.perf_counter() - started
    assert value == orjson.loads(body)
    assert elapsed < 0.4, f"{elapsed * 1000:.0f} ms for {len(body) >> 20} MiB"  # was 1.5 s
