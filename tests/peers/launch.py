"""Start a peer server as a subprocess and wait for its one-line JSON "ready" announcement.

Every peer (the Python demo agent, the JavaScript SDK peer) prints exactly one line to stdout
once all its ports listen, for example::

    {"event": "ready", "base_url": "http://127.0.0.1:PORT",
     "card_url": "http://127.0.0.1:PORT/.well-known/agent-card.json",
     "jsonrpc_url": "http://127.0.0.1:PORT/", "rest_url": "http://127.0.0.1:PORT/rest",
     "grpc_target": "127.0.0.1:GPORT", "jwks_path": "/abs/jwks.json", "pid": 1234}

and logs to stderr only. This module knows nothing else about the peer.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import IO, Any

_STOP_TIMEOUT_S = 5.0
_live: set[PeerProcess] = set()


class PeerStartError(RuntimeError):
    """The peer exited or stayed silent before announcing itself; the message has its stderr."""


class PeerProcess:
    """A running peer.

    Attributes:
        info: the parsed ready line (``base_url``, ``jsonrpc_url``, ``grpc_target``, ...).
        proc: the child process.
        stderr_path: file holding everything the peer wrote to stderr.
    """

    def __init__(self, proc: subprocess.Popen[str], info: dict[str, Any], stderr_path: Path):
        """Wraps an already-announced peer; use ``start_peer`` to create one."""
        self.proc = proc
        self.info = info
        self.stderr_path = stderr_path
        _live.add(self)

    def stderr_text(self) -> str:
        """Returns what the peer has written to stderr so far ("" when unreadable)."""
        try:
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = _STOP_TIMEOUT_S) -> int:
        """Sends SIGTERM, waits up to ``timeout`` seconds, then SIGKILLs.

        Safe to call more than once.

        Args:
            timeout: seconds to wait for a clean exit after SIGTERM.

        Returns:
            The exit status (negative signal number when killed, as in ``Popen.returncode``).
        """
        _live.discard(self)
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        with contextlib.suppress(OSError):
            self.stderr_path.unlink()
        return self.proc.returncode


def start_peer(
    cmd: list[str],
    *,
    timeout: float = 30.0,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> PeerProcess:
    """Launches ``cmd`` and waits for its ready line.

    Lines on stdout before the ready line that are not a JSON object with
    ``"event": "ready"`` are ignored (e.g. tool banners).

    Args:
        cmd: program and arguments.
        timeout: seconds to wait for the ready line.
        env: the complete child environment; None inherits this process's environment.
        cwd: working directory of the child; None keeps ours.

    Returns:
        The running peer, with ``info`` set from the ready line.

    Raises:
        PeerStartError: the child exited or did not announce itself within ``timeout``
            (the child is killed); the message includes the command and its stderr tail.
    """
    fd, name = tempfile.mkstemp(prefix="a2a-peer-", suffix=".stderr")
    stderr_path = Path(name)
    with os.fdopen(fd, "w") as stderr_file:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            env=env,
            cwd=cwd,
            text=True,
            bufsize=1,
        )
    assert proc.stdout is not None
    lines: Queue[str | None] = Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()

    deadline = time.monotonic() + timeout
    problem = f"no ready line within {timeout:g} s"
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            line = lines.get(timeout=min(remaining, 0.5))
        except Empty:
            continue
        if line is None:
            proc.wait(timeout=_STOP_TIMEOUT_S)
            problem = f"exited with status {proc.returncode} before its ready line"
            break
        info = _parse_ready(line)
        if info is not None:
            return PeerProcess(proc, info, stderr_path)

    peer = PeerProcess(proc, {}, stderr_path)
    stderr = peer.stderr_text()
    peer.stop(timeout=1.0)
    raise PeerStartError(f"peer {cmd!r} {problem}; stderr:\n{stderr[-4000:]}")


def _pump(stream: IO[str], lines: Queue[str | None]) -> None:
    # Keeps draining after the ready line so a chatty peer can never block on a full pipe.
    with contextlib.suppress(ValueError, OSError):
        for line in stream:
            lines.put(line)
    lines.put(None)


def _parse_ready(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if isinstance(obj, dict) and obj.get("event") == "ready":
        return obj
    return None


@atexit.register
def _stop_leftovers() -> None:
    # A crashed test session must not leave servers holding loopback ports.
    for peer in list(_live):
        peer.stop(timeout=1.0)
