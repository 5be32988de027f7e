"""Pre-send validation: the body against the method's generated request schema.

The shape checks (:func:`app.protocol.methods.body_shape.check_body`) catch a body of the wrong
dialect;
this catches a body of the right dialect that still breaks the method's schema — a 1.0
message without ``role`` would otherwise go out and come back as the server's -32603 — and
a member the schema does not define (:func:`unknown_members`): peers ignore unknown
members (ProtoJSON parsers skip them, pydantic drops them), so a misspelt or other-version
name such as a 1.0 send's ``configuration.pushNotificationConfig`` (the 1.0 member is
``taskPushNotificationConfig``) is accepted and silently does nothing.
Schemas are the ones :func:`app.spec.schemas.method_schemas` generates from the official
definitions (nothing typed by hand); only local ``$ref`` s exist in them, so validation
never touches the network.

:func:`check_request_body` is what senders call: the shape problems, then (when the shape
fits) the schema violations, each a :class:`~app.protocol.methods.body_shape.ShapeProblem` with its
JSON
path, held back unless the user forces the send (*Send anyway*, ``--force``).
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from typing import Any

import jsonschema

from app.protocol.methods.body_shape import ShapeIssue, ShapeProblem, check_body
from app.protocol.methods.catalog import find_method
from app.protocol.types import Binding, ProtocolVersion
from app.spec.schemas import REF_PREFIX, method_schemas

_MAX_PROBLEMS = 20


def check_request_body(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> list[ShapeProblem]:
    """Why ``text`` should not be sent as ``method``: shape problems, else schema violations."""
    problems = check_body(version, binding, method, text)
    if problems:
        return problems
    return schema_problems(version, binding, method, text) + unknown_members(
        version, binding, method, text
    )


def schema_problems(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> list[ShapeProblem]:
    """The violations of the method's request schema, by JSON path (``$.params.message``).

    Empty for a body that fits, a method without a generated schema, or text that is not
    JSON (the shape check reports that).
    """
    validator = _validator(version, binding, method)
    if validator is None:
        return []
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return []
    problems: list[ShapeProblem] = []
    try:
        errors = sorted(validator.iter_errors(body), key=lambda e: list(map(str, e.path)))
    except RecursionError:
        return [ShapeProblem(ShapeIssue.SCHEMA_VIOLATION, "The body is nested too deeply")]
    for error in errors[:_MAX_PROBLEMS]:
        problems.append(
            ShapeProblem(
                ShapeIssue.SCHEMA_VIOLATION,
                f"{error.message} (request schema of {method})",
                error.json_path,
            )
        )
    return problems


@cache
def _validator(version: ProtocolVersion, binding: Binding, method: str) -> Any:
    spec = find_method(version, method)
    if spec is None:
        return None
    try:
        schemas = method_schemas(spec, binding)
    except ValueError:
        return None
    root = {**schemas.request, "components": {"schemas": schemas.components}}
    return jsonschema.Draft202012Validator(root)


def unknown_members(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> list[ShapeProblem]:
    """The members of ``text`` that the method's request schema does not define, by JSON
    path, each naming the members it does define there (the closest first).

    An object is checked only where every schema it may follow lists its members (a
    ``metadata`` Struct or a map takes any); a union's members are those of any of its
    alternatives. Empty for a method without a generated schema, or text that is not JSON.
    """
    validator = _validator(version, binding, method)
    if validator is None:
        return []
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return []
    root = validator.schema
    found: list[ShapeProblem] = []
    stack: list[tuple[Any, list[Any], str]] = [(body, [root], "$")]
    while stack and len(found) < _MAX_PROBLEMS:
        value, schemas, path = stack.pop()
        candidates = _alternatives(schemas, root["components"]["schemas"])
        if isinstance(value, dict):
            objects = [s for s in candidates if _describes_objects(s)]
            if not objects or any(_open(s) for s in objects):
                continue
            known: dict[str, list[Any]] = {n: [] for s in objects for n in s["properties"]}
            for s in objects:
                for name, child in s["properties"].items():
                    known[name].append(child)
            for key, child in reversed(list(value.items())):
                where = f"{path}.{key}"
                if key in known:
                    stack.append((child, known[key], where))
                elif where == "$.params" and child == {}:
                    pass  # an empty params says what no params says (JSON-RPC 2.0 §4.2)
                else:
                    found.append(_unknown(key, where, list(known), method))
        elif isinstance(value, list):
            items = [s["items"] for s in candidates if isinstance(s.get("items"), dict)]
            if items:
                stack.extend(
                    (v, items, f"{path}[{i}]") for i, v in reversed(list(enumerate(value)))
                )
    return found


def _unknown(key: str, where: str, known: list[str], method: str) -> ShapeProblem:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    members = ", ".join(sorted(known, key=lambda k: k not in close)) or "none"
    return ShapeProblem(
        ShapeIssue.UNKNOWN_MEMBER,
        f"{key!r} is not a member here in the request schema of {method}; an agent ignores "
        f"it ({hint}members: {members})",
        where,
    )


def _alternatives(schemas: list[Any], components: dict[str, Any]) -> list[dict[str, Any]]:
    """``schemas`` with references resolved and unions spread into their alternatives."""
    out: list[dict[str, Any]] = []
    pending = list(schemas)
    seen = 0
    while pending and seen < 200:  # a cyclic reference cannot loop forever
        seen += 1
        schema = pending.pop()
        if not isinstance(schema, dict):
            continue
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            pending.append(components.get(ref[len(REF_PREFIX) :], {}))
            continue
        for key in ("oneOf", "anyOf", "allOf"):
            if isinstance(schema.get(key), list):
                pending.extend(schema[key])
        out.append(schema)
    return out


def _describes_objects(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    return is_object or "properties" in schema or "additionalProperties" in schema


def _open(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` admits members it does not list (a Struct, a map)."""
    extra = schema.get("additionalProperties")
    return (
        not isinstance(schema.get("properties"), dict)
        or (extra is not None and extra is not False)
        or "patternProperties" in schema
    )
