"""The state of one exchange, without I/O: fed the batches a binding yields, it says what to
emit and how long the next batch may take.

:func:`app.protocol.exchange.run_batches` is the async loop around it: it awaits the
binding's batches within :meth:`ExchangeCore.next_wait`, hands each to
:meth:`ExchangeCore.feed` and yields what comes back. Everything else is here and runs
without a socket (tests/protocol/test_exchange_core.py feeds it batches):

- the time bounds: ``--timeout`` until the answer (unary) or the stream's start, the
  ``--deadline`` of the whole exchange, the grace a stream gets after its task ended;
- masking: every credential the request carries, wherever it turns up (an echo, an error
  text, a finding's quote), and :class:`RequestSent` filled in with what views need;
- judging: the findings of each body and item (:mod:`app.protocol.methods.deviations`) and
  how a stream that the server closed ended (docs/PROTOCOL.md §9.1);
- the outcome: the most serious one seen, in the final :class:`ExchangeEnd`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import deque
from enum import Enum

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
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.secrets import mask_url_query, redact, request_secrets, userinfo_secrets
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_item
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
    ErrorKind.INTERNAL: Outcome.TRANSPORT_ERROR,
}


class Bound(Enum):
    """Which bound the next wait runs into."""

    TIMEOUT = "timeout"
    DEADLINE = "deadline"
    GRACE = "grace"


class ExchangeCore:
    """One exchange's state: bounds, masking, judging and outcome, fed batch by batch.

    The loop around it calls, in order: :meth:`next_wait` before awaiting each batch, then
    :meth:`feed` with the batch or :meth:`expired` when the wait ran out; :meth:`closed`
    once the binding is done; on a failure :meth:`usage_error`, :meth:`transport_failure`
    or :meth:`internal_error`, on cancellation :meth:`cancelled`; and always :meth:`end`
    last (except after :meth:`cancelled`, which ends the exchange itself).

    Attributes:
        prepared: the request with its method looked up, for the binding.
        outcome: the most serious outcome so far.
    """

    def __init__(self, request: A2ARequest, clock: Clock) -> None:
        self._request = request
        self._clock = clock
        self.prepared: PreparedCall = prepare(request)
        self.outcome = Outcome.OK
        self._secrets = request_secrets(
            request.headers,
            request.query,
            request.endpoint,
            registered=(*request.secret_values, *_proxy_secrets(request)),
            header_names=request.secret_headers,
            query_names=request.secret_query,
        )
        self._judge = _StreamJudge(request.version) if self.prepared.streaming else None
        self._limits = _Limits(request, clock)
        self._budget: float | None = request.timeout  # waiting left before the answer
        self._waiting_since = 0.0
        self._bound = Bound.TIMEOUT

    @property
    def bound(self) -> Bound:
        """The bound the last :meth:`next_wait` runs into."""
        return self._bound

    def next_wait(self) -> float | None:
        """Seconds the next batch may take (None: no bound); the wait starts now."""
        self._waiting_since = self._clock.now()
        wait, self._bound = self._limits.wait(self._budget)
        return wait

    def feed(self, batch: EventBatch) -> EventBatch:
        """The events to emit for ``batch``, which arrived within the wait: masked, filled
        in, each followed by its findings. May be empty."""
        if self._budget is not None:
            self._budget -= self._clock.now() - self._waiting_since
            for event in batch:
                if isinstance(event, ResponseBody) or (
                    self._judge is not None and isinstance(event, ResponseHead)
                ):
                    self._budget = None  # the answer has come (a stream: it has started)
        judge, limits, secrets = self._judge, self._limits, self._secrets
        out: EventBatch = []
        for event in batch:
            if type(event) is StreamItem and not secrets:
                # The bulk of a stream: nothing to mask or fill in.
                if judge is not None:
                    judge.see(event)
                out.append(event)
                found = limits.item_findings(event)
                if found:
                    out += found
                continue
            if isinstance(event, ExchangeError):
                event = self._clean(event)
            elif isinstance(event, RequestSent):
                event = self._filled_in(event)
            # Every credential value, wherever it turns up (a server echo too).
            event = mask_event(event, secrets)
            if judge is not None:
                judge.see(event)
            out.append(event)
            out += _masked_findings(limits.findings(event), secrets)
        return out

    def expired(self) -> EventBatch:
        """What to emit when the wait of :meth:`next_wait` ran out (the exchange stops)."""
        now = self._clock.now()
        if self._bound is Bound.GRACE:
            return [ExchangeFinding(now, self._limits.lingering())]
        if self._bound is Bound.DEADLINE:
            return [self._clean(self._limits.deadline_error())]
        message = f"No complete answer within {self._request.timeout:g} s"
        return [self._clean(ExchangeError(now, ErrorKind.TRANSPORT, message))]

    def closed(self) -> EventBatch:
        """What to emit once the binding is done: for a stream with no error so far, how
        it ended (docs/PROTOCOL.md §9.1). May be empty."""
        if self._judge is None or self.outcome is not Outcome.OK:
            return []
        now = self._clock.now()
        return [
            self._clean(ExchangeError(now, ErrorKind.PROTOCOL, message))
            for message in self._judge.verdict()
        ]

    def usage_error(self, exc: UsageError) -> EventBatch:
        """The request could not be built or checked; nothing was sent."""
        return [self._clean(ExchangeError(self._clock.now(), ErrorKind.USAGE, str(exc)))]

    def transport_failure(self, exc: Exception) -> EventBatch:
        """A network failure that escaped the binding (it reports its own as events)."""
        log.debug("exchange failed", exc_info=exc)
        return [self._unexpected(exc)]

    def internal_error(self, exc: Exception) -> EventBatch:
        """An exception that is no transport failure: a bug, logged with its traceback."""
        # Failures of the peer or the network are events by now: this is a bug of ours.
        log.error("exchange stopped by an internal error", exc_info=exc)
        message = f"Internal error (a bug in A2A Workbench): {type(exc).__name__}: {exc}"
        return [self._clean(ExchangeError(self._clock.now(), ErrorKind.INTERNAL, message))]

    def cancelled(self) -> EventBatch:
        """The consumer cancelled the exchange: its end, for anyone still listening."""
        return [ExchangeEnd(self._clock.now(), Outcome.CANCELLED)]

    def end(self) -> EventBatch:
        """The last event: the most serious outcome seen."""
        return [ExchangeEnd(self._clock.now(), self.outcome)]

    def _unexpected(self, exc: Exception) -> ExchangeError:
        message = f"Unexpected {type(exc).__name__}: {exc}"
        return self._clean(ExchangeError(self._clock.now(), ErrorKind.TRANSPORT, message))

    def _clean(self, error: ExchangeError) -> ExchangeError:
        """``error`` counted in the outcome and masked."""
        self.outcome = self.outcome.worse(_OUTCOME_OF_KIND[error.kind])
        return mask_error(error, self._secrets)

    def _filled_in(self, event: RequestSent) -> RequestSent:
        """What the binding cannot know about the request it sent, for every view."""
        request = self._request
        return dataclasses.replace(
            event,
            url=mask_url_query(event.url, ()),
            streaming=self.prepared.streaming,
            version=request.version,
            secret_headers=request.secret_headers,
            secret_query=request.secret_query,
            tls_unverified=request.network.tls.insecure and _is_tls(event.url),
            # The URL the binding reached (a bare gRPC host:port is https:// with TLS on).
            proxy=request.network.proxy.shown_for(event.url or request.endpoint) or "",
        )


def _proxy_secrets(request: A2ARequest) -> tuple[str, ...]:
    """The credentials of the proxy the request may go through (given by the user, or in
    ``HTTPS_PROXY``): a proxy may answer with them, or pass them on to an agent that echoes
    them. A bare ``host:port`` may be reached over either scheme (gRPC with TLS settings)."""
    endpoint = request.endpoint.strip()
    targets = [endpoint] if "://" in endpoint else [endpoint, f"https://{endpoint}"]
    proxy = request.network.proxy
    return tuple(s for t in targets for s in userinfo_secrets(proxy.proxy_for(t) or ""))


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


def _is_tls(url: str) -> bool:
    return url.lower().startswith("https://")


class _Limits:
    """The time bounds of one exchange beyond ``--timeout`` (the deadline, the grace after
    the task ended) and the findings of each event."""

    def __init__(self, request: A2ARequest, clock: Clock) -> None:
        self._clock = clock
        self._version = request.version
        self._binding = request.binding
        self._deadline = request.deadline
        self._grace_at: float | None = None

    def wait(self, budget: float | None) -> tuple[float | None, Bound]:
        """How long the next event may take, and which bound that is."""
        now = self._clock.now()
        bounds: list[tuple[float, Bound]] = []
        if budget is not None:
            bounds.append((budget, Bound.TIMEOUT))
        if self._deadline is not None:
            bounds.append((self._deadline - now, Bound.DEADLINE))
        if self._grace_at is not None:
            bounds.append((self._grace_at - now, Bound.GRACE))
        if not bounds:
            return None, Bound.TIMEOUT
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
