"""Guards the Qt pin: thousands of qasync loop turns must not corrupt interpreter state.

PySide6 6.12.0 fails this (``Fatal Python error: none_dealloc`` at exit), which is why
pyproject.toml pins another release. Run in a subprocess: the failure is an abort at exit.
"""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import asyncio
from PySide6.QtWidgets import QApplication
import qasync

app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)


async def main():
    for _ in range(5000):
        await asyncio.sleep(0)
    for _ in range(500):
        await asyncio.to_thread(int)
    print("done")


with loop:
    loop.run_until_complete(main())
"""


def test_many_loop_turns_leave_the_interpreter_intact() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_API": "pyside6"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert "Fatal Python error" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 0 and "done" in proc.stdout
