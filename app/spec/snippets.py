"""Runnable code for a saved request: ``curl`` and Python ``httpx`` for JSON-RPC and
HTTP+JSON, the ProtoJSON body plus a ``grpcurl`` command for gRPC.

Built from the same request mapping the debugger sends with
(:func:`app.protocol.transports.jsonrpc.build_call`, :func:`...rest.build_call`,
:func:`...grpc.metadata_for`), so headers, query and tenant match. Variables whose value is
given in ``values`` (e.g. ``baseUrl``) are filled in; every other ``{{variable}}`` —
in particular secrets — becomes an environment variable ``$A2A_WB_<NAME>``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping

from app.protocol.catalog import find_method, grpc_method
from app.protocol.http import HttpCall
from app.protocol.types import Binding
from app.spec.requests import to_a2a_request
from app.spec.variables import VARIABLE, Resolver, env_name, references
from app.spec.xa2a import SavedRequest

# Placeholders survive URL building and JSON encoding; they become shell/Python variables.
_MARK = "A2AWBVAR"
_MARKED = re.compile(_MARK + r"_([A-Za-z0-9_]+)_" + _MARK)


class _MarkingResolver(Resolver):
    """Known values are substituted; unknown names become ``A2AWBVAR_<ENV>_A2AWBVAR``."""

    def lookup(self, name: str) -> str | None:
        if name in self.values:
            return self.values[name]
        return f"{_MARK}_{env_name(name)}_{_MARK}"


def _host_known(saved: SavedRequest, values: Mapping[str, str]) -> bool:
    """Whether the endpoint's host is known here, so scoped secrets can be checked
    against it. (A snippet never holds a secret value: those become ``$A2A_WB_…``.)"""
    return all(name in values for name in references(saved.endpoint))


def _prepare(saved: SavedRequest, values: Mapping[str, str]) -> tuple[HttpCall | None, str]:
    resolver = _MarkingResolver(dict(values), environ={}, use_keyring=False)
    request = to_a2a_request(saved, resolver, check_scopes=_host_known(saved, values)).request
    if request.binding is Binding.JSONRPC:
        from app.protocol.transports import jsonrpc

        return jsonrpc.build_call(request)[0], ""
    if request.binding is Binding.HTTP_JSON:
        from app.protocol.transports import rest

        return rest.build_call(request)[1], ""
    return None, request.endpoint


def _shell(text: str) -> str:
    """Shell-quote ``text``; markers become ``"${A2A_WB_X}"`` outside the single quotes."""
    pieces: list[str] = []
    pos = 0
    for match in _MARKED.finditer(text):
        if match.start() > pos:
            pieces.append(shlex.quote(text[pos : match.start()]))
        pieces.append('"${' + match.group(1) + '}"')
        pos = match.end()
    if pos < len(text) or not pieces:
        pieces.append(shlex.quote(text[pos:]))
    return "".join(pieces)


def _unmark_url(url: str) -> str:
    # Percent-encoding may have touched the markers' surroundings only; markers are alnum.
    return url


def curl(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A ``curl`` command for a JSON-RPC or HTTP+JSON request.

    Raises:
        UsageError: the request cannot be built (e.g. invalid JSON draft).
        ValueError: a gRPC request (use :func:`grpcurl`).
    """
    call, _ = _prepare(saved, values or {})
    if call is None:
        raise ValueError("gRPC requests have no curl snippet; use grpcurl")
    spec = find_method(saved.version, saved.method)
    lines = ["curl -sS" + (" -N" if spec and spec.streaming else "") + f" -X {call.verb}"]
    lines.append(_shell(_unmark_url(call.url)))
    for name, value in call.headers:
        lines.append("-H " + _shell(f"{name}: {value}"))
    if call.content:
        lines.append("--data-binary " + _shell(call.content.decode("utf-8")))
    return " \\\n  ".join(lines) + "\n"


def httpx_code(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A small Python script using ``httpx`` (streams are read line by line)."""
    call, _ = _prepare(saved, values or {})
    if call is None:
        raise ValueError("gRPC requests have no httpx snippet")
    spec = find_method(saved.version, saved.method)
    uses_env = bool(_MARKED.search(call.url + repr(call.headers) + call.content.decode()))

    def py(text: str) -> str:
        if not _MARKED.search(text):
            return repr(text)
        converted = _MARKED.sub(lambda m: "{os.environ[" + repr(m.group(1)) + "]}", text)
        escaped = converted.replace("\\", "\\\\").replace('"', '\\"')
        return 'f"' + escaped + '"'

    out = ["import httpx"]
    if uses_env:
        out.insert(0, "import os")
    out.append("")
    out.append(f"url = {py(call.url)}")
    out.append("headers = {")
    for name, value in call.headers:
        out.append(f"    {py(name)}: {py(value)},")
    out.append("}")
    body = call.content.decode("utf-8")
    out.append(f"content = {py(body)}" if body else "content = None")
    if spec and spec.streaming:
        out.append(
            f"with httpx.stream({call.verb!r}, url, headers=headers, content=content, "
            "timeout=None) as response:"
        )
        out.append("    print(response.status_code, response.headers.get('content-type'))")
        out.append("    for line in response.iter_lines():")
        out.append("        if line:")
        out.append("            print(line)")
    else:
        out.append(
            f"response = httpx.request({call.verb!r}, url, headers=headers, content=content)"
        )
        out.append("print(response.status_code)")
        out.append("print(response.text)")
    return "\n".join(out) + "\n"


def grpcurl(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """The ProtoJSON body and a ``grpcurl`` command (the demo agent serves reflection)."""
    from app.protocol.transports import grpc as grpc_transport

    resolver = _MarkingResolver(dict(values or {}), environ={}, use_keyring=False)
    request = to_a2a_request(saved, resolver, check_scopes=_host_known(saved, values or {})).request
    spec = find_method(saved.version, saved.method)
    rpc = grpc_method(spec) if spec else None
    if rpc is None:
        raise ValueError(f"{saved.method} has no gRPC rpc")
    target = grpc_transport.parse_target(request.endpoint)
    try:
        body = json.dumps(json.loads(request.body), indent=2, ensure_ascii=False)
    except ValueError:
        body = request.body
    lines = ["grpcurl" + ("" if target.tls else " -plaintext")]
    for name, value in grpc_transport.metadata_for(request):
        text = value if isinstance(value, str) else value.decode("latin-1")
        lines.append("-H " + _shell(f"{name}: {text}"))
    lines.append("-d @")
    lines.append(_shell(target.address))
    lines.append(_shell(rpc.full_name.rsplit(".", 1)[0] + "/" + rpc.name))
    command = " \\\n  ".join(lines)
    return (
        "# ProtoJSON request body (the message as JSON); grpcurl reads it from stdin.\n"
        "# Without server reflection add: -import-path DIR -proto a2a.proto\n"
        f"{command} <<'EOF'\n{_MARKED.sub(lambda m: '${' + m.group(1) + '}', body)}\nEOF\n"
    )


def snippet_kinds(saved: SavedRequest) -> list[str]:
    """The snippet kinds offered for ``saved``: ``curl``/``httpx`` or ``grpcurl``."""
    return ["grpcurl"] if saved.binding is Binding.GRPC else ["curl", "httpx"]


def snippet(kind: str, saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """The snippet of ``kind`` (``curl``, ``httpx``, ``grpcurl``)."""
    return {"curl": curl, "httpx": httpx_code, "grpcurl": grpcurl}[kind](saved, values)


__all__ = ["VARIABLE", "curl", "grpcurl", "httpx_code", "snippet", "snippet_kinds"]
