"""How a tool is added to the server: its name, title and description for the model, its
annotations set truthfully, and its failures turned into tool errors in words.

A tool raises :class:`~app.errors.WorkbenchError` (a usage error, a refused host, an
unreadable file) for what the model can correct: the client gets ``isError`` with that
message. Anything else is a fault of the workbench: logged with its traceback on stderr,
and the model gets one line saying so, never the traceback.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from app.errors import WorkbenchError

log = logging.getLogger(__name__)

ToolContext = Context[Any, Any]
"""The request context a tool asks for (progress notifications): a parameter of this type
is filled by the SDK, not by the model."""

P = ParamSpec("P")
R = TypeVar("R")


def in_words(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``fn`` with its failures as tool errors (module docstring)."""

    @functools.wraps(fn)
    async def tool(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except WorkbenchError as exc:
            raise ToolError(str(exc)) from exc
        except ToolError:
            raise
        except Exception as exc:
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(
                f"the workbench failed on this call ({type(exc).__name__}: {exc}); "
                "the server's log (stderr) has the details"
            ) from exc

    return tool


def add_tool(
    server: MCPServer[Any],
    fn: Callable[..., Awaitable[Any]],
    *,
    title: str,
    read_only: bool,
    open_world: bool,
    destructive: bool = False,
    idempotent: bool = False,
) -> None:
    """Add ``fn`` as the tool named like the function; its docstring is the description
    the model reads, its annotated parameters the input schema, its return type the output
    schema."""
    server.add_tool(
        in_words(fn),
        name=fn.__name__,
        title=title,
        description=inspect.cleandoc(fn.__doc__ or ""),
        annotations=ToolAnnotations(
            title=title,
            read_only_hint=read_only,
            destructive_hint=None if read_only else destructive,
            idempotent_hint=idempotent,
            open_world_hint=open_world,
        ),
    )
