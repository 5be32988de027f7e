"""The replay fixture: recorded exchanges as one versioned YAML or JSON file (docs/FIXTURES.md).

One data model, two spellings: a ``.json`` file is JSON, anything else YAML (PyYAML's safe
dumper and loader, so a file holds nothing but plain data). Bytes are written as text when
they are UTF-8 (``body``, ``data``) and as base64 otherwise (``bodyBase64``,
``dataBase64``), so a fixture stays readable and editable by hand while every answer keeps
its exact bytes. Offsets ``t`` are seconds since the request was sent.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from app.errors import UsageError
from app.spec import spec_text as parse
from app.spec.spec_text import SpecError

FORMAT_VERSION = 1
FORMAT_KEY = "a2aFixture"

Pairs = tuple[tuple[str, str], ...]


class FixtureError(UsageError):
    """A fixture file that cannot be read: the message names the file and the field.

    Raised by :func:`load` and :func:`from_document`; caught by the ``replay`` command as the
    usage error it is (exit 3).
    """


@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE frame as received: its raw bytes, ``t`` seconds after the request."""

    t: float
    data: bytes


@dataclass(frozen=True, slots=True)
class GrpcMessage:
    """One gRPC response message as camelCase ProtoJSON; the replay encodes it with the
    method's official descriptor (``base64`` in the file is that encoding, for readers)."""

    t: float
    json: Any


@dataclass(frozen=True, slots=True)
class Answer:
    """What the agent sent back.

    HTTP: ``status``/``reason``/``headers`` then ``body`` (unary) or ``frames`` (SSE).
    gRPC: ``grpc_status`` (a status code name), initial metadata in ``headers``,
    ``messages``, ``details`` and ``trailers`` (``-bin`` values base64).
    """

    t: float
    status: int
    reason: str
    headers: Pairs
    body: bytes | None = None
    frames: tuple[Frame, ...] = ()
    messages: tuple[GrpcMessage, ...] = ()
    grpc_status: str = ""
    details: str = ""
    trailers: Pairs = ()
    end: float = 0.0
    """When the exchange ended (the stream closed)."""


@dataclass(frozen=True, slots=True)
class RecordedExchange:
    """One request and its answer."""

    name: str
    binding: str
    """``JSONRPC``, ``HTTP+JSON`` or ``GRPC``."""
    version: str
    method: str
    """The A2A method (``SendMessage``, ``message/send``)."""
    streaming: bool
    http_method: str
    """HTTP verb, or ``gRPC``."""
    path: str
    """URL path and query (HTTP) or ``/service/Method`` (gRPC), without scheme and host."""
    headers: Pairs
    body: bytes
    """HTTP: the request body. gRPC: the request message as ProtoJSON."""
    answer: Answer


@dataclass(frozen=True, slots=True)
class Fixture:
    """A whole fixture file; ``notes`` are what the export left out (not written)."""

    exchanges: tuple[RecordedExchange, ...]
    card: dict[str, Any] | None = None
    generator: str = ""
    notes: tuple[str, ...] = field(default=())

    def map_bytes(self, change: Callable[[bytes], bytes]) -> Fixture:
        """This fixture with ``change`` applied to every text and byte string it holds
        (bodies, frames, headers, paths, messages, the card): redaction and stable ids."""

        def text(value: str) -> str:
            return change(value.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")

        def pairs(values: Pairs) -> Pairs:
            return tuple((n, text(v)) for n, v in values)

        def value(obj: Any) -> Any:
            return json.loads(change(json.dumps(obj, ensure_ascii=False).encode()))

        def answer(a: Answer) -> Answer:
            return replace(
                a,
                headers=pairs(a.headers),
                body=None if a.body is None else change(a.body),
                frames=tuple(Frame(f.t, change(f.data)) for f in a.frames),
                messages=tuple(GrpcMessage(m.t, value(m.json)) for m in a.messages),
                details=text(a.details),
                trailers=pairs(a.trailers),
            )

        exchanges = tuple(
            replace(
                x,
                path=text(x.path),
                headers=pairs(x.headers),
                body=change(x.body),
                answer=answer(x.answer),
            )
            for x in self.exchanges
        )
        card = None if self.card is None else value(self.card)
        return replace(self, exchanges=exchanges, card=card)


# --- writing ----------------------------------------------------------------------------


def _bytes_field(name: str, data: bytes) -> dict[str, str]:
    try:
        return {name: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {name + "Base64": base64.b64encode(data).decode("ascii")}


def _pairs_out(pairs: Pairs) -> list[list[str]]:
    return [[n, v] for n, v in pairs]


def _answer_document(
    answer: Answer, encode: Callable[[Any], bytes | None] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"t": round(answer.t, 6)}
    if answer.grpc_status:
        out["grpcStatus"] = answer.grpc_status
        out["headers"] = _pairs_out(answer.headers)
        out["messages"] = [_message_document(m, encode) for m in answer.messages]
        if answer.details:
            out["details"] = answer.details
        out["trailers"] = _pairs_out(answer.trailers)
    else:
        out.update(status=answer.status, reason=answer.reason, headers=_pairs_out(answer.headers))
        if answer.body is not None:
            out.update(_bytes_field("body", answer.body))
        else:
            out["sse"] = [
                {"t": round(f.t, 6), **_bytes_field("data", f.data)} for f in answer.frames
            ]
    out["end"] = round(answer.end, 6)
    return out


def _message_document(
    message: GrpcMessage, encode: Callable[[Any], bytes | None] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"t": round(message.t, 6), "json": message.json}
    data = None if encode is None else encode(message.json)
    if data is not None:
        out["base64"] = base64.b64encode(data).decode("ascii")
    return out


def to_document(
    fixture: Fixture, encode_message: Callable[[RecordedExchange, Any], bytes | None] | None = None
) -> dict[str, Any]:
    """The file's data model; ``encode_message`` gives a gRPC message's bytes (``base64``;
    None leaves it out)."""
    exchanges = []
    for x in fixture.exchanges:
        encode = None if encode_message is None else _bound(encode_message, x)
        request = {"httpMethod": x.http_method, "path": x.path, "headers": _pairs_out(x.headers)}
        request.update(_bytes_field("body", x.body))
        exchanges.append(
            {
                "name": x.name,
                "binding": x.binding,
                "version": x.version,
                "method": x.method,
                "streaming": x.streaming,
                "request": request,
                "response": _answer_document(x.answer, encode),
            }
        )
    document: dict[str, Any] = {FORMAT_KEY: FORMAT_VERSION, "generator": fixture.generator}
    if fixture.card is not None:
        document["card"] = fixture.card
    document["exchanges"] = exchanges
    return document


def _bound(
    encode: Callable[[RecordedExchange, Any], bytes | None], x: RecordedExchange
) -> Callable[[Any], bytes | None]:
    return lambda value: encode(x, value)


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (SSE frames, pretty bodies) as literal blocks where YAML allows."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and "\r" not in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    # A header pair on one line: ``- [Content-Type, application/json]``.
    pair = len(value) == 2 and all(isinstance(v, str) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=pair or None)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)


def dumps(document: dict[str, Any], fmt: str) -> str:
    """``document`` as ``"yaml"`` or ``"json"`` text."""
    if fmt == "json":
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(document, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1_000_000)


def format_for(path: Path) -> str:
    """``json`` for a ``.json`` file, else ``yaml``."""
    return "json" if path.suffix.lower() == ".json" else "yaml"


# --- reading ----------------------------------------------------------------------------


def load(path: Path) -> Fixture:
    """Read a fixture file.

    Raises:
        FixtureError: unreadable, not YAML/JSON, another format version, or a bad field.
    """
    # The spec reader's limits: a size cap before reading, YAML aliases measured before
    # they are expanded (a "billion laughs" file), deep nesting refused, not a crash.
    try:
        text = parse.read_text(path)
        if format_for(path) == "json":
            document, unread = parse.parse_json(text, str(path))
        else:
            document, unread = parse.parse_yaml(text, str(path))
    except SpecError as exc:
        raise FixtureError(f"{path}: cannot be read: {exc}") from exc
    except RecursionError as exc:
        raise FixtureError(f"{path}: nested too deeply to read") from exc
    if unread:  # a key written twice, a non-JSON value: the replay would answer a guess
        first = unread[0]
        where = f"{first.json_path} (line {first.line})" if first.line else first.json_path
        raise FixtureError(f"{path}: {where}: {first.message}")
    try:
        return from_document(document)
    except FixtureError as exc:
        raise FixtureError(f"{path}: {exc}") from exc


class _Reader:
    """Typed access to one object of the document, naming the field in every error."""

    def __init__(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise FixtureError(f"{where or 'the document'}: expected an object")
        self.value, self.where = value, where

    def _at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.value:
            if default is ...:
                raise FixtureError(f"{self._at(key)}: missing")
            return default
        found = self.value[key]
        if not isinstance(found, kind) or (isinstance(found, bool) and kind in (int, float)):
            raise FixtureError(f"{self._at(key)}: expected {_kind_name(kind)}")
        return found

    def number(self, key: str) -> float:
        return float(self.get(key, (int, float), 0.0))

    def child(self, key: str) -> _Reader:
        return _Reader(self.get(key, dict), self._at(key))

    def items(self, key: str) -> list[_Reader]:
        return [_Reader(v, f"{self._at(key)}[{i}]") for i, v in enumerate(self.get(key, list, []))]

    def pairs(self, key: str) -> Pairs:
        out = []
        for i, pair in enumerate(self.get(key, list, [])):
            if not (
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
            ):
                raise FixtureError(f"{self._at(key)}[{i}]: expected [name, value]")
            out.append((pair[0], pair[1]))
        return tuple(out)

    def data(self, key: str, required: bool = True) -> bytes | None:
        if key in self.value:
            return str(self.get(key, str)).encode("utf-8")
        if key + "Base64" in self.value:
            try:
                return base64.b64decode(self.get(key + "Base64", str), validate=True)
            except binascii.Error as exc:
                raise FixtureError(f"{self._at(key + 'Base64')}: not base64: {exc}") from exc
        if required:
            raise FixtureError(f"{self._at(key)}: missing ({key} or {key}Base64)")
        return None


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             list: "a list", dict: "an object"}  # fmt: skip
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds if k is not float or len(kinds) == 1)


def from_document(document: Any) -> Fixture:
    """The fixture a parsed file holds.

    Raises:
        FixtureError: another format version, or a missing or mistyped field.
    """
    top = _Reader(document, "")
    version = top.get(FORMAT_KEY, int)
    if version != FORMAT_VERSION:
        raise FixtureError(
            f"{FORMAT_KEY}: version {version} is not supported (this app reads {FORMAT_VERSION})"
        )
    card = top.get("card", dict, None)
    exchanges = tuple(_exchange(x) for x in top.items("exchanges"))
    return Fixture(exchanges, card, str(top.get("generator", str, "")))


def _exchange(x: _Reader) -> RecordedExchange:
    request, response = x.child("request"), x.child("response")
    binding = x.get("binding", str)
    if binding not in ("JSONRPC", "HTTP+JSON", "GRPC"):
        raise FixtureError(f"{x.where}.binding: {binding!r} is not JSONRPC, HTTP+JSON or GRPC")
    body = request.data("body")
    assert body is not None
    return RecordedExchange(
        name=str(x.get("name", str, "")),
        binding=binding,
        version=str(x.get("version", str, "1.0")),
        method=x.get("method", str),
        streaming=bool(x.get("streaming", bool, False)),
        http_method=str(request.get("httpMethod", str, "gRPC" if binding == "GRPC" else "POST")),
        path=request.get("path", str),
        headers=request.pairs("headers"),
        body=body,
        answer=_answer(response, grpc=binding == "GRPC"),
    )


def _answer(r: _Reader, *, grpc: bool) -> Answer:
    t, end = r.number("t"), r.number("end")
    if grpc:
        kinds = (dict, list, str, int, float, bool)
        messages = tuple(
            GrpcMessage(m.number("t"), m.get("json", kinds)) for m in r.items("messages")
        )
        return Answer(t, 0, "", r.pairs("headers"), messages=messages,
                      grpc_status=str(r.get("grpcStatus", str, "OK")),
                      details=str(r.get("details", str, "")), trailers=r.pairs("trailers"),
                      end=max(end, t))  # fmt: skip
    body = r.data("body", required=False)
    frames = tuple(Frame(f.number("t"), f.data("data") or b"") for f in r.items("sse"))
    if body is None and "sse" not in r.value:
        raise FixtureError(f"{r.where}: needs body, bodyBase64 or sse")
    return Answer(t, int(r.get("status", int)), str(r.get("reason", str, "")), r.pairs("headers"),
                  body=body, frames=frames, end=max(end, t))  # fmt: skip
