"""The plan a generated server project is rendered from, shared by every language."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from app.protocol.types import Binding


class Language(StrEnum):
    PYTHON = "python"
    NODE = "node"


SERVED_BINDINGS = (Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC)
"""The bindings a generated server can serve (its templates implement each), in the order its
card lists them; the app may speak more."""
ALL_BINDINGS: frozenset[Binding] = frozenset(SERVED_BINDINGS)


@dataclass(frozen=True)
class ServerPlan:
    """What to generate: the card the server publishes and where it listens.

    ``card`` is an A2A 1.0 Agent Card (JSON object) whose ``supportedInterfaces`` already
    point at ``host``/``port``/``grpc_port`` for the chosen ``bindings``; the generated
    server publishes it as is (signed when the project is given a key).
    """

    card: dict[str, Any]
    language: Language
    host: str = "127.0.0.1"
    port: int = 8000
    grpc_port: int = 50051
    bindings: frozenset[Binding] = field(default_factory=lambda: ALL_BINDINGS)
    compat_v03: bool = False
    """Also serve protocol 0.3 through the SDK's compatibility layer (Python only)."""
