"""Running ``a2a-workbench mcp`` for the tests and talking to it with the ``mcp`` SDK's own
client: over stdio (the server as a subprocess, as a coding assistant starts it) or over
Streamable HTTP (the ``listening`` line's URL and token).

The server runs in the test's temporary home (the ``XDG_*`` variables the suite sets) and
never reads a keyring (``PYTHON_KEYRING_BACKEND``): secrets come from the fallback file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

REPO = Path(__file__).resolve().parents[2]
NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The server's environment: the test's (its temporary home) and no keyring."""
    return {**os.environ, **NO_KEYRING, **(extra or {})}


def stdio(*args: str, env: dict[str, str] | None = None) -> Client:
    """A client of ``a2a-workbench mcp ARGS`` started over stdio."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app", "mcp", *args],
        env=server_env(env),
        cwd=str(REPO),
    )
    return Client(params)


class HttpServer:
    """``a2a-workbench mcp --http 127.0.0.1:0`` running; its URL and token."""

    def __init__(self, proc: subprocess.Popen[str], listening: dict[str, Any]) -> None:
        self.proc = proc
        self.url: str = listening["url"]
        self.token: str = listening["token"]

    @asynccontextmanager
    async def client(self) -> AsyncIterator[Client]:
        """A connected client over Streamable HTTP, sending the run's token."""
        headers = {"Authorization": f"Bearer {self.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http,
            Client(streamable_http_client(self.url, http_client=http)) as client,
        ):
            yield client


@contextmanager
def http_server(*args: str, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    """The server over Streamable HTTP on a free loopback port, stopped afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "mcp", "--http", "127.0.0.1:0", *args],
        cwd=REPO,
        env=server_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, f"the server exited with {proc.wait(5)} before listening"
        yield HttpServer(proc, json.loads(line))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def data(result: CallToolResult) -> Any:
    """A tool's structured result (a list result unwrapped from ``{"result": [...]}``)."""
    assert not result.is_error, text(result)
    content = result.structured_content
    assert content is not None
    if set(content) == {"result"}:
        return content["result"]
    return content


def text(result: CallToolResult) -> str:
    """Every text block of a tool's result, joined."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def everything(result: Any) -> str:
    """All a client received for a result (text blocks and structured content), as text,
    for looking for a string that must not be there."""
    if isinstance(result, CallToolResult):
        return text(result) + json.dumps(result.structured_content)
    return result.model_dump_json() if hasattr(result, "model_dump_json") else str(result)
