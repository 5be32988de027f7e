"""``replay_start`` and ``replay_stop``: a recorded fixture (or History entries made into one)
served on loopback as a mock agent, as ``a2a-workbench replay`` serves it
(:mod:`app.commands.mcp.replays`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.commands.mcp.history_tools import store
from app.commands.mcp.local_files import local_file
from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.replays import Replay
from app.commands.mcp.tool_registry import add_tool
from app.errors import UsageError
from app.replay.export import ExportOptions, write_fixture


class ReplayStarted(BaseModel):
    """A replay listening on loopback."""

    replay_id: str = Field(description="Give it to replay_stop.")
    fixture: str
    base_url: str
    card_url: str = Field(description="The served card (its interfaces point at the replay).")
    grpc_target: str = Field(description="host:port of the gRPC side ('' when none).")
    interfaces: list[dict[str, Any]] = Field(description="The served card's interfaces.")
    exchanges: int = Field(description="How many recorded exchanges it can answer.")
    notes: list[str] = Field(default_factory=list)


class ReplayStopped(BaseModel):
    """A stopped replay and what it served."""

    replay_id: str
    served: int = Field(description="Requests answered from the fixture.")
    unmatched: int = Field(description="Requests no recorded exchange matched.")
    recent: list[dict[str, Any]] = Field(
        description="The last few served / unmatched records (for an unmatched request: the "
        "closest recorded one and the differences)."
    )


def _started(replay: Replay, notes: list[str]) -> ReplayStarted:
    ready = replay.listening
    return ReplayStarted(
        replay_id=replay.replay_id,
        fixture=replay.fixture,
        base_url=str(ready.get("base_url", "")),
        card_url=str(ready.get("card_url", "")),
        grpc_target=str(ready.get("grpc_target", "")),
        interfaces=list(ready.get("interfaces") or []),
        exchanges=int(ready.get("exchanges") or 0),
        notes=notes,
    )


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the replay tools to ``server``."""

    async def replay_start(
        fixture: Annotated[
            str | None, Field(description="A fixture file (YAML or JSON, docs/FIXTURES.md).")
        ] = None,
        history_ids: Annotated[
            list[int],
            Field(description="Or: History entry ids to replay, made into a fixture."),
        ] = [],  # noqa: B006 - pydantic copies defaults
        speed: Annotated[
            float, Field(ge=0, le=100, description="Timing factor: 2 twice as fast, 0 no delays.")
        ] = 1.0,
        match: Annotated[
            Literal["method", "method+text", "method+params"],
            Field(description="Which parts of a request must equal the recorded one."),
        ] = "method+text",
    ) -> ReplayStarted:
        """Serve recorded exchanges as a mock A2A agent on loopback (its card, JSON-RPC,
        HTTP+JSON and gRPC answered from the recording): a fixture file, or History entries
        (e.g. from history_search). Point send or check_agent at the returned URLs to
        reproduce a session without the real agent; stop it with replay_stop."""
        notes: list[str] = []
        if (fixture is None) == (not history_ids):
            raise UsageError("give a `fixture` file or `history_ids`, not both")
        if fixture is None:
            history = store()
            entries = [(e, history.events(e.id)) for i in history_ids
                       if (e := history.entry(i)) is not None]  # fmt: skip
            if len(entries) != len(history_ids):
                found = {e.id for e, _ in entries}
                missing = ", ".join(str(i) for i in history_ids if i not in found)
                raise UsageError(f"no history entry {missing}")
            path = state.replays.scratch() / f"history-{'-'.join(map(str, history_ids))}.yaml"
            built = write_fixture(path, entries, ExportOptions())
            notes += list(built.notes)
        else:
            path = local_file(fixture)
            if not path.is_file():
                raise UsageError(f"no fixture file {fixture}")
        replay = await state.replays.start(path, speed, match)
        return _started(replay, notes)

    async def replay_stop(
        replay_id: Annotated[str, Field(description="The id replay_start returned.")],
    ) -> ReplayStopped:
        """Stop a replay started with replay_start; says what it served and what it could
        not match."""
        replay = await state.replays.stop(replay_id)
        return ReplayStopped(
            replay_id=replay.replay_id,
            served=replay.counts["served"],
            unmatched=replay.counts["unmatched"],
            recent=list(replay.recent),
        )

    add_tool(server, replay_start, title="Replay recorded exchanges", read_only=False,
             open_world=False)  # fmt: skip
    add_tool(server, replay_stop, title="Stop a replay", read_only=False, open_world=False,
             destructive=True)  # fmt: skip
