"""Exchange events to stored rows and back, with every credential masked on the way in.

A row is ``(kind, t, meta, payload)``: ``meta`` a small JSON object with the event's fields,
``payload`` the event's bytes (request or response body, a stream item's raw frame). Parsed
JSON is not stored: it is parsed again from the bytes on the way out, so the store holds
each body once.

Masking happens before anything reaches the database: credential headers keep only their
scheme word (``Bearer ****``, :mod:`app.protocol.secrets`), and every credential value the
request carried is replaced by ``****`` wherever else it appears (bodies, frames, error
texts), so no secret is ever stored in clear.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import orjson

from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Headers,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import A2ARequest
from app.protocol.secrets import (
    MASK,
    looks_sensitive,
    mask_headers,
    mask_url_query,
    redact,
)
from app.protocol.stream.stream_items import classify_frame
from app.protocol.types import ProtocolVersion
from app.protocol.wire.jsonparse import parse_json
from app.protocol.wire.sse import SseDecoder

Row = tuple[str, float, str, bytes]
"""``(kind, t, meta JSON, payload)``."""

_MASK_BYTES = MASK.encode()


class Masker:
    """Masks the credentials of one request in everything recorded about its exchange."""

    def __init__(
        self,
        request: A2ARequest,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
    ) -> None:
        self._headers = tuple(dict.fromkeys(n.lower() for n in secret_headers))
        self._query = tuple(dict.fromkeys(n.lower() for n in secret_query))
        self._secrets: tuple[str, ...] = ()
        self._secret_bytes: tuple[bytes, ...] = ()
        self.learn(request.headers, request.query, request.endpoint)

    def learn(self, headers: Headers, query: Headers, url: str) -> None:
        """Add the credential values found in ``headers``, ``query`` and ``url``."""
        found = set(self._secrets)
        for name, value in headers:
            if name.lower() in self._headers or looks_sensitive(name):
                found.update((value, value.partition(" ")[2]))
        try:
            parts = urlsplit(url)
            pairs = [*query, *parse_qsl(parts.query, keep_blank_values=True)]
            password = parts.password
        except ValueError:
            pairs, password = list(query), None
        for name, value in pairs:
            if name.lower() in self._query or looks_sensitive(name):
                found.add(value)
        if password:
            found.add(password)
        # Also their URL-encoded and JSON-escaped forms; short values would mangle text.
        variants = {form for v in found for form in (v, quote(v, safe=""), _json_escaped(v))}
        self._secrets = tuple(sorted((v for v in variants if len(v) >= 4), key=len, reverse=True))
        self._secret_bytes = tuple(v.encode("utf-8", "surrogatepass") for v in self._secrets)

    @property
    def has_secrets(self) -> bool:
        return bool(self._secret_bytes)

    def text(self, text: str) -> str:
        return redact(text, self._secrets) if self._secrets else text

    def data(self, data: bytes) -> bytes:
        for secret in self._secret_bytes:
            if secret in data:
                data = data.replace(secret, _MASK_BYTES)
        return data

    def headers(self, headers: Headers) -> Headers:
        return tuple((n, self.text(v)) for n, v in mask_headers(headers, self._headers))

    def url(self, url: str) -> str:
        return self.text(mask_url_query(url, self._query))


def _json_escaped(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _dumps(meta: dict[str, Any]) -> str:
    return orjson.dumps(meta).decode()


def _pairs(headers: Headers) -> list[list[str]]:
    return [list(pair) for pair in headers]


ItemRecord = tuple[int, float, bytes, bool, str, str]
"""What the store keeps of a stream item: ``(seq, t, raw, parsed, json_error, sse_event)``.
Plain values only: a queue of them costs the garbage collector nothing (a StreamItem and
its parsed JSON would be walked by every collection while they wait for the writer)."""


def item_record(item: StreamItem) -> ItemRecord:
    """The :data:`ItemRecord` of ``item``."""
    return (item.seq, item.t, item.raw, item.json is not NOT_JSON, item.json_error, item.sse_event)


def pack_items(items: list[ItemRecord], mask: Masker) -> Row:
    """Consecutive stream items as one row, credentials masked: kind ``items``, ``meta`` a
    list of ``[seq, t, size, parsed, json_error, sse_event]`` (the last two only when set;
    rows written before the SSE id was dropped carry a third, ignored), ``payload`` the raw
    frames joined.

    One row per batch rather than per item: the database releases and retakes the GIL on
    every row, and a stream's thread would wait for it each time.
    """
    metas: list[list[Any]] = []
    raws: list[bytes] = []
    masked = mask.has_secrets
    for seq, t, raw, parsed, json_error, sse_event in items:
        if masked:
            raw = mask.data(raw)
        raws.append(raw)
        entry: list[Any] = [seq, t, len(raw), parsed]
        if json_error or sse_event:
            entry += [mask.text(json_error), sse_event]
        metas.append(entry)
    return "items", items[0][1], _dumps_list(metas), b"".join(raws)


def _dumps_list(value: list[Any]) -> str:
    return orjson.dumps(value).decode()


def encode(event: ExchangeEvent, mask: Masker) -> Row:
    """The stored row for ``event`` (not a stream item: see :func:`pack_items`), masked."""
    meta: dict[str, Any]
    match event:
        case RequestSent():
            mask.learn(event.headers, (), event.url)
            meta = {"method": event.method, "url": mask.url(event.url),
                    "headers": _pairs(mask.headers(event.headers)),
                    "rpc_method": event.rpc_method, "streaming": event.streaming,
                    "version": event.version.value}  # fmt: skip
            if event.descriptors:  # gRPC only: HTTP rows keep their keys
                meta["descriptors"] = event.descriptors
            if event.tls_unverified:  # only when set: other rows keep their keys
                meta["tls_unverified"] = True
            if event.proxy:
                meta["proxy"] = event.proxy  # already masked
            return "request", event.t, _dumps(meta), mask.data(event.body)
        case ResponseHead():
            meta = {"status": event.status, "reason": event.reason,
                    "http_version": event.http_version,
                    "headers": _pairs(mask.headers(event.headers)),
                    "event_stream": event.event_stream}  # fmt: skip
            return "head", event.t, _dumps(meta), b""
        case ResponseBody():
            meta = {"content_type": event.content_type, "json": event.is_json,
                    "json_error": mask.text(event.json_error),
                    "trailers": _pairs(mask.headers(event.trailers))}  # fmt: skip
            return "body", event.t, _dumps(meta), mask.data(event.body)
        case ExchangeError():
            meta = {"kind": event.kind.value, "message": mask.text(event.message),
                    "code": event.code, "name": event.name,
                    "details": [mask.text(line) for line in event.details],
                    "trailers": _pairs(mask.headers(event.trailers))}  # fmt: skip
            # Error data is any JSON: masked as text, so no credential survives inside it.
            meta["data"] = event.data
            text = mask.text(json.dumps(meta, ensure_ascii=False, default=str))
            return "error", event.t, text, b""
        case ExchangeEnd():
            return "end", event.t, _dumps({"outcome": event.outcome.value}), b""
    raise TypeError(f"not an exchange event: {event!r}")


def _headers(pairs: list[list[str]]) -> Headers:
    return tuple((str(n), str(v)) for n, v in pairs)


def decode(
    kind: str, t: float, meta_text: str, payload: bytes, *, grpc: bool
) -> list[ExchangeEvent]:
    """The events a stored row holds (``grpc``: stream items are protobuf JSON, not SSE)."""
    meta = json.loads(meta_text)
    if kind == "items":
        return list(_unpack_items(meta, payload, grpc))
    return [_decode_one(kind, t, meta, payload)]


def _unpack_items(metas: list[list[Any]], payload: bytes, grpc: bool) -> Iterator[StreamItem]:
    offset = 0
    for seq, t, size, parsed, *extra in metas:
        raw = payload[offset : offset + size]
        offset += size
        json_error, sse_event = (extra or ["", ""])[:2]
        value: Any = NOT_JSON
        if parsed:
            value, json_error = parse_json(raw if grpc else _sse_data(raw))
        info = classify_frame(value, json_error, sse_event, raw)  # as the transport did
        yield StreamItem(t, seq, raw, value, json_error, sse_event, info)


def _decode_one(kind: str, t: float, meta: dict[str, Any], payload: bytes) -> ExchangeEvent:
    if kind == "request":
        return RequestSent(t, meta["method"], meta["url"], _headers(meta["headers"]), payload,
                           meta["rpc_method"], meta.get("streaming", False),
                           ProtocolVersion(meta.get("version", "1.0")),
                           descriptors=meta.get("descriptors", ""),
                           tls_unverified=bool(meta.get("tls_unverified", False)),
                           proxy=str(meta.get("proxy", "")))  # fmt: skip
    if kind == "head":
        return ResponseHead(t, meta["status"], meta["reason"], meta["http_version"],
                            _headers(meta["headers"]), meta.get("event_stream", False))  # fmt: skip
    if kind == "body":
        value, error = NOT_JSON, meta["json_error"]
        if meta["json"]:
            value, error = parse_json(payload)
        return ResponseBody(t, payload, meta["content_type"], value, error,
                            _headers(meta["trailers"]))  # fmt: skip
    if kind == "error":
        return ExchangeError(t, ErrorKind(meta["kind"]), meta["message"], meta["code"],
                             meta["name"], meta["data"], tuple(meta["details"]),
                             _headers(meta["trailers"]))  # fmt: skip
    if kind == "end":
        return ExchangeEnd(t, Outcome(meta["outcome"]))
    raise ValueError(f"unknown stored event kind {kind!r}")


def _sse_data(raw: bytes) -> str:
    """The ``data`` of one stored SSE frame (what its JSON was parsed from)."""
    decoder = SseDecoder()
    frames = [*decoder.feed(raw), *decoder.close()]
    return next((f.data for f in frames if f.data is not None), "")
