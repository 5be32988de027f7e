"""Hostile requests and fixtures against the replay server: bounded, never a crash."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from app.protocol.secrets import MASK
from app.replay.answers import Replay
from app.replay.fixture import Answer, Fixture, FixtureError, RecordedExchange, load
from app.replay.http_app import MAX_BODY_BYTES, build_http_app
from app.replay.matching import Matcher, same


def _send() -> RecordedExchange:
    params = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params})
    answer = Answer(0.0, 200, "OK", (("content-type", "application/json"),),
                    body=b'{"jsonrpc":"2.0","id":1,"result":{}}', end=0.0)  # fmt: skip
    return RecordedExchange("send", "JSONRPC", "1.0", "SendMessage", False, "POST", "/", (),
                            body.encode(), answer)  # fmt: skip


def _client() -> httpx.AsyncClient:
    fixture = Fixture((_send(),))
    replay = Replay(fixture, Matcher(fixture.exchanges), 0.0, lambda record: None)
    app = build_http_app(replay, dict)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://replay")


async def test_a_body_above_the_bound_is_413() -> None:
    async with _client() as client:
        big = await client.post("/", content=b"x" * (MAX_BODY_BYTES + 1))
        ok = await client.post("/", content=b"[]")

        async def chunks():  # no Content-Length: counted while it streams
            for _ in range(MAX_BODY_BYTES // (1 << 20) + 1):
                yield b"y" * (1 << 20)

        streamed = await client.post("/", content=chunks())
    assert big.status_code == 413 and streamed.status_code == 413
    assert ok.status_code == 404


async def test_deeply_nested_json_bodies_are_unmatched_not_a_crash() -> None:
    async with _client() as client:
        for depth in (500, 990, 100_000):
            deep = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":' + "[" * depth
            deep += "]" * depth + "}"
            answer = await client.post("/", content=deep.encode())
            assert answer.status_code in (400, 404), depth


def test_masked_matching_is_linear_over_hostile_text() -> None:
    recorded = MASK.join(["a"] * 30) + "b"
    began = time.monotonic()
    assert not same(recorded, "a" * 20_000)
    assert time.monotonic() - began < 1.0
    assert same(f"Bearer {MASK}", "Bearer xyz") and same(f"{MASK}", "")
    assert same(f"a{MASK}b{MASK}c", "a--b--c") and not same(f"a{MASK}b{MASK}c", "a--c--b")
    assert not same(f"ab{MASK}ba", "aba")  # prefix and suffix may not overlap


def test_an_alias_bomb_fixture_is_refused(tmp_path: Path) -> None:
    lines = ["a2aFixture: 1", 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    lines.append("exchanges: *a9")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(FixtureError, match="alias"):
        load(path)


def test_huge_deep_and_non_utf8_fixtures_are_refused(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"a2aFixture": 1, "x": "' + b"a" * (50 << 20) + b'"}')
    deep = tmp_path / "deep.json"
    deep.write_text('{"a2aFixture": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    deep_yaml = tmp_path / "deep.yaml"
    deep_yaml.write_text("a2aFixture: 1\nx: " + "[" * 100_000 + "]" * 100_000)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a2aFixture: 1\nx: caf\xe9\n")
    for path in (huge, deep, deep_yaml, latin):
        with pytest.raises(FixtureError):
            load(path)
