"""``a2a-workbench mcp``: the workbench as a Model Context Protocol server for coding agents.

The server (:mod:`app.commands.mcp.mcp_app`) is a front end like the command line: its
tools build requests with the composer, send them through the exchange seam, encode what
came back with the records module and record every exchange in the history, as ``send``,
``card``, ``verify``, ``check`` and ``run`` do. docs/MCP.md is the user's page.
"""
