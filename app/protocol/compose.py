"""The request composer: what a front end says about one request, made into an
:class:`~app.protocol.request.A2ARequest`.

Every front end builds its requests here — the ``send`` command from its arguments, a
check run, a saved request of ``run``, the GUI's draft and its template preview — so they
all produce the same body for the same method, version, binding, text and ids. The
inputs are plain values (:class:`RequestInputs`, one frozen dataclass) and the one
function is :func:`compose`; :func:`compose_body` is its body alone (the GUI's preview).

The body comes from one of three sources:

- the method's template (:mod:`app.protocol.methods.catalog`) filled from ``text``,
  ``parts``, the ids and ``configuration`` — JSON-RPC gets the envelope around it;
- ``params`` (the request object as data) or ``params_json`` (as JSON text, sent as
  typed) — JSON-RPC again gets the envelope around it;
- ``body``: the whole body as typed (for JSON-RPC the envelope too), e.g. a saved one.

The JSON-RPC envelope is always data (:func:`app.protocol.wire.jsonrpc_envelope.envelope`);
params given as text stay a verbatim member of it, so their numbers (``1.50``), key order
and escapes reach the peer unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from app.protocol.bindings import traits
from app.protocol.events import Headers
from app.protocol.methods.catalog import TemplateContext, find_method, methods_for
from app.protocol.methods.parts import Attachment
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.net.network import NetworkOptions
from app.protocol.request import DEFAULT_TIMEOUT_S, A2ARequest, parse_body, render_body
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.jsonrpc_envelope import envelope


@dataclass(frozen=True, slots=True)
class RequestInputs:
    """Everything a front end may say about one request; only ``method`` is required.

    Attributes:
        method: the A2A method name of ``version`` (``SendMessage``, ``message/send``).
        endpoint: the interface URL (JSON-RPC endpoint, REST base URL) or gRPC target.
        version, binding: the protocol version and binding to speak.
        text: the message text of a send method's template.
        parts: files and data parts after the text part (:mod:`app.protocol.methods.parts`).
        task_id, context_id: the ids a template takes (GetTask, CancelTask, push configs;
            with a send method, the task or conversation the message continues).
        message_id: the message's ``messageId`` (empty: a fresh one).
        push_config_id: the push notification config a template names (get, delete).
        configuration: a send method's ``configuration`` (1.0 ``SendMessageConfiguration``:
            ``returnImmediately``, ``acceptedOutputModes``, …; 0.3 ``blocking``, …), set on
            the request object as given.
        params: the request object as data (JSON-RPC: the ``params``) instead of the template.
        params_json: the request object as JSON text, sent as typed.
        body: the whole body as typed, sent as is (JSON-RPC: the envelope included).
        request_id: the JSON-RPC ``id`` (None: a fresh UUID).
        tenant: the interface's tenant (1.0): the transports put it in the REST path and the
            gRPC message; the body is left as composed.
        headers, query: extra header (gRPC metadata) and query pairs, in order.
        auth: the credential (:class:`app.protocol.net.auth.AuthConfig`).
        extensions: extension URIs to activate (``A2A-Extensions``).
        network: TLS and proxy settings.
        timeout, deadline: see :class:`app.protocol.request.A2ARequest`.
        malformed: JSON-RPC only: send ``body`` even when it is not JSON.
        command: the command line that starts a stdio agent.
    """

    method: str
    endpoint: str = ""
    version: ProtocolVersion = ProtocolVersion.V1_0
    binding: Binding = Binding.JSONRPC
    text: str = "hello"
    parts: tuple[Attachment, ...] = ()
    task_id: str = ""
    context_id: str = ""
    message_id: str = ""
    push_config_id: str = ""
    configuration: Mapping[str, Any] | None = None
    params: Mapping[str, Any] | None = None
    params_json: str | None = None
    body: str | None = None
    request_id: str | int | None = None
    tenant: str = ""
    headers: Headers = ()
    query: Headers = ()
    auth: AuthConfig = field(default_factory=AuthConfig.none)
    extensions: tuple[str, ...] = ()
    network: NetworkOptions = field(default_factory=NetworkOptions)
    timeout: float = DEFAULT_TIMEOUT_S
    deadline: float | None = None
    malformed: bool = False
    command: str = ""

    def template_context(self) -> TemplateContext:
        """What the method's template is filled with."""
        return TemplateContext(
            text=self.text,
            message_id=self.message_id,
            task_id=self.task_id,
            context_id=self.context_id,
            push_config_id=self.push_config_id,
            attachments=self.parts,
        )


def with_template(inputs: RequestInputs, ctx: TemplateContext) -> RequestInputs:
    """``inputs`` with what fills the template taken from ``ctx`` (the text, parts and ids
    a GUI form or a check keeps as a :class:`TemplateContext`). ``ctx.tenant`` is not
    taken: the tenant of a request is :attr:`RequestInputs.tenant`."""
    return replace(
        inputs,
        text=ctx.text,
        parts=ctx.attachments,
        task_id=ctx.task_id,
        context_id=ctx.context_id,
        message_id=ctx.message_id,
        push_config_id=ctx.push_config_id,
    )


def compose(inputs: RequestInputs) -> A2ARequest:
    """The request ``inputs`` describe: its body (:func:`compose_body`), the credential and
    the extension headers folded in (:func:`app.protocol.net.auth.apply_auth`).

    Raises:
        UsageError: no body can be made (an unknown method for a template, params text that
            is not JSON, template fields beside params or a body) or the credential cannot
            be encoded.
    """
    request = A2ARequest(
        endpoint=inputs.endpoint,
        method=inputs.method,
        body=compose_body(inputs),
        version=inputs.version,
        binding=inputs.binding,
        headers=inputs.headers,
        query=inputs.query,
        tenant=inputs.tenant,
        timeout=inputs.timeout,
        deadline=inputs.deadline,
        network=inputs.network,
        malformed=inputs.malformed,
        command=inputs.command,
    )
    return apply_auth(request, inputs.auth, inputs.extensions)


_TEMPLATE_FIELDS = ("parts", "task_id", "context_id", "message_id", "push_config_id",
                    "configuration")  # fmt: skip
"""What fills a template only (``text`` has a default, so it is not refused beside params)."""


def compose_body(inputs: RequestInputs) -> str:
    """The body of the request ``inputs`` describe (module docstring: the three sources).

    Raises:
        UsageError: see :func:`compose`.
    """
    given = [n for n in ("params", "params_json", "body") if getattr(inputs, n) is not None]
    if not given:
        spec = find_method(inputs.version, inputs.method)
        if spec is None:
            names = ", ".join(m.name for m in methods_for(inputs.version))
            raise UsageError(
                f"unknown {inputs.version.value} method {inputs.method!r} (known: {names})"
            )
        ctx = inputs.template_context()
        return render_body(
            spec, inputs.binding, ctx, inputs.request_id, configuration=inputs.configuration
        )
    filled = [n for n in _TEMPLATE_FIELDS if getattr(inputs, n)]
    if len(given) > 1 or filled:
        raise UsageError(
            f"{', '.join(given + filled)}: give the request object (params or params_json), "
            "or the whole body, or what fills the template, not several"
        )
    if inputs.body is not None:
        return inputs.body
    if inputs.params_json is not None:
        parse_body(inputs.params_json)  # refused here, with its line and column
        if traits(inputs.binding).payload.envelope:
            members = envelope(inputs.method, _Verbatim(inputs.params_json), inputs.request_id)
            return _object_text(members)
        return inputs.params_json
    params = dict(inputs.params or {})
    if traits(inputs.binding).payload.envelope:
        return json.dumps(envelope(inputs.method, params, inputs.request_id))
    return json.dumps(params)


@dataclass(frozen=True, slots=True)
class _Verbatim:
    """A member value that is JSON text already, written as typed (surrounding blanks off)."""

    text: str


def _object_text(members: Mapping[str, Any]) -> str:
    """``members`` as a JSON object in :func:`json.dumps`' layout, :class:`_Verbatim` values
    written as typed (:mod:`json` can only write values it parsed, and parsing changes
    ``1.50`` to ``1.5``)."""
    written = (
        f"{json.dumps(name)}: "
        + (value.text.strip() if isinstance(value, _Verbatim) else json.dumps(value))
        for name, value in members.items()
    )
    return "{" + ", ".join(written) + "}"
