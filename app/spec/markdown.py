"""Readable Markdown for one saved operation: the Documentation view and *Copy for LLM*.

The LLM copy keeps the complete ``x-a2a`` block (as YAML) with the referenced component
schemas inlined, so the text stands on its own outside the document.
"""

from __future__ import annotations

import json
from typing import Any

from app.spec.document import SavedOperation, SpecDocument, dumps
from app.spec.schemas import REF_PREFIX
from app.spec.xa2a import X_A2A


def _resolve(node: Any, schemas: dict[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    """``node`` with ``$ref`` s to components inlined (cycles left as ``$ref``)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            name = ref[len(REF_PREFIX) :]
            if name in seen or name not in schemas:
                return node
            inner = _resolve(schemas[name], schemas, seen | {name})
            return {"title": name, **inner} if isinstance(inner, dict) else inner
        return {k: _resolve(v, schemas, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, schemas, seen) for v in node]
    return node


def x_a2a_block(doc: SpecDocument, op: SavedOperation) -> dict[str, Any]:
    """The operation's raw ``x-a2a`` object as stored in the document."""
    item = doc.data.get("paths", {}).get(op.ref.path, {})
    value = item.get(op.ref.method, {}).get(X_A2A, {})
    return value if isinstance(value, dict) else {}


def schema_outline(
    schema: Any, schemas: dict[str, Any], depth: int = 0, limit: int = 2
) -> list[str]:
    """A bullet outline of a schema's properties (required ones marked), ``limit`` levels."""
    lines: list[str] = []
    if not isinstance(schema, dict):
        return lines
    if "$ref" in schema and isinstance(schema["$ref"], str):
        name = schema["$ref"][len(REF_PREFIX) :]
        target = schemas.get(name)
        if target is None:
            return lines
        return schema_outline(target, schemas, depth, limit)
    props = schema.get("properties")
    required = set(schema.get("required", []))
    if isinstance(props, dict):
        for key, sub in props.items():
            lines.append("  " * depth + f"- `{key}`{' (required)' if key in required else ''}: "
                         + _type_text(sub))  # fmt: skip
            if depth + 1 < limit:
                lines.extend(schema_outline(sub, schemas, depth + 1, limit))
    for key in ("oneOf", "anyOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and not props:
            for alt in alternatives:
                lines.append("  " * depth + f"- one of: {_type_text(alt)}")
                if depth + 1 < limit:
                    lines.extend(schema_outline(alt, schemas, depth + 1, limit))
    return lines


def _type_text(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"])[len(REF_PREFIX) :]
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        values = schema["enum"]
        shown = ", ".join(str(v) for v in values[:6]) + (", …" if len(values) > 6 else "")
        return f"one of {shown}"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type_text(schema.get('items', {}))}"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    return str(kind)


def documentation(doc: SpecDocument, op: SavedOperation) -> str:
    """Markdown for the Documentation view."""
    req = op.request
    schemas = doc.data.get("components", {}).get("schemas", {}) or {}
    x = x_a2a_block(doc, op)
    lines = [f"### {req.name}", ""]
    lines += [
        f"- **Operation:** `{req.operation_id}` ({op.ref.method.upper()} `{op.ref.path}`)",
        f"- **Method:** `{req.method}` — A2A {req.version.value}, {req.binding.value}",
        f"- **Endpoint:** `{req.endpoint}`",
    ]
    if req.agent_card_url:
        lines.append(f"- **Agent Card:** `{req.agent_card_url}`")
    if req.tenant:
        lines.append(f"- **Tenant:** `{req.tenant}`")
    if req.auth.kind != "none":
        lines.append(f"- **Auth:** {req.auth.kind}")
    if req.extensions:
        lines.append(f"- **Extensions:** {', '.join(req.extensions)}")
    if req.streaming:
        lines.append("- **Streaming:** the answer is a stream of events")
    lines.append("")
    for title, key in (("Request schema", "requestSchema"), ("Response schema", "responseSchema")):
        schema = x.get(key)
        if schema is None:
            continue
        lines += [f"#### {title}", "", f"`{_type_text(schema)}`", ""]
        lines += schema_outline(schema, schemas, limit=3) or ["(no properties)"]
        lines.append("")
    lines += ["#### Example", "", "```json", req.body, "```", ""]
    return "\n".join(lines)


def llm_markdown(doc: SpecDocument, op: SavedOperation) -> str:
    """Markdown for *Copy for LLM*: summary plus the full ``x-a2a`` block with schemas
    inlined."""
    req = op.request
    schemas = doc.data.get("components", {}).get("schemas", {}) or {}
    block = _resolve(x_a2a_block(doc, op), schemas)
    return "\n".join(
        [
            f"# A2A request: {req.name}",
            "",
            f"A2A protocol {req.version.value} method `{req.method}` over the "
            f"{req.binding.value} binding, sent to `{req.endpoint}`. "
            "`{{name}}` values are variables (secrets are never included).",
            "",
            f"OpenAPI operation `{req.operation_id}` ({op.ref.method.upper()} {op.ref.path}); "
            "its complete `x-a2a` extension, with component schemas inlined:",
            "",
            "```yaml",
            dumps({X_A2A: block}).rstrip("\n"),
            "```",
            "",
        ]
    )
