"""Cards the generator tests start from: the demo agent's (1.0 and 0.3 interfaces, signed
when served) and a hand-written 0.3 card with security the generated server cannot honour."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from app.demo.demo_server import build_card


def demo_card() -> dict[str, Any]:
    card = build_card("http://h:1/", "http://h:1/rest", "h:2", token="t")
    out: dict[str, Any] = json_format.MessageToDict(card)
    out["signatures"] = [{"protected": "e30", "signature": "c2ln"}]
    return out


def card_03() -> dict[str, Any]:
    return {
        "protocolVersion": "0.3.0",
        "name": "Weather",
        "description": "Forecasts",
        "url": "https://weather.example/a2a",
        "preferredTransport": "JSONRPC",
        "version": "2.1.0",
        "provider": {"organization": "Example", "url": "https://example.com"},
        "capabilities": {"pushNotifications": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["application/json"],
        "securitySchemes": {"oauth": {"type": "oauth2", "flows": {}}},
        "security": [{"oauth": ["read"]}],
        "skills": [
            {
                "id": "forecast",
                "name": "Forecast",
                "description": "Tomorrow's weather",
                "tags": ["weather"],
                "security": [{"oauth": ["read"]}],
            }
        ],
    }
