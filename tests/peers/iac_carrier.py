"""Runs tests/peers/iac/iac_carrier_client.py with ``.venv-iac``'s Python and parses its output.

The client speaks iac-code's custom carriers (WebSocket, Unix socket, stdio, Redis Streams)
with the libraries of that venv; see its docstring for the carriers' URL forms.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.peers.iac_venv import venv_bin

CLIENT = Path(__file__).resolve().parent / "iac" / "iac_carrier_client.py"


@dataclass(frozen=True)
class CarrierReply:
    """What the client printed: every frame received, per request, in arrival order."""

    status: int
    records: list[dict[str, Any]]
    stderr: str

    def frames(self, request: int) -> list[str]:
        """The raw text of every frame answering request ``request`` (stdio, Unix, WebSocket)."""
        return [r["frame"] for r in self.records if r["request"] == request and "frame" in r]

    def payloads(self, request: int) -> list[Any]:
        """The JSON of every frame (Redis: of each entry's ``payload`` field) for ``request``."""
        out: list[Any] = []
        for record in self.records:
            if record["request"] != request:
                continue
            text = record["fields"]["payload"] if "fields" in record else record["frame"]
            out.append(json.loads(text))
        return out


def carrier_call(
    carrier: str,
    target: str,
    frames: list[str | dict[str, Any]],
    *,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 30.0,
) -> CarrierReply:
    """Sends ``frames`` (dicts as compact JSON, strings as they are) one after the other.

    Args:
        carrier: ``websocket``, ``unix``, ``stdio`` or ``redis-streams``.
        target: the interface URL, as the carrier's card lists it.
        frames: the requests.
        command: stdio only: the agent's command line (the client starts and stops it).
        env: the client's environment (stdio: the agent's too); None: ours without
            ``PYTHONPATH`` (the checkout must not shadow the other venv's packages).
        cwd: the client's working folder (stdio: the agent's too).
        timeout: seconds for the whole exchange, connecting included.
    """
    lines = [f if isinstance(f, str) else json.dumps(f, separators=(",", ":")) for f in frames]
    # Options first: argparse fills the trailing command only when the positionals come last.
    cmd = [str(venv_bin("python")), str(CLIENT), "--timeout", str(timeout), carrier, target]
    if command:
        cmd += ["--", *command]
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        cmd, input="\n".join(lines) + "\n", capture_output=True, text=True,
        timeout=timeout + 15, env=env, cwd=cwd, check=False,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return CarrierReply(proc.returncode, records, proc.stderr)
