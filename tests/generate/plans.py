"""Plans for the generator tests, built from the bundled demo agent's card."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from app.demo.server import build_card
from app.generate.model import ALL_BINDINGS, Language, ServerPlan
from app.protocol.types import Binding

_ORDER = (Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC)


def demo_card_json() -> dict[str, Any]:
    """The demo agent's public card as JSON (its interfaces point nowhere useful)."""
    card = build_card("http://127.0.0.1:1/", "http://127.0.0.1:1/rest", "127.0.0.1:2", token="t")
    return json_format.MessageToDict(card)


def demo_plan(
    language: Language = Language.NODE,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    grpc_port: int = 50051,
    bindings: frozenset[Binding] = ALL_BINDINGS,
    name: str = "Demo agent",
) -> ServerPlan:
    """A plan publishing the demo card on ``host``/``port``/``grpc_port``.

    The card is renamed ``name`` and described anew: the demo card's own words name this
    app, which a generated project must not.
    """
    card = demo_card_json()
    card["name"] = name
    card["description"] = "Sums numbers and echoes text (the generator tests' agent)."
    urls = {
        Binding.JSONRPC: f"http://{host}:{port}/",
        Binding.HTTP_JSON: f"http://{host}:{port}/rest",
        Binding.GRPC: f"{host}:{grpc_port}",
    }
    card["supportedInterfaces"] = [
        {"url": urls[b], "protocolBinding": b.value, "protocolVersion": "1.0"}
        for b in _ORDER
        if b in bindings
    ]
    card["capabilities"] = {"streaming": True}
    return ServerPlan(
        card=card,
        language=language,
        host=host,
        port=port,
        grpc_port=grpc_port,
        bindings=bindings,
    )
