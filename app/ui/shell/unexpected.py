"""Exceptions nobody caught, in the GUI: logged at ERROR with their traceback and shown in the
status bar with *Copy details*; the app keeps running.

An exception escapes the code that raised it in three places, each with its hook here:

- a Qt slot or virtual method (qasync's ``asyncSlot`` too): PySide6 hands it to
  ``sys.excepthook``;
- a thread of ours (a worker, the gRPC stream reader): ``threading.excepthook``;
- an asyncio task or callback on the qasync loop: the loop's exception handler.

Each hook only logs (logger ``app.unexpected``; the app's log is stderr, set up in
``application.run_gui``), so the traceback is written once, not twice. What reaches the user is
decided by one logging handler on the root logger: every record at ERROR or above that carries
a traceback — these and the app's own ``log.exception`` calls (a history write that failed, a
big body not formatted) — goes to the window's :class:`MessageBridge`. Records may come from
any thread: a queued signal carries them to the GUI thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from app.ui.shell.messages import MessageBridge

log = logging.getLogger("app.unexpected")

_SUMMARY_CHARS = 200


def _excepthook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    if issubclass(exc_type, KeyboardInterrupt):  # Ctrl+C in the terminal: Python's own way
        sys.__excepthook__(exc_type, exc, tb)
        return
    log.error("Unexpected %s", exc_type.__name__, exc_info=(exc_type, exc, tb))


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None or issubclass(args.exc_type, SystemExit):
        return  # as threading's own hook: SystemExit ends a thread quietly
    name = args.thread.name if args.thread is not None else "?"
    log.error(
        "Unexpected %s in thread %s",
        args.exc_type.__name__,
        name,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The qasync loop's exception handler: an error in a task or callback nobody awaited.

    Logged with its traceback like asyncio's default handler, on ``app.unexpected``.
    """
    exception = context.get("exception")
    log.error("%s", context.get("message") or "Unexpected error in the event loop",
              exc_info=exception if isinstance(exception, BaseException) else None)  # fmt: skip


def summary(record: logging.LogRecord) -> str:
    """One line for the status bar: ``Internal error: <message> (<type>: <text>)``."""
    text = record.getMessage()
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text += f" ({type(exc).__name__}: {exc})" if str(exc) else f" ({type(exc).__name__})"
    text = " ".join(text.split())
    if len(text) > _SUMMARY_CHARS:
        text = text[: _SUMMARY_CHARS - 1] + "…"
    return f"Internal error: {text}"


def details(record: logging.LogRecord) -> str:
    """What *Copy details* copies: the message, the traceback, then the versions of Help →
    About (what a bug report needs)."""
    from app.ui.shell.help_dialogs import versions

    traceback = logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
    lines = [f"{record.levelname} {record.name}: {record.getMessage()}", traceback, ""]
    lines += [f"{name}: {version}" for name, version in versions()]
    return "\n".join(lines)


class _Forwarder(QObject):
    """Carries a log record from any thread to the GUI thread, into the message bar."""

    arrived = Signal(object)

    def __init__(self, messages: MessageBridge) -> None:
        super().__init__(messages)
        self._messages = messages
        # Queued even from the GUI thread: never re-enter a widget from inside a log call.
        self.arrived.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def _show(self, record: logging.LogRecord) -> None:
        self._messages.show_details(summary(record), details(record))


class _ToMessageBar(logging.Handler):
    def __init__(self, forwarder: _Forwarder) -> None:
        super().__init__(logging.ERROR)
        self._forwarder = forwarder

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info is None:
            return
        # The window may be gone (a late thread at exit): then logged is enough.
        with contextlib.suppress(RuntimeError):
            self._forwarder.arrived.emit(record)


def install(
    messages: MessageBridge, loop: asyncio.AbstractEventLoop | None = None
) -> Callable[[], None]:
    """Set the three hooks (the loop's when ``loop`` is given) and show what they and every
    ERROR record with a traceback report in ``messages``' status bar.

    Returns:
        A function that puts the previous hooks back (for tests; the app keeps them).
    """
    handler = _ToMessageBar(_Forwarder(messages))
    root = logging.getLogger()
    root.addHandler(handler)
    previous = (sys.excepthook, threading.excepthook)
    previous_loop_handler = loop.get_exception_handler() if loop is not None else None
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    if loop is not None:
        loop.set_exception_handler(loop_exception_handler)

    def uninstall() -> None:
        sys.excepthook, threading.excepthook = previous
        if loop is not None:
            loop.set_exception_handler(previous_loop_handler)
        root.removeHandler(handler)

    return uninstall
