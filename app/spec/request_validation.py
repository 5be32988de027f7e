"""Pre-send validation: the body against the method's generated request schema.

The shape checks (:func:`app.protocol.methods.body_shape.check_body`) catch a body of the wrong
dialect;
this catches a body of the right dialect that still breaks the method's schema — a 1.0
message without ``role`` would otherwise go out and come back as the server's -32603.
Schemas are the ones :func:`app.spec.schemas.method_schemas` generates from the official
definitions (nothing typed by hand); only local ``$ref`` s exist in them, so validation
never touches the network.

:func:`check_request_body` is what senders call: the shape problems, then (when the shape
fits) the schema violations, each a :class:`~app.protocol.methods.body_shape.ShapeProblem` with its
JSON
path, held back unless the user forces the send (*Send anyway*, ``--force``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from app.protocol.methods.body_shape import ShapeIssue, ShapeProblem, check_body
from app.protocol.methods.catalog import find_method
from app.protocol.types import Binding, ProtocolVersion
from app.spec.schemas import method_schemas

_MAX_PROBLEMS = 20


def check_request_body(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> list[ShapeProblem]:
    """Why ``text`` should not be sent as ``method``: shape problems, else schema violations."""
    problems = check_body(version, binding, method, text)
    if problems:
        return problems
    return schema_problems(version, binding, method, text)


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
