"""Names shared by every layer: protocol versions and bindings (A2A spec §5.3, AgentInterface)."""

from __future__ import annotations

from enum import StrEnum


class ProtocolVersion(StrEnum):
    """A2A protocol version spoken by a request tab; never converted implicitly."""

    V1_0 = "1.0"
    V0_3 = "0.3"


class Binding(StrEnum):
    """``AgentInterface.protocolBinding`` values this app speaks: the three of A2A 1.0 §5.5,
    then custom carriers of JSON-RPC 2.0 (1.0 §5.8; docs/PROTOCOL.md §12), spelt as the
    agents that serve them write them."""

    JSONRPC = "JSONRPC"
    HTTP_JSON = "HTTP+JSON"
    GRPC = "GRPC"
    WEBSOCKET = "websocket"
    UNIX = "unix"
    STDIO = "stdio"
    REDIS_STREAMS = "redis-streams"


A2A_VERSION_HEADER = "A2A-Version"
