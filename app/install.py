"""Ready-to-paste configuration of ``a2a-workbench mcp`` for coding assistants: Claude Code,
VS Code and Cursor, with the exact command line of this install (shown by Help → *Use with a
coding assistant*, quoted in README.md and docs/MCP.md).

Each assistant starts the server itself, over stdio, from the command given; credentials for
the agents are not part of it (the tools take them by reference: an ``env`` entry of the
server's configuration holds a token, the tool call names the variable).
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

SERVER_NAME = "a2a-workbench"


@dataclass(frozen=True, slots=True)
class Snippet:
    """One assistant's configuration: where it goes, and the text to paste there."""

    assistant: str
    where: str
    text: str


def launch_command() -> list[str]:
    """The command line that starts this install's MCP server: the bundle itself, the
    ``a2a-workbench`` script of this environment, or this interpreter running the package."""
    if getattr(sys, "frozen", False):  # the PyInstaller bundle is its own entry point
        return [sys.executable, "mcp"]
    suffix = ".exe" if sys.platform == "win32" else ""
    script = Path(sys.executable).with_name(f"a2a-workbench{suffix}")
    if script.is_file():
        return [str(script), "mcp"]
    return [sys.executable, "-m", "app", "mcp"]


def snippets(command: list[str] | None = None) -> list[Snippet]:
    """The configuration for each assistant, for ``command`` (default: this install's)."""
    program, *args = command or launch_command()
    stdio = {"command": program, "args": args}
    servers = json.dumps({"mcpServers": {SERVER_NAME: stdio}}, indent=2)
    vscode = json.dumps({"servers": {SERVER_NAME: {"type": "stdio", **stdio}}}, indent=2)
    claude = f"claude mcp add {SERVER_NAME} -- {shlex.join([program, *args])}"
    return [
        Snippet("Claude Code", "run in your project (or put the JSON below in .mcp.json)",
                f"{claude}\n\n{servers}\n"),
        Snippet("VS Code", ".vscode/mcp.json in your workspace", vscode + "\n"),
        Snippet("Cursor", ".cursor/mcp.json in your project, or ~/.cursor/mcp.json",
                servers + "\n"),
    ]  # fmt: skip
