"""Build the OpenAPI operation for one saved request: ``x-a2a`` plus a wire description.

``requestBody``/``responses`` describe what travels on the wire:

- JSON-RPC: ``POST`` with ``application/json``; a streaming method answers
  ``text/event-stream`` whose ``itemSchema`` describes one SSE event, with a
  ``serializedValue`` example of a real frame (built from the official types).
- HTTP+JSON: the verb of the method's ``google.api.http`` rule (``SubscribeToTask`` uses
  ``POST``, as the SDK client does); 1.0 bodies are ``application/a2a+json``, 0.3 bodies
  ``application/json``; GET/DELETE request fields become query ``parameters``.
- gRPC: ``POST`` with ``application/grpc``; the schema describes the message as ProtoJSON.

The documented path (``/a2a/<operationId>``) is an identifier; ``x-a2a.endpoint`` is where
requests go.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.protocol.bindings import ErrorForm, Payload, traits
from app.protocol.methods.catalog import MethodSpec, find_method, grpc_method
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import ProtocolVersion
from app.protocol.wire.rest_route import media_type as rest_media_type
from app.spec.schemas import REF_PREFIX, MethodSchemas, method_schemas
from app.spec.xa2a import X_A2A, X_PROTOCOL, SavedRequest, strip_private_metadata, to_x_a2a

SSE = "text/event-stream"
JSON = "application/json"
GRPC = "application/grpc"


@dataclass(frozen=True, slots=True)
class BuiltOperation:
    """An operation ready to be placed at ``paths[path][http_method]``."""

    path: str
    http_method: str
    operation: dict[str, Any]
    components: dict[str, Any]


def http_rule(spec: MethodSpec) -> tuple[str, str, str]:
    """``(verb, path template, body rule)`` of ``spec``'s REST route (from the descriptor)."""
    from google.api import annotations_pb2

    rpc = grpc_method(spec)
    if rpc is None:
        return "post", "", "*"
    rule = rpc.GetOptions().Extensions[annotations_pb2.http]
    pattern = rule.WhichOneof("pattern") or "post"
    template = str(getattr(rule, pattern)) if pattern != "custom" else rule.custom.path
    verb = pattern if pattern != "custom" else rule.custom.kind.lower()
    if spec.grpc_rpc in ("SubscribeToTask", "TaskSubscription"):
        verb = "post"  # docs/PROTOCOL.md §3.1.2: servers accept both; the SDK client posts.
    return verb, template, rule.body


def wire_verb(saved: SavedRequest) -> str:
    """The HTTP verb the operation is documented under."""
    spec = find_method(saved.version, saved.method)
    if _payload(saved) is Payload.REST and spec is not None:
        return http_rule(spec)[0]
    return "post"


def build_operation(saved: SavedRequest, *, strip_card_metadata: bool = False) -> BuiltOperation:
    """The OpenAPI operation (and the component schemas it needs) for ``saved``."""
    spec = find_method(saved.version, saved.method)
    schemas: MethodSchemas | None = None
    if spec is not None:
        try:
            schemas = method_schemas(spec, saved.binding)
        except ValueError:
            schemas = None
    if strip_card_metadata and saved.agent_card is not None:
        from dataclasses import replace

        saved = replace(saved, agent_card=strip_private_metadata(saved.agent_card))
    x = to_x_a2a(
        saved,
        schemas.request if schemas else None,
        schemas.response if schemas else None,
    )
    verb = wire_verb(saved)
    label = traits(saved.binding).label
    op: dict[str, Any] = {
        "operationId": saved.operation_id,
        "summary": saved.name or saved.method,
        "description": _description(saved, spec),
        "tags": list(saved.tags or (saved.method,)),
        X_PROTOCOL: "a2a",
        X_A2A: x,
    }
    example = x.get("example")
    request_schema = schemas.request if schemas else {}
    response_schema = schemas.response if schemas else {}
    streaming = bool(spec and spec.streaming)
    if _payload(saved) is Payload.REST and verb in ("get", "delete"):
        params = _query_parameters(spec, schemas, example)
        if params:
            op["parameters"] = params
    else:
        media = _request_media(saved)
        content: dict[str, Any] = {"schema": request_schema}
        if "example" in x:
            content["example"] = example
        op["requestBody"] = {
            "required": True,
            "description": f"{label} request body"
            + (" (the message as ProtoJSON)" if _payload(saved) is Payload.PROTO else ""),
            "content": {media: content},
        }
    op["responses"] = {"200": _response(saved, spec, response_schema, streaming, example)}
    if traits(saved.binding).errors is not ErrorForm.JSONRPC:
        op["responses"]["default"] = {"description": _error_text(saved)}
    path = f"/a2a/{saved.operation_id}"
    return BuiltOperation(path, verb, op, schemas.components if schemas else {})


def _description(saved: SavedRequest, spec: MethodSpec | None) -> str:
    label = traits(saved.binding).label
    lines = [f"A2A {saved.version.value} `{saved.method}` over {label}."]
    if spec is not None and spec.summary:
        lines[0] += f" {spec.summary}."
    if _payload(saved) is Payload.REST and spec is not None:
        verb, template, _ = http_rule(spec)
        lines.append(f"Wire: `{verb.upper()} {{endpoint}}{template}`.")
    elif _payload(saved) is Payload.PROTO and spec is not None:
        service = (
            "lf.a2a.v1.A2AService" if saved.version is ProtocolVersion.V1_0 else "a2a.v1.A2AService"
        )
        lines.append(f"Wire: {label} `{service}/{spec.grpc_rpc}` at `{{endpoint}}`.")
    else:
        lines.append("Wire: `POST {endpoint}`.")
    lines.append("The request is sent to `x-a2a.endpoint`; this path is only an identifier.")
    return "\n\n".join(lines)


def _payload(saved: SavedRequest) -> Payload:
    return traits(saved.binding).payload


def _request_media(saved: SavedRequest) -> str:
    if _payload(saved) is Payload.PROTO:
        return GRPC
    if _payload(saved) is Payload.REST:
        return rest_media_type(saved.version)  # the one the REST transport sends
    return JSON


def _response(
    saved: SavedRequest,
    spec: MethodSpec | None,
    schema: dict[str, Any],
    streaming: bool,
    example: Any,
) -> dict[str, Any]:
    if _payload(saved) is Payload.PROTO:
        media: dict[str, Any] = {"itemSchema": schema} if streaming else {"schema": schema}
        return {
            "description": "A stream of messages" if streaming else "The response message",
            "content": {GRPC: media},
        }
    if streaming:
        frame = example_frame(saved, example)
        item = {
            "type": "object",
            "required": ["data"],
            "properties": {
                "event": {
                    "type": "string",
                    "description": "SSE event type; error marks an error frame",
                },
                "id": {"type": "string"},
                "data": {
                    "type": "string",
                    "contentMediaType": JSON,
                    **({"contentSchema": schema} if schema else {}),
                },
            },
        }
        sse: dict[str, Any] = {"itemSchema": item}
        if frame:
            sse["examples"] = {
                "statusUpdate": {
                    "summary": "One event of the stream: a status update",
                    "serializedValue": frame,
                }
            }
        return {"description": "Server-Sent Events; one A2A stream event per frame",
                "content": {SSE: sse}}  # fmt: skip
    media_type = rest_media_type(saved.version) if _payload(saved) is Payload.REST else JSON
    text = (
        "JSON-RPC response (errors also arrive with HTTP 200)"
        if traits(saved.binding).errors is ErrorForm.JSONRPC
        else "The response object"
    )
    return {"description": text, "content": {media_type: {"schema": schema}}}


def _error_text(saved: SavedRequest) -> str:
    if traits(saved.binding).errors is ErrorForm.GRPC:
        return "A gRPC status; A2A errors carry google.rpc.ErrorInfo in grpc-status-details-bin"
    return 'An error: {"error": {code, status, message, details}} (google.rpc.Status)'


def _query_parameters(
    spec: MethodSpec | None, schemas: MethodSchemas | None, example: Any
) -> list[dict[str, Any]]:
    """Query parameters of a GET/DELETE route: request fields that are not path variables."""
    if spec is None or schemas is None:
        return []
    _, template, _ = http_rule(spec)
    ref = schemas.request.get("$ref", "")
    message = schemas.components.get(ref[len(REF_PREFIX) :], {}) if ref else {}
    params = []
    for name, schema in (message.get("properties") or {}).items():
        if name == "tenant" or _in_template(name, template):
            continue
        if schema.get("type") in ("object", "array") or "$ref" in schema:
            continue
        param: dict[str, Any] = {"name": name, "in": "query", "schema": schema}
        if isinstance(example, dict) and name in example:
            param["example"] = example[name]
        params.append(param)
    return params


def _in_template(json_name: str, template: str) -> bool:
    snake = "".join("_" + c.lower() if c.isupper() else c for c in json_name)
    return "{" + snake in template or "{" + json_name in template


# --- example stream frames, built from the official types -----------------------------


def example_frame(saved: SavedRequest, example: Any) -> str:
    """A real SSE frame for ``saved``'s stream: a ``working`` status update.

    Built with the SDK's own types (ProtoJSON via ``MessageToDict`` for 1.0 and 0.3 REST;
    the pydantic 0.3 model for 0.3 JSON-RPC), wrapped in a JSON-RPC response for JSON-RPC.
    """
    request_id: Any = example.get("id") if isinstance(example, dict) else None
    task_id, context_id = "6f1c2d3e-0000-4000-8000-00000000a2a1", "ctx-1"
    timestamp = "2026-01-01T12:00:00.000Z"
    if dialect_of(saved.version, saved.binding) is Dialect.V03_JSONRPC:
        from a2a.compat.v0_3 import types as t03

        event = t03.TaskStatusUpdateEvent(
            task_id=task_id,
            context_id=context_id,
            status=t03.TaskStatus(state=t03.TaskState.working, timestamp=timestamp),
            final=False,
        )
        payload: Any = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        from google.protobuf.json_format import MessageToDict, ParseDict

        if saved.version is ProtocolVersion.V1_0:
            from a2a.types import a2a_pb2 as pb
        else:
            from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb  # type: ignore[no-redef]
        msg = ParseDict(
            {
                "statusUpdate": {
                    "taskId": task_id,
                    "contextId": context_id,
                    "status": {"state": "TASK_STATE_WORKING", "timestamp": timestamp},
                }
            },
            pb.StreamResponse(),
        )
        payload = MessageToDict(msg)
    if _payload(saved) is Payload.JSONRPC:
        payload = {"jsonrpc": "2.0", "id": request_id, "result": payload}
    return "data: " + json.dumps(payload, separators=(",", ":")) + "\n\n"
