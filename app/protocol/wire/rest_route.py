"""HTTP+JSON routing derived from the official descriptors' ``google.api.http`` rules.

Nothing here is retyped from the spec: the verb, path template and body rule of each
method come from ``catalog.grpc_method(spec).GetOptions().Extensions[annotations_pb2.http]``
(1.0 ``lf.a2a.v1`` and 0.3 ``a2a.v1`` protos shipped in ``a2a-sdk``). This module turns a
request object (the ProtoJSON the user edits) into verb + encoded path + query + body,
following the ``google.api.http`` transcoding rules (``google/api/http.proto``):

- path variables come from the object's fields (proto or JSON name); single-segment
  variables (``{id=*}``) percent-encode every reserved character including ``/``,
  multi-segment ones (``{name=tasks/*}``) keep the ``/`` between segments;
- ``body: "*"`` sends the rest of the object, ``body: "config"`` that one field;
- every field bound neither by the path nor by the body becomes a query parameter, in
  camelCase, booleans ``true``/``false``, enums by name, repeated fields as repeated keys;
  nested objects are refused (docs/PROTOCOL.md §3.1.1; A2A 1.0 spec §11.5).

Pure functions, no I/O. Sources: docs/PROTOCOL.md §3.1, §3.4; ``google/api/http.proto``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from google.api import annotations_pb2, http_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from app.protocol.events import Headers
from app.protocol.methods.catalog import MethodSpec, grpc_method
from app.protocol.types import ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=([^}]*))?\}")
_VERBS = ("get", "put", "post", "delete", "patch")
SUBSCRIBE_RPCS = frozenset({"SubscribeToTask", "TaskSubscription"})
"""The rpcs whose REST verb the user may switch (proto: GET; spec prose and SDK: POST)."""


@dataclass(frozen=True, slots=True)
class HttpRule:
    """One ``google.api.http`` binding: ``verb`` upper-case, ``template`` as in the proto."""

    verb: str
    template: str
    body: str
    """``"*"`` (the rest of the object), a field name, or ``""`` (no body)."""


@dataclass(frozen=True, slots=True)
class RestRoute:
    """A REST request built from one request object.

    Attributes:
        verb: ``GET``, ``POST`` or ``DELETE``.
        path: the percent-encoded path to append to the interface URL (``/tasks/t%201``).
        query: ``(camelCaseName, value)`` pairs in object order.
        body: the JSON value to send, or None for no body.
        body_is_whole_object: True when ``body`` is the request object unchanged (nothing
            moved to the path or query), so the editor text may be sent byte for byte.
    """

    verb: str
    path: str
    query: Headers
    body: Any
    body_is_whole_object: bool = False


def http_rules(spec: MethodSpec) -> tuple[HttpRule, ...]:
    """The method's bindings: the primary rule first, then ``additional_bindings``.

    Raises:
        UsageError: the method has no gRPC/REST form (the pre-0.3 legacy names).
    """
    method = grpc_method(spec)
    if method is None:
        raise UsageError(f"{spec.name} exists only in the JSON-RPC binding")
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    return (_rule(rule), *(_rule(extra) for extra in rule.additional_bindings))


def _rule(rule: http_pb2.HttpRule) -> HttpRule:
    for verb in _VERBS:
        template = getattr(rule, verb)
        if template:
            return HttpRule(verb.upper(), template, rule.body)
    raise UsageError(f"unsupported http rule kind {rule.WhichOneof('pattern')!r}")


def path_fields(template: str) -> tuple[str, ...]:
    """Proto field names bound by ``template``'s variables, in order."""
    return tuple(match.group(1) for match in _VARIABLE.finditer(template))


def build_route(
    spec: MethodSpec,
    obj: dict[str, Any],
    *,
    tenant: str = "",
    subscribe_verb: str = "POST",
) -> RestRoute:
    """The REST request for ``spec`` carrying the request object ``obj``.

    Args:
        spec: the method (1.0 or 0.3; legacy JSON-RPC-only names are refused).
        obj: the parsed request object, ProtoJSON with JSON or proto field names.
        tenant: the interface's tenant, used when ``obj`` has no non-empty ``tenant``
            (1.0 only); a tenant selects the rule's ``/{tenant}/…`` binding.
        subscribe_verb: ``POST`` or ``GET`` for the subscribe rpcs (the proto says GET,
            the spec prose and SDK clients POST; servers accept both, docs/PROTOCOL.md §3.1.2).

    Returns:
        Verb, encoded path (no interface prefix), query pairs and body.

    Raises:
        UsageError: a path field is missing or does not match its template, a query
            field holds a nested object, or the method has no REST form.
    """
    method = grpc_method(spec)
    if method is None:
        raise UsageError(f"{spec.name} exists only in the JSON-RPC binding")
    message = method.input_type
    fields = dict(obj)
    if "tenant" in message.fields_by_name:
        key = _find_key(fields, message, "tenant")
        given = fields.pop(key) if key is not None else ""
        # An empty tenant means "no tenant": the path without the prefix and no `tenant=`
        # query parameter. A tenant in the object wins over the interface's.
        chosen = given or (tenant if spec.version is ProtocolVersion.V1_0 else "")
        if chosen:
            fields[key or "tenant"] = chosen
    rules = http_rules(spec)
    has_tenant = _find_key(fields, message, "tenant") is not None
    rule = next((r for r in rules if ("{tenant}" in r.template) == has_tenant), rules[0])

    path = _expand(rule.template, fields, message, spec)
    bound = {_find_key(fields, message, name) for name in path_fields(rule.template)}
    rest = {key: value for key, value in fields.items() if key not in bound}

    verb = rule.verb
    if method.name in SUBSCRIBE_RPCS:
        verb = subscribe_verb.upper()
    body: Any = None
    whole = False
    if rule.body == "*":
        body, rest = rest, {}
        whole = not bound and fields.keys() == obj.keys()
    elif rule.body:
        key = _find_key(rest, message, rule.body)
        body = rest.pop(key) if key is not None else {}
    return RestRoute(verb, path, _query(rest, message), body, whole)


def _expand(template: str, fields: dict[str, Any], message: Descriptor, spec: MethodSpec) -> str:
    def replace(match: re.Match[str]) -> str:
        name, pattern = match.group(1), match.group(2) or "*"
        if "." in name:
            raise UsageError(f"nested path field {name!r} is not supported")
        key = _find_key(fields, message, name)
        value = fields.get(key) if key is not None else None
        json_name = _json_name(message, name)
        if value is None or value == "":
            raise UsageError(
                f"{spec.name} over HTTP+JSON needs {json_name!r}: it goes into the path "
                f"{template!r}"
            )
        if isinstance(value, (dict, list, bool)):
            raise UsageError(f"{json_name!r} must be a string: it goes into the path")
        return _encode_variable(str(value), pattern, json_name)

    return _VARIABLE.sub(replace, template)


def _encode_variable(value: str, pattern: str, json_name: str) -> str:
    """Percent-encode one path variable per ``google.api.http``.

    ``{x}`` / ``{x=*}``: everything but unreserved characters is encoded, ``/`` included
    (a task id with a slash stays one segment). Multi-segment patterns (``tasks/*``) keep
    ``/`` and must match the pattern's literal segments.
    """
    if pattern == "*":
        return quote(value, safe="")
    wanted = pattern.split("/")
    got = value.split("/")
    if len(got) < len(wanted) and _matches(got, wanted[: len(got)]):
        # The 0.3 proto's CreateTaskPushNotificationConfig rule says
        # {parent=tasks/*/pushNotificationConfigs} while the field's own comment, the
        # templates and every SDK use parent = "tasks/{id}": complete the literal tail.
        tail = wanted[len(got) :]
        if all(segment not in ("*", "**") for segment in tail):
            got = got + tail
    if not _matches(got, wanted):
        example = "/".join("{id}" if s in ("*", "**") else s for s in wanted)
        raise UsageError(f"{json_name!r} must look like {example!r}, got {value!r}")
    return "/".join(quote(segment, safe="") for segment in got)


def _matches(got: list[str], wanted: list[str]) -> bool:
    if "**" in wanted:
        head = wanted[: wanted.index("**")]
        return len(got) > len(head) and _matches(got[: len(head)], head)
    if len(got) != len(wanted):
        return False
    return all(w == g if w != "*" else bool(g) for g, w in zip(got, wanted, strict=True))


def _query(rest: dict[str, Any], message: Descriptor) -> Headers:
    pairs: list[tuple[str, str]] = []
    for key, value in rest.items():
        field = _field(message, key)
        name = field.json_name if field is not None else key
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item is None:
                continue
            if isinstance(item, (dict, list)):
                raise UsageError(
                    f"{name!r} is a nested object; HTTP+JSON query parameters cannot carry "
                    "objects (send this method over JSON-RPC or gRPC instead)"
                )
            pairs.append((name, _query_value(item, field)))
    return tuple(pairs)


def _query_value(value: Any, field: FieldDescriptor | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and field is not None and field.enum_type is not None:
        enum_value = field.enum_type.values_by_number.get(value)
        return enum_value.name if enum_value is not None else str(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return str(value)


def _field(message: Descriptor, key: str) -> FieldDescriptor | None:
    field = message.fields_by_name.get(key)
    if field is not None:
        return field
    for candidate in message.fields:
        if candidate.json_name == key:
            return candidate
    return None


def _json_name(message: Descriptor, proto_name: str) -> str:
    field = message.fields_by_name.get(proto_name)
    return field.json_name if field is not None else proto_name


def _find_key(obj: dict[str, Any], message: Descriptor, proto_name: str) -> str | None:
    """The key ``obj`` uses for field ``proto_name``: its JSON name or its proto name."""
    json_name = _json_name(message, proto_name)
    if json_name in obj:
        return json_name
    if proto_name in obj:
        return proto_name
    return None


A2A_JSON = "application/a2a+json"
JSON = "application/json"


def media_type(version: ProtocolVersion) -> str:
    """The media type of HTTP+JSON request and response bodies: ``application/a2a+json``
    in 1.0 (A2A 1.0 spec §11.1, §14.1.1), ``application/json`` in 0.3 (§3.2.3); see
    docs/PROTOCOL.md §3.1.3. The saved document declares the same
    (:mod:`app.spec.operations`)."""
    return A2A_JSON if version is ProtocolVersion.V1_0 else JSON
