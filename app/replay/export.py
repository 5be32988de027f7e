"""History entries to a replay fixture (``history export --format fixture``, the GUI's
*Export as fixture…*).

The history already holds every credential masked (:mod:`app.history.codec`); headers are
masked again here, the values the user marks are redacted wherever they appear
(:func:`app.protocol.secrets.redact_bytes`, plain and JSON-escaped forms), and ids can be
made stable (:mod:`app.replay.stable_ids`). An entry with no answer (nothing came back, or
the sender stopped before the head) cannot be replayed and is left out with a note.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from google.protobuf import json_format

from app import __version__
from app.fileio import atomic_write
from app.history.store import HistoryEntry
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.secrets import MASK, mask_headers, redact_bytes
from app.replay.fixture import (
    Answer,
    Fixture,
    Frame,
    GrpcMessage,
    RecordedExchange,
    dumps,
    to_document,
)
from app.replay.grpc_codec import encode_response, grpc_rpc
from app.replay.stable_ids import stable_ids


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """How to write a fixture: ``fmt`` ``yaml`` or ``json``; ``redact``: values to replace
    by ``****``; ``stable``: task/context/message ids replaced by deterministic ones."""

    fmt: str = "yaml"
    redact: Sequence[str] = ()
    stable: bool = False
    card: dict[str, Any] | None = None


def recorded_exchange(entry: HistoryEntry, events: list[ExchangeEvent]) -> RecordedExchange | None:
    """The fixture form of one history entry, or None when it has no answer to replay."""
    sent = next((e for e in events if isinstance(e, RequestSent)), None)
    head = next((e for e in events if isinstance(e, ResponseHead)), None)
    if sent is None or head is None:
        return None
    t0 = sent.t
    body = next((e for e in events if isinstance(e, ResponseBody)), None)
    items = [e for e in events if isinstance(e, StreamItem)]
    error = next((e for e in events if isinstance(e, ExchangeError)), None)
    end = next((e.t for e in events if isinstance(e, ExchangeEnd)), max(e.t for e in events))
    grpc = entry.binding == "GRPC"
    parts = urlsplit(sent.url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    if grpc:
        payloads = [(body.t, body.body)] if body is not None else [(i.t, i.raw) for i in items]
        messages = tuple(GrpcMessage(t - t0, json.loads(raw)) for t, raw in payloads)
        failed = error if error is not None and error.kind is ErrorKind.RPC else None
        status = str(failed.code) if failed else head.reason if head.status else "OK"
        trailers = body.trailers if body is not None else error.trailers if error else ()
        answer = Answer(
            head.t - t0, 0, "", mask_headers(head.headers), messages=messages,
            grpc_status=status, details=failed.message if failed else "",
            trailers=mask_headers(trailers), end=end - t0,
        )  # fmt: skip
    else:
        frames = tuple(Frame(i.t - t0, i.raw) for i in items)
        answer = Answer(
            head.t - t0, head.status, head.reason, mask_headers(head.headers),
            body=None if head.event_stream and body is None else (body.body if body else b""),
            frames=frames, end=end - t0,
        )  # fmt: skip
    return RecordedExchange(
        name=f"#{entry.id} {entry.rpc_method}",
        binding=entry.binding,
        version=sent.version.value,
        method=sent.rpc_method,
        streaming=sent.streaming,
        http_method=sent.method,
        path=path,
        headers=mask_headers(sent.headers),
        body=sent.body,
        answer=answer,
    )


def build_fixture(
    exchanges: Iterable[tuple[HistoryEntry, list[ExchangeEvent]]], options: ExportOptions
) -> Fixture:
    """The fixture of ``exchanges`` (in the given order), redacted as ``options`` say."""
    recorded: list[RecordedExchange] = []
    notes: list[str] = []
    for entry, events in exchanges:
        x = recorded_exchange(entry, events)
        if x is None:
            notes.append(f"#{entry.id} {entry.rpc_method} has no answer to replay; left out")
        else:
            recorded.append(x)
    fixture = Fixture(tuple(recorded), options.card, f"A2A Workbench {__version__}", tuple(notes))
    values = tuple(v for v in dict.fromkeys(options.redact) if v and v != MASK)
    if values:
        forms = tuple(dict.fromkeys(f for v in values for f in (v, quote(v, safe=""))))
        fixture = fixture.map_bytes(lambda data: redact_bytes(data, forms))
    if options.stable:
        fixture = stable_ids(fixture)
    return fixture


def _encode(x: RecordedExchange, value: Any) -> bytes | None:
    rpc = grpc_rpc(x.path)
    if rpc is None:
        return None
    try:
        return encode_response(rpc, value)
    except json_format.ParseError:  # recorded as received: the file keeps the ProtoJSON
        return None


def fixture_text(fixture: Fixture, fmt: str) -> str:
    """The file text of ``fixture`` (``yaml`` or ``json``)."""
    return dumps(to_document(fixture, _encode), fmt)


def write_fixture(
    path: Path,
    exchanges: Iterable[tuple[HistoryEntry, list[ExchangeEvent]]],
    options: ExportOptions,
) -> Fixture:
    """Build the fixture and write it atomically to ``path``; returns it (see ``notes``).

    Raises:
        OSError: the file cannot be written (nothing is left half-written).
    """
    fixture = build_fixture(exchanges, options)
    atomic_write(path, fixture_text(fixture, options.fmt))
    return fixture
