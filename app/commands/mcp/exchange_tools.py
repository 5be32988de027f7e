"""The tools that talk to an agent: ``send``, ``get_task`` and ``cancel_task``.

Each builds its request with the composer (:mod:`app.protocol.compose`) as ``send`` does,
checks the target against the allow-list, adds the credential it was given by reference,
and runs the exchange through :func:`app.commands.mcp.exchange_result.run_exchange`: the
result states its target, is recorded in the history and is masked like History.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import Field

from app.commands.mcp.credential_refs import (
    NO_CREDENTIAL,
    Credential,
    CredentialRef,
    check_headers,
    check_target,
    resolve,
)
from app.commands.mcp.exchange_result import ExchangeResult, run_exchange
from app.commands.mcp.local_files import local_file
from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.tool_registry import ToolContext, add_tool
from app.commands.oauth import with_token
from app.errors import UsageError
from app.protocol.compose import RequestInputs, compose, compose_body
from app.protocol.methods.catalog import MethodRole, default_method, find_method, method_for_role
from app.protocol.methods.parts import Attachment, data_attachment, file_attachment, uri_attachment
from app.protocol.oauth import OAuthError
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.spec.request_validation import check_request_body

MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The largest body a tool sends (the Streamable HTTP transport's own request limit)."""

STREAM_DEADLINE_S = 60.0
"""A stream's own deadline when the call gives none: a stream may run forever."""

_URI = re.compile(r"(?:https?|file|data):", re.IGNORECASE)

Url = Annotated[
    str,
    Field(
        description="The interface URL from the card (JSON-RPC endpoint, HTTP+JSON base URL) "
        "or, for GRPC, host:port."
    ),
]
Version = Annotated[Literal["1.0", "0.3"], Field(description="A2A protocol version.")]
BindingName = Annotated[
    Literal["JSONRPC", "HTTP+JSON", "GRPC"], Field(description="The interface's binding.")
]
Auth = Annotated[
    CredentialRef | None,
    Field(description="The credential, by reference only (never a value)."),
]
Timeout = Annotated[
    float, Field(gt=0, le=300, description="Seconds to wait for the answer (or a stream start).")
]


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the exchange tools to ``server``."""

    async def send(
        ctx: ToolContext,
        url: Url,
        method: Annotated[
            str | None,
            Field(
                description="A2A method: SendMessage, SendStreamingMessage, GetTask, "
                "ListTasks, CancelTask, SubscribeToTask… (1.0) or message/send, "
                "message/stream, tasks/get… (0.3). Default: the send method."
            ),
        ] = None,
        version: Version = "1.0",
        binding: BindingName = "JSONRPC",
        text: Annotated[
            str,
            Field(max_length=MAX_REQUEST_BYTES, description="The message text to send."),
        ] = "hello",
        data_parts: Annotated[
            list[dict[str, Any]], Field(description="Data parts (JSON objects) after the text.")
        ] = [],  # noqa: B006 - pydantic copies defaults
        files: Annotated[
            list[str],
            Field(description="File parts: a local path (sent inline) or an http(s) URI."),
        ] = [],  # noqa: B006
        task_id: Annotated[
            str,
            Field(
                description="Continue this task (or the task of "
                "GetTask, CancelTask, SubscribeToTask)."
            ),
        ] = "",
        context_id: Annotated[str, Field(description="Continue this conversation.")] = "",
        params: Annotated[
            dict[str, Any] | None,
            Field(
                description="The whole request object instead of text/parts/ids (JSON-RPC: "
                "the params), sent as given."
            ),
        ] = None,
        headers: Annotated[
            dict[str, str], Field(description="Extra headers; no credentials (use `auth`).")
        ] = {},  # noqa: B006
        extensions: Annotated[list[str], Field(description="Extension URIs to activate.")] = [],  # noqa: B006
        auth: Auth = None,
        timeout: Timeout = 30.0,
        deadline: Annotated[
            float | None,
            Field(
                gt=0,
                le=600,
                description="Seconds the whole exchange may take, stream included "
                f"(streams default to {STREAM_DEADLINE_S:.0f}).",
            ),
        ] = None,
        force: Annotated[
            bool, Field(description="Send a body whose shape does not fit the version/binding.")
        ] = False,
    ) -> ExchangeResult:
        """Send one A2A request to an agent and return what happened: the outcome, HTTP
        status, the A2A result (a Task or Message), errors in words, and any findings (spec
        deviations). A streaming method returns its items and how the stream ended, and
        reports each item as progress while it runs; cancelling the call closes the
        stream. The body is built from `text` (plus parts and ids) in the exact shape of
        the version and binding. The result names its target and a History entry id."""
        spec_version = ProtocolVersion(version)
        name = method or default_method(spec_version).name
        inputs = RequestInputs(
            name,
            endpoint=url,
            version=spec_version,
            binding=Binding(binding),
            timeout=timeout,
            deadline=deadline,
            headers=tuple(headers.items()),
            extensions=tuple(extensions),
        )
        if params is not None:
            if data_parts or files or task_id or context_id:
                raise UsageError("params is the whole request object: no parts or ids with it")
            inputs = replace(inputs, params=params)
        else:
            if find_method(spec_version, name) is None:
                raise UsageError(f"unknown {version} method {name!r}; give `params` to send it")
            parts = _attachments(files, data_parts)
            inputs = replace(inputs, text=text, parts=parts, task_id=task_id,
                             context_id=context_id)  # fmt: skip
        return await _exchange(ctx, state, inputs, auth, force=force)

    async def get_task(
        ctx: ToolContext,
        url: Url,
        task_id: Annotated[str, Field(description="The task's id.")],
        version: Version = "1.0",
        binding: BindingName = "JSONRPC",
        auth: Auth = None,
        timeout: Timeout = 30.0,
    ) -> ExchangeResult:
        """Get a task's current state, history and artifacts from an agent (GetTask /
        tasks/get). The result names its target and a History entry id."""
        return await _by_role(ctx, state, MethodRole.GET, url, task_id, version, binding,
                              auth, timeout)  # fmt: skip

    async def cancel_task(
        ctx: ToolContext,
        url: Url,
        task_id: Annotated[str, Field(description="The task to cancel.")],
        version: Version = "1.0",
        binding: BindingName = "JSONRPC",
        auth: Auth = None,
        timeout: Timeout = 30.0,
    ) -> ExchangeResult:
        """Ask an agent to cancel a task (CancelTask / tasks/cancel); the answer is the task
        as the agent now has it, or an A2A error (e.g. the task is no longer cancelable).
        The result names its target and a History entry id."""
        return await _by_role(ctx, state, MethodRole.CANCEL, url, task_id, version, binding,
                              auth, timeout)  # fmt: skip

    add_tool(server, send, title="Send an A2A request", read_only=False, open_world=True,
             destructive=True)  # fmt: skip
    add_tool(server, get_task, title="Get an A2A task", read_only=True, open_world=True,
             idempotent=True)  # fmt: skip
    add_tool(server, cancel_task, title="Cancel an A2A task", read_only=False,
             open_world=True, destructive=True, idempotent=True)  # fmt: skip


async def _by_role(
    ctx: ToolContext,
    state: ServerState,
    role: MethodRole,
    url: str,
    task_id: str,
    version: str,
    binding: str,
    auth: CredentialRef | None,
    timeout: float,
) -> ExchangeResult:
    spec_version = ProtocolVersion(version)
    method = method_for_role(spec_version, role).name
    inputs = RequestInputs(method, endpoint=url, version=spec_version, binding=Binding(binding),
                           task_id=task_id, timeout=timeout)  # fmt: skip
    return await _exchange(ctx, state, inputs, auth)


async def _exchange(
    ctx: ToolContext,
    state: ServerState,
    inputs: RequestInputs,
    auth: CredentialRef | None,
    *,
    force: bool = False,
) -> ExchangeResult:
    """Compose, check, authorise and send ``inputs``; the shape problems a forced body has
    are returned with the result."""
    check_headers(dict(inputs.headers))
    state.hosts.check_binding(inputs.binding, inputs.endpoint, "the interface URL", own=False)
    credential = resolve(auth, state)
    check_target(credential, inputs.endpoint)
    body = compose_body(inputs)
    size = len(body.encode("utf-8"))
    if size > MAX_REQUEST_BYTES:
        raise UsageError(f"the body is {size} bytes; this server sends at most "
                         f"{MAX_REQUEST_BYTES} (the command line sends more)")  # fmt: skip
    problems = [str(p) for p in check_request_body(inputs.version, inputs.binding,
                                                   inputs.method, body)]  # fmt: skip
    if problems and not force:
        raise UsageError(
            f"the body does not fit a {inputs.version.value} {inputs.binding.value} "
            f"request: {'; '.join(problems)} (force: true sends it anyway)"
        )
    # The body checked is the body sent: composing again would make a fresh messageId.
    sent = replace(inputs, body=body, params=None, params_json=None, parts=(), task_id="",
                   context_id="", auth=credential.auth)  # fmt: skip
    request = compose(sent)
    request = await _with_oauth(request, credential, state)
    if request.deadline is None and _streams(request):
        request = replace(request, deadline=STREAM_DEADLINE_S)
    state.ledger.add(request.secret_values)

    async def progress(done: float, message: str) -> None:
        await ctx.report_progress(done, None, message)

    result = await run_exchange(request, state.limits, progress=progress)
    result.shape_problems = problems
    if credential is not NO_CREDENTIAL:
        result.notes.append(f"credential: {credential.label}")
    return result


async def _with_oauth(
    request: A2ARequest, credential: Credential, state: ServerState
) -> A2ARequest:
    """``request`` with a token of the saved client-credentials grant, if it has one."""
    if credential.oauth is None:
        return request
    state.hosts.check(credential.oauth.token_url, "the OAuth token endpoint")
    try:
        return await with_token(request, credential.oauth, state.tokens)
    except OAuthError as exc:
        raise UsageError(f"no OAuth 2 token for {credential.label}: {exc}") from exc


def _streams(request: A2ARequest) -> bool:
    spec = find_method(request.version, request.method)
    return bool(spec and spec.streaming)


def _attachments(files: list[str], data: list[dict[str, Any]]) -> tuple[Attachment, ...]:
    """Files (a path inline, a URI by reference) then data parts, as ``send`` makes them.

    Raises:
        UsageError: a file cannot be read or is too big inline.
    """
    found = [uri_attachment(f) if _URI.match(f) else file_attachment(local_file(f))
             for f in files]  # fmt: skip
    return (*found, *(data_attachment(json.dumps(d)) for d in data))
