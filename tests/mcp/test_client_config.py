"""The configuration the window shows for coding assistants starts this install's server:
its command line, run as an assistant runs it, answers as an MCP server."""

from __future__ import annotations

import json

from mcp import Client, StdioServerParameters

from app.install import launch_command, snippets
from tests.mcp.harness import REPO, server_env


def test_each_snippet_is_valid_for_its_assistant() -> None:
    command = ["/opt/a2a workbench/bin/a2a-workbench", "mcp"]
    found = {s.assistant: s for s in snippets(command)}
    assert set(found) == {"Claude Code", "VS Code", "Cursor"}
    claude_line, claude_json = found["Claude Code"].text.split("\n\n", 1)
    assert claude_line == (
        "claude mcp add a2a-workbench -- '/opt/a2a workbench/bin/a2a-workbench' mcp"
    )
    stdio = {"command": command[0], "args": ["mcp"]}
    assert json.loads(claude_json) == {"mcpServers": {"a2a-workbench": stdio}}
    assert json.loads(found["VS Code"].text) == {
        "servers": {"a2a-workbench": {"type": "stdio", **stdio}}
    }
    assert json.loads(found["Cursor"].text) == {"mcpServers": {"a2a-workbench": stdio}}


async def test_the_command_line_shown_starts_the_server() -> None:
    program, *args = launch_command()
    params = StdioServerParameters(command=program, args=args, env=server_env(), cwd=str(REPO))
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"fetch_card", "send", "check_agent", "history_show"} <= names
