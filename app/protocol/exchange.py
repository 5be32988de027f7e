"""Run one exchange: an :class:`A2ARequest` in, an async stream of exchange events out.

The GUI and the CLI both consume this same stream::

    async for event in run(request):
        ...

The stream always ends with exactly one :class:`ExchangeEnd`; failures arrive as
:class:`ExchangeError` events rather than exceptions. Cancelling the consuming task
closes the connection (the async generator is closed by ``aclosing``).

The method is looked up once (:func:`app.protocol.request.prepare`); the binding gets the
:class:`~app.protocol.request.PreparedCall`, and :class:`RequestSent` carries what every
consumer needs of it (whether the call streams, which names are credentials).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing
from enum import Enum

import httpx

from app.protocol.bindings import traits
from app.protocol.clock import Clock
from app.protocol.events import (
    NOT_JSON,
    BigResponseBody,
    ErrorKind,
    EventBatch,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    ExchangeFinding,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.findings import Finding
from app.protocol.masking import mask_error, mask_event
from app.protocol.methods.deviations import body_findings, duplicate_findings, item_findings
from app.protocol.net.http import client_for
from app.protocol.request import A2ARequest, check_request, prepare
from app.protocol.secrets import mask_url_query, redact, request_secrets
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_item
from app.protocol.transports.transport_table import transport_for
from app.protocol.types import ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError

log = logging.getLogger(__name__)

STREAM_END_GRACE_S = 2.0
"""How long a stream may stay open after its task ended (``final: true`` in 0.3, a terminal
or interrupted state in 1.0) before the client closes it and reports the lingering."""

_OUTCOME_OF_KIND = {
    ErrorKind.USAGE: Outcome.USAGE_ERROR,
    ErrorKind.TRANSPORT: Outcome.TRANSPORT_ERROR,
    ErrorKind.PROTOCOL: Outcome.PROTOCOL_ERROR,
    ErrorKind.RPC: Outcome.RPC_ERROR,
}


async def run(
    request: A2ARequest, *, http: httpx.AsyncClient | None = None
) -> AsyncIterator[ExchangeEvent]:
    """Send ``request`` and yield its events, ending with :class:`ExchangeEnd`.

    ``request.timeout`` bounds the time spent waiting for the peer: for a unary method,
    until the whole response has arrived; for a streaming one, until the stream has
    started (a stream may then stay open as long as the task runs). Time the consumer
    spends between events does not count.

    ``request.deadline`` (when set) bounds the whole exchange, streams included: past it
    the exchange ends with a ``DEADLINE_EXCEEDED`` transport error.

    A stream that the server closes without any event, while the task is still active
    (1.0), or without ``final: true`` (0.3) ends with a ``protocol`` error. A stream whose
    task has ended is closed by the client :data:`STREAM_END_GRACE_S` later if the server
    keeps it open (with comments, say): an :class:`ExchangeFinding`, not an error.

    Deviations the client understands (a 0.3 state spelling in a 1.0 answer, a null id on
    a success) follow their body or item as :class:`ExchangeFinding` s
    (:mod:`app.protocol.methods.deviations`).

    Args:
        request: what to send.
        http: an AsyncClient to reuse (its pool, its limits) for requests with the default
            TLS settings and no proxy; otherwise a private one is made (from
            ``request.network``) and closed.

    Yields:
        ``RequestSent``, ``ResponseHead``, ``ResponseBody`` or ``StreamItem`` s,
        ``ExchangeError`` s, then ``ExchangeEnd``. On cancellation an ``ExchangeEnd`` with
        ``Outcome.CANCELLED`` is yielded if the consumer is still listening. Nothing is
        raised for failures; error texts never contain the request's credentials.
    """
    async with aclosing(run_batches(request, http=http)) as batches:
        async for batch in batches:
            for event in batch:
                yield event


async def run_batches(
    request: A2ARequest, *, http: httpx.AsyncClient | None = None
) -> AsyncGenerator[EventBatch, None]:
    """:func:`run`, the events handed over in batches (never empty) as they arrived together
    (the stream items of one chunk, each with its findings and errors): a consumer that shows a fast
    stream pays its per-event costs (a signal, a model insert) once per batch."""
    clock = Clock()
    outcome = Outcome.OK
    secrets = request_secrets(
        request.headers,
        request.query,
        request.endpoint,
        registered=request.secret_values,
        header_names=request.secret_headers,
        query_names=request.secret_query,
    )
    prepared = prepare(request)
    judge = _StreamJudge(request.version) if prepared.streaming else None

    def clean(error: ExchangeError) -> ExchangeError:
        nonlocal outcome
        outcome = outcome.worse(_OUTCOME_OF_KIND[error.kind])
        return mask_error(error, secrets)

    try:
        check_request(request)
        async with AsyncExitStack() as stack:
            client = (
                http
                if http is not None
                and (
                    not traits(prepared.binding).rides_http
                    or request.network.is_plain(request.endpoint)
                )
                else await stack.enter_async_context(await _private_client(request))
            )
            transport = transport_for(prepared.binding)
            async with aclosing(transport.exchange(prepared, client, clock)) as batches:
                budget: float | None = request.timeout  # waiting left before the answer
                limits = _Limits(request, clock)
                while True:
                    started = clock.now()
                    wait, bound = limits.wait(budget)
                    try:
                        if wait is None:
                            batch = await anext(batches)
                        else:
                            async with asyncio.timeout(wait):
                                batch = await anext(batches)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        if bound is _Bound.GRACE:
                            yield [ExchangeFinding(clock.now(), limits.lingering())]
                        elif bound is _Bound.DEADLINE:
                            yield [clean(limits.deadline_error())]
                        else:
                            yield [
                                clean(
                                    ExchangeError(
                                        clock.now(),
                                        ErrorKind.TRANSPORT,
                                        f"No complete answer within {request.timeout:g} s",
                                    )
                                )
                            ]
                        break
                    if budget is not None:
                        budget -= clock.now() - started
                        for event in batch:
                            if isinstance(event, ResponseBody) or (
                                judge is not None and isinstance(event, ResponseHead)
                            ):
                                budget = None
                    out: EventBatch = []
                    for event in batch:
                        if type(event) is StreamItem and not secrets:
                            # The bulk of a stream: nothing to mask or fill in.
                            if judge is not None:
                                judge.see(event)
                            out.append(event)
                            found = limits.item_findings(event)
                            if found:
                                out += _masked_findings(found, secrets)
                            continue
                        if isinstance(event, ExchangeError):
                            event = clean(event)
                        elif isinstance(event, RequestSent):
                            event = dataclasses.replace(
                                event,
                                url=mask_url_query(event.url, ()),
                                streaming=prepared.streaming,
                                version=request.version,
                                secret_headers=request.secret_headers,
                                secret_query=request.secret_query,
                                tls_unverified=request.network.tls.insecure and _is_tls(event.url),
                                proxy=request.network.proxy.shown_for(request.endpoint) or "",
                            )
                        # Every credential value, wherever it turns up (a server echo too).
                        event = mask_event(event, secrets)
                        if judge is not None:
                            judge.see(event)
                        out.append(event)
                        out += _masked_findings(limits.findings(event), secrets)
                    if out:
                        yield out
        if judge is not None and outcome is Outcome.OK:
            verdict: EventBatch = [
                clean(ExchangeError(clock.now(), ErrorKind.PROTOCOL, message))
                for message in judge.verdict()
            ]
            if verdict:
                yield verdict
    except UsageError as exc:
        yield [clean(ExchangeError(clock.now(), ErrorKind.USAGE, str(exc)))]
    except asyncio.CancelledError:
        yield [ExchangeEnd(clock.now(), Outcome.CANCELLED)]
        raise
    except Exception as exc:
        log.debug("exchange failed", exc_info=True)
        message = f"Unexpected {type(exc).__name__}: {exc}"
        yield [clean(ExchangeError(clock.now(), ErrorKind.TRANSPORT, message))]
    yield [ExchangeEnd(clock.now(), outcome)]


def _masked_findings(
    found: list[ExchangeFinding], secrets: tuple[str, ...]
) -> list[ExchangeFinding]:
    """Findings quote the server's values: masked like error texts."""
    if not found or not secrets:
        return found
    return [
        dataclasses.replace(
            f,
            finding=dataclasses.replace(
                f.finding,
                message=redact(f.finding.message, secrets),
                raw=redact(f.finding.raw, secrets),
            ),
        )
        for f in found
    ]


class _Bound(Enum):
    """Which bound the next wait runs into."""

    TIMEOUT = "timeout"
    DEADLINE = "deadline"
    GRACE = "grace"


class _Limits:
    """The time bounds of one exchange beyond ``--timeout`` (the deadline, the grace after
    the task ended) and the findings of each event."""

    def __init__(self, request: A2ARequest, clock: Clock) -> None:
        self._clock = clock
        self._version = request.version
        self._binding = request.binding
        self._deadline = request.deadline
        self._grace_at: float | None = None

    def wait(self, budget: float | None) -> tuple[float | None, _Bound]:
        """How long the next event may take, and which bound that is."""
        now = self._clock.now()
        bounds: list[tuple[float, _Bound]] = []
        if budget is not None:
            bounds.append((budget, _Bound.TIMEOUT))
        if self._deadline is not None:
            bounds.append((self._deadline - now, _Bound.DEADLINE))
        if self._grace_at is not None:
            bounds.append((self._grace_at - now, _Bound.GRACE))
        if not bounds:
            return None, _Bound.TIMEOUT
        wait, bound = min(bounds, key=lambda pair: pair[0])
        return max(wait, 0.0), bound

    def findings(self, event: ExchangeEvent) -> list[ExchangeFinding]:
        """The findings ``event`` carries; notes when a stream's task has ended."""
        if isinstance(event, StreamItem):
            return self.item_findings(event)
        if isinstance(event, ResponseBody) and event.json is not NOT_JSON:
            found = body_findings(self._version, self._binding, event.json)
            if not isinstance(event, BigResponseBody):  # a 25 MiB body: not walked again
                found += duplicate_findings(event.body, event.json)
            return [ExchangeFinding(event.t, f) for f in found]
        return []

    def item_findings(self, item: StreamItem) -> list[ExchangeFinding]:
        """The findings of one stream item (runs for every item: kept lean)."""
        info = item.info
        if info is None:
            info = classify_item(item)
        if self._grace_at is None and self._ended(info.kind, info.final, info.state):
            self._grace_at = self._clock.now() + STREAM_END_GRACE_S
        found = item_findings(self._version, self._binding, item.json, info)
        if not found:
            return []
        return [ExchangeFinding(item.t, f, item.seq) for f in found]

    def _ended(self, kind: ItemKind, final: bool | None, state: TaskState | None) -> bool:
        if kind in (ItemKind.ERROR, ItemKind.COMMENT, ItemKind.INCOMPLETE):
            return False
        if self._version is ProtocolVersion.V0_3:
            return final is True
        return state is not None and (state.terminal or state.interrupted)

    def lingering(self) -> Finding:
        return Finding(
            "stream-lingers",
            f"The server kept the stream open {STREAM_END_GRACE_S:g} s after the task "
            "ended; the client closed it",
            section="§9.1",
            spec="A2A 0.3 §7.2.2" if self._version is ProtocolVersion.V0_3 else "A2A 1.0 §3.1.2",
        )

    def deadline_error(self) -> ExchangeError:
        return ExchangeError(
            self._clock.now(),
            ErrorKind.TRANSPORT,
            f"DEADLINE_EXCEEDED: the exchange did not end within the {self._deadline:g} s deadline",
            "DEADLINE_EXCEEDED",
        )


class _StreamJudge:
    """Whether a stream that the server closed ended the way the protocol says it must.

    Only the last few items are kept and read at the end (each item is classified once,
    by its transport: ``StreamItem.info``).
    """

    _TAIL = 16

    def __init__(self, version: ProtocolVersion) -> None:
        self._version = version
        self._items = 0
        self._body = False
        self._tail: deque[StreamItem] = deque(maxlen=self._TAIL)

    def see(self, event: ExchangeEvent) -> None:
        if isinstance(event, StreamItem):
            self._items += 1
            self._tail.append(event)
        elif isinstance(event, ResponseBody):
            self._body = True  # a JSON answer instead of a stream: judged like unary

    def verdict(self) -> list[str]:
        if self._body:
            return []
        if self._items == 0:
            return ["The stream ended without any event"]
        for item in reversed(self._tail):
            info = classify_item(item)
            if info.state is None:
                continue
            if self._version is ProtocolVersion.V0_3 and info.final is not True:
                return ["The 0.3 stream ended without a final: true event"]
            if self._version is ProtocolVersion.V1_0 and info.state.active:
                return [f"The server closed the stream while the task was still {info.state.value}"]
            return []
        return []


def _is_tls(url: str) -> bool:
    return url.lower().startswith("https://")


async def _private_client(request: A2ARequest) -> httpx.AsyncClient:
    # Reading certificate files and the CA bundle takes ~0.1-0.3 s: off the event loop.
    return await asyncio.to_thread(
        client_for, request.endpoint, request.network, timeout=request.timeout
    )
