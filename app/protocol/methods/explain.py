"""The same request (or answer) in 0.3 and 1.0 side by side, every difference annotated.

:func:`explain_request` converts with :mod:`app.protocol.methods.convert` (the SDK's compat
mapping) and then lists what differs, each with the section of docs/PROTOCOL.md it comes
from: method names (§2.3.1), the version header (§8.1.1), REST routes (§3.1, §3.4) and
content types (§3.1.3), gRPC services (§4.1), ``kind`` discriminators and part shapes
(§5.2), roles and task states (§5.3), blocking vs ``returnImmediately`` (§5.4), push
config shapes (§5.2), the tenant (§9.2). :func:`explain_response` does the same for a
recorded answer (:mod:`app.protocol.methods.convert_answer`), error codes included (§2.1.1).
Read-only: nothing here changes a tab.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.json_format import ParseError
from pydantic import ValidationError

from app.protocol.bindings import Payload, traits
from app.protocol.methods.catalog import find_method
from app.protocol.methods.convert import convert_request, counterpart, other
from app.protocol.methods.convert_answer import WRAPPED, convert_answer
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import JSONRPC_ERROR_NAMES
from app.protocol.wire.rest_route import build_route, media_type

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing spelt differently: ``aspect`` (``method``, ``role``…), where (a JSON path
    or a wire place), the 0.3 and the 1.0 spelling, and the docs/PROTOCOL.md section."""

    aspect: str
    where: str
    v03: str
    v10: str
    section: str


@dataclass(frozen=True, slots=True)
class Side:
    """One version's shape: method name and the editor text (or the answer's text)."""

    version: ProtocolVersion
    method: str
    text: str


@dataclass
class Explanation:
    """Both shapes and the annotated differences; ``notes`` say what was lost."""

    binding: Binding
    v03: Side
    v10: Side
    differences: list[Difference] = field(default_factory=list)
    notes: tuple[str, ...] = ()


def explain_request(
    version: ProtocolVersion, binding: Binding, method: str, body: str
) -> Explanation:
    """Both shapes of the request in a ``version`` × ``binding`` tab.

    Raises:
        ConversionError: the body is no valid request of ``method`` or the method has no
            counterpart.
    """
    converted = convert_request(version, binding, method, body)
    mine = Side(version, method, _pretty(body))
    theirs = Side(converted.version, converted.method, converted.body)
    v03, v10 = (mine, theirs) if version is V03 else (theirs, mine)
    out = Explanation(binding, v03, v10, notes=converted.notes)
    out.differences = _request_differences(binding, v03, v10)
    return out


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _request_differences(binding: Binding, v03: Side, v10: Side) -> list[Difference]:
    diffs = [Difference("method", "method name", v03.method, v10.method, "§2.3.1")]
    diffs.append(Difference("header", "A2A-Version", "(none)", "1.0", "§8.1.1"))
    payload = traits(binding).payload
    if payload is Payload.REST:
        diffs += _route_differences(v03, v10)
        diffs.append(
            Difference("header", "Content-Type", media_type(V03), media_type(V1), "§3.1.3")
        )
    if payload is Payload.PROTO:
        spec03, spec10 = find_method(V03, v03.method), find_method(V1, v10.method)
        rpc03 = spec03.grpc_rpc if spec03 else ""
        rpc10 = spec10.grpc_rpc if spec10 else ""
        diffs.append(
            Difference(
                "gRPC method", "path", f"/a2a.v1.A2AService/{rpc03}",
                f"/lf.a2a.v1.A2AService/{rpc10}", "§4.1",
            )
        )  # fmt: skip
    diffs += _shape_differences(_load(v03.text), _load(v10.text), binding)
    return diffs


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _route_differences(v03: Side, v10: Side) -> list[Difference]:
    routes = []
    for side in (v03, v10):
        spec = find_method(side.version, side.method)
        value = _load(side.text)
        try:
            route = build_route(spec, value) if spec and isinstance(value, dict) else None
        except ValueError:
            route = None
        routes.append(f"{route.verb} {route.path}" if route else "(no route)")
    section = "§3.1, §3.4"
    return [Difference("REST route", "verb and path", routes[0], routes[1], section)]


# --- shapes ------------------------------------------------------------------------------


def _walk(node: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """``(path, key, value)`` for every member of every object, depth first."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}" if path else str(key)
            yield here, str(key), value
            yield from _walk(value, here)
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _walk(value, f"{path}[{n}]")


def _values(node: Any, key: str) -> list[tuple[str, str]]:
    return [(p, str(v)) for p, k, v in _walk(node) if k == key and isinstance(v, str)]


def _shape_differences(v03: Any, v10: Any, binding: Binding) -> list[Difference]:
    diffs: list[Difference] = []
    seen: set[tuple[str, str, str]] = set()

    def add(aspect: str, where: str, a: str, b: str, section: str) -> None:
        if a != b and (aspect, a, b) not in seen:
            seen.add((aspect, a, b))
            diffs.append(Difference(aspect, where, a, b, section))

    for path, value in _values(v03, "kind"):
        add("kind discriminator", path, f"kind: {value}", "(none: the member name tells)", "§5.2")
    for (p3, r3), (_p1, r1) in zip(_values(v03, "role"), _values(v10, "role"), strict=False):
        add("role", p3, r3, r1, "§5.3")
    for (p3, s3), (_p1, s1) in zip(_values(v03, "state"), _values(v10, "state"), strict=False):
        add("task state", p3, s3, s1, "§5.3")
    v03_jsonrpc = dialect_of(V03, binding) is Dialect.V03_JSONRPC
    parts03 = "parts" if v03_jsonrpc else "content"
    if any(k == parts03 for _, k, _ in _walk(v03)) and parts03 == "content":
        add("part list", "message", "content: [...]", "parts: [...]", "§5.2")
    for path, key, value in _walk(v03):
        if key == "file" and isinstance(value, dict):
            add("file part", path, "file: {uri | bytes, mimeType, name}",
                "url | raw, mediaType, filename", "§5.2")  # fmt: skip
        elif key == "blocking":
            add("blocking send", path, f"blocking: {json.dumps(value)}",
                "returnImmediately (the inverse)", "§5.4")  # fmt: skip
        elif key == "pushNotificationConfig" and v03_jsonrpc:
            add("push config", path, "{taskId, pushNotificationConfig: {...}}",
                "flat {taskId, id, url, token, ...}", "§5.2")  # fmt: skip
        elif key in ("name", "parent") and isinstance(value, str) and value.startswith("tasks/"):
            add("resource name", path, f"{key}: {value}", "id / taskId fields", "§3.4")
        elif key == "final":
            add("end of stream", path, f"final: {json.dumps(value)}", "(none: the server closes)",
                "§1.1, §9.1")  # fmt: skip
    if any(k == "tenant" for _, k, _ in _walk(v10)):
        add("tenant", "tenant", "(none)", "tenant", "§9.2")
    return diffs


# --- responses ---------------------------------------------------------------------------


def explain_response(
    version: ProtocolVersion, binding: Binding, method: str, text: str
) -> Explanation | None:
    """Both shapes of a recorded answer (a JSON-RPC ``result`` or ``error``, or the REST /
    gRPC result object); None when it is not JSON, its method has no counterpart, or it
    does not parse as the item it claims to be."""
    value = _load(text)
    target = counterpart(version, method)
    if not isinstance(value, dict) or not target:
        return None
    try:
        converted = convert_answer(version, binding, method, value)
    except (ParseError, ValidationError, ValueError):
        return None
    mine = Side(version, method, _pretty(text))
    theirs = Side(other(version), target, json.dumps(converted, indent=2, ensure_ascii=False))
    v03, v10 = (mine, theirs) if version is V03 else (theirs, mine)
    out = Explanation(binding, v03, v10)
    diffs = _shape_differences(_load(v03.text), _load(v10.text), binding)
    error = value.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), int):
        name10 = JSONRPC_ERROR_NAMES.get(error["code"], "")
        name03 = _V03_ERROR_NAMES.get(error["code"], name10 if error["code"] > -32008 else "—")
        if name10:
            diffs.insert(0, Difference("error", f"error.code {error['code']}", name03, name10,
                                       "§2.1.1"))  # fmt: skip
    result03 = _load(v03.text).get("result") if isinstance(_load(v03.text), dict) else None
    if isinstance(result03, dict) and "kind" in result03 and method in WRAPPED:
        diffs.insert(0, Difference("result", "result", f"bare object (kind: {result03['kind']})",
                                   '{"task" | "message" | …: …} wrapper', "§5.2"))  # fmt: skip
    out.differences = diffs
    return out


_V03_ERROR_NAMES = {-32007: "AuthenticatedExtendedCardNotConfiguredError"}
"""Where 0.3 names a code differently; -32008 and -32009 are new in 1.0 (§2.1.1)."""
