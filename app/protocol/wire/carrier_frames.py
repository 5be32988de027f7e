"""The frames of the custom JSON-RPC carriers (docs/PROTOCOL.md §12), sans-IO.

A carrier takes one JSON-RPC 2.0 request and answers with replies, each one JSON-RPC
message, marked final or not in the carrier's own way:

- lines (stdio, a Unix socket): one compact UTF-8 JSON text per line; a stream is one line
  per result, then ``{"jsonrpc":"2.0","id":…,"final":true}``;
- WebSocket: one request per text frame; each reply wrapped as
  ``{"id":…,"payload":<JSON-RPC message>,"final":bool}``; a stream ends with a final frame
  whose payload carries neither ``result`` nor ``error``;
- Redis Streams: entries with the fields ``correlation_id``, ``payload`` (the JSON-RPC
  message) and ``final`` (``"true"`` / ``"false"``).

Bytes or field maps in, :class:`CarrierReply` out; the transports in
``app/protocol/transports/`` do the I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.jsonparse import parse_json
from app.protocol.wire.notjson import NOT_JSON

__all__ = [
    "DEFAULT_GROUP",
    "DEFAULT_REPLY_STREAM",
    "DEFAULT_REQUEST_STREAM",
    "CarrierReply",
    "RedisStreamsAddress",
    "line_reply",
    "oversize_reply",
    "redis_reply",
    "redis_streams_address",
    "reply_id",
    "request_frame",
    "unix_path",
    "websocket_reply",
]

# What iac-code's card names when its configuration names no streams (docs/PEERS.md §3.3).
DEFAULT_REQUEST_STREAM = "iac-code:a2a:requests"
DEFAULT_REPLY_STREAM = "iac-code:a2a:responses"
DEFAULT_GROUP = "iac-code"


@dataclass(frozen=True, slots=True)
class CarrierReply:
    """One reply of a carrier.

    Attributes:
        raw: the JSON-RPC message's bytes: the line (without its newline), the Redis entry's
            ``payload``, or a WebSocket frame's ``payload`` member (re-encoded compactly:
            the frame holds it inside the wrapper).
        json: ``raw`` parsed, or NOT_JSON.
        json_error: why it is not JSON.
        final: the carrier's end mark: no more replies follow for this request.
        closing: a reply that only ends a stream (final, with neither ``result`` nor
            ``error``): framing, not an item.
        frame: the whole frame as received, when it differs from ``raw`` (WebSocket).
    """

    raw: bytes
    json: Any
    json_error: str
    final: bool
    closing: bool
    frame: bytes = b""

    @property
    def has_result(self) -> bool:
        """Whether the message carries a ``result`` (a unary answer or a stream item)."""
        return type(self.json) is dict and "result" in self.json

    @property
    def has_error(self) -> bool:
        """Whether the message carries a JSON-RPC ``error``."""
        return type(self.json) is dict and "error" in self.json


def request_frame(body: str) -> tuple[bytes, Any]:
    """The request as one compact UTF-8 JSON text (a line must not break) and its ``id``.

    A body that is not JSON (sent on purpose, ``malformed``) goes as typed, its line breaks
    turned into spaces so that it stays one frame.
    """
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.replace("\r", " ").replace("\n", " ").encode(), None
    request_id = value.get("id") if isinstance(value, dict) else None
    return orjson.dumps(value), request_id


def oversize_reply(head: bytes, cap: int, unit: str) -> CarrierReply:
    """What stands for a reply over ``cap`` bytes (a ``unit``: line, frame, payload): not
    JSON, saying so, and final (what it answers is unread); ``head`` its first bytes."""
    why = f"a {unit} over the size limit ({cap} bytes), not read"
    return CarrierReply(head[:1024], NOT_JSON, why, True, False)


def _closing(value: Any) -> bool:
    return type(value) is dict and "result" not in value and "error" not in value


def line_reply(line: bytes) -> CarrierReply:
    """One line of the stdio / Unix socket framing."""
    raw = line.rstrip(b"\r\n")
    value, error = parse_json(raw)
    final = type(value) is dict and value.get("final") is True
    return CarrierReply(raw, value, error, final, final and _closing(value))


def websocket_reply(frame: str | bytes) -> CarrierReply:
    """One WebSocket frame: the wrapper's ``payload`` is the message. A frame that is no
    wrapper is taken as the message itself, and as final."""
    data = frame.encode() if isinstance(frame, str) else bytes(frame)
    wrapper, error = parse_json(data)
    if type(wrapper) is not dict or "payload" not in wrapper:
        return CarrierReply(data, wrapper, error, True, False)
    payload = wrapper["payload"]
    final = wrapper.get("final") is True
    raw = orjson.dumps(payload)
    return CarrierReply(raw, payload, "", final, final and _closing(payload), data)


def redis_reply(fields: Mapping[Any, Any]) -> CarrierReply:
    """One Redis Streams entry (field names and values as bytes or text)."""
    named = {_text(k): v for k, v in fields.items()}
    payload = named.get("payload", b"")
    raw = payload.encode() if isinstance(payload, str) else bytes(payload)
    value, error = parse_json(raw)
    final = _text(named.get("final", b"")).lower() in ("true", "1")
    return CarrierReply(raw, value, error, final, final and _closing(value))


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def reply_id(reply: CarrierReply) -> Any:
    """The ``id`` a reply answers (None when it has none or is not JSON)."""
    return reply.json.get("id") if type(reply.json) is dict else None


def unix_path(url: str) -> str:
    """The socket file of ``unix:///path`` (``unix:/path`` and a bare path too).

    Raises:
        UsageError: no path.
    """
    text = url.strip()
    path = unquote(urlsplit(text).path) if text.lower().startswith("unix:") else text
    if not path:
        raise UsageError(f"The Unix socket URL {url!r} names no socket file (unix:///path)")
    return path


@dataclass(frozen=True, slots=True)
class RedisStreamsAddress:
    """Where a Redis Streams agent listens: the server, its request stream, the reply stream
    its card names (a client names its own per request) and its consumer group."""

    redis_url: str
    request_stream: str
    reply_stream: str
    group: str


def redis_streams_address(url: str) -> RedisStreamsAddress:
    """``redis-streams://<redis URL>/<request stream>/<reply stream>/<group>``, as iac-code's
    card writes it; a bare ``redis-streams://<redis URL>`` takes the default stream names.

    Raises:
        UsageError: not a ``redis-streams://`` URL, or no Redis URL inside it.
    """
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() != "redis-streams":
        raise UsageError(f"A Redis Streams endpoint is redis-streams://REDIS-URL/…, got {url!r}")
    if not rest.startswith(("redis://", "rediss://", "unix://")):
        rest = "redis://" + rest
    inner_scheme, _, inner = rest.partition("://")
    pieces = inner.split("/")
    # redis://host:port[/db] then up to three names.
    authority, tail = pieces[0], pieces[1:]
    db = tail.pop(0) if tail and tail[0].isdigit() else ""
    if not authority:
        raise UsageError(f"The Redis Streams endpoint {url!r} names no Redis server")
    names = [unquote(p) for p in tail if p]
    if len(names) > 3:
        raise UsageError(
            f"The Redis Streams endpoint {url!r} has more than request stream, reply stream "
            "and group after the Redis URL"
        )
    request_stream, reply_stream, group = (
        *names,
        *(DEFAULT_REQUEST_STREAM, DEFAULT_REPLY_STREAM, DEFAULT_GROUP)[len(names) :],
    )
    redis_url = f"{inner_scheme}://{authority}" + (f"/{db}" if db else "")
    return RedisStreamsAddress(redis_url, request_stream, reply_stream, group)
