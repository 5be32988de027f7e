"""What each binding is, in one table: the answer to every question the app asks of a binding.

A :class:`~app.protocol.types.Binding` names a binding; :func:`traits` says what it is — how
sentences and cards name it, what carries it, what its payloads, streams and errors look like,
what its endpoint is. Code asks a trait ("does the body sit in an envelope?", "does it ride
HTTP?"), never "is this gRPC?", so a new binding is one enum member, one row of
:data:`TRAITS` and one transport (``app/protocol/transports/transport_table.py``); the
traits are independent of each other, so a carrier of JSON-RPC 2.0 over another wire
(WebSocket, a Unix socket, stdio, Redis Streams) takes the JSON-RPC payload and errors without
riding HTTP.
``tests/protocol/test_bindings.py`` fails when a member lacks a row or a transport.

Imports nothing of the app but :mod:`app.protocol.types`: every layer may ask it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from app.protocol.types import Binding

__all__ = [
    "HOST_PORT",
    "HTTP_URL",
    "TRAITS",
    "BindingTraits",
    "ErrorForm",
    "Framing",
    "Payload",
    "UrlShape",
    "binding_named",
    "from_value",
    "is_canonical",
    "picker_label",
    "traits",
]


class Payload(StrEnum):
    """What a request body is, and so how it names its method (docs/PROTOCOL.md §5.2)."""

    JSONRPC = "JSON-RPC envelope"
    """A JSON-RPC 2.0 request object: the method by name in ``method``, what the user edits
    in ``params``, the answer's result in ``result``. Any method of the catalog by its
    JSON-RPC name (legacy 0.3 names too); 0.3 in the JSON-RPC schema's types (``kind``
    discriminators, lower-case enums)."""
    REST = "REST body"
    """The request object itself, sent where its method's ``google.api.http`` rule routes it
    (verb, a path under the interface's base URL, query); 0.3 in the 0.3 proto's types."""
    PROTO = "ProtoJSON message"
    """The whole request message as ProtoJSON, encoded into protobuf before it is sent (so
    ill-typed JSON never leaves), addressed by its rpc; 0.3 in the 0.3 proto's types."""

    @property
    def envelope(self) -> bool:
        """Whether the user edits ``params`` inside a JSON-RPC envelope (and reads answers
        inside one); also, whether 0.3 speaks the JSON-RPC schema rather than the proto."""
        return self is Payload.JSONRPC


class ErrorForm(StrEnum):
    """How an A2A error arrives (docs/PROTOCOL.md §8.3); the value names its code's kind."""

    JSONRPC = "JSON-RPC"
    """A JSON-RPC error object (code ``-32xxx``); over HTTP the status stays 200."""
    HTTP = "HTTP"
    """An HTTP status with a ``google.rpc.Status`` body (``{"error": {…}}``)."""
    GRPC = "gRPC"
    """A gRPC status code; ``google.rpc.ErrorInfo`` in ``grpc-status-details-bin``."""


class Framing(StrEnum):
    """How a stream's items arrive, and so what an item's raw bytes are."""

    SSE = "SSE"
    """Server-Sent Events: the raw bytes are a frame whose ``data`` is the item's JSON."""
    MESSAGES = "messages"
    """One message per item: the raw bytes are the item's JSON."""


@dataclass(frozen=True, slots=True)
class UrlShape:
    """What a binding's endpoint is written as.

    Attributes:
        schemes: the URL schemes it takes; empty for a ``host:port`` target, which has no
            scheme, no path a relative URL could be resolved against and no query string.
        words: the shape in a sentence ("not an absolute http(s) URL").
        target_schemes: the schemes a ``host:port`` target may also be written with
            (``grpc://host:port``: the 1.0 proto asks cards for an absolute URL), never with
            a path.
        host: whether a URL of it names a host (``unix:///path.sock`` names a file).
    """

    schemes: tuple[str, ...]
    words: str
    target_schemes: tuple[str, ...] = ()
    host: bool = True

    @property
    def target(self) -> bool:
        """Whether the endpoint is a ``host:port`` target rather than a URL."""
        return not self.schemes


HTTP_URL = UrlShape(("http", "https"), "http(s) URL")
WS_URL = UrlShape(("ws", "wss"), "ws(s):// URL")
UNIX_URL = UrlShape(("unix",), "unix:///path URL", host=False)
STDIO_URL = UrlShape(("stdio",), "stdio://name URL (the agent's command line is given apart)")
REDIS_STREAMS_URL = UrlShape(
    ("redis-streams",),
    "redis-streams://REDIS-URL/REQUEST-STREAM/REPLY-STREAM/GROUP URL",
)
HOST_PORT = UrlShape(
    (),
    "host:port, or http, https, grpc, grpcs://host:port without a path",
    ("http", "https", "grpc", "grpcs"),
)


@dataclass(frozen=True, slots=True)
class BindingTraits:
    """One binding's answers.

    Attributes:
        label: its name in sentences ("HTTP+JSON").
        a_label: the label after its indefinite article ("an HTTP+JSON").
        card_names: the Agent Card ``protocolBinding`` (0.3: ``transport``) spellings that
            name it, compared exactly; the first is the one the app writes. A carrier that
            cards spell several ways (a URI, other cases) lists each.
        rides_http: whether it is sent with httpx, so the window's HTTP client (proxy, TLS
            settings, connection pool) carries it, a HAR export can hold it, and a server
            of it shares the HTTP port.
        url: what its endpoint is written as.
        payload: what its request body is.
        errors: how its A2A errors arrive.
        framing: how its stream items arrive.
        snippets: the snippet kinds that reproduce a request (``app.spec.snippets``); the
            first is the tab's *Copy as …*.
        header_noun: what its request headers are called ("headers", "metadata").
        carries_headers: whether it has a place for request headers at all (a line on a
            Unix socket, stdio or a Redis entry has none: credentials cannot go with it).
        standard: one of the three bindings of A2A 1.0 §5.5; the others are custom
            carriers (1.0 §5.8), marked *non-standard* where a binding is picked.
        launches: whether the app starts the agent from a command line the user gives
            (``A2ARequest.command``) rather than connecting to an address.
    """

    label: str
    a_label: str
    card_names: tuple[str, ...]
    rides_http: bool
    url: UrlShape
    payload: Payload
    errors: ErrorForm
    framing: Framing
    snippets: tuple[str, ...]
    header_noun: str
    carries_headers: bool = True
    standard: bool = True
    launches: bool = False


TRAITS: Mapping[Binding, BindingTraits] = MappingProxyType(
    {
        Binding.JSONRPC: BindingTraits(
            label="JSON-RPC",
            a_label="a JSON-RPC",
            card_names=("JSONRPC",),
            rides_http=True,
            url=HTTP_URL,
            payload=Payload.JSONRPC,
            errors=ErrorForm.JSONRPC,
            framing=Framing.SSE,
            snippets=("curl", "httpx"),
            header_noun="headers",
        ),
        Binding.HTTP_JSON: BindingTraits(
            label="HTTP+JSON",
            a_label="an HTTP+JSON",
            card_names=("HTTP+JSON",),
            rides_http=True,
            url=HTTP_URL,
            payload=Payload.REST,
            errors=ErrorForm.HTTP,
            framing=Framing.SSE,
            snippets=("curl", "httpx"),
            header_noun="headers",
        ),
        Binding.GRPC: BindingTraits(
            label="gRPC",
            a_label="a gRPC",
            card_names=("GRPC",),
            rides_http=False,
            url=HOST_PORT,
            payload=Payload.PROTO,
            errors=ErrorForm.GRPC,
            framing=Framing.MESSAGES,
            snippets=("grpcurl",),
            header_noun="metadata",
        ),
        # Custom carriers of JSON-RPC 2.0 (docs/PROTOCOL.md §12): the JSON-RPC payload and
        # errors, one JSON message per reply, no HTTP.
        Binding.WEBSOCKET: BindingTraits(
            label="WebSocket",
            a_label="a WebSocket",
            card_names=("websocket", "ws", "wss"),
            rides_http=False,
            url=WS_URL,
            payload=Payload.JSONRPC,
            errors=ErrorForm.JSONRPC,
            framing=Framing.MESSAGES,
            snippets=("websocat",),
            header_noun="handshake headers",
            standard=False,
        ),
        Binding.UNIX: BindingTraits(
            label="Unix socket",
            a_label="a Unix socket",
            card_names=("unix",),
            rides_http=False,
            url=UNIX_URL,
            payload=Payload.JSONRPC,
            errors=ErrorForm.JSONRPC,
            framing=Framing.MESSAGES,
            snippets=("socat",),
            header_noun="headers",
            carries_headers=False,
            standard=False,
        ),
        Binding.STDIO: BindingTraits(
            label="stdio",
            a_label="a stdio",
            card_names=("stdio",),
            rides_http=False,
            url=STDIO_URL,
            payload=Payload.JSONRPC,
            errors=ErrorForm.JSONRPC,
            framing=Framing.MESSAGES,
            snippets=("stdio",),
            header_noun="headers",
            carries_headers=False,
            standard=False,
            launches=True,
        ),
        Binding.REDIS_STREAMS: BindingTraits(
            label="Redis Streams",
            a_label="a Redis Streams",
            card_names=("redis-streams", "redis-stream"),
            rides_http=False,
            url=REDIS_STREAMS_URL,
            payload=Payload.JSONRPC,
            errors=ErrorForm.JSONRPC,
            framing=Framing.MESSAGES,
            snippets=(),
            header_noun="entry fields",
            carries_headers=False,
            standard=False,
        ),
    }
)
"""Every binding's traits; ``tests/protocol/test_bindings.py`` holds it complete."""


def traits(binding: Binding) -> BindingTraits:
    """The traits of ``binding``."""
    return TRAITS[binding]


def binding_named(card_name: object) -> Binding | None:
    """The binding an Agent Card's ``protocolBinding`` / ``transport`` value names, or None
    for a binding this app does not speak (or a value that is no string).

    Spellings are compared case-insensitively (iac-code writes ``grpc``; docs/PEERS.md Q25),
    and a URI names the carrier its last segment spells (1.0 §5.8: a custom binding SHOULD
    be a URI — ``urn:example:a2a:websocket``, ``https://example.org/a2a/bindings/unix``);
    :func:`is_canonical` tells whether the card spelt it as the app writes it.
    """
    if not isinstance(card_name, str):
        return None
    text = card_name.strip().lower()
    found = _BY_CARD_NAME.get(text)
    if found is None and ":" in text:
        found = _BY_CARD_NAME.get(_URI_TAIL.split(text.rstrip("/#"))[-1])
    return found


def picker_label(binding: Binding) -> str:
    """How a binding picker lists ``binding``: its value, a custom carrier marked
    *non-standard*."""
    found = TRAITS[binding]
    return binding.value if found.standard else f"{binding.value} (non-standard)"


def is_canonical(card_name: str) -> bool:
    """Whether ``card_name`` is exactly a spelling of the table (not another case, not a URI
    read by its last segment)."""
    return card_name in _EXACT


def from_value(value: object) -> Binding | None:
    """The binding whose value (as the ``x-a2a`` format and history store it) is ``value``,
    or None for one this build does not know."""
    return _BY_VALUE.get(value) if isinstance(value, str) else None


_BY_CARD_NAME = {name.lower(): b for b, found in TRAITS.items() for name in found.card_names}
_EXACT = frozenset(name for found in TRAITS.values() for name in found.card_names)
_URI_TAIL = re.compile(r"[/:#]")
_BY_VALUE = {b.value: b for b in Binding}
