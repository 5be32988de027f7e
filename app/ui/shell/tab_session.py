"""Keeping drafts: the session autosave and restore, and *Reopen closed tab*.

:class:`SessionController` belongs to the main window. It

* restores the tabs of the last session when the window is set up (their drafts, unsaved
  markers and spec files), and hands the spec dock's collections to their keeper (their
  files, environments and collapsed rows; :class:`CollectionKeeper`);
* saves the session (:mod:`app.session`: atomic, 0600, no credential values) a couple of
  seconds after an edit, when tabs open, close or move, and on shutdown — the file work
  runs in a worker thread;
* keeps the last :data:`~app.session.CLOSED_LIMIT` closed tabs for *Reopen closed tab*
  (Ctrl+Shift+T), in memory with everything they held, in the file without secrets.

No dialogs: closing a tab with an unsaved draft just says in the status bar how to get it
back (no modal dialog interrupts closing a tab).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer

from app.paths import session_path
from app.session import CLOSED_LIMIT, CollectionState, Session, TabState
from app.session import load as load_session
from app.session import save as save_session
from app.spec.xa2a import SavedRequest
from app.ui.shell.host import TabHost
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

log = logging.getLogger(__name__)

AUTOSAVE_MS = 2000
"""Save this long after the first edit of a burst (bounded: typing does not postpone it)."""


def _essentials(saved: SavedRequest) -> tuple[object, ...]:
    return (saved.endpoint, saved.method, saved.version, saved.binding, saved.body,
            saved.headers, saved.query, saved.auth, saved.tenant)  # fmt: skip


class CollectionKeeper(Protocol):
    """Who keeps the spec dock's collections (``SpecController``: typed here, not
    imported)."""

    def collection_states(self) -> list[CollectionState]:
        """The open collections, for the session file."""
        ...

    def restore_collections(self, states: list[CollectionState]) -> None:
        """Open the last session's collections."""
        ...


class SessionController(QObject):
    """Session autosave/restore and the closed-tab stack of one main window."""

    def __init__(
        self,
        window: TabHost,
        path: Path | None = None,
        *,
        parent: QObject | None = None,
        collections: CollectionKeeper | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.path = path if path is not None else session_path()
        self.collections = collections
        self.last_collections: list[CollectionState] | None = None
        """The collections the last session kept (None: it kept none, a first start)."""
        self.closed: list[TabState] = []
        # Tabs that still hold exactly what the demo agent put in them: not worth keeping
        # (the next start opens a fresh one pointed at the new demo agent).
        self._disposable: dict[int, SavedRequest] = {}
        self._timer = QTimer(self)
        self._timer.setObjectName("sessionAutosaveTimer")
        self._timer.setSingleShot(True)
        self._timer.setInterval(AUTOSAVE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._saving = OwnedTask()
        self._again = False
        self._restoring = False
        self.last_error = ""
        self.previous_demo: dict[str, str] = {}
        # No session file when restore() ran: the app's first start (the Welcome tab opens).
        self.first_start = False
        tabs = window.tabs
        tabs.tabBar().tabMoved.connect(self.schedule)
        tabs.currentChanged.connect(self.schedule)

    # --- watching tabs -------------------------------------------------------------

    def watch(self, tab: RequestTab) -> None:
        """Save the session when ``tab`` is edited."""
        tab.edited.connect(self.schedule)
        self.schedule()

    def mark_disposable(self, tab: RequestTab) -> None:
        """``tab`` holds only what the app generated (the demo tab): skip it while unchanged."""
        self._disposable[id(tab)] = tab.to_saved()

    def _is_disposable(self, tab: RequestTab, draft: SavedRequest) -> bool:
        generated = self._disposable.get(id(tab))
        # Compared on what the user can change: sending, titles and ids of results don't count.
        return generated is not None and _essentials(generated) == _essentials(draft)

    def remap_demo(self, info: dict[str, object]) -> int:
        """Point restored tabs at the demo agent's new addresses; returns how many moved."""
        moved = 0
        pairs = [
            (self.previous_demo.get(key, ""), str(info.get(key, "")))
            for key in ("base_url", "grpc_target")
        ]
        for tab in self.window.request_tabs():
            endpoint = tab.endpoint_edit.text()
            for old, new in pairs:
                if old and new and old != new and endpoint.startswith(old):
                    tab.endpoint_edit.setText(new + endpoint[len(old) :])
                    moved += 1
                    break
        self.previous_demo = {k: str(info.get(k, "")) for k in ("base_url", "grpc_target")}
        return moved

    def schedule(self, *_args: object) -> None:
        """Save soon (once per burst of edits)."""
        if not self._restoring and not self._timer.isActive():
            self._timer.start()

    # --- closing and reopening -----------------------------------------------------

    def remember_closed(self, tab: RequestTab) -> None:
        """Keep a tab that is being closed, for :meth:`reopen`, and say so."""
        state = self.capture(tab)
        self._disposable.pop(id(tab), None)
        self.closed.append(state)
        del self.closed[:-CLOSED_LIMIT]
        name = state.title
        if state.dirty:
            text = f"Closed '{name}' — unsaved draft kept; Ctrl+Shift+T reopens it"
        else:
            text = f"Closed '{name}' — Ctrl+Shift+T reopens it"
        self.window.messages.show(text, 15000)
        self._update_reopen_action()
        self.schedule()

    def reopen(self) -> RequestTab | None:
        """Reopen the tab closed last, as it was (None when there is none)."""
        if not self.closed:
            return None
        state = self.closed.pop()
        tab = self._open(state)
        self._update_reopen_action()
        self.window.messages.show(f"Reopened '{state.title}'", 5000)
        self.schedule()
        return tab

    def _update_reopen_action(self) -> None:
        action = self.window.reopen_closed_action
        action.setEnabled(bool(self.closed))
        latest = f": {self.closed[-1].title}" if self.closed else ""
        action.setToolTip(f"Reopen the tab closed last{latest}")

    # --- capture and restore -------------------------------------------------------

    def capture(self, tab: RequestTab) -> TabState:
        """The tab's state (with its credentials: they are stripped only when written)."""
        spec_path = tab.draft.spec_path
        return TabState(
            draft=tab.to_saved(),
            base=tab.saved_base,
            spec_path=str(spec_path) if spec_path is not None else None,
            dirty=tab.dirty,
        )

    def snapshot(self) -> Session:
        """The window's tabs now, for the session file."""
        states: list[TabState] = []
        current = 0
        current_tab = self.window.current_tab()
        for tab in self.window.request_tabs():
            state = self.capture(tab)
            if self._is_disposable(tab, state.draft):
                continue
            if tab is current_tab:
                current = len(states)
            states.append(state)
        kept = (
            self.collections.collection_states()
            if self.collections is not None
            else self.last_collections
        )
        return Session(states, current, list(self.closed), dict(self.previous_demo), kept)

    def restore(self) -> int:
        """Open the tabs of the last session, and its collections; returns how many tabs
        were restored."""
        self.first_start = not self.path.exists()
        session, problems = load_session(self.path)
        self.last_collections = session.collections
        if self.collections is not None and session.collections is not None:
            self.collections.restore_collections(session.collections)
        self.closed = list(session.closed)
        self.previous_demo = dict(session.demo)
        self._update_reopen_action()
        self._restoring = True
        opened: list[RequestTab] = []
        dropped: list[str] = []
        try:
            for state in session.tabs:
                try:
                    opened.append(self._open(state))
                except Exception as exc:  # one bad tab must not cost the others
                    log.exception("Cannot restore a tab")
                    problems.append(f"A tab could not be restored: {exc}")
                    continue
                dropped += [f"{state.title} ({d})" for d in state.dropped]
        finally:
            self._restoring = False
        if opened:
            index = min(max(session.current, 0), len(opened) - 1)
            self.window.tabs.setCurrentWidget(opened[index])
        parts = [f"Restored {len(opened)} tab(s) from the last session"] if opened else []
        if dropped:
            parts.append(
                "credentials are not kept in the session file; re-enter: " + ", ".join(dropped)
            )
        parts += problems
        if parts:
            self.window.messages.show(" · ".join(parts), 15000)
        return len(opened)

    def _open(self, state: TabState) -> RequestTab:
        window = self.window
        tab = window.new_a2a_tab()
        tab.restore_draft(state.draft, state.base)
        if state.spec_path:
            tab.draft.spec_path = Path(state.spec_path)
        resolver = window.resolver()
        if resolver is not None:
            tab.variables = resolver
            tab.refresh_card_url()
        return tab

    # --- saving --------------------------------------------------------------------

    def _on_timer_timeout(self) -> None:
        if self._saving.running:
            self._again = True
            return
        self._saving.start(self._save_loop())

    async def _save_loop(self) -> None:
        self._again = True
        while self._again:
            self._again = False
            await self._save_once()

    async def _save_once(self) -> None:
        session = self.snapshot()  # on the GUI thread: reads the widgets
        try:
            await asyncio.to_thread(save_session, self.path, session)
        except OSError as exc:
            self.last_error = f"Could not save the session to {self.path}: {exc}"
            log.warning("%s", self.last_error)
            self.window.messages.show(self.last_error, 15000)
        else:
            self.last_error = ""

    async def flush(self) -> None:
        """Save now and wait for it (window shutdown)."""
        self._timer.stop()
        if self._saving.running:
            self._again = True
            await self._saving.join()
        else:
            await self._save_once()
