"""Runnable code for a saved request: ``curl`` and Python ``httpx`` for JSON-RPC and
HTTP+JSON, the ProtoJSON body plus a ``grpcurl`` command for gRPC, the request line piped
into ``websocat`` (WebSocket), ``socat`` (a Unix socket) or the agent's own command (stdio).

Built from the same request mapping the debugger sends with (the binding's transport's
``http_call``, :func:`app.protocol.transports.grpc.metadata_for`), so headers, query and
tenant match; which kinds a binding offers is its ``snippets`` trait
(:mod:`app.protocol.bindings`). Variables whose value is
given in ``values`` (e.g. ``baseUrl``) are filled in; every other ``{{variable}}`` —
in particular secrets — becomes an environment variable ``$A2A_WB_<NAME>``.

Data never becomes code: every value is quoted with the target language's own quoting
(:func:`shlex.quote` words for the shell, :func:`repr` literals for Python), and variables
are spliced in as separate ``"${A2A_WB_X}"`` / ``os.environ['A2A_WB_X']`` pieces.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import shlex
from collections.abc import Mapping
from typing import Any

import httpx

from app.protocol.bindings import traits
from app.protocol.methods.catalog import find_method, grpc_method
from app.protocol.net.http import HttpCall
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.carrier_frames import request_frame, unix_path
from app.spec.requests import to_a2a_request
from app.spec.variables import VARIABLE, Resolver, env_name, references
from app.spec.xa2a import SavedRequest

# Placeholders survive URL building and JSON encoding; they become shell/Python variables.
# The random part keeps data from forging one: text in a spec cannot know it in advance.
_MARK = "A2AWB" + secrets.token_hex(8).upper()
_MARKED = re.compile(_MARK + r"_(A2A_WB_[A-Z0-9_]*)_" + _MARK)


class _MarkingResolver(Resolver):
    """Known values are substituted; unknown names become ``<mark>_<ENV>_<mark>``."""

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
    from app.protocol.transports.transport_table import transport_for

    call = transport_for(request.binding).http_call(request)
    return (call, "") if call is not None else (None, request.endpoint)


# RFC 9110 §5.6.2 token: what a field name may be. Anything else (``@file`` included,
# which curl would read as a file of headers) is refused rather than quoted.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _check_names(names: list[str]) -> None:
    for name in names:
        if not _TOKEN.fullmatch(name):
            raise UsageError(f"header name {name!r} is not a valid HTTP field name")


def _full_url(call: HttpCall) -> str:
    """The URL as httpx sends it: ``call.query`` merged into ``call.url`` (markers are
    alphanumeric, so percent-encoding leaves them whole)."""
    if not call.query:
        return call.url
    return str(httpx.URL(call.url).copy_merge_params(list(call.query)))


def _shell(text: str) -> str:
    """One shell word for ``text``: literal runs single-quoted by :func:`shlex.quote`,
    markers as ``"${A2A_WB_X}"``; nothing in the data is ever expanded or executed."""
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


def _python(text: str) -> str:
    """A Python expression for ``text``: literal runs as :func:`repr` string literals,
    markers as ``os.environ['A2A_WB_X']``, joined with ``+`` (no f-string: data stays data)."""
    pieces: list[str] = []
    pos = 0
    for match in _MARKED.finditer(text):
        if match.start() > pos:
            pieces.append(repr(text[pos : match.start()]))
        pieces.append(f"os.environ[{match.group(1)!r}]")
        pos = match.end()
    if pos < len(text) or not pieces:
        pieces.append(repr(text[pos:]))
    return " + ".join(pieces)


def curl(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A ``curl`` command for a JSON-RPC or HTTP+JSON request.

    Raises:
        UsageError: the request cannot be built (e.g. invalid JSON draft).
        ValueError: the binding does not ride HTTP (gRPC: use :func:`grpcurl`).
    """
    call, _ = _prepare(saved, values or {})
    if call is None:
        offered = " or ".join(snippet_kinds(saved)) or "none"
        raise ValueError(f"{_label(saved)} requests have no curl snippet; use {offered}")
    _check_names([name for name, _ in call.headers])
    if call.content.startswith(b"@"):  # curl would read a file of that name
        raise UsageError("a body starting with '@' cannot be given to curl --data-binary")
    spec = find_method(saved.version, saved.method)
    lines = ["curl -sS" + (" -N" if spec and spec.streaming else "") + f" -X {call.verb}"]
    lines.append(_shell(_full_url(call)))
    for name, value in call.headers:
        lines.append("-H " + _shell(f"{name}: {value}"))
    if call.content:
        lines.append("--data-binary " + _shell(call.content.decode("utf-8")))
    return " \\\n  ".join(lines) + "\n"


def httpx_code(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A small Python script using ``httpx`` (streams are read line by line)."""
    call, _ = _prepare(saved, values or {})
    if call is None:
        raise ValueError(f"{_label(saved)} requests have no httpx snippet")
    spec = find_method(saved.version, saved.method)
    url = _full_url(call)
    body = call.content.decode("utf-8")
    uses_env = any(_MARKED.search(t) for t in (url, body, *(v for h in call.headers for v in h)))
    py = _python
    out = ["import httpx"]
    if uses_env:
        out.insert(0, "import os")
    out.append("")
    out.append(f"url = {py(url)}")
    out.append("headers = {")
    for name, value in call.headers:
        out.append(f"    {py(name)}: {py(value)},")
    out.append("}")
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
    metadata = grpc_transport.metadata_for(request)
    _check_names([name for name, _ in metadata])
    for name, value in metadata:
        # grpcurl takes -bin values base64-encoded, as they were written.
        text = value if isinstance(value, str) else base64.b64encode(value).decode("ascii")
        lines.append("-H " + _shell(f"{name}: {text}"))
    lines.append("-d " + _shell(body))
    lines.append(_shell(target.address))
    lines.append(_shell(rpc.full_name.rsplit(".", 1)[0] + "/" + rpc.name))
    command = " \\\n  ".join(lines)
    return (
        "# -d carries the ProtoJSON request body (the message as JSON).\n"
        "# Without server reflection add: -import-path DIR -proto a2a.proto\n"
        f"{command}\n"
    )


def _carrier_request(saved: SavedRequest, values: Mapping[str, str] | None) -> Any:
    resolver = _MarkingResolver(dict(values or {}), environ={}, use_keyring=False)
    return to_a2a_request(saved, resolver, check_scopes=_host_known(saved, values or {})).request


def _piped(frame: bytes, command: list[str]) -> str:
    """``printf '%s\\n' FRAME | COMMAND``: the request as one line on the tool's stdin."""
    line = "printf '%s\\n' " + _shell(frame.decode("utf-8"))
    return f"{line} \\\n  | " + " \\\n  ".join(command) + "\n"


def websocat(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A ``websocat`` command for a WebSocket request: the frame on stdin, the handshake's
    headers as ``-H``; ``-n`` keeps the socket open after stdin ends, for the replies."""
    from app.protocol.transports import websocket as ws_transport

    request = _carrier_request(saved, values)
    frame, _ = request_frame(request.body)
    headers = ws_transport.handshake_headers(request)
    _check_names([name for name, _ in headers])
    command = ["websocat -n"] + ["-H " + _shell(f"{n}: {v}") for n, v in headers]
    command.append(_shell(ws_transport.url_of(request)))
    return _piped(frame, command)


def socat(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """A ``socat`` command for a Unix socket request (``-t`` waits for a stream's lines)."""
    request = _carrier_request(saved, values)
    frame, _ = request_frame(request.body)
    path = unix_path(request.endpoint)
    return _piped(frame, ["socat -t 60 -", _shell(f"UNIX-CONNECT:{path}")])


def stdio(saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """The request piped into the stdio agent's command line (it ends at end of input)."""
    request = _carrier_request(saved, values)
    if not request.command.strip():
        raise ValueError("the stdio request has no command line to pipe it into")
    frame, _ = request_frame(request.body)
    # Quoted word by word as the app splits it (no shell runs it there: none expands here).
    return _piped(frame, [" ".join(_shell(word) for word in shlex.split(request.command))])


def snippet_kinds(saved: SavedRequest) -> list[str]:
    """The snippet kinds offered for ``saved``: ``curl``/``httpx`` or ``grpcurl``."""
    return list(traits(saved.binding).snippets)


def _label(saved: SavedRequest) -> str:
    return traits(saved.binding).label


def snippet(kind: str, saved: SavedRequest, values: Mapping[str, str] | None = None) -> str:
    """The snippet of ``kind`` (``curl``, ``httpx``, ``grpcurl``)."""
    kinds = {"curl": curl, "httpx": httpx_code, "grpcurl": grpcurl, "websocat": websocat,
             "socat": socat, "stdio": stdio}  # fmt: skip
    return kinds[kind](saved, values)


__all__ = [
    "VARIABLE",
    "curl",
    "grpcurl",
    "httpx_code",
    "snippet",
    "snippet_kinds",
    "socat",
    "stdio",
    "websocat",
]
