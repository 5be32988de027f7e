"""The cards a window knows, against the real demo agent: which interface a binding switch
should pick, found from the ready line, a fetched card, or one public fetch per card URL."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol.card.known_cards import DEMO_SOURCE, KnownCards, address
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.bad_server import Canned, bad_server

pytestmark = pytest.mark.peer

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


def _demo(cards: KnownCards, info: dict[str, Any]) -> None:
    addresses = (info["base_url"], info["jsonrpc_url"], info["rest_url"], info["grpc_target"])
    cards.expect(info["card_url"], DEMO_SOURCE, addresses)


async def test_the_demo_agents_card_from_its_ready_line(sdk_peer: dict[str, Any]) -> None:
    cards = KnownCards()
    _demo(cards, sdk_peer)
    assert cards.find(sdk_peer["grpc_target"]) is None  # announced, not fetched yet
    card = await cards.lookup(sdk_peer["grpc_target"], V1)
    assert card is not None and card.source == DEMO_SOURCE
    assert card.card_url == sdk_peer["card_url"]
    rest = card.interface(Binding.HTTP_JSON, V1)
    assert rest is not None and address(rest.url) == address(sdk_peer["rest_url"])
    grpc = card.interface(Binding.GRPC, V03)
    assert grpc is not None and address(grpc.url) == address(sdk_peer["grpc_target"])
    # Known now: every address of the agent finds it without I/O.
    for endpoint in (sdk_peer["jsonrpc_url"], sdk_peer["rest_url"], sdk_peer["grpc_target"]):
        assert cards.find(endpoint) is card


async def test_one_public_fetch_from_the_endpoints_origin(sdk_peer: dict[str, Any]) -> None:
    cards = KnownCards()
    card = await cards.lookup(sdk_peer["rest_url"], V1)
    assert card is not None
    assert card.source == f"the card at {sdk_peer['base_url']}"
    jsonrpc = card.interface(Binding.JSONRPC, V1)
    assert jsonrpc is not None and address(jsonrpc.url) == address(sdk_peer["jsonrpc_url"])


async def test_an_origin_without_a_card_is_asked_once() -> None:
    canned = Canned(status=404, body=b"not here")
    with bad_server(canned) as url:
        cards = KnownCards()
        assert await cards.lookup(f"{url}rpc", V1) is None
        assert await cards.lookup(f"{url}rest", V1) is None
    assert [(method, path) for method, path, _, _ in canned.received] == [
        ("GET", "/.well-known/agent-card.json")
    ]
    headers = {k.lower() for k in canned.received[0][2]}
    assert "authorization" not in headers and "cookie" not in headers


async def test_grpc_targets_have_no_origin_to_fetch_from() -> None:
    cards = KnownCards()
    assert cards.to_fetch("127.0.0.1:50051") is None
    assert await cards.lookup("127.0.0.1:50051", V1) is None


def test_addresses_match_across_spellings() -> None:
    assert address("127.0.0.1:50051") == address("http://127.0.0.1:50051")
    assert address("grpc://Host:1") == address("host:1")
    assert address("http://h:1/") == address("http://h:1")
    assert address("http://h:1/rest") != address("http://h:1/")
