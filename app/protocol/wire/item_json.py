"""The JSON of a stream item, parsed again from its raw bytes.

Views and gatherers that keep thousands of stream items keep their raw bytes, not their
parsed JSON: bytes are not tracked by the garbage collector, while parsed JSON (dicts and
lists) is, and every full collection would walk all of it, stalling the window and slowing
a fast stream down. What needs the JSON later parses it here, the way the stream did.
"""

from __future__ import annotations

import json
from typing import Any

from app.protocol.events import NOT_JSON
from app.protocol.wire.jsonparse import parse_event_data
from app.protocol.wire.sse import SseDecoder


def json_of_raw(raw: bytes) -> Any:
    """The JSON a stream item's raw bytes carry, or NOT_JSON: the ``data`` of an SSE frame,
    parsed as the stream parsed it; else the bytes themselves (a gRPC item's ProtoJSON)."""
    decoder = SseDecoder()
    for frame in decoder.feed(raw) + decoder.close():
        if frame.data is not None:
            return parse_event_data(frame.data)[0]
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return NOT_JSON
