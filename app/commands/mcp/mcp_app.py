"""The MCP server itself: every tool, resource and prompt on one official-SDK server
(``mcp`` on PyPI), every result masked.

Tools (docs/MCP.md has their inputs and outputs): ``fetch_card``, ``validate_card``,
``verify_card_signature`` (:mod:`~app.commands.mcp.card_tools`); ``send``, ``get_task``,
``cancel_task`` (:mod:`~app.commands.mcp.exchange_tools`); ``check_agent``
(:mod:`~app.commands.mcp.check_tools`); ``list_collections``, ``list_saved_requests``,
``run_collection`` (:mod:`~app.commands.mcp.collection_tools`); ``history_search``,
``history_show`` (:mod:`~app.commands.mcp.history_tools`); ``explain_versions``
(:mod:`~app.commands.mcp.explain_tool`); ``replay_start``, ``replay_stop``
(:mod:`~app.commands.mcp.replay_tools`). Resources: :mod:`~app.commands.mcp.mcp_resources`;
prompts: :mod:`~app.commands.mcp.mcp_prompts`.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from pydantic import BaseModel

from app import __version__
from app.commands.mcp import (
    card_tools,
    check_tools,
    collection_tools,
    exchange_tools,
    explain_tool,
    history_tools,
    mcp_prompts,
    mcp_resources,
    replay_tools,
)
from app.commands.mcp.mcp_resources import WorkbenchServer
from app.commands.mcp.mcp_state import ServerState

NAME = "a2a-workbench"

INSTRUCTIONS = """\
A2A Workbench: tools to debug agents that speak the Agent2Agent (A2A) protocol, 1.0 and 0.3,
over JSON-RPC, HTTP+JSON and gRPC. Start with fetch_card on an agent's URL; check_agent tests
it against its own card; send talks to it (streams too); history_search / history_show read
every exchange recorded (by this server, the window and the command line). Credentials are
given by reference only (auth.env: an environment variable's name; or auth.collection +
auth.operation: a saved request of the user's collections) and never appear in results. Only
loopback and the hosts of the user's collections and history may be called, unless the user
started the server with --allow-host."""

MASKED_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})


def masking(state: ServerState) -> Any:
    """Middleware that masks the ledger's secrets in every tool result, resource and
    prompt the server returns (:class:`~app.commands.mcp.mcp_state.SecretLedger`)."""

    async def mask(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method not in MASKED_METHODS or result is None:
            return result
        data = (
            result.model_dump(by_alias=True, mode="json", exclude_none=True)
            if isinstance(result, BaseModel)
            else result
        )
        masked: dict[str, Any] = state.ledger.mask(data)
        return masked

    return mask


def build_server(state: ServerState) -> WorkbenchServer:
    """The server with every tool, resource and prompt, its results masked."""
    server = WorkbenchServer(
        NAME,
        title="A2A Workbench",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        middleware=[masking(state)],
    )
    for tools in (card_tools, exchange_tools, check_tools, collection_tools, history_tools,
                  explain_tool, replay_tools, mcp_resources):  # fmt: skip
        tools.register(server, state)
    mcp_prompts.register(server)
    return server
