"""``explain_versions``: a request or an answer in A2A 0.3 and 1.0 side by side, every
difference annotated with its docs/PROTOCOL.md section (:mod:`app.protocol.methods.explain`,
the window's *Show in the other version*)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.tool_registry import add_tool
from app.errors import UsageError
from app.protocol.methods.explain import Explanation, explain_request, explain_response
from app.protocol.types import Binding, ProtocolVersion

MAX_BODY_CHARS = 1024 * 1024


class VersionShape(BaseModel):
    """One version's method name and body."""

    version: str
    method: str
    body: str


class VersionExplanation(BaseModel):
    """Both shapes and what differs between them."""

    binding: str
    v03: VersionShape
    v10: VersionShape
    differences: list[dict[str, str]] = Field(
        description="Each difference: aspect, where, the 0.3 and 1.0 spelling, and the "
        "docs/PROTOCOL.md section."
    )
    notes: list[str] = Field(description="What the conversion could not carry over.")


def _shape(side: Any) -> VersionShape:
    return VersionShape(version=side.version.value, method=side.method, body=side.text)


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add ``explain_versions`` to ``server``."""

    async def explain_versions(
        body: Annotated[
            dict[str, Any] | str,
            Field(
                description="The request body (JSON-RPC: the whole envelope) or the answer "
                "(a JSON-RPC response, or the HTTP+JSON / gRPC result object)."
            ),
        ],
        method: Annotated[str, Field(description="Its A2A method in `version`'s naming.")],
        version: Annotated[Literal["1.0", "0.3"], Field(description="The body's version.")],
        binding: Annotated[
            Literal["JSONRPC", "HTTP+JSON", "GRPC"], Field(description="The body's binding.")
        ] = "JSONRPC",
        kind: Annotated[
            Literal["request", "answer"], Field(description="A request or an agent's answer.")
        ] = "request",
    ) -> VersionExplanation:
        """Explain the A2A 0.3 ↔ 1.0 differences for a request or answer: converts it to
        the other version and lists every difference (method names, headers, routes, part
        and role spellings, task states, blocking vs returnImmediately, error codes…), each
        with the section of the protocol notes it comes from. Nothing is sent."""
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        if len(text) > MAX_BODY_CHARS:
            raise UsageError(f"the body is {len(text)} characters; at most {MAX_BODY_CHARS}")
        spec_version, spec_binding = ProtocolVersion(version), Binding(binding)
        found: Explanation | None
        if kind == "request":
            found = explain_request(spec_version, spec_binding, method, text)
        else:
            found = explain_response(spec_version, spec_binding, method, text)
            if found is None:
                raise UsageError(
                    f"cannot read that as a {version} {method} answer, or the method has no "
                    "counterpart in the other version"
                )
        return VersionExplanation(
            binding=found.binding.value,
            v03=_shape(found.v03),
            v10=_shape(found.v10),
            differences=[
                {
                    "aspect": d.aspect,
                    "where": d.where,
                    "v03": d.v03,
                    "v10": d.v10,
                    "section": d.section,
                }
                for d in found.differences
            ],
            notes=list(found.notes),
        )

    add_tool(server, explain_versions, title="Explain A2A 0.3 vs 1.0", read_only=True,
             open_world=False, idempotent=True)  # fmt: skip
