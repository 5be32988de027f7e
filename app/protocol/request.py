"""The request description: plain data from the UI or CLI, turned into wire bytes elsewhere.

Data flows one way: UI state → :class:`A2ARequest` → protocol layer → events.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from app.protocol.bindings import traits
from app.protocol.events import Headers
from app.protocol.methods.catalog import MethodRole, MethodSpec, TemplateContext, find_method
from app.protocol.net.network import NetworkOptions
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.jsonrpc_envelope import envelope

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class A2ARequest:
    """Everything needed to send one A2A request.

    Attributes:
        endpoint: the interface URL (JSON-RPC, REST base) or gRPC target.
        method: the A2A method name of ``version`` (``SendMessage``, ``message/send``).
        body: the editor text, sent as typed: for JSON-RPC the whole envelope, for
            REST/gRPC the request object.
        version, binding: protocol version and binding of the tab.
        headers: extra headers (or gRPC metadata) in order; they override the defaults.
        query: extra query parameters appended to the URL (e.g. an API key ``in: query``).
        tenant: the interface's tenant (1.0): a leading REST path segment, a ``tenant``
            field in gRPC and JSON-RPC params. Empty when the interface has none.
        timeout: seconds to wait for the complete answer (unary) or for the stream to
            start (streaming); see :func:`app.protocol.exchange.run`.
        deadline: seconds the whole exchange may take, streams included (None: no bound);
            past it the exchange ends with a ``DEADLINE_EXCEEDED`` transport error.
        max_response_bytes: a larger response body is cut off and reported as an error.
        rest_subscribe_verb: ``POST`` (spec prose, SDK clients) or ``GET`` (the proto's
            http rule) for ``SubscribeToTask`` / ``TaskSubscription`` over HTTP+JSON.
        secret_headers, secret_query: header and query names configured as credentials
            (an API key's name); carried onto :class:`RequestSent` so its masked view
            hides them too.
        secret_values: credential values registered for redaction by value
            (:func:`with_secrets`): every text the exchange emits
            has them masked.
        network: TLS (CA bundle, client certificate, verification off) and proxy settings.
        malformed: JSON-RPC only: send ``body`` even when it is not JSON (checking how an
            agent answers a parse error, -32700); otherwise such a body is refused.
        command: the command line that starts a stdio agent (the app owns the process;
            docs/PROTOCOL.md §12); empty for every other binding.
    """

    endpoint: str
    method: str
    body: str
    version: ProtocolVersion = ProtocolVersion.V1_0
    binding: Binding = Binding.JSONRPC
    headers: Headers = field(default=())
    query: Headers = field(default=())
    tenant: str = ""
    timeout: float = DEFAULT_TIMEOUT_S
    deadline: float | None = None
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    rest_subscribe_verb: str = "POST"
    secret_headers: tuple[str, ...] = ()
    secret_query: tuple[str, ...] = ()
    secret_values: tuple[str, ...] = field(default=(), repr=False)
    network: NetworkOptions = field(default_factory=NetworkOptions)
    malformed: bool = False
    command: str = ""


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """A request with its method resolved once (:func:`prepare`), handed to a binding.

    Attributes:
        request: what to send.
        spec: the catalog entry of ``request.method``, or None for a name the catalog does
            not know (JSON-RPC sends it as typed; REST and gRPC refuse it).
        streaming: whether the method answers with a stream.
    """

    request: A2ARequest
    spec: MethodSpec | None
    streaming: bool

    @property
    def version(self) -> ProtocolVersion:
        """The request's protocol version."""
        return self.request.version

    @property
    def binding(self) -> Binding:
        """The request's binding."""
        return self.request.binding


def with_secrets(request: A2ARequest, values: Iterable[str]) -> A2ARequest:
    """``request`` with ``values`` added to its registered ``secret_values``
    (:mod:`app.protocol.secrets` redacts them from what the exchange shows)."""
    old = request.secret_values
    new = tuple(v for v in dict.fromkeys(values) if v and v not in old)
    return dataclasses.replace(request, secret_values=old + new) if new else request


def prepare(request: A2ARequest | PreparedCall) -> PreparedCall:
    """``request`` with its catalog entry looked up (a PreparedCall is returned as is)."""
    if isinstance(request, PreparedCall):
        return request
    spec = find_method(request.version, request.method)
    return PreparedCall(request, spec, spec is not None and spec.streaming)


def render_body(
    spec: MethodSpec,
    binding: Binding,
    ctx: TemplateContext,
    request_id: str | int | None = None,
    *,
    configuration: Mapping[str, Any] | None = None,
) -> str:
    """The method's template as editor text (2-space JSON).

    JSON-RPC gets the full envelope with the template as ``params``; REST and gRPC get the
    request object itself. ``configuration`` is set on a send method's request object
    (1.0 ``SendMessageConfiguration``, 0.3 ``MessageSendConfiguration``).

    Raises:
        UsageError: ``configuration`` for a method that sends no message.
    """
    obj = spec.template(binding, ctx)
    if configuration is not None:
        if spec.role not in (MethodRole.SEND, MethodRole.STREAM):
            raise UsageError(f"{spec.name} sends no message: it takes no configuration")
        obj["configuration"] = dict(configuration)
    if traits(binding).payload.envelope:
        obj = envelope(spec.name, obj, request_id)
    return json.dumps(obj, indent=2, ensure_ascii=False)


def parse_body(text: str) -> Any:
    """Parse editor text as JSON.

    Raises:
        UsageError: with the line and column of the first problem, e.g.
            ``Request body is not valid JSON (line 3, column 5): Expecting ',' delimiter``.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"Request body is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from exc
    except RecursionError:
        raise UsageError("Request body is nested too deeply to parse") from None


_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 §5.6.2 field-name


def check_request(request: A2ARequest) -> None:
    """Refuse a request that cannot go on the wire as described, before anything is sent.

    Checks the timeout (a positive, finite number of seconds), header names (RFC 9110
    tokens) and values (no CR, LF or NUL; ASCII only),
    and the endpoint's port (1-65535). Messages never quote header values: they may be
    credentials.

    Raises:
        UsageError: what is wrong, naming the header or field.
    """
    if not (math.isfinite(request.timeout) and request.timeout > 0):
        raise UsageError("The timeout must be a positive number of seconds")
    if request.deadline is not None and not (
        math.isfinite(request.deadline) and request.deadline > 0
    ):
        raise UsageError("The deadline must be a positive number of seconds")
    for name, value in request.headers:
        if not _TOKEN.fullmatch(name):
            raise UsageError(f"{name!r} is not a valid header name")
        if any(c in value for c in "\r\n\0"):
            raise UsageError(f"Header {name!r} contains a line break or NUL (value not shown)")
        if not value.isascii():
            # RFC 9110 tolerates ISO-8859-1 bytes, but httpx, gRPC and most servers take
            # only ASCII; say so here rather than fail deep in a library.
            raise UsageError(f"Header {name!r} has non-ASCII characters (value not shown)")
    found = traits(request.binding)
    if found.url.target and request.query:
        raise UsageError(
            f"{found.label} has no query string: send the credential as {found.header_noun} instead"
        )
    endpoint = request.endpoint.strip()
    target = endpoint if "://" in endpoint else f"//{endpoint}"
    try:
        urlsplit(target).port  # noqa: B018 - raises for out-of-range ports
    except ValueError as exc:
        raise UsageError(f"The endpoint {request.endpoint!r} is not usable: {exc}") from None
