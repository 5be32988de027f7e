"""Which transport sends each binding: one entry per :class:`~app.protocol.types.Binding`.

A transport is a module of this package that satisfies :class:`Transport`: what the exchange
and the snippet generator call on it (the only importers of this package, pyproject's
import contract). ``tests/protocol/test_bindings.py`` fails when a binding has no entry.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from types import MappingProxyType
from typing import Protocol

import httpx

from app.protocol.clock import Clock
from app.protocol.events import EventBatch
from app.protocol.net.http import HttpCall
from app.protocol.request import A2ARequest, PreparedCall
from app.protocol.transports import (
    grpc,
    jsonrpc_http,
    redis_streams,
    rest,
    stdio,
    unix_socket,
    websocket,
)
from app.protocol.types import Binding


class Transport(Protocol):
    """One binding's way onto the wire."""

    def exchange(
        self, request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
    ) -> AsyncGenerator[EventBatch, None]:
        """Send ``request``; yield its events in batches, without the final ``ExchangeEnd``
        and without raising for a network failure (docs/ARCHITECTURE.md §6.1). ``client``
        is the exchange's HTTP client; a transport that does not ride HTTP ignores it.

        Raises:
            UsageError: the request cannot be built (nothing was sent).
        """
        ...

    def http_call(self, request: A2ARequest) -> HttpCall | None:
        """The HTTP request :meth:`exchange` would send (for ``curl`` and ``httpx``
        snippets), or None when the binding does not ride HTTP.

        Raises:
            UsageError: the request cannot be built.
        """
        ...


TRANSPORTS: Mapping[Binding, Transport] = MappingProxyType(
    {
        Binding.JSONRPC: jsonrpc_http,
        Binding.HTTP_JSON: rest,
        Binding.GRPC: grpc,
        Binding.WEBSOCKET: websocket,
        Binding.UNIX: unix_socket,
        Binding.STDIO: stdio,
        Binding.REDIS_STREAMS: redis_streams,
    }
)


def transport_for(binding: Binding) -> Transport:
    """The transport that sends ``binding``."""
    return TRANSPORTS[binding]
