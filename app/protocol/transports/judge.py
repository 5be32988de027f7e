"""What an HTTP answer means in one binding's terms: the :class:`Judge` a binding hands over.

Its own module so that the unary path (:mod:`app.protocol.transports.http_exchange`) and the
streaming one (:mod:`app.protocol.transports.sse_http`) both name it without importing each
other. The bindings' judges: ``JsonRpcJudge`` (JSON-RPC envelopes), ``RestJudge`` (REST
error objects).
"""

from __future__ import annotations

from typing import Protocol

from app.protocol.clock import Clock
from app.protocol.events import ExchangeError, ResponseBody, ResponseHead, StreamItem


class Judge(Protocol):
    """What an answer carries, in one binding's terms: an error event, or None."""

    def body(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        """A unary answer: an error object, a malformed envelope, a result of the wrong shape."""

    def plain(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        """A plain body answering a streaming call (an error, or a stream that is missing)."""

    def item(self, item: StreamItem, clock: Clock) -> ExchangeError | None:
        """One stream item whose data is JSON."""
