"""Starting the real iac-code A2A server (``iac-code a2a --config FILE``) and Redis for it.

Each server gets a home of its own: ``HOME``, the XDG folders and ``IAC_CODE_CONFIG_DIR``
point into a temporary folder holding iac-code's provider settings (``settings.yml``: the
"OpenAI Compatible" provider at the LLM stub's base URL, model ``stub-model``) and its
credentials file (a dummy key), so its sessions, task store and logs never touch the
user's. It also runs there: its agent works in (and keeps sessions by) its current folder,
which must not be the checkout. Telemetry is off (``DISABLE_TELEMETRY``,
``IAC_CODE_DISABLE_NONESSENTIAL_TRAFFIC``). iac-code prints no ready line, so each carrier
has its own readiness probe. docs/PEERS.md §3 has the details.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.peers.iac_llm_stub import API_KEY, MODEL, LlmStub
from tests.peers.iac_venv import venv_bin
from tests.peers.launch import PeerProcess, PeerStartError

TOKEN = "iac-secret-token"
# iac-code signs its card with HS256 under this shared secret, key id "default" (its fixed
# signing_key_id), so a verifier needs an octet JWKS made from the same secret.
SIGNING_SECRET = "iac-card-signing-secret-0123456789abcdef"
SIGNING_KID = "default"
START_TIMEOUT_S = 60.0
# Variables of the developer's shell that would reconfigure iac-code or its LLM client.
_FOREIGN_PREFIXES = ("IAC_CODE_", "IACCODE_", "OPENAI_", "ANTHROPIC_", "DASHSCOPE_", "OTEL_")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (iac-code writes the port into its card, so
    ``0`` will not do)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def octet_jwks(secret: str = SIGNING_SECRET, kid: str = SIGNING_KID) -> dict[str, Any]:
    """The JWKS that verifies iac-code's HS256 card signature: the secret as a ``kty: oct`` key."""
    k = base64.urlsafe_b64encode(secret.encode()).rstrip(b"=").decode()
    return {"keys": [{"kty": "oct", "kid": kid, "alg": "HS256", "k": k}]}


def iac_home(root: Path, llm: LlmStub) -> dict[str, str]:
    """Writes iac-code's config folder under ``root``; returns the server's environment."""
    config_dir = root / ".iac-code"
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "activeProvider": "openai_compatible",  # the provider named "OpenAI Compatible"
        "providers": {"openai_compatible": {"model": MODEL, "apiBase": llm.base_url}},
    }
    (config_dir / "settings.yml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    credentials = {"openai_compatible": API_KEY}
    (config_dir / ".credentials.yml").write_text(yaml.safe_dump(credentials), encoding="utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONPATH" and not k.startswith(_FOREIGN_PREFIXES)
    }
    env.update(
        HOME=str(root),
        XDG_CONFIG_HOME=str(root / ".config"),
        XDG_DATA_HOME=str(root / ".local" / "share"),
        XDG_CACHE_HOME=str(root / ".cache"),
        XDG_STATE_HOME=str(root / ".local" / "state"),
        IAC_CODE_CONFIG_DIR=str(config_dir),
        DISABLE_TELEMETRY="1",
        IAC_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        OTEL_SDK_DISABLED="true",
    )
    return env


def write_config(root: Path, options: dict[str, Any]) -> Path:
    """``root/a2a.yml`` for ``iac-code a2a --config`` (keys as iac-code spells them)."""
    path = root / "a2a.yml"
    path.write_text(yaml.safe_dump(options, sort_keys=False), encoding="utf-8")
    return path


def iac_command(config: Path) -> list[str]:
    """The command line that starts one iac-code A2A server."""
    return [str(venv_bin("iac-code")), "a2a", "--config", str(config)]


def command_line(command: list[str], env: dict[str, str], cwd: Path) -> str:
    """``command`` with its environment and folder as one command line (``env -C DIR -u
    PYTHONPATH NAME=VALUE… COMMAND``), as a user gives a stdio agent to the app."""
    changed = [f"{k}={v}" for k, v in env.items() if os.environ.get(k) != v]
    return shlex.join(["env", "-C", str(cwd), "-u", "PYTHONPATH", *changed, *command])


def start_process(
    cmd: list[str],
    *,
    env: dict[str, str] | None,
    ready: Callable[[], bool],
    info: dict[str, Any],
    cwd: Path | None = None,
    timeout: float = START_TIMEOUT_S,
) -> PeerProcess:
    """Starts ``cmd`` (output to a log file) and polls ``ready()`` until it is true.

    Returns:
        The running process; ``info`` plus ``pid`` and ``start_s`` (seconds until ready).

    Raises:
        PeerStartError: the process exited or was not ready in time; the message holds the
            command and its log's tail.
    """
    fd, name = tempfile.mkstemp(prefix="a2a-iac-", suffix=".log")
    log_path = Path(name)
    started = time.monotonic()
    with os.fdopen(fd, "w") as log:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd
        )
    peer = PeerProcess(proc, {**info, "pid": proc.pid}, log_path)
    problem = f"not ready within {timeout:g} s"
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            problem = f"exited with status {proc.returncode}"
            break
        if ready():
            peer.info["start_s"] = round(time.monotonic() - started, 2)
            return peer
        time.sleep(0.1)
    log_text = peer.stderr_text()
    peer.stop(timeout=2.0)
    raise PeerStartError(f"{cmd!r} {problem}; its output:\n{log_text[-4000:]}")


def tcp_open(port: int) -> Callable[[], bool]:
    """Readiness: something accepts TCP connections on 127.0.0.1:``port``."""

    def probe() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    return probe


def http_health(base_url: str, token: str) -> Callable[[], bool]:
    """Readiness of the HTTP server: ``GET /health`` (behind the token like every route) is 200."""

    def probe() -> bool:
        try:
            response = httpx.get(
                f"{base_url}/health", headers={"Authorization": f"Bearer {token}"},
                timeout=1.0, trust_env=False,
            )  # fmt: skip
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    return probe


def card_of(reply_payloads: list[Any]) -> dict[str, Any] | None:
    """The card in a carrier's ``GetExtendedAgentCard`` answer (unwrapped from WebSocket's
    ``{"payload": …}`` frame when there is one)."""
    for payload in reply_payloads:
        body = payload.get("payload", payload) if isinstance(payload, dict) else None
        if isinstance(body, dict) and isinstance(body.get("result"), dict):
            return dict(body["result"])
    return None


def dump_json(path: Path, data: Any) -> Path:
    """Writes ``data`` as JSON to ``path``; returns it."""
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
