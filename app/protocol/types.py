"""Names shared by every layer: protocol versions and bindings (A2A spec §5.3, AgentInterface)."""

from __future__ import annotations

from enum import StrEnum


class ProtocolVersion(StrEnum):
    """A2A protocol version spoken by a request tab; never converted implicitly."""

    V1_0 = "1.0"
    V0_3 = "0.3"


class Binding(StrEnum):
    """``AgentInterface.protocolBinding`` values this app speaks."""

    JSONRPC = "JSONRPC"
    HTTP_JSON = "HTTP+JSON"
    GRPC = "GRPC"


A2A_VERSION_HEADER = "A2A-Version"
