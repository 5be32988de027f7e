"""Fuzzing every parser of hostile input: each answers with a result or a documented error,
never an unexpected exception (which the exchange would report as an internal error)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.protocol.card.card_json import parse_card_json
from app.protocol.card.card_validate import validate_card
from app.protocol.card.jwks import JwksError, parse_jwks
from app.protocol.events import NOT_JSON
from app.protocol.request import A2ARequest
from app.protocol.stream.stream_items import classify_frame
from app.protocol.transports import grpc as grpc_transport
from app.protocol.transports.rest import method_spec
from app.protocol.types import Binding
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.jsonparse import parse_event_data, parse_json
from app.protocol.wire.jsonrpc_envelope import classify_response
from app.protocol.wire.sse import SseDecoder
from app.spec.document import SpecError, loads

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
# Text close to JSON: fragments glued together find the parser's corners faster than noise.
fragments = st.sampled_from(
    ['{', '}', '[', ']', ',', ':', '"', '\\u', 'NaN', '-Infinity', '1e999', '9' * 30, '-0',
     '"jsonrpc"', '"2.0"', '"result"', '"error"', '"id"', 'null', 'true', '\x00', '\ufeff',
     '\ud800', 'é', ' ', '\n']
)  # fmt: skip
jsonish = st.lists(fragments, max_size=40).map("".join) | st.text(max_size=60)


def wire(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def dumped(value: Any) -> str:
    return json.dumps(value)  # NaN and Infinity included: the wire may carry anything


@FUZZ
@given(jsonish | json_values.map(dumped))
def test_the_json_parser_returns_a_value_or_a_reason(text: str) -> None:
    for data in (text, text.encode("utf-8", "surrogatepass")):
        value, reason = parse_json(data)
        assert (value is NOT_JSON) == bool(reason)
        if value is not NOT_JSON:
            json.dumps(value, allow_nan=False)  # what parses is strict JSON
    parse_event_data(text)


@FUZZ
@given(
    json_values
    | st.builds(lambda r, i: {"jsonrpc": "2.0", "id": i, "result": r}, json_values, scalars)
    | st.builds(lambda e, i: {"jsonrpc": "2.0", "id": i, "error": e}, json_values, scalars)
)
def test_the_json_rpc_envelope_is_classified(body: Any) -> None:
    classify_response(body, "1")
    classify_frame(body, "", "", json.dumps(body).encode())


@FUZZ
@given(
    st.lists(
        st.binary(max_size=40) | jsonish.map(wire),
        max_size=8,
    )
)
def test_the_sse_decoder_takes_any_bytes(chunks: list[bytes]) -> None:
    decoder = SseDecoder()
    frames = [frame for chunk in chunks for frame in decoder.feed(chunk)]
    frames += decoder.close()
    for frame in frames:
        if frame.data is not None:
            value, error = parse_event_data(frame.data)
            classify_frame(value, error, frame.event, frame.raw)


@FUZZ
@given(
    st.sampled_from(["SendMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"]),
    jsonish | json_values.map(dumped),
)
def test_proto_json_requests_build_or_are_usage_errors(method: str, body: str) -> None:
    spec = method_spec(A2ARequest("127.0.0.1:1", method, body, binding=Binding.GRPC))
    with contextlib.suppress(UsageError):
        grpc_transport.build_message(spec, body)


@FUZZ
@given(st.binary(max_size=80))
def test_proto_replies_decode_or_are_undecodable(data: bytes) -> None:
    spec = method_spec(A2ARequest("127.0.0.1:1", "SendMessage", "", binding=Binding.GRPC))
    method = grpc_transport.grpc_method(spec)
    assert method is not None
    from google.protobuf import message_factory

    reply = grpc_transport._deserializer(message_factory.GetMessageClass(method.output_type))(data)
    if not isinstance(reply, grpc_transport._Undecodable):
        grpc_transport.to_json(reply)


cards = st.fixed_dictionaries(
    {},
    optional={
        name: scalars if name in ("name", "url", "version", "protocolVersion") else json_values
        for name in ("name", "url", "version", "protocolVersion", "supportedInterfaces",
                     "capabilities", "skills", "signatures", "additionalInterfaces")
    },
)  # fmt: skip


@FUZZ
@given(jsonish.map(wire) | cards.map(dumped).map(wire) | st.binary(max_size=40))
def test_cards_parse_and_validate(raw: bytes) -> None:
    value, failure, _ = parse_card_json(raw)
    if failure is None:
        validate_card(value)


@FUZZ
@given(jsonish | st.builds(lambda keys: dumped({"keys": keys}), json_values))
def test_jwks_parse_or_jwks_errors(text: str) -> None:
    with contextlib.suppress(JwksError):
        parse_jwks(text)


@FUZZ
@given(
    jsonish
    | st.builds(lambda x: dumped({"openapi": "3.2.0", "paths": {}, "x-a2a": x}), json_values)
    | st.builds(lambda x: "openapi: 3.2.0\nx-a2a: " + x, jsonish)
)
def test_specs_load_or_spec_errors(text: str) -> None:
    with contextlib.suppress(SpecError):
        loads(text)


@pytest.mark.parametrize("text", ['{"x-a2a": {"a": 1e999}}', "x-a2a: !!binary aGk=\n"])
def test_the_spec_corners_found_are_spec_errors(text: str) -> None:
    with pytest.raises(SpecError):
        loads(text)
