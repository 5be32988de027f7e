"""Recording the GUI's exchanges in the history store.

The store is opened once, off the GUI thread (:meth:`HistoryRecording.open`); until then,
and for good if it cannot be opened, exchanges are simply not recorded: history never
stops the app. Each tab's :class:`~app.ui.request.request_controller.RequestController` gets a
recorder per exchange (main and side); feeding it only queues the event for the store's
writer thread, so a fast stream is not slowed down. A stream's timeline is told where its
entry is (``TimelineModel.back_with``): it reads older frames back from there instead of
keeping them.

Each entry's ``context`` holds the tab as the session file would keep it (credentials
stripped, :func:`app.session.strip_secrets`), so *Open as new request* can restore it.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.history.item_reader import ItemReader
from app.history.recorder import Recorder
from app.history.store import HistoryStore, HistoryUnavailable
from app.protocol.events import EventBatch
from app.protocol.request import A2ARequest
from app.protocol.secrets import redact
from app.session import TabState, state_to_dict, strip_secrets
from app.ui.request.push_wiring import push_secrets

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.messages import MessageBridge

log = logging.getLogger(__name__)


def tab_context(tab: RequestTab) -> dict[str, Any]:
    """The tab as the session keeps it (no credential values), for *Open as new request*."""
    base = tab.saved_base
    clean_base = strip_secrets(base)[0] if base is not None else None
    draft, dropped = strip_secrets(tab.to_saved(), clean_base)
    # The push receiver's tokens are in the body the user sends: never in the history.
    draft = dataclasses.replace(draft, body=redact(draft.body, push_secrets()))
    spec_path = tab.spec_path
    state = TabState(
        draft=draft,
        base=clean_base,
        spec_path=str(spec_path) if spec_path is not None else None,
        dirty=tab.dirty,
        dropped=tuple(dict.fromkeys(dropped)),
    )
    return {"tab": state_to_dict(state)}


def _open_store(path: Path | None) -> HistoryStore | str:
    """The opened store, or the message saying why there is none (runs on a thread)."""
    try:
        return HistoryStore.open(path)
    except HistoryUnavailable as exc:
        return f"{exc}; exchanges are not recorded"
    except Exception as exc:  # history must never stop the app
        log.exception("history store cannot be opened")
        return f"History cannot be opened ({exc}); exchanges are not recorded"


class HistoryRecording(QObject):
    """Owns the window's history store and records every watched tab's exchanges.

    Signals:
        opened: the store is open (arg: the HistoryStore).
        recorded: an exchange ended and everything fed for it is stored (no args).
    """

    opened = Signal(object)
    recorded = Signal()

    def __init__(
        self, messages: MessageBridge, path: Path | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._messages = messages
        self._path = path
        self.store: HistoryStore | None = None
        self._closed = False
        self._opening: threading.Thread | None = None
        # Threads never touch a Qt object (the window may be gone when they finish): they
        # leave their results here and a timer of this object's picks them up.
        self._results: collections.deque[tuple[int, object]] = collections.deque()
        self._waiting: dict[int, Callable[[Any], None]] = {}
        self._serial = 0
        self._poll = QTimer(self)
        self._poll.setInterval(25)
        self._poll.timeout.connect(self._take_results)

    def _in_thread(
        self, name: str, work: Callable[[], object], then: Callable[[Any], None]
    ) -> threading.Thread:
        """Run ``work`` on a thread; ``then(its result)`` follows on the GUI thread.

        The thread holds no reference to a Qt object or wrapper (``then`` stays here): a
        wrapper released last on another thread would delete its C++ object there.
        """
        results = self._results
        self._serial += 1
        key = self._serial
        self._waiting[key] = then

        def run() -> None:
            results.append((key, work()))

        self._poll.start()
        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        return thread

    def _take_results(self) -> None:
        while self._results:
            key, result = self._results.popleft()
            self._waiting.pop(key)(result)
        if not self._waiting:
            self._poll.stop()

    def start(self) -> None:
        """Open the store on a thread of its own; :attr:`opened` follows on the GUI thread.

        A plain thread rather than the asyncio loop: the window may be built before the
        loop runs, and opening can wait seconds for a locked file.
        """
        self._opening = self._in_thread(
            "history-open", functools.partial(_open_store, self._path), self._on_open_done
        )

    def _on_open_done(self, result: HistoryStore | str) -> None:
        if isinstance(result, str):
            self._messages.show(result, 15000)
            return
        if self._closed:
            threading.Thread(target=result.close, daemon=True).start()
            return
        self.store = result
        if result.notices:
            self._messages.show(" · ".join(result.notices), 15000)
        self.opened.emit(result)

    def watch(self, tab: RequestTab) -> None:
        """Record the tab's main and side exchanges from now on."""
        controller = tab.controller
        main: list[Recorder | None] = [None]
        side: list[Recorder | None] = [None]

        def begin(slot: list[Recorder | None], request: A2ARequest) -> None:
            slot[0] = self._recorder(tab, request)

        def begin_main(request: A2ARequest, streaming: bool) -> None:
            begin(main, request)
            if streaming:  # the timeline lets the frames go that the entry holds
                tab.timeline.model.back_with(self._frames_of(slot=main))

        def feed(slot: list[Recorder | None], event: object) -> None:
            if slot[0] is not None:
                slot[0].feed(event)  # type: ignore[arg-type]

        def feed_all(slot: list[Recorder | None], events: EventBatch) -> None:
            if slot[0] is not None:
                slot[0].feed_all(events)

        def end(slot: list[Recorder | None]) -> None:
            if slot[0] is not None:
                slot[0] = None
                self._announce()

        controller.started.connect(begin_main)
        controller.events_arrived.connect(lambda events: feed_all(main, events))
        controller.finished.connect(lambda: end(main))
        controller.side_started.connect(lambda request: begin(side, request))
        controller.side_event_arrived.connect(lambda event: feed(side, event))
        controller.side_finished.connect(lambda: end(side))

    def _frames_of(self, slot: list[Recorder | None]) -> ItemReader | None:
        """The stream items of the exchange ``slot`` records, read back from the store."""
        recorder, store = slot[0], self.store
        if recorder is None or store is None:
            return None
        return ItemReader(store.path, lambda: recorder.id)

    def _recorder(self, tab: RequestTab, request: A2ARequest) -> Recorder | None:
        if self.store is None:
            return None
        try:
            context = tab_context(tab)
        except Exception:  # an odd form must not cost the recording
            log.exception("tab context not recorded")
            context = {}
        try:
            return self.store.recorder(
                request,
                secret_headers=request.secret_headers,
                secret_query=request.secret_query,
                source="gui",
                context=context,
            )
        except Exception:
            log.exception("exchange not recorded")
            return None

    def _announce(self) -> None:
        """Emit :attr:`recorded` once the writer has stored what was fed (off the GUI thread)."""
        store = self.store
        if store is None:
            return

        # On a thread: the GUI never waits for the writer.
        self._in_thread(
            "history-flush", functools.partial(store.flush, 10.0), lambda _done: self._on_flushed()
        )

    def _on_flushed(self) -> None:
        if not self._closed:
            self.recorded.emit()

    async def close(self) -> None:
        """Store everything recorded and close the store (at shutdown)."""
        self._closed = True
        if self._opening is not None:
            await asyncio.to_thread(self._opening.join)
            self._take_results()  # the opened store, if it just came
        store, self.store = self.store, None
        if store is not None:
            await asyncio.to_thread(store.close)
