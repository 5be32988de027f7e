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

This module is the I/O: the client, the binding, the awaits and their timeouts. What to
emit, how long to wait and how it ended is decided by the sans-IO
:class:`~app.protocol.exchange_core.ExchangeCore`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, aclosing
from typing import TypeVar

import httpx

from app.protocol.bindings import traits
from app.protocol.clock import Clock
from app.protocol.events import EventBatch, ExchangeEvent
from app.protocol.exchange_core import STREAM_END_GRACE_S as STREAM_END_GRACE_S
from app.protocol.exchange_core import ExchangeCore
from app.protocol.net.http import client_for
from app.protocol.request import A2ARequest, check_request
from app.protocol.transports import agent_processes

# Re-exported: front ends type the agents they show without importing the transports.
from app.protocol.transports.agent_processes import AgentListener as AgentListener
from app.protocol.transports.agent_processes import AgentProcess as AgentProcess
from app.protocol.transports.transport_table import transport_for
from app.protocol.wire.a2a_errors import UsageError


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
    stream pays its per-event costs (a signal, a model insert) once per batch.

    The I/O only: what to emit and how long to wait is :class:`ExchangeCore`'s."""
    clock = Clock()
    core = ExchangeCore(request, clock)
    try:
        check_request(request)
        async with AsyncExitStack() as stack:
            prepared = core.prepared
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
                while True:
                    wait = core.next_wait()
                    if wait is not None and wait <= 0:
                        # Past the deadline: stop now. asyncio.timeout(0) races a batch
                        # already there, and a stream that never pauses would keep winning.
                        yield core.expired()
                        break
                    try:
                        if wait is None:
                            batch = await anext(batches)
                        else:
                            async with asyncio.timeout(wait):
                                batch = await anext(batches)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        yield core.expired()
                        break
                    out = core.feed(batch)
                    if out:
                        yield out
        verdict = core.closed()
        if verdict:
            yield verdict
    except UsageError as exc:
        yield core.usage_error(exc)
    except asyncio.CancelledError:
        yield core.cancelled()
        raise
    except (httpx.TransportError, OSError) as exc:
        yield core.transport_failure(exc)
    except Exception as exc:
        yield core.internal_error(exc)
    yield core.end()


async def _private_client(request: A2ARequest) -> httpx.AsyncClient:
    # Reading certificate files and the CA bundle takes ~0.1-0.3 s: off the event loop.
    return await asyncio.to_thread(
        client_for, request.endpoint, request.network, timeout=request.timeout
    )


# The stdio agents the exchanges start (docs/PROTOCOL.md §12.3): owned here, beside the
# exchanges, so that front ends need not know the transports.

_T = TypeVar("_T")


def agents() -> list[AgentProcess]:
    """The stdio agents started, running or ended, oldest first."""
    return agent_processes.agents()


async def stop_agent(command: str) -> None:
    """Stop the stdio agent of ``command`` (nothing when none runs)."""
    await agent_processes.stop_agent(command)


async def stop_agents() -> None:
    """Stop every stdio agent the running loop started."""
    await agent_processes.stop_agents()


def add_agent_listener(listener: AgentListener) -> Callable[[], None]:
    """Hear the stdio agents' stderr lines, starts and ends; returns the remover."""
    return agent_processes.add_listener(listener)


async def owning_agents(work: Awaitable[_T]) -> _T:
    """``work``, then every stdio agent it started stopped (a CLI command's whole run)."""
    try:
        return await work
    finally:
        await agent_processes.stop_agents()
