"""Is a plain HTTP request A2A, and which version and binding? With the reason, in words.

The signs, strongest first (docs/PROTOCOL.md §1.1):

- JSON-RPC (§2.1): a POST whose body is a JSON-RPC envelope; the method name decides the
  version — PascalCase 1.0 names (``SendMessage``, §2.2) or ``category/action`` 0.3 names
  (``message/send``, §2.3). Any other method is not A2A.
- HTTP+JSON (§3.1, §3.4): the path ends in one of the routes of the official protos'
  ``google.api.http`` rules (``/message:send``, ``/tasks/{id}`` for 1.0; ``/v1/message:send``,
  ``/v1/tasks/{id}`` for 0.3) with the rule's verb. A path that fits both (a 1.0 agent mounted
  under ``/v1``) is settled by the ``A2A-Version`` header (§8.1.1: 1.0 clients must send it)
  and the body's shape (1.0 ``parts`` vs 0.3 proto ``content``, §5.2).
- gRPC (§4.1): ``/lf.a2a.v1.A2AService/…`` or ``application/grpc``: binary frames that no
  text source can carry, so it is reported and skipped.

The request object of a REST call is put back together from its path, query and body, so
that it can be edited and re-sent like any other HTTP+JSON tab (§3.1.1 run backwards).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, unquote

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from app.imports.raw import RawRequest
from app.protocol.methods.body_shape import check_body
from app.protocol.methods.catalog import METHODS, MethodSpec, find_method, grpc_method
from app.protocol.types import A2A_VERSION_HEADER, Binding, ProtocolVersion
from app.protocol.wire.rest_route import SUBSCRIBE_RPCS, HttpRule, http_rules
from app.spec.request_validation import unknown_members
from app.spec.xa2a import split_endpoint

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


@dataclass(frozen=True, slots=True)
class Detection:
    """The verdict on one request.

    Attributes:
        a2a: True when it is an A2A request the app can hold.
        explanation: why, in one line ("JSON-RPC: method message/send is 0.3").
        version, binding, method: set when ``a2a`` (``binding`` also for gRPC, which is
            A2A but cannot be imported).
        endpoint: where the request goes: the JSON-RPC URL, or the REST interface URL (the
            path before the route).
        body: the editor text: the JSON-RPC envelope, or the rebuilt REST request object.
        query: query parameters that are no field of the request (kept as ``query``).
        notes: doubts worth showing (a body of the other version's shape, a header that
            disagrees with the method).
    """

    a2a: bool
    explanation: str
    version: ProtocolVersion | None = None
    binding: Binding | None = None
    method: str = ""
    endpoint: str = ""
    body: str = ""
    query: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()


def _skip(reason: str, binding: Binding | None = None) -> Detection:
    return Detection(False, reason, binding=binding)


def detect(raw: RawRequest) -> Detection:
    """Decide what ``raw`` is (see the module docstring)."""
    rest = split_endpoint(raw.url)[3]
    path, _, query_text = rest.partition("#")[0].partition("?")
    content_type = raw.header("content-type").lower()
    if "/A2AService/" in path or content_type.startswith("application/grpc"):
        return _skip(
            "gRPC: binary protobuf frames over HTTP/2 cannot be imported from text; "
            "create a gRPC tab instead",
            Binding.GRPC,
        )
    envelope = _json_object(raw.body)
    if (
        envelope is not None
        and isinstance(envelope.get("method"), str)
        and ("jsonrpc" in envelope or "params" in envelope)
    ):
        return _jsonrpc(raw, envelope)
    route = _rest(raw, path, query_text)
    if route is not None:
        return route
    what = f"{raw.method} {path or '/'}"
    if envelope is None and raw.body.strip():
        return _skip(f"{what}: the body is not JSON and the path is no A2A route")
    return _skip(f"{what}: neither a JSON-RPC body with an A2A method nor an A2A REST route")


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# --- JSON-RPC ----------------------------------------------------------------------------


def _jsonrpc(raw: RawRequest, envelope: dict[str, Any]) -> Detection:
    name = str(envelope["method"])
    spec = find_method(V1, name) or find_method(V03, name)
    if spec is None:
        return _skip(f"JSON-RPC: method {name!r} is no A2A method (docs/PROTOCOL.md §2.2, §2.3)")
    if raw.method != "POST":
        return _skip(f"JSON-RPC: {name} sent with {raw.method}; the binding only POSTs (§2.1)")
    why = (
        "PascalCase, the 1.0 name (docs/PROTOCOL.md §2.2)"
        if spec.version is V1
        else "category/action, the 0.3 name (docs/PROTOCOL.md §2.3)"
    )
    if spec.legacy:
        why = "a pre-0.3 name, kept as 0.3 (docs/PROTOCOL.md §2.3)"
    explanation = f"JSON-RPC: method {name} is {spec.version.value}: {why}"
    body = json.dumps(envelope, indent=2, ensure_ascii=False)
    notes = [*_header_notes(raw, spec.version), *_shape_notes(spec, Binding.JSONRPC, body)]
    return Detection(
        True, explanation, spec.version, Binding.JSONRPC, name, raw.url, body, (), tuple(notes)
    )


def _header_notes(raw: RawRequest, version: ProtocolVersion) -> list[str]:
    header = raw.header(A2A_VERSION_HEADER).strip()
    if version is V1 and not header:
        return ["no A2A-Version header: the app sends A2A-Version: 1.0 (docs/PROTOCOL.md §8.1.1)"]
    if version is V03 and header and not header.startswith("0."):
        return [f"A2A-Version: {header} on a 0.3 request; the app sends none for 0.3 (§8.1.1)"]
    return []


def _shape_notes(spec: MethodSpec, binding: Binding, body: str) -> list[str]:
    problems = check_body(spec.version, binding, spec.name, body)
    if problems:
        return [f"body: {p.message}" for p in problems]
    # A member the agent would ignore, as the tab's Send would say.
    return [f"body: {p}" for p in unknown_members(spec.version, binding, spec.name, body)]


# --- HTTP+JSON ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Route:
    spec: MethodSpec
    rule: HttpRule
    pattern: re.Pattern[str]
    fields: tuple[str, ...]
    """The proto field of each path variable, in group order."""
    literal: int
    """Characters of literal text: a longer one is the more specific route."""


_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=([^}]*))?\}")


def _template_regex(template: str) -> tuple[str, tuple[str, ...], int]:
    out, fields, literal, last = [], [], 0, 0
    for match in _VARIABLE.finditer(template):
        text = template[last : match.start()]
        out.append(re.escape(text))
        literal += len(text)
        segments = (match.group(2) or "*").split("/")
        parts = ["[^/]+" if s == "*" else ".+" if s == "**" else re.escape(s) for s in segments]
        literal += sum(len(s) for s in segments if s not in ("*", "**"))
        out.append(f"({'/'.join(parts)})")
        fields.append(match.group(1))
        last = match.end()
    out.append(re.escape(template[last:]))
    literal += len(template) - last
    return "".join(out), tuple(fields), literal


@cache
def _routes() -> tuple[_Route, ...]:
    routes = []
    for spec in METHODS:
        if spec.legacy or not spec.grpc_rpc:
            continue
        for rule in http_rules(spec):
            regex, fields, literal = _template_regex(rule.template)
            pattern = re.compile(f"^(.*?){regex}$")
            routes.append(_Route(spec, rule, pattern, fields, literal))
    return tuple(sorted(routes, key=lambda r: -r.literal))


def _verb_fits(route: _Route, verb: str) -> bool:
    if route.spec.grpc_rpc in SUBSCRIBE_RPCS:
        return verb in ("GET", "POST")  # docs/PROTOCOL.md §3.1.2
    return route.rule.verb == verb


def _rest(raw: RawRequest, path: str, query_text: str) -> Detection | None:
    decoded = path
    matches = [
        (route, m)
        for route in _routes()
        if _verb_fits(route, raw.method) and (m := route.pattern.match(decoded))
    ]
    if not matches:
        return None
    body = _json_object(raw.body)
    header = raw.header(A2A_VERSION_HEADER).strip()
    route, match, why = _choose(matches, header, body)
    spec = route.spec
    prefix, userinfo, hostport, _ = split_endpoint(raw.url)
    endpoint = prefix + userinfo + hostport + match.group(1)
    obj, query = _request_object(route, match, query_text, body, raw.body)
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    where = "docs/PROTOCOL.md §3.1" if spec.version is V1 else "docs/PROTOCOL.md §3.4"
    explanation = (
        f"HTTP+JSON: {raw.method} {route.rule.template} is the {spec.version.value} route of "
        f"{spec.name} ({where}){why}"
    )
    notes = [*_header_notes(raw, spec.version), *_shape_notes(spec, Binding.HTTP_JSON, text)]
    if body is None and raw.body.strip():
        notes.append("the body is not JSON; it was left out")
    return Detection(
        True, explanation, spec.version, Binding.HTTP_JSON, spec.name, endpoint, text, query,
        tuple(notes),
    )  # fmt: skip


def _body_version(body: dict[str, Any] | None) -> ProtocolVersion | None:
    """1.0 or 0.3 by the message's part list (``parts`` vs the 0.3 proto's ``content``)
    or a 0.3 resource name (``name: tasks/…``); docs/PROTOCOL.md §5.2."""
    if body is None:
        return None
    message = body.get("message")
    if isinstance(message, dict):
        if "content" in message:
            return V03
        if "parts" in message:
            return V1
    if isinstance(body.get("name"), str) or isinstance(body.get("parent"), str):
        return V03
    return None


def _choose(
    matches: list[tuple[_Route, re.Match[str]]], header: str, body: dict[str, Any] | None
) -> tuple[_Route, re.Match[str], str]:
    versions = {route.spec.version for route, _ in matches}
    if len(versions) == 1:
        return (*_untenanted(matches), "")
    by_body = _body_version(body)
    if header.startswith("1"):
        wanted, why = V1, f"; A2A-Version: {header} settles a path that fits both versions"
    elif by_body is not None:
        wanted, why = by_body, f"; the body's {by_body.value} shape settles the path (§5.2)"
    else:
        wanted, why = V03, "; no A2A-Version header, so the /v1 spelling is read as 0.3 (§8.1.1)"
    return (*_untenanted([m for m in matches if m[0].spec.version is wanted]), why)


def _untenanted(
    matches: list[tuple[_Route, re.Match[str]]],
) -> tuple[_Route, re.Match[str]]:
    # `/v1/message:send` also fits `/{tenant}/message:send`; without other signs the plain
    # route (an interface URL ending in /v1) is the likelier reading.
    plain = [m for m in matches if "tenant" not in m[0].fields]
    return (plain or matches)[0]


def _request_object(
    route: _Route,
    match: re.Match[str],
    query_text: str,
    body: dict[str, Any] | None,
    body_text: str,
) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]]:
    method = grpc_method(route.spec)
    assert method is not None  # every route comes from a method with an rpc
    message = method.input_type
    obj: dict[str, Any] = {}
    for index, field_name in enumerate(route.fields, start=2):
        obj[_json_name(message, field_name)] = unquote(match.group(index))
    extra: list[tuple[str, str]] = []
    for key, value in parse_qsl(query_text, keep_blank_values=True):
        field = _field(message, key)
        if field is None:
            extra.append((key, value))
            continue
        typed = _typed(field, value)
        name = field.json_name
        if bool(getattr(field, "is_repeated", False)):
            obj.setdefault(name, []).append(typed)
        else:
            obj[name] = typed
    if route.rule.body == "*" and body is not None:
        obj.update(body)
    elif route.rule.body and body is not None:
        obj[_json_name(message, route.rule.body)] = body
    return obj, tuple(extra)


def _field(message: Descriptor, key: str) -> FieldDescriptor | None:
    found: FieldDescriptor | None = message.fields_by_name.get(key)
    if found is not None:
        return found
    return next((f for f in message.fields if f.json_name == key), None)


def _json_name(message: Descriptor, proto_name: str) -> str:
    field = message.fields_by_name.get(proto_name)
    return field.json_name if field is not None else proto_name


_INTS = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
}  # fmt: skip


def _typed(field: FieldDescriptor, value: str) -> Any:
    """A query value as the JSON the field holds (§3.1.1: numbers, true/false, names)."""
    if field.type in _INTS and re.fullmatch(r"-?\d+", value):
        return int(value)
    if field.type == FieldDescriptor.TYPE_BOOL and value in ("true", "false"):
        return value == "true"
    return value
