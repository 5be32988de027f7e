"""An exchange is a stream of events.

Every send — JSON-RPC, REST or gRPC, unary or streaming — yields these frozen records in
order: one :class:`RequestSent`, then usually one :class:`ResponseHead`, then a
:class:`ResponseBody` (unary) or :class:`StreamItem` s (streaming), any number of
:class:`ExchangeError` s, :class:`ExchangeFinding` s (right after the event they concern),
and always exactly one final :class:`ExchangeEnd`.

``t`` on every event is seconds since the exchange started (monotonic clock).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from app.protocol.findings import Finding
from app.protocol.secrets import mask_headers, mask_url_query, redact, redact_bytes
from app.protocol.types import ProtocolVersion
from app.protocol.wire.notjson import NOT_JSON as NOT_JSON  # re-exported: its usual home

if TYPE_CHECKING:
    from app.protocol.stream.item_info import ItemInfo

Headers = tuple[tuple[str, str], ...]
"""Header or gRPC metadata pairs in wire order; names as sent or received."""


class _Released:
    """Sentinel type: the value of a :class:`BigResponseBody` was let go."""

    __slots__ = ()


_RELEASED = _Released()


class ErrorKind(StrEnum):
    """What went wrong, from whose side (h11's local/remote split).

    - ``usage``: the request could not be built (bad JSON in the editor, bad URL). Nothing sent.
    - ``transport``: the bytes did not make it (refused, timeout, reset, TLS).
    - ``protocol``: the peer answered, but not with what the method promises.
    - ``rpc``: the peer answered with an A2A/JSON-RPC/REST/gRPC error.
    - ``internal``: a bug in the workbench stopped the exchange (logged with its traceback);
      the exchange ends as a ``transport_error``: it did not complete.
    """

    USAGE = "usage"
    TRANSPORT = "transport"
    PROTOCOL = "protocol"
    RPC = "rpc"
    INTERNAL = "internal"


class Outcome(StrEnum):
    """How an exchange ended, for status bars and exit statuses."""

    OK = "ok"
    RPC_ERROR = "rpc_error"
    PROTOCOL_ERROR = "protocol_error"
    TRANSPORT_ERROR = "transport_error"
    USAGE_ERROR = "usage_error"
    CANCELLED = "cancelled"

    def worse(self, other: Outcome) -> Outcome:
        """The more serious of the two (the one an exit status or an end reports)."""
        return self if _SEVERITY[self] <= _SEVERITY[other] else other


# Most serious first: when several errors occur, the end reports the one that matters most.
_SEVERITY = {
    outcome: rank
    for rank, outcome in enumerate(
        (
            Outcome.USAGE_ERROR,
            Outcome.TRANSPORT_ERROR,
            Outcome.PROTOCOL_ERROR,
            Outcome.CANCELLED,
            Outcome.RPC_ERROR,
            Outcome.OK,
        )
    )
}


@dataclass(frozen=True, slots=True)
class RequestSent:
    """What went on the wire. ``body`` is the exact bytes; secrets are not masked here:
    every view shows :meth:`masked` (or the event itself only when asked to reveal)."""

    t: float
    method: str
    """HTTP verb, or ``"gRPC"``."""
    url: str
    headers: Headers
    body: bytes
    rpc_method: str
    """The A2A method name (``SendMessage``, ``message/send``)."""
    streaming: bool = False
    """Whether the method answers with a stream (catalog ``MethodSpec.streaming``)."""
    version: ProtocolVersion = ProtocolVersion.V1_0
    """The protocol version the request speaks."""
    secret_headers: tuple[str, ...] = ()
    """Header names configured as credentials, beyond the well-known ones."""
    secret_query: tuple[str, ...] = ()
    """Query parameter names configured as credentials."""
    secret_values: tuple[str, ...] = field(default=(), repr=False)
    """Every credential value the request carries (the exchange's registry,
    :func:`app.protocol.secrets.request_secrets`); :meth:`masked` hides them anywhere."""
    descriptors: str = ""
    """gRPC only: which protobuf descriptors encoded the call
    (:func:`app.protocol.methods.catalog.grpc_descriptors`); empty for HTTP."""
    tls_unverified: bool = False
    """TLS certificate verification was switched off for this request (``--insecure``)."""
    proxy: str = ""
    """The proxy the request went through (password masked), empty when direct."""

    def masked(
        self, header_names: Iterable[str] = (), query_names: Iterable[str] = ()
    ) -> RequestSent:
        """This event for display: sensitive header values and secret query values masked
        (the well-known credential names, :attr:`secret_headers` / :attr:`secret_query`,
        and any further names given), then every registered :attr:`secret_values`
        occurrence masked in the headers, URL and body."""
        values = self.secret_values
        headers = mask_headers(self.headers, (*self.secret_headers, *header_names))
        return dataclasses.replace(
            self,
            headers=tuple((n, redact(v, values)) for n, v in headers),
            url=redact(mask_url_query(self.url, (*self.secret_query, *query_names)), values),
            body=redact_bytes(self.body, values),
        )


@dataclass(frozen=True, slots=True)
class ResponseHead:
    """Status line and headers (HTTP) or initial metadata (gRPC)."""

    t: float
    status: int
    reason: str
    http_version: str
    headers: Headers
    event_stream: bool = False
    """True when stream items follow (an SSE response, a streaming gRPC call); False when a
    body follows, including a plain body answering a streaming call."""


@dataclass(frozen=True, slots=True)
class ResponseBody:
    """A complete unary response body.

    ``json`` holds the parsed body, or :data:`NOT_JSON` when it is not JSON; ``json_error``
    then says why ("line 1 column 2: Expecting value").
    """

    t: float
    body: bytes
    content_type: str
    json: Any = NOT_JSON
    json_error: str = ""
    trailers: Headers = ()
    """gRPC trailing metadata (binary values base64); empty for HTTP."""
    info: ItemInfo | None = None
    """What the body says, classified once off the GUI thread for a big body (a Task with
    20 000 artifacts takes ~30 ms to classify); None: classify it
    (:func:`app.protocol.stream.stream_items.classify_body`)."""

    @property
    def is_json(self) -> bool:
        """Whether the body parsed as JSON (without parsing a released big body again)."""
        return self.json is not NOT_JSON


KEEP_VALUE_BYTES = 1024 * 1024
"""Bodies over this size come as :class:`BigResponseBody`: their parsed value can be let go."""


class BigResponseBody(ResponseBody):
    """A body over :data:`KEEP_VALUE_BYTES` whose parsed value can be let go.

    The value of a 25 MiB body is ~45 MiB of Python objects; once what needs it has had it
    (the exchange's judges, the classification in :attr:`info`, the views), the GUI lets it
    go with :meth:`release`. ``json`` stays right afterwards: it parses :attr:`body` again
    (no caching, so each read of a released body costs a parse; views parse once, off the
    GUI thread). :attr:`is_json` answers without parsing.
    """

    __slots__ = ("_is_json", "_value")
    _is_json: bool
    _value: Any

    # The generated __init__ of the frozen parent assigns ``json`` through this property.
    @property
    def json(self) -> Any:
        value = self._value
        if value is not _RELEASED:
            return value
        if not self._is_json:
            return NOT_JSON
        from app.protocol.wire.jsonparse import parse_json  # not needed to start the window

        return parse_json(self.body)[0]

    @json.setter
    def json(self, value: Any) -> None:
        object.__setattr__(self, "_value", value)
        object.__setattr__(self, "_is_json", value is not NOT_JSON)

    @property
    def is_json(self) -> bool:
        return self._is_json

    @property
    def released(self) -> bool:
        """True once :meth:`release` let the value go."""
        return self._value is _RELEASED

    def release(self) -> Any:
        """Hand over the parsed value (NOT_JSON when there is none, or it was released
        before) and keep none: the caller's reference may be the last one."""
        value = self._value
        object.__setattr__(self, "_value", _RELEASED)
        return NOT_JSON if value is _RELEASED else value


@dataclass(frozen=True, slots=True)
class StreamItem:
    """One streamed event (an SSE frame or a gRPC stream message), raw next to parsed."""

    t: float
    seq: int
    raw: bytes
    json: Any = NOT_JSON
    json_error: str = ""
    sse_event: str = ""
    """The SSE ``event:`` field (``"error"`` marks an error frame); empty for gRPC."""
    info: ItemInfo | None = None
    """What the item says, classified once by the transport
    (:func:`app.protocol.stream.stream_items.classify_item`); None on items built elsewhere."""
    last_event_id: str = ""
    """The SSE last event ID after this frame (it persists across frames until an ``id``
    field resets it, WHATWG "Parsing an event stream"); empty for gRPC."""


@dataclass(frozen=True, slots=True)
class ExchangeError:
    """An error of one :class:`ErrorKind`; ``code`` is the JSON-RPC code, HTTP or gRPC status."""

    t: float
    kind: ErrorKind
    message: str
    code: int | str | None = None
    name: str = ""
    """A readable name for ``code`` (``TaskNotFoundError``, ``NOT_FOUND``), where known."""
    data: Any = None
    details: tuple[str, ...] = field(default=())
    """Human-readable lines decoded from typed error details (ErrorInfo, BadRequest)."""
    trailers: Headers = ()
    """gRPC trailing metadata of a failed call (binary values base64); empty for HTTP."""

    def as_record(self) -> dict[str, Any]:
        """This error as a JSON-able object: ``kind``, ``message``, and ``code``, ``name``,
        ``data``, ``details``, ``trailers`` where present (CLI ``error`` events, JSON views)."""
        record: dict[str, Any] = {"kind": self.kind.value, "message": self.message}
        if self.code is not None:
            record["code"] = self.code
        if self.name:
            record["name"] = self.name
        if self.data is not None:
            record["data"] = self.data
        if self.details:
            record["details"] = list(self.details)
        if self.trailers:
            record["trailers"] = [list(pair) for pair in self.trailers]
        return record


@dataclass(frozen=True, slots=True)
class ExchangeFinding:
    """A deviation the client understood (:class:`app.protocol.findings.Finding`).

    ``seq`` is the stream item it concerns; None for a unary body or the exchange as a whole.
    """

    t: float
    finding: Finding
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class ExchangeEnd:
    """Always the last event."""

    t: float
    outcome: Outcome

    @property
    def elapsed_ms(self) -> float:
        """Total duration in milliseconds."""
        return self.t * 1000.0


ExchangeEvent = (
    RequestSent
    | ResponseHead
    | ResponseBody
    | StreamItem
    | ExchangeError
    | ExchangeFinding
    | ExchangeEnd
)

EventBatch = list[ExchangeEvent]
"""Events that arrived together (the stream items of one chunk read off the socket, each
followed by what judges it), in order. The bindings and
:func:`app.protocol.exchange.run_batches` hand events over in batches so that the per-event
cost of generators and signals is paid once per chunk rather than once per item."""
