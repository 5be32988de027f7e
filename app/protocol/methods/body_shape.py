"""Does the editor's body fit the tab? Shape checks run before sending (no Qt, no I/O).

A tab speaks one version over one binding, and versions are never converted implicitly, so
a body of another shape is usually a mistake: a JSON-RPC envelope pasted into a REST tab, a
0.3 part in a 1.0 tab, an envelope ``method`` that is not the one picked. The checks only
*report*; the GUI offers the right template or "Send anyway", the CLI needs ``--force``,
because sending wrong shapes on purpose is part of debugging.

Shapes (docs/PROTOCOL.md §5.2, docs/PEERS.md Q7):

- JSON-RPC (both versions): the whole envelope ``{"jsonrpc": "2.0", "id", "method", "params"}``.
- HTTP+JSON and gRPC: the request object itself (ProtoJSON), no envelope.
- 1.0 messages: ``role: "ROLE_USER"``, ``parts: [{"text": …}]`` without ``kind``.
- 0.3 JSON-RPC messages: ``kind: "message"``, ``role: "user"``, parts with ``kind``.
- 0.3 HTTP+JSON / gRPC messages: the 0.3 proto JSON, ``role: "ROLE_USER"``, ``content: […]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.protocol.bindings import Payload, traits
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import Binding, ProtocolVersion


class ShapeIssue(StrEnum):
    """What kind of misfit a :class:`ShapeProblem` is."""

    NOT_JSON = "not_json"
    NOT_OBJECT = "not_object"
    ENVELOPE_IN_PROTO_BINDING = "envelope_in_proto_binding"
    BARE_OBJECT_IN_JSONRPC = "bare_object_in_jsonrpc"
    BAD_JSONRPC_VERSION = "bad_jsonrpc_version"
    METHOD_MISMATCH = "method_mismatch"
    NESTED_ENVELOPE = "nested_envelope"
    WRONG_VERSION_PART = "wrong_version_part"
    WRONG_VERSION_ROLE = "wrong_version_role"
    WRONG_PARTS_FIELD = "wrong_parts_field"
    SCHEMA_VIOLATION = "schema_violation"
    """The body breaks the method's generated request schema
    (:mod:`app.spec.request_validation`)."""
    UNKNOWN_MEMBER = "unknown_member"
    """A member the method's request schema does not define: a peer ignores it, so what
    it was meant to do never happens (:mod:`app.spec.request_validation`)."""


@dataclass(frozen=True, slots=True)
class ShapeProblem:
    """One reason the body does not fit the tab.

    Attributes:
        issue: the kind of problem.
        message: a sentence for the user.
        path: where in the body (``params.message.parts[0]``); empty for the whole body.
    """

    issue: ShapeIssue
    message: str
    path: str = ""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def expected_shape(version: ProtocolVersion, binding: Binding) -> str:
    """What the editor of a ``version`` × ``binding`` tab holds, in a few words."""
    found = traits(binding)
    if found.payload is Payload.JSONRPC:
        return f"JSON-RPC envelope ({version.value})"
    if found.payload is Payload.REST:
        return f"{found.label} request object ({version.value})"
    return f"{found.label} request (ProtoJSON, {version.value})"


def check_body(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> list[ShapeProblem]:
    """The reasons ``text`` does not fit a ``version`` × ``binding`` tab sending ``method``.

    An empty list means the body looks right. Only shapes are checked, not the schema: a
    misspelt field is the peer's to report.
    """
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        return [
            ShapeProblem(
                ShapeIssue.NOT_JSON,
                f"The body is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}",
            )
        ]
    except RecursionError:
        return [ShapeProblem(ShapeIssue.NOT_JSON, "The body is nested too deeply to parse")]
    if not isinstance(body, dict):
        what = "an array" if isinstance(body, list) else f"a JSON {type(body).__name__}"
        return [
            ShapeProblem(
                ShapeIssue.NOT_OBJECT,
                f"The body is {what}; {expected_shape(version, binding)} is a JSON object",
            )
        ]
    if traits(binding).payload.envelope:
        problems, payload, prefix = _check_envelope(body, method)
    else:
        problems, payload, prefix = _check_proto_object(body, binding), body, ""
    if payload is not None:
        problems += _check_messages(version, binding, payload, prefix)
    return problems


def _is_envelope(obj: dict[str, Any]) -> bool:
    return "jsonrpc" in obj or ("method" in obj and "params" in obj)


def _check_envelope(body: dict[str, Any], method: str) -> tuple[list[ShapeProblem], Any, str]:
    if not any(key in body for key in ("jsonrpc", "method", "params")):
        return (
            [
                ShapeProblem(
                    ShapeIssue.BARE_OBJECT_IN_JSONRPC,
                    "This is a bare request object, but a JSON-RPC tab sends the whole "
                    'envelope {"jsonrpc": "2.0", "id", "method", "params"} with this object '
                    "as params",
                )
            ],
            body,
            "",
        )
    problems: list[ShapeProblem] = []
    if body.get("jsonrpc") != "2.0":
        problems.append(
            ShapeProblem(
                ShapeIssue.BAD_JSONRPC_VERSION,
                f'"jsonrpc" must be "2.0", got {json.dumps(body.get("jsonrpc"))}'
                if "jsonrpc" in body
                else 'The envelope lacks "jsonrpc": "2.0"',
            )
        )
    sent = body.get("method")
    if sent != method:
        problems.append(
            ShapeProblem(
                ShapeIssue.METHOD_MISMATCH,
                f'The envelope\'s "method" is {json.dumps(sent)} but the picker says '
                f"{json.dumps(method)}",
                "method",
            )
        )
    params = body.get("params")
    if isinstance(params, dict) and _is_envelope(params):
        problems.append(
            ShapeProblem(
                ShapeIssue.NESTED_ENVELOPE,
                "params holds another JSON-RPC envelope; params is the request object",
                "params",
            )
        )
    return problems, params, "params"


def _check_proto_object(body: dict[str, Any], binding: Binding) -> list[ShapeProblem]:
    if not _is_envelope(body):
        return []
    what = traits(binding).a_label
    return [
        ShapeProblem(
            ShapeIssue.ENVELOPE_IN_PROTO_BINDING,
            f"This is a JSON-RPC envelope, but {what} tab sends the request object itself "
            "(what would be params), without jsonrpc/id/method/params",
        )
    ]


def _check_messages(
    version: ProtocolVersion, binding: Binding, payload: Any, prefix: str
) -> list[ShapeProblem]:
    problems: list[ShapeProblem] = []
    dialect = dialect_of(version, binding)
    v03_jsonrpc = dialect is Dialect.V03_JSONRPC
    v03_proto = dialect is Dialect.V03_PROTO
    tab = f"a {version.value} {traits(binding).label} tab"
    for path, message in _messages(payload, prefix):
        role = message.get("role")
        if isinstance(role, str):
            if role in ("user", "agent") and not v03_jsonrpc:
                problems.append(
                    ShapeProblem(
                        ShapeIssue.WRONG_VERSION_ROLE,
                        f'role "{role}" is the 0.3 JSON-RPC form; {tab} expects '
                        f'"ROLE_{role.upper()}"',
                        _join(path, "role"),
                    )
                )
            elif role.startswith("ROLE_") and v03_jsonrpc:
                want = role.removeprefix("ROLE_").lower()
                problems.append(
                    ShapeProblem(
                        ShapeIssue.WRONG_VERSION_ROLE,
                        f'role "{role}" is the 1.0 / proto form; {tab} expects "{want}"',
                        _join(path, "role"),
                    )
                )
        if v03_proto:
            if "parts" in message:
                problems.append(
                    ShapeProblem(
                        ShapeIssue.WRONG_PARTS_FIELD,
                        f'{tab} expects "content" (the 0.3 proto field), not "parts"',
                        _join(path, "parts"),
                    )
                )
        elif "content" in message and "parts" not in message:
            problems.append(
                ShapeProblem(
                    ShapeIssue.WRONG_PARTS_FIELD,
                    f'"content" is the 0.3 HTTP+JSON/gRPC field; {tab} expects "parts"',
                    _join(path, "content"),
                )
            )
        if not v03_jsonrpc and message.get("kind") == "message":
            problems.append(
                ShapeProblem(
                    ShapeIssue.WRONG_VERSION_PART,
                    f'"kind": "message" is the 0.3 JSON-RPC form; {tab} has no kind',
                    _join(path, "kind"),
                )
            )
        for field_name in ("parts", "content"):
            parts = message.get(field_name)
            if not isinstance(parts, list):
                continue
            for i, part in enumerate(parts):
                if not isinstance(part, dict):
                    continue
                where = f"{_join(path, field_name)}[{i}]"
                if v03_jsonrpc and "kind" not in part:
                    problems.append(
                        ShapeProblem(
                            ShapeIssue.WRONG_VERSION_PART,
                            f'this part has no "kind" (1.0 / proto form); {tab} expects '
                            '{"kind": "text", "text": …}',
                            where,
                        )
                    )
                elif not v03_jsonrpc and "kind" in part:
                    problems.append(
                        ShapeProblem(
                            ShapeIssue.WRONG_VERSION_PART,
                            f'"kind": {json.dumps(part["kind"])} is a 0.3 JSON-RPC part; '
                            f'{tab} expects parts without kind, e.g. {{"text": …}}',
                            where,
                        )
                    )
    return problems


def _messages(value: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object that looks like a Message (has ``role`` or ``messageId``), with its path."""
    if isinstance(value, dict):
        if "role" in value or "messageId" in value:
            yield path, value
        for key, child in value.items():
            if isinstance(child, dict | list):
                yield from _messages(child, _join(path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _messages(child, f"{path}[{i}]")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
