"""Run one exchange: an :class:`A2ARequest` in, an async stream of exchange events out.

The GUI and the CLI both consume this same stream (DESIGN.md, "the house")::

    async for event in run(request):
        ...

The stream always ends with exactly one :class:`ExchangeEnd`; failures arrive as
:class:`ExchangeError` events rather than exceptions. Cancelling the consuming task
closes the connection (the async generator is closed by ``aclosing``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AsyncExitStack, aclosing

import httpx

from app.protocol.clock import Clock
from app.protocol.errors import UsageError
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
)
from app.protocol.request import A2ARequest
from app.protocol.transports import grpc, jsonrpc, rest
from app.protocol.transports.http import new_client
from app.protocol.types import Binding

_OUTCOME_OF_KIND = {
    ErrorKind.USAGE: Outcome.USAGE_ERROR,
    ErrorKind.TRANSPORT: Outcome.TRANSPORT_ERROR,
    ErrorKind.PROTOCOL: Outcome.PROTOCOL_ERROR,
    ErrorKind.RPC: Outcome.RPC_ERROR,
}
# When several errors occur, the end reports the one that matters most to the user.
_SEVERITY = [Outcome.USAGE_ERROR, Outcome.TRANSPORT_ERROR, Outcome.PROTOCOL_ERROR,
             Outcome.RPC_ERROR, Outcome.OK]  # fmt: skip


async def run(
    request: A2ARequest, *, http: httpx.AsyncClient | None = None
) -> AsyncIterator[ExchangeEvent]:
    """Send ``request`` and yield its events, ending with :class:`ExchangeEnd`.

    Args:
        request: what to send.
        http: an AsyncClient to reuse (its pool, its limits); a private one is made and
            closed when None.

    Yields:
        ``RequestSent``, ``ResponseHead``, ``ResponseBody`` or ``StreamItem`` s,
        ``ExchangeError`` s, then ``ExchangeEnd``. On cancellation an ``ExchangeEnd`` with
        ``Outcome.CANCELLED`` is yielded if the consumer is still listening.
    """
    clock = Clock()
    outcome = Outcome.OK
    try:
        async with AsyncExitStack() as stack:
            client = (
                http
                if http is not None
                else await stack.enter_async_context(new_client(request.timeout))
            )
            async with aclosing(_dispatch(request, client, clock)) as events:
                async for event in events:
                    if isinstance(event, ExchangeError):
                        outcome = _worse(outcome, _OUTCOME_OF_KIND[event.kind])
                    yield event
    except UsageError as exc:
        outcome = Outcome.USAGE_ERROR
        yield ExchangeError(clock.now(), ErrorKind.USAGE, str(exc))
    except asyncio.CancelledError:
        yield ExchangeEnd(clock.now(), Outcome.CANCELLED)
        raise
    yield ExchangeEnd(clock.now(), outcome)


def _dispatch(
    request: A2ARequest, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[ExchangeEvent, None]:
    if request.binding is Binding.JSONRPC:
        return jsonrpc.exchange(request, client, clock)
    if request.binding is Binding.HTTP_JSON:
        return rest.exchange(request, client, clock)
    if request.binding is Binding.GRPC:
        # gRPC opens its own channel; the httpx client is passed only to keep one signature.
        return grpc.exchange(request, client, clock)
    raise UsageError(f"The {request.binding.value} binding is not available yet")


def _worse(a: Outcome, b: Outcome) -> Outcome:
    return a if _SEVERITY.index(a) <= _SEVERITY.index(b) else b
