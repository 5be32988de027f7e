"""The native gRPC binding, protocol 1.0 and 0.3 (docs/PROTOCOL.md §4, §10): unary calls with
``grpc.aio``, server streams with the blocking API in a thread of their own
(grpc_reader.py: a wake-up of the loop per batch, not per message).

No stubs are generated: the call is built from the official descriptors shipped in
``a2a-sdk`` (``lf.a2a.v1.A2AService`` and the 0.3 ``a2a.v1.A2AService``) through the
catalog, and the user's ProtoJSON is parsed strictly with ``json_format`` — an unknown
field is a usage error that names it, not silently dropped as the SDK servers do.

Targets: ``host:port`` (the form older Agent Cards use), ``http://host:port`` (the absolute
URL the 1.0 proto asks of a card) and ``grpc://host:port`` are plaintext HTTP/2;
``https://host:port`` and ``grpcs://host:port`` are TLS with the system trust store.

A channel is opened per exchange (an aio one inside the running loop: a channel made on
another loop fails) and closed when the exchange ends or is cancelled; a debugger sends
one request at a time per tab, so the handshake cost does not matter and nothing leaks.

Events: RequestSent (method ``"gRPC"``, the ProtoJSON of the message actually serialized),
ResponseHead (status 0 / ``OK`` or the failed status, initial metadata), then ResponseBody
(unary) or one StreamItem per message, as camelCase ProtoJSON like the other bindings'
wire JSON. A failed call is an ExchangeError with the status name as code, the details
text, the decoded ``grpc-status-details-bin`` lines and the trailers.
"""

from __future__ import annotations

import base64
import binascii
import itertools
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import grpc.experimental
import httpx
import orjson
from google.protobuf import json_format, message_factory
from google.protobuf.message import Message

from app.protocol.clock import Clock
from app.protocol.events import (
    ErrorKind,
    EventBatch,
    ExchangeError,
    ExchangeEvent,
    Headers,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.methods.binding_errors import grpc_words
from app.protocol.methods.catalog import MethodSpec, grpc_descriptors, grpc_method, grpc_service
from app.protocol.methods.results import check_result
from app.protocol.net.http import USER_AGENT
from app.protocol.net.network_errors import explain_grpc_details, explain_proxy_failure
from app.protocol.net.not_http import not_http_at
from app.protocol.net.tls_context import grpc_credentials
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.stream.stream_items import classify_frame
from app.protocol.transports.grpc_reader import ThreadedReader
from app.protocol.transports.jsonrpc_http import merge_headers
from app.protocol.transports.rest import method_spec
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.grpc_status import decode_status, metadata_pairs, status_details_bytes
from app.protocol.wire.proto_json import message_to_dict

CONTENT_TYPE = "application/grpc"
"""``ResponseBody.content_type`` for gRPC: the body shown is the ProtoJSON rendering."""

# Statuses the gRPC library produces itself when no server answered (refused, DNS, TLS,
# deadline). With empty trailers they are transport failures, not answers.
_LOCAL_STATUSES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})

# gRPC over HTTP/2: metadata keys are 0-9 a-z _ - . and ASCII values printable (the library
# fails deep inside its C core on anything else, with no words for it).
_KEY_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz_-.")

# The receive limit the library enforces itself: like an HTTP body over the cap, a protocol
# failure of this exchange, not an error the agent answered with.
_LIMIT_DETAILS = "larger than max"


_NO_MESSAGE = object()


class _Undecodable:
    """A reply whose bytes are not the rpc's response message."""

    __slots__ = ("reason", "size")

    def __init__(self, size: int, reason: str) -> None:
        self.size, self.reason = size, reason


def _deserializer(response_class: Any) -> Any:
    def parse(data: bytes) -> Any:
        try:
            return response_class.FromString(data)
        except Exception as exc:  # protobuf's DecodeError and friends from hostile bytes
            return _Undecodable(len(data), str(exc) or type(exc).__name__)

    return parse


@dataclass(frozen=True, slots=True)
class Target:
    """Where to connect: ``address`` for grpc (``host:port``), ``tls`` for https."""

    address: str
    tls: bool

    @property
    def origin(self) -> str:
        """``http://host:port`` or ``https://host:port``, for event URLs."""
        return f"{'https' if self.tls else 'http'}://{self.address}"


_PLAINTEXT_SCHEMES = frozenset({"http", "grpc"})
_TLS_SCHEMES = frozenset({"https", "grpcs"})


def parse_target(endpoint: str, *, tls_default: bool = False) -> Target:
    """``host:port`` / ``http://`` / ``grpc://host:port`` → plaintext, ``https://`` /
    ``grpcs://host[:port]`` → TLS (a URL without a port: 80, or 443 with TLS).

    With ``tls_default`` (the request has TLS settings: a CA, a client certificate) a bare
    ``host:port`` is TLS too: a card's bare target says nothing about TLS.

    Raises:
        UsageError: an empty target, another scheme, or a path after ``host:port``.
    """
    text = endpoint.strip()
    if not text:
        raise UsageError("The gRPC target is empty; expected host:port")
    scheme, sep, rest = text.partition("://")
    if not sep:
        return Target(text, tls=tls_default)
    scheme = scheme.lower()
    if scheme not in _PLAINTEXT_SCHEMES | _TLS_SCHEMES:
        raise UsageError(
            "gRPC targets are host:port, http://host:port, https://host:port, "
            f"grpc://host:port or grpcs://host:port, got {text!r}"
        )
    address, _, path = rest.partition("/")
    if path.strip("/"):
        raise UsageError(f"A gRPC target has no path; drop {'/' + path!r} from {text!r}")
    if not address:
        raise UsageError(f"The gRPC target {text!r} has no host")
    tls = scheme in _TLS_SCHEMES
    if ":" not in address.rsplit("]", 1)[-1]:
        address += ":443" if tls else ":80"
    return Target(address, tls=tls)


def open_channel(target: Target, request: A2ARequest) -> grpc.aio.Channel:
    """A ``grpc.aio`` channel to ``target`` with the request's TLS credentials and proxy.

    The proxy is always set explicitly (``grpc.http_proxy``, or ``grpc.enable_http_proxy``
    0 for none): gRPC's core would otherwise read ``grpc_proxy`` / ``https_proxy`` itself.

    Raises:
        UsageError: unusable certificate files, or verification off (gRPC cannot skip it).
    """
    options = _channel_options(target, request)
    if not target.tls:
        return grpc.aio.insecure_channel(target.address, options)
    return grpc.aio.secure_channel(target.address, grpc_credentials(request.network.tls), options)


def open_blocking_channel(target: Target, request: A2ARequest) -> grpc.Channel:
    """:func:`open_channel` with the blocking API (server streams are read in a thread).

    Its server streams are read on the reading thread alone: without the library's
    channel spin thread, a second Python thread that would take the GIL per message.
    """
    options = _channel_options(target, request)
    options.append((grpc.experimental.ChannelOptions.SingleThreadedUnaryStream, 1))
    if not target.tls:
        return grpc.insecure_channel(target.address, options)
    return grpc.secure_channel(target.address, grpc_credentials(request.network.tls), options)


def _channel_options(target: Target, request: A2ARequest) -> list[tuple[str, Any]]:
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", request.max_response_bytes),
        ("grpc.enable_retries", 0),  # a debugger shows each attempt, it does not retry
        ("grpc.primary_user_agent", USER_AGENT),  # before grpc-python/…
    ]
    proxy = request.network.proxy.proxy_for(target.origin)
    options.append(("grpc.http_proxy", proxy) if proxy else ("grpc.enable_http_proxy", 0))
    if target.tls and request.network.tls.server_name:
        options.append(("grpc.ssl_target_name_override", request.network.tls.server_name))
    return options


def build_message(spec: MethodSpec, body: str, tenant: str = "") -> Message:
    """Parse the editor's ProtoJSON into the rpc's request message.

    Args:
        spec: the method (its version picks the 1.0 or 0.3 descriptors).
        body: ProtoJSON text; JSON or proto field names; empty means an empty message.
        tenant: the interface's tenant, set on 1.0 messages whose ``tenant`` is empty.

    Raises:
        UsageError: not valid ProtoJSON for the message, e.g. ``Message type
            "lf.a2a.v1.GetTaskRequest" has no field named "foo"``.
    """
    method = grpc_method(spec)
    if method is None:
        raise UsageError(f"{spec.name} exists only in the JSON-RPC binding")
    # Any: the generated class's fields (tenant) are not known to the type checker.
    message: Any = message_factory.GetMessageClass(method.input_type)()
    try:
        json_format.Parse(body if body.strip() else "{}", message)
    except json_format.ParseError as exc:
        raise UsageError(
            f"The {method.input_type.full_name} ProtoJSON is not valid: {exc}"
        ) from exc
    if (
        tenant
        and spec.version is ProtocolVersion.V1_0
        and "tenant" in method.input_type.fields_by_name
        and not message.tenant
    ):
        message.tenant = tenant
    return message


def metadata_for(request: A2ARequest) -> tuple[tuple[str, str | bytes], ...]:
    """Request headers as gRPC metadata: names lower-cased, ``-bin`` values base64-decoded.

    ``a2a-version: 1.0`` on 1.0 sends (SDK clients always add it; docs/PEERS.md Q14), none on 0.3;
    the user's entries override it.

    Raises:
        UsageError: a ``-bin`` value that is not base64.
    """
    defaults: Headers = (("a2a-version", "1.0"),) if request.version is ProtocolVersion.V1_0 else ()
    out: list[tuple[str, str | bytes]] = []
    for name, value in merge_headers(defaults, request.headers):
        key = name.strip().lower()
        if key.endswith("-bin"):
            try:
                out.append((key, base64.b64decode(value + "=" * (-len(value) % 4))))
            except (binascii.Error, ValueError) as exc:
                raise UsageError(f"metadata {key!r} must be base64: {exc}") from exc
        else:
            out.append((key, value))
    return tuple(out)


def check_sendable(metadata: tuple[tuple[str, str | bytes], ...]) -> None:
    """Refuse metadata the gRPC library cannot put on the wire, in words.

    Raises:
        UsageError: a key outside 0-9 a-z _ - . or a text value with a character outside
            printable ASCII.
    """
    for key, value in metadata:
        if not key or set(key) - _KEY_CHARS:
            raise UsageError(f"metadata key {key!r} is not valid: gRPC allows 0-9 a-z _ - . only")
        if isinstance(value, str) and (bad := [c for c in value if not " " <= c <= "~"]):
            raise UsageError(
                f"metadata {key!r} has a character gRPC cannot send ({bad[0]!r}); "
                "values must be printable ASCII (use a -bin key for bytes)"
            )


def to_json(message: Message) -> tuple[bytes, Any]:
    """A message as camelCase ProtoJSON: ``(utf-8 bytes, parsed dict)``."""
    # json_format.MessageToDict's value, at half its cost (a stream's reader thread shares
    # the interpreter lock with the GUI thread).
    value = message_to_dict(message)
    # orjson: the stdlib encoder cost as much as the rest of a stream message's handling.
    return orjson.dumps(value), value


def http_call(request: A2ARequest) -> None:
    """None: gRPC is no HTTP call a ``curl`` could make (its snippet is ``grpcurl``)."""
    return None


async def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one gRPC call; yield its events (without the final ExchangeEnd) in batches
    (a server stream's messages as they arrived together, read in a thread).

    ``client`` is unused (the signature is every transport's). Unary calls get
    ``request.timeout`` as deadline; streaming calls have none (a subscription may wait
    for a long time; the user cancels it). Responses larger than
    ``request.max_response_bytes`` fail with RESOURCE_EXHAUSTED.

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    spec, request = method_spec(prepared), prepared.request
    method = grpc_method(spec)
    assert method is not None  # method_spec refused JSON-RPC-only names
    message = build_message(spec, request.body, request.tenant)
    target = parse_target(request.endpoint, tls_default=not request.network.tls.is_default)
    metadata = metadata_for(request)
    check_sendable(metadata)
    path = f"/{grpc_service(spec.version).full_name}/{method.name}"
    response_class = message_factory.GetMessageClass(method.output_type)
    sent_bytes, _ = to_json(message)
    kwargs: dict[str, Any] = {
        "request_serializer": type(message).SerializeToString,
        "response_deserializer": _deserializer(response_class),
    }
    shown = tuple(
        (k, v if isinstance(v, str) else base64.b64encode(v).decode()) for k, v in metadata
    )
    sent = RequestSent(
        clock.now(),
        "gRPC",
        target.origin + path,
        shown,
        sent_bytes,
        request.method,
        descriptors=grpc_descriptors(spec.version),
    )
    call = _Call(target, request, path, kwargs, message, metadata, sent, clock)
    events = _streaming_call(call) if method.server_streaming else _unary_call(spec, call)
    async with aclosing(events):
        async for batch in events:
            yield batch


@dataclass(frozen=True, slots=True)
class _Call:
    """One call ready to start: where, what, and the RequestSent that says so."""

    target: Target
    request: A2ARequest
    path: str
    kwargs: dict[str, Any]
    """The stub's serializer and deserializer."""
    message: Message
    metadata: tuple[tuple[str, str | bytes], ...]
    sent: RequestSent
    clock: Clock


async def _unary_call(spec: MethodSpec, parts: _Call) -> AsyncGenerator[EventBatch, None]:
    target, request, clock = parts.target, parts.request, parts.clock
    async with open_channel(target, request) as channel:
        try:
            call: Any = channel.unary_unary(parts.path, **parts.kwargs)(
                parts.message, metadata=parts.metadata, timeout=request.timeout
            )
        except (ValueError, TypeError) as exc:
            # grpc checks metadata keys and values when the call starts.
            raise UsageError(f"Cannot start the gRPC call: {exc}") from exc
        yield [parts.sent]
        head_sent = False
        try:
            async for event in _unary(spec, call, clock):
                head_sent = head_sent or isinstance(event, ResponseHead)
                yield [event]
        except grpc.aio.AioRpcError as exc:
            yield await _failed(exc, clock, target, request, head_sent=head_sent, streaming=False)
        finally:
            # Closing the generator early (consumer cancelled) must stop the call too.
            if not call.done():
                call.cancel()


async def _streaming_call(parts: _Call) -> AsyncGenerator[EventBatch, None]:
    """A server stream, read with the blocking API in a thread (grpc_reader.py says why)."""
    target, request, clock = parts.target, parts.request, parts.clock
    channel = open_blocking_channel(target, request)
    try:
        call: Any = channel.unary_stream(parts.path, **parts.kwargs)(
            parts.message, metadata=parts.metadata
        )
    except (ValueError, TypeError) as exc:
        channel.close()
        # grpc checks metadata keys and values when the call starts.
        raise UsageError(f"Cannot start the gRPC call: {exc}") from exc
    except BaseException:
        channel.close()
        raise
    reader = ThreadedReader(lambda: _stream(call, clock), channel.close, _weight)
    batches = reader.batches()
    head_sent = False
    try:
        yield [parts.sent]
        async for batch in batches:
            head_sent = head_sent or type(batch[0]) is ResponseHead
            yield batch
    except grpc.RpcError as exc:  # the blocking API's failed call is its own error
        yield await _failed(exc, clock, target, request, head_sent=head_sent, streaming=True)
    finally:
        # Closing the generator early (consumer cancelled) must stop the call too; the
        # reader's thread then ends and closes the channel.
        call.cancel()
        await batches.aclose()
        if not reader.started:
            channel.close()


async def _failed(
    exc: Any, clock: Clock, target: Target, request: A2ARequest, *, head_sent: bool, streaming: bool
) -> EventBatch:
    return _failure(
        exc,
        clock,
        target,
        request.timeout,
        head_sent=head_sent,
        streaming=streaming,
        tls_words=await _tls_words(exc, target, request),
    )


async def _unary(spec: MethodSpec, call: Any, clock: Clock) -> AsyncGenerator[ExchangeEvent, None]:
    response = await call
    initial = metadata_pairs(await call.initial_metadata())
    trailers = metadata_pairs(await call.trailing_metadata())
    code = await call.code()
    yield ResponseHead(clock.now(), code.value[0], code.name, "HTTP/2", initial)
    if isinstance(response, _Undecodable):
        yield _undecodable(response, clock, trailers)
        return
    raw, value = to_json(response)
    yield ResponseBody(clock.now(), raw, CONTENT_TYPE, value, "", trailers)
    problem = check_result(spec, Binding.GRPC, value)
    if problem:
        yield ExchangeError(clock.now(), ErrorKind.PROTOCOL, problem, trailers=trailers)


def _stream(call: Any, clock: Clock) -> Iterator[ExchangeEvent]:
    """A server stream's events (blocking: runs in the reader's thread)."""
    # The first message (or the end) before the head: a call that failed before any
    # message raises here, and the error path describes it with its status as the head.
    # And before initial_metadata(): the single-threaded call holds its lock while that
    # one waits (next() does not), so Stop (call.cancel() on the loop thread) would wait
    # for a server that sends nothing. The metadata comes before or with the first message.
    first = next(call, _NO_MESSAGE)
    initial = metadata_pairs(call.initial_metadata())
    yield ResponseHead(clock.now(), 0, "OK", "HTTP/2", initial, event_stream=True)
    if first is _NO_MESSAGE:
        return
    seq = 0
    for response in itertools.chain((first,), call):
        seq += 1
        if isinstance(response, _Undecodable):
            yield _undecodable(response, clock, ())
            continue
        raw, value = to_json(response)
        yield StreamItem(clock.now(), seq, raw, value, info=classify_frame(value, "", "", raw))


def _weight(event: ExchangeEvent) -> int:
    """An event's bytes, for the reader's read-ahead bound (a message may be megabytes)."""
    return len(event.raw) if type(event) is StreamItem else 0


def _undecodable(reply: _Undecodable, clock: Clock, trailers: Headers) -> ExchangeError:
    return ExchangeError(
        clock.now(),
        ErrorKind.PROTOCOL,
        f"The reply ({reply.size} bytes) is not the method's response message: {reply.reason}",
        trailers=trailers,
    )


async def _tls_words(exc: Any, target: Target, request: A2ARequest) -> str | None:
    """A failed TLS handshake or proxy in words (the details are gRPC core's terse line)."""
    if exc.code() is not grpc.StatusCode.UNAVAILABLE:
        return None
    host, _, port = target.address.rpartition(":")
    if not port.isdigit():
        return None
    host = host.strip("[]")
    details, tls = exc.details() or "", request.network.tls
    proxy = request.network.proxy.shown_for(target.origin) or ""
    words = explain_proxy_failure(details, proxy) or await explain_grpc_details(
        details, host, int(port), tls, secure=target.tls, probe=not proxy
    )
    if words is None and not proxy and grpc_words(details):
        # gRPC core takes any answer that is not HTTP/2 for HTTP/1.1: an SSH banner too.
        words = await not_http_at(host, int(port), secure=target.tls)
    return words


def _failure(
    exc: Any,
    clock: Clock,
    target: Target,
    timeout: float,
    *,
    head_sent: bool,
    streaming: bool,
    tls_words: str | None = None,
) -> EventBatch:
    """Events for a failed call: a ResponseHead with the status (unless a stream already
    had one; a streaming call's head says so: no body follows) and an ExchangeError;
    ``transport`` when no server answered at all."""
    code = exc.code()
    details = exc.details() or ""
    trailers = metadata_pairs(exc.trailing_metadata())
    initial = metadata_pairs(exc.initial_metadata())
    if code in _LOCAL_STATUSES and not trailers and not initial:
        if code is grpc.StatusCode.DEADLINE_EXCEEDED:
            message = f"No answer from {target.origin} within {timeout:g} s (DEADLINE_EXCEEDED)"
        elif tls_words:
            message = f"Could not reach {target.origin}: {tls_words}"
        else:
            words = grpc_words(details) or details or "UNAVAILABLE"
            message = f"Could not reach {target.origin}: {words}"
        return [ExchangeError(clock.now(), ErrorKind.TRANSPORT, message, code.name, code.name)]
    if code is grpc.StatusCode.RESOURCE_EXHAUSTED and _LIMIT_DETAILS in details and not trailers:
        message = f"The reply from {target.origin} is over the size limit: {details}"
        return [ExchangeError(clock.now(), ErrorKind.PROTOCOL, message, code.name, code.name)]
    lines: tuple[str, ...] = ()
    data: Any = None
    raw = status_details_bytes(trailers)
    if raw is not None:
        try:
            rich = decode_status(raw)
        except ValueError as err:
            lines = (str(err),)
        else:
            lines, data = rich.lines, list(rich.details)
    head: EventBatch = []
    if not head_sent:
        head.append(
            ResponseHead(clock.now(), code.value[0], code.name, "HTTP/2", initial, streaming)
        )
    return [
        *head,
        ExchangeError(
            clock.now(),
            ErrorKind.RPC,
            details or "(no details)",
            code.name,
            code.name,
            data,
            lines,
            trailers,
        ),
    ]
