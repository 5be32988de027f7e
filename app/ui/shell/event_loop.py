"""The qasync event loop, finished the way asyncio finishes its own loops.

asyncio's ``BaseEventLoop.run_forever`` installs the loop's async generator hooks
(``sys.set_asyncgen_hooks``, PEP 525) while it runs; qasync 0.28's ``run_forever`` runs Qt's
``exec()`` instead and installs none. Without them an async generator left suspended — a
stream the client stops reading, one a check drops on purpose — is closed by the garbage
collector outside any task: httpx's and httpcore's generators await in their cleanup and the
interpreter prints "Exception ignored … async generator ignored GeneratorExit" and
"Attempted to exit cancel scope in a different task" to the terminal. With the hooks each one
is closed in a task of its own on the loop, as on any asyncio loop, and
``loop.shutdown_asyncgens()`` closes those still open before the window lets the loop stop.
"""

from __future__ import annotations

import sys
from typing import Any

import qasync


class WorkbenchLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` with asyncio's async generator hooks while it runs."""

    def run_forever(self) -> Any:
        old = sys.get_asyncgen_hooks()
        # The loop's own hooks, as BaseEventLoop.run_forever installs them: they keep the
        # set shutdown_asyncgens() closes and schedule each finalisation as a task.
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*old)
