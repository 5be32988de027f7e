"""The collection tools: ``list_collections``, ``list_saved_requests`` and
``run_collection``.

A collection is an OpenAPI 3.2 document of saved requests (``x-a2a``, docs/SAVED_REQUESTS.md).
``run_collection`` sends its requests in order as ``run`` does — variables resolved, captures
passed on, assertions judged (:class:`app.commands.run_checks.RunChecks`) — each exchange
recorded and each endpoint checked against the allow-list before it is sent. Stored secrets
resolve only for the user's own collections
(:func:`~app.commands.mcp.known_collections.collection_resolver`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.commands.mcp.exchange_result import ExchangeResult, run_exchange
from app.commands.mcp.known_collections import (
    collection_resolver,
    is_known,
    known_collections,
    open_collection,
)
from app.commands.mcp.mcp_resources import saved_request_uri
from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.tool_registry import ToolContext, add_tool
from app.commands.oauth import with_token
from app.commands.run import select
from app.commands.run_checks import RunChecks
from app.errors import UsageError
from app.protocol.events import Outcome
from app.protocol.oauth import OAuthError
from app.spec import environments
from app.spec.assertions import Observed
from app.spec.document import SpecDocument, SpecError
from app.spec.requests import to_a2a_request

Collection = Annotated[str, Field(description="The collection's file (see list_collections).")]


class CollectionInfo(BaseModel):
    """One of the user's collections."""

    path: str
    origin: str = Field(description="recent (opened in the window), open tab, or example.")
    title: str
    requests: int = Field(description="How many saved A2A requests it holds.")
    environments: list[str] = Field(description="Its named environments (x-a2a-environments).")
    problem: str = Field(default="", description="Why it could not be read, if so.")


class SavedRequestInfo(BaseModel):
    """One saved request, as its collection holds it (``{{variables}}`` unresolved)."""

    operation_id: str
    name: str
    method: str
    version: str
    binding: str
    endpoint: str
    streaming: bool
    auth: str = Field(description="The kind of credential it sends (its value never shown).")
    tags: list[str]
    assertions: int
    captures: list[str] = Field(description="The variables it captures for later requests.")
    resource: str = Field(
        description="Its MCP resource URI (the saved operation), for your own collections."
    )


class OperationRun(BaseModel):
    """One saved request of a run."""

    operation: str
    exchange: ExchangeResult | None = Field(default=None, description="None: it was not sent.")
    error: str = Field(default="", description="Why it was not sent.")
    assertions: list[dict[str, Any]] = Field(
        default_factory=list, description="Each assertion: path, op, expected, passed, message."
    )
    captures: list[dict[str, Any]] = Field(
        default_factory=list, description="Each capture: variable, path, captured (masked)."
    )


class RunReport(BaseModel):
    """A collection's saved requests sent in order."""

    collection: str
    environment: str
    outcome: str = Field(description="The most serious outcome of the run.")
    assertions_failed: int
    operations: list[OperationRun]


def load(collection: str) -> SpecDocument:
    """Raises: UsageError: the collection cannot be read."""
    try:
        return open_collection(collection)
    except SpecError as exc:
        raise UsageError(str(exc)) from exc


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the collection tools to ``server``."""

    async def list_collections() -> list[CollectionInfo]:
        """List the user's collections of saved A2A requests: the specs opened in the
        window lately or open in its tabs, and the examples shipped for the bundled demo
        agent. Use list_saved_requests to see one's requests, run_collection to send them."""
        found: list[CollectionInfo] = []
        for known in known_collections():
            try:
                doc = load(str(known.path))
            except UsageError as exc:
                found.append(
                    CollectionInfo(
                        path=str(known.path),
                        origin=known.origin,
                        title="",
                        requests=0,
                        environments=[],
                        problem=str(exc),
                    )
                )
                continue
            envs, _ = environments.read(doc.data)
            title = str((doc.data.get("info") or {}).get("title") or known.path.name)
            found.append(CollectionInfo(path=str(known.path), origin=known.origin, title=title,
                                        requests=len(doc.operations()),
                                        environments=[e.name for e in envs]))  # fmt: skip
        return found

    async def list_saved_requests(collection: Collection) -> list[SavedRequestInfo]:
        """List the saved A2A requests of a collection, in file order: operationId, method,
        version, binding, endpoint (with its {{variables}}), the kind of credential, its
        assertions and captures. Each is also readable as an MCP resource."""
        doc = load(collection)
        path = (doc.path or Path(collection)).resolve()
        mine = is_known(path)
        return [
            SavedRequestInfo(
                operation_id=r.operation_id,
                name=r.name,
                method=r.method,
                version=r.version.value,
                binding=r.binding.value,
                endpoint=r.endpoint,
                streaming=r.streaming,
                auth=r.auth.kind or "none",
                tags=list(r.tags),
                assertions=len(r.assertions),
                captures=[name for name, _ in r.captures],
                resource=saved_request_uri(path, r.operation_id) if mine else "",
            )
            for r in (op.request for op in doc.operations())
        ]

    async def run_collection(
        ctx: ToolContext,
        collection: Collection,
        operations: Annotated[
            list[str], Field(description="operationIds to send, in this order; default all.")
        ] = [],  # noqa: B006 - pydantic copies defaults
        environment: Annotated[
            str, Field(description="The collection's named environment to use.")
        ] = "",
        variables: Annotated[
            dict[str, str],
            Field(description="{{variable}} values (not secrets), winning over the environment."),
        ] = {},  # noqa: B006
    ) -> RunReport:
        """Send the saved requests of a collection in order, as `a2a-workbench run` does:
        {{variables}} from `variables`, the environment, A2A_WB_* and (for your own
        collections) the OS keyring; values captured from an answer feed the requests after
        it; each request's assertions are judged. Returns each exchange, assertion and
        capture; reports progress per request."""
        doc = load(collection)
        own = is_known((doc.path or Path(collection)).resolve())
        ops = select(doc.operations(), operations)
        if not ops:
            raise UsageError(f"{collection}: no saved A2A requests (operations with x-a2a)")
        resolver = collection_resolver(doc, environment, dict(variables))
        checks = RunChecks()
        worst = Outcome.OK
        runs: list[OperationRun] = []
        for n, op in enumerate(ops):
            op_id = op.request.operation_id
            await ctx.report_progress(n, len(ops), op_id)
            if checks.captured:
                resolver = replace(resolver, values={**resolver.values, **checks.captured})
            run = OperationRun(operation=op_id)
            runs.append(run)
            observed = Observed()
            try:
                sendable = to_a2a_request(op.request, resolver)
                request = sendable.request
                state.hosts.check_binding(
                    request.binding, request.endpoint, f"{op_id}'s endpoint", own=own
                )
                if sendable.oauth is not None:
                    state.hosts.check(sendable.oauth.token_url, "the OAuth token endpoint")
                    state.ledger.add([sendable.oauth.client_secret])
                    request = await with_token(request, sendable.oauth, state.tokens)
            except (UsageError, OAuthError) as exc:
                run.error = str(exc)
                worst = worst.worse(Outcome.USAGE_ERROR)
                continue
            state.ledger.add(request.secret_values)
            run.exchange = await run_exchange(
                request, state.limits, operation=op_id, secret_headers=sendable.secret_headers,
                secret_query=sendable.secret_query, observe=observed.feed,
            )  # fmt: skip
            worst = worst.worse(Outcome(run.exchange.outcome))
            for record in checks.after(op.request, observed, resolver):
                kind = record.pop("event")
                (run.assertions if kind == "assertion" else run.captures).append(record)
        return RunReport(
            collection=str(doc.path or collection),
            environment=environment,
            outcome=worst.value,
            assertions_failed=checks.failed,
            operations=runs,
        )

    add_tool(server, list_collections, title="List the user's collections", read_only=True,
             open_world=False, idempotent=True)  # fmt: skip
    add_tool(server, list_saved_requests, title="List a collection's saved requests",
             read_only=True, open_world=False, idempotent=True)  # fmt: skip
    add_tool(server, run_collection, title="Run a collection's saved requests",
             read_only=False, open_world=True, destructive=True)  # fmt: skip
