"""JSON Schemas for A2A methods, generated from the official type definitions.

Nothing here is typed by hand per method:

- protocol **1.0** (all bindings) and **0.3 REST/gRPC**: walked from the protobuf descriptors
  shipped in ``a2a-sdk`` (``a2a.types.a2a_pb2``, ``a2a.compat.v0_3.a2a_v0_3_pb2``), following
  ProtoJSON (camelCase ``json_name``, enums by name, well-known types inline);
- **0.3 JSON-RPC**: ``model_json_schema()`` of the pydantic models in
  ``a2a.compat.v0_3.types`` (the full request envelope and the response union).

Schemas are JSON Schema 2020-12 (the OpenAPI 3.1/3.2 dialect). Named types are collected in
a ``components`` dict under stable, dotted names (``lf.a2a.v1.Task``, ``a2a.v1.Task``,
``a2a.v0_3.jsonrpc.Task``) and referenced as ``#/components/schemas/<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from app.protocol.bindings import traits
from app.protocol.methods.catalog import MethodSpec, grpc_method
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import Binding

REF_PREFIX = "#/components/schemas/"
JSONRPC_03_PREFIX = "a2a.v0_3.jsonrpc."

_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_SINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "format": "uint32"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}

# ProtoJSON renders these well-known types as plain JSON values.
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Empty": {"type": ["object", "null"], "maxProperties": 0},
    "google.protobuf.Any": {"type": "object", "properties": {"@type": {"type": "string"}}},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.StringValue": {"type": "string"},
    "google.protobuf.BoolValue": {"type": "boolean"},
    "google.protobuf.Int32Value": {"type": "integer"},
}


def ref(name: str) -> dict[str, Any]:
    """``{"$ref": "#/components/schemas/<name>"}``."""
    return {"$ref": REF_PREFIX + name}


def _is_required(field: FieldDescriptor) -> bool:
    from google.api import field_behavior_pb2

    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def _is_repeated(field: FieldDescriptor) -> bool:
    # protobuf ≥ 5 deprecates ``label``; ``is_repeated`` is the replacement where it exists.
    repeated = getattr(field, "is_repeated", None)
    if isinstance(repeated, bool):
        return repeated
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)


def _field_schema(field: FieldDescriptor, components: dict[str, Any]) -> dict[str, Any]:
    msg = field.message_type
    if msg is not None and msg.GetOptions().map_entry:
        return {
            "type": "object",
            "additionalProperties": _field_schema(msg.fields_by_name["value"], components),
        }
    if field.type == FieldDescriptor.TYPE_MESSAGE and msg is not None:
        item = message_schema(msg, components)
    elif field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
        item = {"type": "string", "enum": [v.name for v in field.enum_type.values]}
    else:
        item = dict(_SCALARS.get(field.type, {"type": "string"}))
    if _is_repeated(field):
        return {"type": "array", "items": item}
    return item


def message_schema(descriptor: Descriptor, components: dict[str, Any]) -> dict[str, Any]:
    """A ``$ref`` to ``descriptor``'s ProtoJSON schema, added to ``components`` if missing.

    Well-known types come back inline. Fields use their JSON (camelCase) names; fields marked
    ``REQUIRED`` by ``google.api.field_behavior`` are listed in ``required``; a real
    ``oneof`` becomes ``oneOf`` of ``required`` alternatives (exactly one member present).
    """
    if descriptor.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[descriptor.full_name])
    name = descriptor.full_name
    if name in components:
        return ref(name)
    components[name] = {}  # reserve first: cyclic types terminate
    schema: dict[str, Any] = {"type": "object"}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in descriptor.fields:
        properties[field.json_name] = _field_schema(field, components)
        if _is_required(field):
            required.append(field.json_name)
    if properties:
        schema["properties"] = properties
    if required:
        schema["required"] = required
    real_oneofs = [o for o in descriptor.oneofs if len(o.fields) > 1]
    alternatives = [
        {"oneOf": [{"required": [f.json_name]} for f in oneof.fields]} for oneof in real_oneofs
    ]
    if len(alternatives) == 1:
        schema.update(alternatives[0])
    elif alternatives:
        schema["allOf"] = alternatives
    components[name] = schema
    return ref(name)


# --- 0.3 JSON-RPC (pydantic) -----------------------------------------------------------


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = REF_PREFIX + JSONRPC_03_PREFIX + value[len("#/$defs/") :]
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {k: _rewrite_refs({"$ref": v})["$ref"] for k, v in value.items()}
            else:
                out[key] = _rewrite_refs(value)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


def _pydantic_schema(model: Any, components: dict[str, Any]) -> dict[str, Any]:
    name = JSONRPC_03_PREFIX + model.__name__
    if name not in components:
        raw = model.model_json_schema(by_alias=True)
        defs = raw.pop("$defs", {})
        for def_name, def_schema in defs.items():
            components.setdefault(JSONRPC_03_PREFIX + def_name, _rewrite_refs(def_schema))
        components[name] = _rewrite_refs(raw)
    return ref(name)


@cache
def _v03_jsonrpc_models() -> dict[str, tuple[Any, Any]]:
    """0.3 JSON-RPC method name → (request envelope model, response model)."""
    from a2a.compat.v0_3 import types

    out: dict[str, tuple[Any, Any]] = {}
    union = types.A2ARequest.model_fields["root"].annotation
    for request_model in getattr(union, "__args__", ()):
        method = request_model.model_fields["method"].default
        response_name = request_model.__name__.replace("Request", "Response")
        response_model = getattr(types, response_name, None)
        if response_model is None:  # tasks/resubscribe answers like message/stream
            response_model = types.SendStreamingMessageResponse
        out[method] = (request_model, response_model)
    return out


# --- per method --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MethodSchemas:
    """The schemas of one method over one binding.

    Attributes:
        request: the schema of what the user edits (``x-a2a.example``): the JSON-RPC
            envelope, or the REST/gRPC request object.
        response: a unary response body, or **one** stream item (the SSE ``data`` or gRPC
            stream message) for streaming methods.
        components: the named types both refer to.
    """

    request: dict[str, Any]
    response: dict[str, Any]
    components: dict[str, Any]


JSONRPC_ERROR_RESPONSE = "jsonrpc.ErrorResponse"


def _jsonrpc_error_response(components: dict[str, Any]) -> dict[str, Any]:
    components.setdefault(
        JSONRPC_ERROR_RESPONSE,
        {
            "type": "object",
            "required": ["jsonrpc", "error"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["string", "integer", "null"]},
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "integer"},
                        "message": {"type": "string"},
                        "data": {},
                    },
                },
            },
        },
    )
    return ref(JSONRPC_ERROR_RESPONSE)


def _jsonrpc_v1(
    method: str, params: dict[str, Any], result: dict[str, Any], components: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Envelope schemas for a 1.0 method, as components ``lf.a2a.v1.jsonrpc.<M>.Request``."""
    base = f"lf.a2a.v1.jsonrpc.{method}"
    components[base + ".Request"] = {
        "type": "object",
        "required": ["jsonrpc", "method"],
        "properties": {
            "jsonrpc": {"const": "2.0"},
            "id": {"type": ["string", "integer", "null"]},
            "method": {"const": method},
            "params": params,
        },
    }
    components[base + ".Response"] = {
        "oneOf": [
            {
                "type": "object",
                "required": ["jsonrpc", "result"],
                "properties": {
                    "jsonrpc": {"const": "2.0"},
                    "id": {"type": ["string", "integer", "null"]},
                    "result": result,
                },
            },
            _jsonrpc_error_response(components),
        ]
    }
    return ref(base + ".Request"), ref(base + ".Response")


def method_schemas(spec: MethodSpec, binding: Binding) -> MethodSchemas:
    """Generate the request and response schemas of ``spec`` over ``binding``.

    Raises:
        ValueError: the method has no definition for this binding (e.g. a legacy
            JSON-RPC-only name over gRPC).
    """
    components: dict[str, Any] = {}
    if dialect_of(spec.version, binding) is Dialect.V03_JSONRPC:
        models = _v03_jsonrpc_models().get(spec.name)
        if models is None:
            raise ValueError(f"0.3 JSON-RPC method {spec.name!r} has no published schema")
        request = _pydantic_schema(models[0], components)
        response = _pydantic_schema(models[1], components)
        return MethodSchemas(request, response, components)
    rpc = grpc_method(spec)
    if rpc is None:
        raise ValueError(f"{spec.name!r} cannot be sent over {binding.value}")
    request = message_schema(rpc.input_type, components)
    response = message_schema(rpc.output_type, components)
    if traits(binding).payload.envelope:
        request, response = _jsonrpc_v1(spec.name, request, response, components)
    return MethodSchemas(request, response, components)
