"""The history tools: ``history_search`` and ``history_show``.

They read the store ``history list`` and ``history show`` read: entries are found by text,
method, outcome or endpoint, newest first, and an entry's events come back as the records
``send`` printed — credentials were masked before anything was stored — within the output
bounds (:class:`app.commands.mcp.exchange_result.ExchangeResult`).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.commands.history import shared_store
from app.commands.mcp.exchange_result import ExchangeResult, fold_events
from app.commands.mcp.mcp_state import Limits, ServerState
from app.commands.mcp.tool_registry import add_tool
from app.errors import UsageError
from app.history.store import HistoryFilter, HistoryStore


class HistoryEntryInfo(BaseModel):
    """One recorded exchange, as the History table lists it."""

    id: int
    started_at: str
    source: str = Field(description="gui, cli, check or mcp: who sent it.")
    operation: str
    rpc_method: str
    binding: str
    version: str
    endpoint: str
    outcome: str | None = Field(description="ok, rpc_error, …; None: never ended.")
    status: int | None
    duration_ms: float | None
    size: int
    items: int
    error: str


class HistoryEntryDetail(BaseModel):
    """One recorded exchange with what was sent and what came back."""

    entry: HistoryEntryInfo
    exchange: ExchangeResult


def store() -> HistoryStore:
    """Raises: UsageError: the history cannot be opened."""
    found = shared_store()
    if found is None:
        raise UsageError("the history cannot be opened (see the server's log)")
    return found


def show(entry_id: int, limits: Limits) -> HistoryEntryDetail:
    """The entry ``entry_id`` and its exchange (history_show, the history resource).

    Raises:
        UsageError: there is no such entry.
    """
    history = store()
    entry = history.entry(entry_id)
    if entry is None:
        raise UsageError(f"no history entry {entry_id}")
    info = HistoryEntryInfo(**entry.as_record())
    exchange = fold_events(history.iter_events(entry_id), entry, limits)
    return HistoryEntryDetail(entry=info, exchange=exchange)


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the history tools to ``server``."""

    async def history_search(
        text: Annotated[
            str, Field(description="Part of the endpoint, URL, method, operation or error.")
        ] = "",
        method: Annotated[str, Field(description="Exactly this A2A method or HTTP verb.")] = "",
        outcome: Annotated[
            str,
            Field(
                description="ok, rpc_error, protocol_error, transport_error, usage_error, "
                "cancelled, or incomplete."
            ),
        ] = "",
        endpoint: Annotated[str, Field(description="Exactly this endpoint.")] = "",
        limit: Annotated[int, Field(ge=1, le=200, description="At most this many.")] = 20,
    ) -> list[HistoryEntryInfo]:
        """Search the History of exchanges (sent from the window, the command line, checks
        and this server), newest first. Use history_show with an id for the full exchange."""
        where = HistoryFilter(text, method, outcome, endpoint)
        return [HistoryEntryInfo(**e.as_record()) for e in store().entries(where, limit=limit)]

    async def history_show(
        entry_id: Annotated[int, Field(description="The History entry id.")],
        max_body_bytes: Annotated[
            int,
            Field(
                ge=1024,
                le=1024 * 1024,
                description="Show bodies and stream items up to this size (bytes).",
            ),
        ] = state.limits.max_body_bytes,
    ) -> HistoryEntryDetail:
        """Show one recorded exchange: the request as sent (credentials masked), the answer
        or the stream's items, errors, findings and how it ended."""
        limits = Limits(max_body_bytes=max_body_bytes, max_items=state.limits.max_items)
        return show(entry_id, limits)

    add_tool(server, history_search, title="Search the History", read_only=True,
             open_world=False, idempotent=True)  # fmt: skip
    add_tool(server, history_show, title="Show a History entry", read_only=True,
             open_world=False, idempotent=True)  # fmt: skip
