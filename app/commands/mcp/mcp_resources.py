"""The server's MCP resources: what a client can read without calling a tool.

- ``a2a-wb://collections/{collection}/{operation}``: a saved request of one of the user's
  collections, as its file holds it (``x-a2a``; credentials are ``{{variables}}`` there);
  ``{collection}`` is the file's name and a short hash of its path.
- ``a2a-wb://history/{entry_id}``: a History entry and its exchange, as ``history_show``.
- ``a2a-wb://check/last``: the last ``check_agent`` report of this server run.

:class:`WorkbenchServer` lists the concrete ones (every saved request of the user's
collections, the latest History entries) besides the templates.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp_types import Resource

from app.commands.history import shared_store
from app.commands.mcp.history_tools import show
from app.commands.mcp.known_collections import known_collections, open_collection
from app.commands.mcp.mcp_state import ServerState
from app.errors import WorkbenchError
from app.spec.document import SpecError

LISTED_HISTORY = 20
"""How many of the latest History entries ``resources/list`` names."""

LAST_CHECK = "a2a-wb://check/last"


def collection_key(path: Path) -> str:
    """``demo-agent.a2a.yaml`` → ``demo-agent.a2a.yaml-1f2e3d4c``: the file's name (for a
    reader) and a hash of its whole path (two files of one name stay apart)."""
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9._-]', '_', path.name)}-{digest}"


def saved_request_uri(path: Path, operation_id: str) -> str:
    """The resource URI of a saved request of the collection at ``path`` (resolved)."""
    return f"a2a-wb://collections/{collection_key(path)}/{operation_id}"


class WorkbenchServer(MCPServer[Any]):
    """The SDK's server, its resource list extended with the concrete saved requests and
    History entries (the SDK lists only what was registered)."""

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        for known in known_collections():
            try:
                doc = open_collection(str(known.path))
            except SpecError:
                continue
            for op in doc.operations():
                saved = op.request
                listed.append(Resource(
                    uri=saved_request_uri(known.path, saved.operation_id),
                    name=f"{known.path.name}: {saved.operation_id}",
                    description=f"{saved.method} ({saved.binding.value} {saved.version.value}) "
                    f"to {saved.endpoint}",
                    mime_type="application/json",
                ))  # fmt: skip
        store = shared_store()
        for entry in store.entries(limit=LISTED_HISTORY) if store is not None else []:
            listed.append(Resource(
                uri=f"a2a-wb://history/{entry.id}",
                name=f"History #{entry.id}: {entry.rpc_method}",
                description=f"{entry.endpoint} — {entry.outcome or 'incomplete'}",
                mime_type="application/json",
            ))  # fmt: skip
        return listed


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the resources to ``server``."""

    @server.resource(
        "a2a-wb://collections/{collection}/{operation}",
        name="saved-request",
        title="A saved request",
        description="A saved request of one of your collections, as its file holds it.",
        mime_type="application/json",
    )
    def saved_request(collection: str, operation: str) -> str:
        for known in known_collections():
            if collection_key(known.path) != collection:
                continue
            try:
                doc = open_collection(str(known.path))
            except SpecError as exc:
                raise ResourceNotFoundError(str(exc)) from exc
            op = doc.find(operation)
            if op is None:
                raise ResourceNotFoundError(f"no saved request {operation!r} in {known.path}")
            saved = doc.data["paths"][op.ref.path][op.ref.method]
            return json.dumps({"collection": str(known.path), "path": op.ref.path,
                               "operation": saved}, ensure_ascii=False, indent=1)  # fmt: skip
        raise ResourceNotFoundError(f"no collection {collection!r} (see list_collections)")

    @server.resource(
        "a2a-wb://history/{entry_id}",
        name="history-entry",
        title="A History entry",
        description="A recorded exchange: the request as sent (credentials masked) and the "
        "answer or stream.",
        mime_type="application/json",
    )
    def history_entry(entry_id: str) -> str:
        try:
            detail = show(int(entry_id), state.limits)
        except (ValueError, WorkbenchError) as exc:
            raise ResourceNotFoundError(f"no history entry {entry_id!r}") from exc
        return detail.model_dump_json(indent=1)

    @server.resource(
        LAST_CHECK,
        name="last-check",
        title="The last check report",
        description="The report of the last check_agent call of this server run.",
        mime_type="application/json",
    )
    def last_check() -> str:
        if state.last_check is None:
            raise ResourceNotFoundError("no check has run yet: call check_agent")
        return json.dumps(state.last_check, ensure_ascii=False, indent=1)
