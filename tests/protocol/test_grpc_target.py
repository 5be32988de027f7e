"""gRPC targets as cards and users write them: a bare ``host:port`` (older cards), the absolute
URL the 1.0 proto asks for (``http://`` / ``https://``), and the gRPC URI schemes ``grpc://``
/ ``grpcs://``; each one reaches the demo agent over the same plaintext port."""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import UsageError
from app.protocol.events import ExchangeEnd, Outcome, RequestSent
from app.protocol.exchange import run
from app.protocol.request import A2ARequest
from app.protocol.transports.grpc import Target, parse_target
from app.protocol.types import Binding, ProtocolVersion


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:50051", Target("127.0.0.1:50051", tls=False)),
        ("http://127.0.0.1:50051", Target("127.0.0.1:50051", tls=False)),
        ("http://127.0.0.1:50051/", Target("127.0.0.1:50051", tls=False)),
        ("grpc://127.0.0.1:50051", Target("127.0.0.1:50051", tls=False)),
        ("GRPC://[::1]:50051", Target("[::1]:50051", tls=False)),
        ("https://agent.example:8443", Target("agent.example:8443", tls=True)),
        ("grpcs://agent.example", Target("agent.example:443", tls=True)),
        ("grpc://agent.example", Target("agent.example:80", tls=False)),
    ],
)
def test_targets_cards_publish(text: str, expected: Target) -> None:
    assert parse_target(text) == expected


def test_bare_target_follows_the_tls_settings_but_a_scheme_wins() -> None:
    assert parse_target("h:1", tls_default=True).tls
    assert not parse_target("grpc://h:1", tls_default=True).tls


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("ftp://h:1", "grpcs://host:port"),
        ("grpc://h:1/a2a", "no path"),
        ("grpcs://", "no host"),
    ],
)
def test_refused_targets_say_why(text: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        parse_target(text)


@pytest.mark.peer
@pytest.mark.parametrize("prefix", ["", "http://", "grpc://"])
async def test_each_form_reaches_the_demo_agent(sdk_peer: dict[str, Any], prefix: str) -> None:
    bare = sdk_peer["grpc_target"]
    request = A2ARequest(
        prefix + bare,
        "GetExtendedAgentCard",
        "{}",
        ProtocolVersion.V1_0,
        Binding.GRPC,
        timeout=15,
    )
    events = [event async for event in run(request)]
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    assert sent.url == f"http://{bare}/lf.a2a.v1.A2AService/GetExtendedAgentCard"
    end = events[-1]
    assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.OK
