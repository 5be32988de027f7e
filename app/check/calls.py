"""One exchange of a check run: composed as ``send`` composes it (:mod:`app.protocol.compose`),
sent through the exchange seam, recorded in the history, and summarised for the checks to judge.

:class:`CallResult` keeps what a rule needs (the outcome, the result value with the
JSON-RPC envelope taken off, the first error, the stream items) and the history entry id
that shows the whole exchange.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from app.check.target import Target
from app.history.recorder import Recorder, Writer
from app.history.store import HistoryStore
from app.protocol import exchange
from app.protocol.bindings import traits
from app.protocol.compose import RequestInputs, compose, with_template
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    ExchangeFinding,
    Headers,
    Outcome,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.findings import Finding
from app.protocol.methods.catalog import TemplateContext
from app.protocol.net.auth import AuthConfig, secret_header_names, secret_query_names
from app.protocol.net.network import NetworkOptions
from app.protocol.request import A2ARequest
from app.protocol.stream.stream_items import ItemInfo, classify_item
from app.protocol.types import Binding

HistorySink = Writer | HistoryStore
"""Where a run records its exchanges: the GUI's writer, or the CLI's shared store."""

MAX_ITEMS = 500
"""Stream items kept per call: enough to judge a lifecycle, bounded against a flood."""

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


@dataclass
class CallResult:
    """What one exchange showed, for the rules."""

    outcome: Outcome = Outcome.TRANSPORT_ERROR
    status: int | None = None
    """HTTP status (gRPC: the numeric status code); None when no answer arrived."""
    headers: Headers = ()
    """The response headers (gRPC: the initial metadata)."""
    content_type: str = ""
    """A unary body's ``Content-Type`` (``""`` for a stream or no body)."""
    body: Any = NOT_JSON
    """The parsed response body (JSON-RPC: the whole envelope)."""
    value: Any = NOT_JSON
    """The result: JSON-RPC ``result``, the REST body, the gRPC message (ProtoJSON)."""
    errors: list[ExchangeError] = field(default_factory=list)
    items: list[StreamItem] = field(default_factory=list)
    infos: list[ItemInfo] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    exchange_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    @property
    def error(self) -> ExchangeError | None:
        """The first error of the exchange, if any."""
        return self.errors[0] if self.errors else None

    @property
    def rpc_error(self) -> ExchangeError | None:
        """The first A2A / JSON-RPC / HTTP / gRPC error the peer answered with."""
        return next((e for e in self.errors if e.kind is ErrorKind.RPC), None)

    @property
    def unreachable(self) -> bool:
        """Nothing usable came back (refused, timed out, another binding's port)."""
        return self.status is None and any(e.kind is ErrorKind.TRANSPORT for e in self.errors)

    def describe(self) -> str:
        """One line for a result's detail: the outcome and the first error."""
        error = self.error
        if error is None:
            return f"outcome {self.outcome.value}"
        code = f" {error.code}" if error.code is not None else ""
        name = f" {error.name}" if error.name and error.name != str(error.code) else ""
        return f"{error.kind.value} error{code}{name}: {_short(error.message)}"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class CallSettings:
    """What every call of a run shares (from the run's options)."""

    auth: AuthConfig
    headers: Headers
    network: NetworkOptions
    timeout_s: float
    history: HistorySink | None = None
    extensions: tuple[str, ...] = ()
    """Extensions every call activates (the user's, and those the card requires)."""
    http: httpx.AsyncClient | None = None
    """One client for the run's direct, default-TLS calls: its pool and TLS context are
    made once, not per call (:func:`app.protocol.exchange.run`)."""
    command: str = ""
    """The command line of a stdio agent the card lists (``--command``)."""
    push_public_url: str = ""
    """The address agents call to reach the push receiver (``--push-public-url``)."""
    push_port: int = 0
    """The port the push receiver listens on (0: any free one); a tunnel needs it fixed."""


def build_request(
    settings: CallSettings,
    target: Target,
    method: str,
    *,
    ctx: TemplateContext | None = None,
    params: Any = None,
    raw_body: str | None = None,
    headers: Headers = (),
    auth: bool = True,
    extensions: Sequence[str] | None = None,
    timeout_s: float | None = None,
) -> A2ARequest:
    """The request for ``method`` on ``target``: its template filled from ``ctx``, or
    ``params`` (the request object) as given, or ``raw_body`` as typed (malformed on
    purpose). Without ``auth`` no credential goes out, not even one in ``headers``;
    ``extensions`` None activates the run's extensions."""
    extra = (*settings.headers, *headers)
    if not auth:
        # Also a credential typed as a plain --header under the API key's name.
        secret = CREDENTIAL_HEADERS | {n.lower() for n in secret_header_names(settings.auth)}
        extra = tuple(pair for pair in extra if pair[0].lower() not in secret)
    timeout = settings.timeout_s if timeout_s is None else timeout_s
    active = settings.extensions if extensions is None else extensions
    inputs = RequestInputs(
        method,
        endpoint=target.url,
        version=target.version,
        binding=target.binding,
        body=raw_body,
        params=params if raw_body is None else None,
        tenant=target.tenant,
        headers=extra,
        auth=settings.auth if auth else AuthConfig.none(),
        extensions=tuple(active),
        network=settings.network,
        timeout=timeout,
        deadline=timeout,
        malformed=raw_body is not None,
        command=settings.command,
    )
    if raw_body is None and params is None:
        inputs = with_template(inputs, ctx or TemplateContext())
    return compose(inputs)


async def perform(
    settings: CallSettings,
    request: A2ARequest,
    *,
    operation: str,
    auth: bool = True,
    drop_after: int | None = None,
    on_item: Callable[[StreamItem], None] | None = None,
) -> CallResult:
    """Send ``request``, record it, and summarise what came back; with ``drop_after``, the
    client drops a stream once that many items arrived (as a lost connection would);
    ``on_item`` hears of each stream item as it arrives."""
    recorder = _recorder(settings, request, operation, auth)
    result = CallResult()
    # Closed explicitly: a cancelled check must not leave the exchange for the GC to end.
    events = cast(AsyncGenerator[ExchangeEvent, None], exchange.run(request, http=settings.http))
    async with aclosing(events):
        async for event in events:
            if recorder is not None:
                recorder.feed(event)
            _take(result, event, request.binding)
            if on_item is not None and isinstance(event, StreamItem):
                on_item(event)
            if drop_after is not None and len(result.items) >= drop_after:
                result.outcome = Outcome.CANCELLED
                break
    if recorder is not None:
        result.exchange_id = await asyncio.to_thread(_entry_id, recorder)
    return result


def _entry_id(recorder: Recorder) -> int | None:
    return recorder.exchange_id


def _recorder(
    settings: CallSettings, request: A2ARequest, operation: str, auth: bool
) -> Recorder | None:
    sink = settings.history
    if sink is None:
        return None
    credential = settings.auth if auth else AuthConfig.none()
    headers, query = secret_header_names(credential), secret_query_names(credential)
    if isinstance(sink, HistoryStore):
        return sink.recorder(
            request, secret_headers=headers, secret_query=query, source="check", operation=operation
        )
    return Recorder(
        sink,
        request,
        secret_headers=headers,
        secret_query=query,
        source="check",
        operation=operation,
    )


def _take(result: CallResult, event: object, binding: Binding) -> None:
    if isinstance(event, ResponseHead):
        result.status = event.status
        result.headers = event.headers
    elif isinstance(event, ResponseBody):
        result.content_type = event.content_type
        result.body = event.json
        result.value = _unwrap(event.json, binding)
    elif isinstance(event, StreamItem):
        if len(result.items) < MAX_ITEMS:
            result.items.append(event)
            result.infos.append(classify_item(event))
    elif isinstance(event, ExchangeError):
        result.errors.append(event)
    elif isinstance(event, ExchangeFinding):
        result.findings.append(event.finding)
    elif isinstance(event, ExchangeEnd):
        result.outcome = event.outcome


def _unwrap(value: Any, binding: Binding) -> Any:
    if traits(binding).payload.envelope:
        if isinstance(value, dict) and "result" in value:
            return value["result"]
        return NOT_JSON
    return value


def item_value(item: StreamItem, binding: Binding) -> Any:
    """A stream item's event object (JSON-RPC: the ``result`` of its envelope)."""
    return _unwrap(item.json, binding)


def replace_timeout(settings: CallSettings, timeout_s: float) -> CallSettings:
    """``settings`` with a shorter per-call bound (the rest of the run's budget)."""
    return dataclasses.replace(settings, timeout_s=min(settings.timeout_s, timeout_s))
