"""Card shapes, field-level validation and the normalized view."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import a2a_pb2
from google.protobuf import json_format

from app.protocol.card.card_shape import CardProblem, CardShape, Severity, detect_shape
from app.protocol.card.card_validate import validate_card
from app.protocol.card.view import normalize_card

V1: dict[str, Any] = {
    "name": "Demo",
    "description": "A demo agent",
    "version": "1.2.0",
    "supportedInterfaces": [
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "127.0.0.1:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {
            "url": "http://127.0.0.1:8000/rest",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
            "tenant": "t1",
        },
    ],
    "provider": {"organization": "Acme", "url": "https://acme.example"},
    "iconUrl": "https://acme.example/icon.png",
    "capabilities": {
        "streaming": True,
        "pushNotifications": False,
        "extensions": [{"uri": "https://ext.example/x", "required": True, "params": {"a": 1}}],
    },
    "securitySchemes": {"bearerAuth": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
    "securityRequirements": [{"schemes": {"bearerAuth": {"list": ["read"]}}}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain", "application/json"],
    "skills": [
        {
            "id": "echo",
            "name": "Echo",
            "description": "Echoes",
            "tags": ["demo"],
            "examples": ["hi"],
            "inputModes": ["text/plain"],
        }
    ],
}

V03: dict[str, Any] = {
    "name": "Old",
    "description": "0.3 agent",
    "url": "http://127.0.0.1:9000/",
    "preferredTransport": "JSONRPC",
    "protocolVersion": "0.3.0",
    "additionalInterfaces": [
        {"url": "http://127.0.0.1:9000/", "transport": "JSONRPC"},
        {"url": "127.0.0.1:50052", "transport": "GRPC"},
    ],
    "version": "0.1",
    "capabilities": {"streaming": True, "stateTransitionHistory": False},
    "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    "security": [{"key": []}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
    "supportsAuthenticatedExtendedCard": True,
}


def _hybrid() -> dict[str, Any]:
    card = copy.deepcopy(V1)
    card["supportedInterfaces"].append(
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    )
    # Exactly what a2a-sdk 1.3.0 serves (docs/PEERS.md Q10).
    return agent_card_to_dict(json_format.ParseDict(card, a2a_pb2.AgentCard()))


def _errors(problems: list[CardProblem]) -> set[tuple[str, str]]:
    return {(p.path, p.message) for p in problems if p.severity is Severity.ERROR}


def test_shapes_of_real_cards() -> None:
    assert detect_shape(V1) is CardShape.V1_0
    assert detect_shape(V03) is CardShape.V0_3
    assert detect_shape(_hybrid()) is CardShape.HYBRID
    for junk in (None, [], "card", 3, True):
        assert detect_shape(junk) is CardShape.NOT_A_CARD


def test_valid_cards_have_no_errors() -> None:
    assert validate_card(V1) == []
    assert _errors(validate_card(V03)) == set()
    hybrid_problems = validate_card(_hybrid())
    assert _errors(hybrid_problems) == set()
    infos = {p.path for p in hybrid_problems if p.severity is Severity.INFO}
    assert {"url", "preferredTransport", "protocolVersion", "security"} <= infos
    assert "securitySchemes.bearerAuth.type" in infos


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:50051", "https://grpc.example.com", "grpc://h:1", "grpcs://h:1/", "h:1"],
)
def test_grpc_urls_the_app_can_call_are_not_problems(url: str) -> None:
    """The 1.0 proto asks for an absolute URL; a bare host:port stays accepted."""
    assert validate_card(_mutate(["supportedInterfaces", 1, "url"], url)) == []


def _mutate(path: list[Any], value: Any, base: dict[str, Any] = V1) -> dict[str, Any]:
    card = copy.deepcopy(base)
    target: Any = card
    for step in path[:-1]:
        target = target[step]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return card


_DELETE = object()

BROKEN_V1: list[tuple[str, list[Any], Any, tuple[str, str]]] = [
    ("missing name", ["name"], _DELETE, ("name", "missing required field")),
    ("null version", ["version"], None, ("version", "missing required field")),
    ("missing capabilities", ["capabilities"], _DELETE, ("capabilities", "missing required field")),
    ("missing skills", ["skills"], _DELETE, ("skills", "missing required field")),
    (
        "missing interfaces",
        ["supportedInterfaces"],
        _DELETE,
        ("supportedInterfaces", "missing required field"),
    ),
    (
        "missing default modes",
        ["defaultOutputModes"],
        _DELETE,
        ("defaultOutputModes", "missing required field"),
    ),
    ("name not a string", ["name"], 42, ("name", "expected a string, got number")),
    ("skills not a list", ["skills"], {}, ("skills", "expected an array, got object")),
    (
        "skill missing id",
        ["skills", 0, "id"],
        _DELETE,
        ("skills[0].id", "missing required field"),
    ),
    (
        "skill tags not a list",
        ["skills", 0, "tags"],
        "demo",
        ("skills[0].tags", "expected an array, got string"),
    ),
    (
        "streaming not bool",
        ["capabilities", "streaming"],
        "yes",
        ("capabilities.streaming", "expected a boolean, got string"),
    ),
    (
        "params not an object",
        ["capabilities", "extensions", 0, "params"],
        [1],
        ("capabilities.extensions[0].params", "expected a JSON object (Struct), got array"),
    ),
    (
        "interface missing binding",
        ["supportedInterfaces", 0, "protocolBinding"],
        _DELETE,
        ("supportedInterfaces[0].protocolBinding", "missing required field"),
    ),
    (
        "relative interface url",
        ["supportedInterfaces", 0, "url"],
        "/a2a",
        ("supportedInterfaces[0].url", "not an absolute http(s) URL: '/a2a'"),
    ),
    (
        "non-http interface url",
        ["supportedInterfaces", 0, "url"],
        "ws://h/a2a",
        ("supportedInterfaces[0].url", "not an absolute http(s) URL: 'ws://h/a2a'"),
    ),
    (
        "api key without location",
        ["securitySchemes", "k"],
        {"apiKeySecurityScheme": {"name": "X"}},
        ("securitySchemes.k.apiKeySecurityScheme.location", "missing required field"),
    ),
    (
        "two scheme kinds",
        ["securitySchemes", "k"],
        {"mtlsSecurityScheme": {}, "httpAuthSecurityScheme": {"scheme": "basic"}},
        (
            "securitySchemes.k.httpAuthSecurityScheme",
            "only one of oneof 'scheme' may be set (also 'mtlsSecurityScheme')",
        ),
    ),
    (
        "scheme not an object",
        ["securitySchemes", "k"],
        "bearer",
        ("securitySchemes.k", "expected an object (SecurityScheme), got string"),
    ),
    (
        "scope list not strings",
        ["securityRequirements", 0, "schemes", "bearerAuth", "list"],
        [1],
        ("securityRequirements[0].schemes.bearerAuth.list[0]", "expected a string, got number"),
    ),
    (
        "same field twice",
        ["default_input_modes"],
        ["text/plain"],
        ("default_input_modes", "field given twice (also as 'defaultInputModes')"),
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [case[1:] for case in BROKEN_V1],
    ids=[case[0] for case in BROKEN_V1],
)
def test_broken_v1_cards(path: list[Any], value: Any, expected: tuple[str, str]) -> None:
    problems = validate_card(_mutate(path, value))
    assert expected in _errors(problems), problems


WARNINGS_V1: list[tuple[str, list[Any], Any, tuple[str, str]]] = [
    (
        "grpc url with a path",
        ["supportedInterfaces", 1, "url"],
        "https://grpc.example.com/a2a",
        (
            "supportedInterfaces[1].url",
            "gRPC interface url 'https://grpc.example.com/a2a' is not a target the app can call "
            "(host:port, or http, https, grpc, grpcs://host:port without a path)",
        ),
    ),
    (
        "grpc url with another scheme",
        ["supportedInterfaces", 1, "url"],
        "ftp://127.0.0.1:50051",
        (
            "supportedInterfaces[1].url",
            "gRPC interface url 'ftp://127.0.0.1:50051' is not a target the app can call "
            "(host:port, or http, https, grpc, grpcs://host:port without a path)",
        ),
    ),
    (
        "version the app cannot speak",
        ["supportedInterfaces", 0, "protocolVersion"],
        "2.0",
        (
            "supportedInterfaces[0].protocolVersion",
            "protocol version '2.0' cannot be spoken by this app (it speaks 1.0, 0.3)",
        ),
    ),
    (
        "duplicate interface",
        ["supportedInterfaces", 2],
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ("supportedInterfaces[2]", "duplicate interface (same as supportedInterfaces[0])"),
    ),
    ("empty description", ["description"], "", ("description", "required field is empty")),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [case[1:] for case in WARNINGS_V1],
    ids=[case[0] for case in WARNINGS_V1],
)
def test_warnings_v1(path: list[Any], value: Any, expected: tuple[str, str]) -> None:
    problems = validate_card(_mutate(path, value))
    assert expected in {(p.path, p.message) for p in problems if p.severity is Severity.WARNING}


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (["colour"], "red", ("colour", "unknown field for lf.a2a.v1.AgentCard (ignored)")),
        (
            ["skills", 0, "level"],
            3,
            ("skills[0].level", "unknown field for lf.a2a.v1.AgentSkill (ignored)"),
        ),
    ],
    ids=["unknown top-level", "unknown in skill"],
)
def test_unknown_fields_are_a_note_not_an_error(
    path: list[Any], value: Any, expected: tuple[str, str]
) -> None:
    # Implementations SHOULD ignore unrecognized fields (1.0 §5.7).
    problems = validate_card(_mutate(path, value))
    assert expected in {(p.path, p.message) for p in problems if p.severity is Severity.INFO}
    assert not _errors(problems) and not any(p.severity is Severity.WARNING for p in problems)


def test_a_proto_field_name_is_a_warning() -> None:
    # Parsers read it, but JSON serializations use camelCase (1.0 §5.5).
    card = copy.deepcopy(V1)
    card["default_input_modes"] = card.pop("defaultInputModes")
    problems = validate_card(card)
    assert (
        "default_input_modes",
        "the proto field name; JSON uses the camelCase 'defaultInputModes'",
    ) in {(p.path, p.message) for p in problems if p.severity is Severity.WARNING}
    assert not _errors(problems)


BROKEN_03: list[tuple[str, list[Any], Any, tuple[str, str]]] = [
    ("missing url", ["url"], _DELETE, ("url", "missing required field")),
    ("missing skills", ["skills"], _DELETE, ("skills", "missing required field")),
    (
        "skill without tags",
        ["skills", 0, "tags"],
        _DELETE,
        ("skills[0].tags", "missing required field"),
    ),
    ("relative url", ["url"], "/a2a", ("url", "not an absolute http(s) URL: '/a2a'")),
    (
        "extra interface without transport",
        ["additionalInterfaces", 0, "transport"],
        _DELETE,
        ("additionalInterfaces[0].transport", "missing required field (string)"),
    ),
    (
        "capabilities not object",
        ["capabilities"],
        [],
        ("capabilities", "expected an object, got array"),
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [case[1:] for case in BROKEN_03],
    ids=[case[0] for case in BROKEN_03],
)
def test_broken_03_cards(path: list[Any], value: Any, expected: tuple[str, str]) -> None:
    problems = validate_card(_mutate(path, value, V03))
    assert expected in _errors(problems), problems


def test_03_unspeakable_version() -> None:
    problems = validate_card(_mutate(["protocolVersion"], "0.2.5", V03))
    assert any(p.path == "protocolVersion" and "cannot be spoken" in p.message for p in problems)


@pytest.mark.parametrize(
    "junk",
    [
        None,
        [],
        "x",
        1.5,
        {"skills": [None, 1, "x", []]},
        {"supportedInterfaces": "x", "capabilities": 7, "securitySchemes": []},
        {"supportedInterfaces": [None, {"url": 5, "protocolBinding": [], "protocolVersion": {}}]},
        {"url": 3, "additionalInterfaces": [1, {"url": None}]},
        {"signatures": [1, {"protected": 5}, {"protected": "!!"}, {"protected": "bnVsbA"}]},
    ],
)
def test_never_crashes(junk: Any) -> None:
    validate_card(junk)
    view = normalize_card(junk)
    assert view.shape in CardShape


def test_deep_nesting_is_reported_not_crashing() -> None:
    deep: dict[str, Any] = {}
    cursor = deep
    for _ in range(5000):
        cursor["a"] = {}
        cursor = cursor["a"]
    card = _mutate(["capabilities", "extensions", 0, "params"], deep)
    problems = validate_card(card)
    assert any("nested deeper" in p.message for p in problems)
    assert normalize_card(card).name == "Demo"


def test_normalized_v1_view() -> None:
    view = normalize_card(V1)
    assert (view.name, view.version, view.icon_url) == ("Demo", "1.2.0", V1["iconUrl"])
    assert view.provider is not None and view.provider.organization == "Acme"
    assert view.protocol_versions == ("1.0",)
    assert [(i.binding, i.tenant) for i in view.interfaces] == [
        ("JSONRPC", ""),
        ("GRPC", ""),
        ("HTTP+JSON", "t1"),
    ]
    assert all(i.speakable for i in view.interfaces)
    assert view.capabilities.streaming is True and view.capabilities.push_notifications is False
    assert view.capabilities.extensions[0].required is True
    assert view.capabilities.extensions[0].params_json == '{"a":1}'
    skill = view.skills[0]
    assert (skill.id, skill.examples, skill.input_modes) == ("echo", ("hi",), ("text/plain",))
    assert view.security_schemes[0].summary == "http bearer"
    assert view.security_requirements[0].schemes == (("bearerAuth", ("read",)),)


def test_normalized_03_view_derives_interfaces() -> None:
    view = normalize_card(V03)
    assert view.shape is CardShape.V0_3
    assert [(i.url, i.binding, i.protocol_version, i.source) for i in view.interfaces] == [
        ("http://127.0.0.1:9000/", "JSONRPC", "0.3.0", "url"),
        ("127.0.0.1:50052", "GRPC", "0.3.0", "additionalInterfaces"),
    ]
    assert view.interfaces[0].major_minor == "0.3"
    assert view.capabilities.extended_agent_card is True
    assert view.capabilities.state_transition_history is False
    assert view.security_schemes[0].summary == "apiKey in header X-Key"
    assert view.security_requirements[0].schemes == (("key", ()),)


def test_normalized_hybrid_uses_v1_interfaces() -> None:
    view = normalize_card(_hybrid())
    assert view.shape is CardShape.HYBRID
    assert view.protocol_versions == ("1.0", "0.3")
    assert view.security_schemes[0].kind == "http"


def test_signature_view_text_only() -> None:
    import base64
    import json

    header = {"alg": "ES256", "kid": "k1", "jku": "https://evil.example/jwks.json", "typ": "JOSE"}
    protected = base64.urlsafe_b64encode(json.dumps(header).encode()).rstrip(b"=").decode()
    card = _mutate(["signatures"], [{"protected": protected, "signature": "AA"}, {"x": 1}])
    sigs = normalize_card(card).signatures
    assert (sigs[0].kid, sigs[0].alg, sigs[0].jku) == ("k1", "ES256", header["jku"])
    assert sigs[1].error
