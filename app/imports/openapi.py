"""An OpenAPI 3.0 / 3.1 / 3.2 document *without* ``x-a2a`` → :class:`RawRequest` values.

Many agents publish a plain OpenAPI description of their A2A endpoint. Each operation
becomes one request per example body (``content.*.example``, ``examples.*.value``, the
schema's ``example``/``examples``); an operation without an example is still one request
(a REST GET needs none). Path parameters take their example (else a ``<name>``
placeholder), query and header parameters their example when they have one; the server
is the first ``servers`` entry with its variables' defaults (else ``{{baseUrl}}``).
Security schemes become the auth type with an empty credential, which the saving rule
turns into a ``{{variable}}`` to fill in. Only ``#/…`` references are followed; nothing is
fetched. :mod:`app.imports.detect` then decides which operations are A2A.

A JSON-RPC operation whose schema lists A2A method names (``method: {enum: [...]}``) but has
no example gets one request per listed method, from the method catalog's template.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlencode

from app.imports.raw import ImportSourceError, RawAuth, RawRequest, Source
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.types import Binding, ProtocolVersion
from app.spec.spec_text import HTTP_METHODS
from app.spec.xa2a import X_A2A

_PARAM = re.compile(r"\{([^}/]+)\}")
_MAX_REF_DEPTH = 20


def is_openapi(data: Any) -> bool:
    """Whether parsed data is an OpenAPI 3.x document."""
    return isinstance(data, dict) and str(data.get("openapi", "")).startswith("3.")


def parse_openapi(data: Any) -> Source:
    """The requests described by an OpenAPI 3.0–3.2 document.

    Raises:
        ImportSourceError: not OpenAPI 3 (Swagger 2.0 included), or already an A2A
            Workbench spec (it has ``x-a2a`` operations: open it instead).
    """
    if isinstance(data, dict) and "swagger" in data:
        raise ImportSourceError("Swagger 2.0 is not read; convert it to OpenAPI 3 first")
    if not is_openapi(data):
        raise ImportSourceError("Not an OpenAPI 3 document (no 'openapi: 3.x' key)")
    version = str(data["openapi"])
    if not re.match(r"^3\.[012](\.\d+)?$", version):
        raise ImportSourceError(f"OpenAPI {version} is not supported (3.0, 3.1 and 3.2 are)")
    paths = data.get("paths") if isinstance(data.get("paths"), dict) else {}
    out: list[RawRequest] = []
    for path, item in paths.items():
        item = _deref(data, item)
        if not isinstance(item, dict):
            continue
        for verb, op in item.items():
            if verb not in HTTP_METHODS or not isinstance(op, dict):
                continue
            if X_A2A in op:
                raise ImportSourceError(
                    f"paths.{path}.{verb} has x-a2a: this is already an A2A Workbench spec; "
                    "open it with File → Open spec…"
                )
            place = f"paths.{path}.{verb}"
            out += _operation(data, str(path), verb, op, item, place)
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    title = str(info.get("title") or "OpenAPI import")
    return Source("openapi", title, tuple(out), (f"OpenAPI {version}",))


def _deref(doc: dict[str, Any], node: Any) -> Any:
    for _ in range(_MAX_REF_DEPTH):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return {}
        target: Any = doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        node = target
    return node


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one (a hostile document's wrong type)."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else nothing (a hostile document's wrong type)."""
    return value if isinstance(value, list) else []


def _server(doc: dict[str, Any], op: dict[str, Any], item: dict[str, Any]) -> str:
    for owner in (op, item, doc):
        servers = owner.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], dict):
            url = str(servers[0].get("url") or "")
            variables = servers[0].get("variables")
            for name, var in (variables if isinstance(variables, dict) else {}).items():
                if isinstance(var, dict) and "default" in var:
                    url = url.replace("{" + str(name) + "}", str(var["default"]))
            return url.rstrip("/")
    return "{{baseUrl}}"


def _operation(
    doc: dict[str, Any], path: str, verb: str, op: dict[str, Any], item: dict[str, Any], place: str
) -> list[RawRequest]:
    declared = [*_list(item.get("parameters")), *_list(op.get("parameters"))]
    params = [_deref(doc, p) for p in declared]
    values: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = []
    for param in params:
        if not isinstance(param, dict) or not param.get("name"):
            continue
        example = _param_example(doc, param)
        where, name = param.get("in"), str(param["name"])
        if where == "path":
            values[name] = example if example is not None else f"<{name}>"
        elif where == "query" and example is not None:
            query.append((name, example))
        elif where == "header" and example is not None:
            headers.append((name, example))
    filled = _PARAM.sub(lambda m: quote(values.get(m.group(1), f"<{m.group(1)}>"), safe="<>"), path)
    url = _server(doc, op, item) + filled + (f"?{urlencode(query)}" if query else "")
    name = str(op.get("summary") or op.get("operationId") or f"{verb.upper()} {path}")
    tags = op.get("tags")
    folder = str(tags[0]) if isinstance(tags, list) and tags else ""
    auth = _auth(doc, op)
    bodies, media = _bodies(doc, op)
    if media:
        headers.append(("Content-Type", media))
    base = RawRequest(verb.upper(), url, tuple(headers), "", name, place, folder, auth or RawAuth())
    if not bodies:
        return [base]
    many = len(bodies) > 1
    return [
        RawRequest(
            base.method, url, base.headers, text, f"{name} ({label})" if many and label else name,
            place, folder, base.auth,
        )
        for label, text in bodies
    ]  # fmt: skip


def _param_example(doc: dict[str, Any], param: dict[str, Any]) -> str | None:
    schema = _dict(_deref(doc, param.get("schema")))
    for value in (param.get("example"), schema.get("example"), schema.get("default")):
        if value is not None and not isinstance(value, dict | list):
            return str(value).lower() if isinstance(value, bool) else str(value)
    examples = param.get("examples")
    if isinstance(examples, dict):
        for example in examples.values():
            value = _deref(doc, example).get("value") if isinstance(example, dict) else None
            if value is not None and not isinstance(value, dict | list):
                return str(value)
    return None


def _bodies(doc: dict[str, Any], op: dict[str, Any]) -> tuple[list[tuple[str, str]], str]:
    """``(label, body text)`` per example of the JSON request body, and its media type."""
    body = _deref(doc, op.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict):
        return [], ""
    media = next((m for m in content if "json" in str(m).lower()), None)
    if media is None:
        return [], ""
    entry = _dict(_deref(doc, content[media]))
    schema = _dict(_deref(doc, entry.get("schema")))
    found: list[tuple[str, Any]] = []
    if "example" in entry:
        found.append(("", entry["example"]))
    for label, example in _dict(entry.get("examples")).items():
        example = _deref(doc, example)
        if isinstance(example, dict) and "value" in example:
            found.append((str(example.get("summary") or label), example["value"]))
    if not found and "example" in schema:
        found.append(("", schema["example"]))
    if not found and isinstance(schema.get("examples"), list):
        found += [(str(n + 1), value) for n, value in enumerate(schema["examples"])]
    if not found:
        found = [(name, envelope) for name, envelope in _from_method_enum(doc, schema)]
    return [(label, json.dumps(value, indent=2)) for label, value in found], str(media)


def _from_method_enum(doc: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, Any]]:
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    method = _deref(doc, props.get("method")) if props else None
    if not isinstance(method, dict):
        return []
    enum = method.get("enum")
    names: list[Any] = enum if isinstance(enum, list) else []
    if "const" in method:
        names = [method["const"]]
    out = []
    for name in names:
        for version in (ProtocolVersion.V1_0, ProtocolVersion.V0_3):
            spec = find_method(version, str(name))
            if spec is not None:
                params = spec.template(Binding.JSONRPC, TemplateContext())
                envelope = {"jsonrpc": "2.0", "id": 1, "method": spec.name, "params": params}
                out.append((spec.name, envelope))
                break
    return out


def _auth(doc: dict[str, Any], op: dict[str, Any]) -> RawAuth | None:
    security = op.get("security", doc.get("security"))
    schemes = _dict(_dict(doc.get("components")).get("securitySchemes"))
    if not isinstance(security, list) or not isinstance(schemes, dict):
        return None
    for requirement in security:
        for name in requirement if isinstance(requirement, dict) else ():
            scheme = _deref(doc, schemes.get(name))
            if not isinstance(scheme, dict):
                continue
            kind = scheme.get("type")
            http = str(scheme.get("scheme", "")).lower()
            if (kind == "http" and http == "bearer") or kind in ("oauth2", "openIdConnect"):
                return RawAuth("bearer", (("token", ""),))
            if kind == "http" and http == "basic":
                return RawAuth("basic", (("username", ""), ("password", "")))
            if kind == "apiKey":
                where, key = str(scheme.get("in", "header")), str(scheme.get("name", "X-API-Key"))
                return RawAuth("api_key", (("in", where), ("name", key), ("value", "")))
    return None
