"""The bundled demo agent as a child process the app starts and stops (QProcess: no blocking).

The child prints one JSON "ready" line on stdout (see ``app.demo.demo_server``); until then the
window shows "starting". Its stderr is kept (last lines) to explain a failed start.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from typing import Any

from PySide6.QtCore import QObject, QProcess, Signal


class DemoAgentProcess(QObject):
    """Runs ``python -m app demo-agent --port 0 --grpc-port 0``.

    Signals:
        ready: the agent listens (arg: the ready-line dict: base_url, card_url, jsonrpc_url,
            rest_url, grpc_target, jwks_path).
        failed: it could not start or died (arg: a readable reason).
    """

    ready = Signal(dict)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.info: dict[str, Any] | None = None
        self._stderr: deque[str] = deque(maxlen=20)
        self._stdout = b""
        self._stopping = False
        self._proc = QProcess(self)
        self._proc.readyReadStandardOutput.connect(self._read_stdout)
        self._proc.readyReadStandardError.connect(self._read_stderr)
        self._proc.errorOccurred.connect(self._on_error)
        self._proc.finished.connect(self._on_finished)

    def start(self) -> None:
        """Launch the child process; ``ready`` or ``failed`` follows."""
        # A frozen bundle (packaging/) is its own entry point; a venv runs the package.
        prefix = [] if getattr(sys, "frozen", False) else ["-m", "app"]
        self._proc.start(sys.executable, [*prefix, "demo-agent", "--port", "0", "--grpc-port", "0"])

    async def stop(self, timeout: float = 3.0) -> None:
        """Ask the agent to exit (SIGTERM), then kill it after ``timeout`` seconds."""
        import asyncio  # not at module level: this module is on the start-up path

        self._stopping = True
        if self._proc.state() == QProcess.ProcessState.NotRunning:
            return
        done: asyncio.Future[None] = asyncio.get_event_loop().create_future()

        def finished(*_: object) -> None:
            if not done.done():
                done.set_result(None)

        self._proc.finished.connect(finished)
        self._proc.terminate()
        try:
            await asyncio.wait_for(done, timeout)
        except TimeoutError:
            self._proc.kill()
            self._proc.waitForFinished(1000)

    def _read_stdout(self) -> None:
        self._stdout += bytes(self._proc.readAllStandardOutput().data())
        while b"\n" in self._stdout:
            line, self._stdout = self._stdout.split(b"\n", 1)
            try:
                info = json.loads(line)
            except ValueError:
                continue
            if isinstance(info, dict) and info.get("event") == "ready" and self.info is None:
                self.info = info
                self.ready.emit(info)

    def _read_stderr(self) -> None:
        text = bytes(self._proc.readAllStandardError().data()).decode("utf-8", "replace")
        self._stderr.extend(line for line in text.splitlines() if line.strip())

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if not self._stopping and error == QProcess.ProcessError.FailedToStart:
            self.failed.emit(f"the demo agent could not start: {self._proc.errorString()}")

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._stopping:
            return
        tail = " | ".join(list(self._stderr)[-3:])
        self.failed.emit(f"the demo agent exited (status {code}). {tail}".strip())
