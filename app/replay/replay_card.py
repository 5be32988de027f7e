"""The Agent Card a replay serves: the recorded one with its interfaces pointing at the
replay, or — when the fixture holds none — a minimal card listing what was recorded.

Interface URLs keep their path and lose their origin: ``http://agent.example:8000/rest``
becomes ``http://127.0.0.1:PORT/rest``; a gRPC interface becomes the replay's gRPC target
in the form it had (``host:port`` or ``http://host:port``). ``signatures`` are dropped:
they signed the original URLs and would no longer verify (docs/FIXTURES.md).
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

from app.replay.fixture import Fixture

_BINDING_KEYS = ("protocolBinding", "transport")


def _moved(url: str, binding: str, http_base: str, grpc_target: str) -> str:
    if binding.upper() == "GRPC":
        if not grpc_target:
            return url
        return f"http://{grpc_target}" if "://" in url else grpc_target
    parts = urlsplit(url)
    return http_base + parts.path + (f"?{parts.query}" if parts.query else "")


def served_card(fixture: Fixture, http_base: str, grpc_target: str) -> dict[str, Any]:
    """The card to serve at ``/.well-known/agent-card.json`` (see the module docstring)."""
    if fixture.card is None:
        return _synthesized(fixture, http_base, grpc_target)
    card = copy.deepcopy(fixture.card)
    card.pop("signatures", None)
    for interface in card.get("supportedInterfaces") or []:  # 1.0
        if isinstance(interface, dict) and isinstance(interface.get("url"), str):
            binding = str(interface.get("protocolBinding", ""))
            interface["url"] = _moved(interface["url"], binding, http_base, grpc_target)
    if isinstance(card.get("url"), str):  # 0.3: the main URL and its preferred transport
        card["url"] = _moved(card["url"], str(card.get("preferredTransport", "JSONRPC")),
                             http_base, grpc_target)  # fmt: skip
    for interface in card.get("additionalInterfaces") or []:
        if isinstance(interface, dict) and isinstance(interface.get("url"), str):
            binding = str(interface.get("transport", ""))
            interface["url"] = _moved(interface["url"], binding, http_base, grpc_target)
    return card


def _synthesized(fixture: Fixture, http_base: str, grpc_target: str) -> dict[str, Any]:
    interfaces: list[dict[str, str]] = []
    streaming = False
    for x in fixture.exchanges:
        streaming = streaming or x.streaming
        if x.binding == "GRPC":
            url = grpc_target
        elif x.binding == "JSONRPC":
            url = http_base + urlsplit(x.path).path
        else:
            url = http_base + _rest_prefix(urlsplit(x.path).path, x.version)
        interface = {"url": url, "protocolBinding": x.binding, "protocolVersion": x.version}
        if interface not in interfaces:
            interfaces.append(interface)
    return {
        "name": "Replay",
        "description": "A recorded A2A session, replayed by A2A Workbench.",
        "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }


def _rest_prefix(path: str, version: str) -> str:
    """The interface URL path of a REST route: what precedes the A2A route itself."""
    for marker in (
        "/v1/message:",
        "/v1/tasks",
        "/v1/card",
        "/message:",
        "/tasks",
        "/extendedAgentCard",
    ):
        if version == "0.3" and not marker.startswith("/v1"):
            continue
        at = path.find(marker)
        if at >= 0:
            return path[:at]
    return path


def interfaces(card: dict[str, Any]) -> list[dict[str, str]]:
    """``{binding, version, url}`` of every interface a served card lists (1.0 or 0.3 form)."""
    out = [
        {"binding": str(i.get("protocolBinding", "")), "version": str(i.get("protocolVersion", "")),
         "url": str(i.get("url", ""))}
        for i in card.get("supportedInterfaces") or [] if isinstance(i, dict)
    ]  # fmt: skip
    version = str(card.get("protocolVersion", "0.3"))
    if isinstance(card.get("url"), str):
        out.append({"binding": str(card.get("preferredTransport", "JSONRPC")), "version": version,
                    "url": card["url"]})  # fmt: skip
    out += [
        {"binding": str(i.get("transport", "")), "version": version, "url": str(i.get("url", ""))}
        for i in card.get("additionalInterfaces") or [] if isinstance(i, dict)
    ]  # fmt: skip
    return [i for n, i in enumerate(out) if i not in out[:n]]
