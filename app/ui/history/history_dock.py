"""The History dock: every recorded exchange, filtered, opened, compared, deleted, exported.

The table (``historyView``) is a :class:`~app.ui.history.history_model.HistoryModel`; typing in
``historyFilterEdit`` or choosing an outcome or method filters it at once (each filter is
one indexed page query). Loading an entry's events, comparing and exporting run off the
GUI thread; the export's file dialog is the only blocking step.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.history.store import HistoryFilter, HistoryStore
from app.protocol.events import Outcome
from app.session import state_from_dict
from app.ui.history.fixture_dialog import ExportFixtureDialog
from app.ui.history.history_fixture import ask_and_export
from app.ui.history.history_model import COL_ENDPOINT, HistoryModel
from app.ui.history.history_viewer import (
    CompareDialog,
    HistoryViewer,
    big_bodies,
    compare_text,
    load_entry,
)
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.host import TabHost

log = logging.getLogger(__name__)

_ANY = "Any"
HAR_FILTER = "HAR 1.2 (*.har)"
JSONL_FILTER = "JSON Lines (*.jsonl)"


def _button(text: str, name: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button


class HistoryPanel(QWidget):
    """Filter bar, the entries table, actions, and the read-only viewer of one entry."""

    def __init__(self, host: TabHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyPanel")
        self._host = host
        self.model = HistoryModel(self)
        self._loading = OwnedTask()
        self._working = OwnedTask()
        self.compare_dialog: CompareDialog | None = None

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("historyFilterEdit")
        self.filter_edit.setPlaceholderText("Filter: endpoint, URL, method, error…")
        self.filter_edit.setClearButtonEnabled(True)
        self.outcome_combo = QComboBox()
        self.outcome_combo.setObjectName("historyOutcomeCombo")
        self.outcome_combo.setToolTip("Only entries with this outcome")
        self.outcome_combo.addItems([_ANY, *(o.value for o in Outcome), "incomplete"])
        self.method_combo = QComboBox()
        self.method_combo.setObjectName("historyMethodCombo")
        self.method_combo.setToolTip("Only entries of this A2A method")
        self.method_combo.addItem(_ANY)
        self.count_label = QLabel("")
        self.count_label.setObjectName("historyCountLabel")
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(QLabel("Outcome"))
        bar.addWidget(self.outcome_combo)
        bar.addWidget(QLabel("Method"))
        bar.addWidget(self.method_combo)
        bar.addWidget(self.count_label)

        self.view = QTableView()
        self.view.setObjectName("historyView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(22)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        for column, width in enumerate((135, 185, 85, 55, 260, 90, 50, 75, 120)):
            self.view.setColumnWidth(column, width)
        header.setSectionResizeMode(COL_ENDPOINT, QHeaderView.ResizeMode.Stretch)

        self.open_button = _button("Open", "historyOpenButton", "Show the entry below (Enter)")
        self.open_request_button = _button(
            "Open as new request", "historyOpenRequestButton",
            "A new request tab as the one that sent this entry",
        )  # fmt: skip
        self.compare_button = _button(
            "Compare", "historyCompareButton", "Diff the bodies and stream items of two entries"
        )
        self.delete_button = _button("Delete", "historyDeleteButton", "Delete the selected entries")
        self.clear_button = _button("Delete all…", "historyClearButton", "Delete every entry")
        self.export_button = _button(
            "Export…", "historyExportButton", "The selection (or all) as HAR 1.2 or JSON Lines"
        )
        self.export_fixture_action = QAction("Export as fixture…", self)
        self.export_fixture_action.setObjectName("exportFixtureAction")
        self.export_fixture_action.setIconText("Export as fixture…")  # Qt drops the "…" otherwise
        self.export_fixture_action.setToolTip(
            "The selected entries (or their whole task) as a fixture for a2a-workbench replay"
        )
        self.fixture_dialog: ExportFixtureDialog | None = None
        fixture_button = QToolButton()
        fixture_button.setObjectName("historyExportFixtureButton")
        fixture_button.setDefaultAction(self.export_fixture_action)
        self.view.addAction(self.export_fixture_action)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        actions = QHBoxLayout()
        for button in (self.open_button, self.open_request_button, self.compare_button,
                       self.delete_button, self.clear_button, self.export_button,
                       fixture_button):  # fmt: skip
            actions.addWidget(button)
        actions.addStretch(1)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.view, 1)
        top_layout.addLayout(actions)
        self.viewer = HistoryViewer()
        self.viewer.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.viewer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

        self.filter_edit.textChanged.connect(self._apply_filter)
        self.outcome_combo.currentTextChanged.connect(self._apply_filter)
        self.method_combo.currentTextChanged.connect(self._apply_filter)
        self.view.activated.connect(lambda _index: self.open_selected())
        self.view.selectionModel().selectionChanged.connect(self._update_buttons)
        self.model.modelReset.connect(self._on_reset)
        self.model.rowsInserted.connect(self._update_count)
        self.open_button.clicked.connect(self.open_selected)
        self.open_request_button.clicked.connect(self.open_as_request)
        self.compare_button.clicked.connect(self.compare_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.clear_button.clicked.connect(self.delete_all)
        self.export_button.clicked.connect(self.export)
        self.export_fixture_action.triggered.connect(self.export_fixture)
        self._on_reset()

    # --- store and filter ---

    def set_store(self, store: HistoryStore | None) -> None:
        self.model.set_store(store)

    def refresh(self) -> None:
        """Read the entries again (an exchange was recorded), keeping the selection's ids."""
        kept = set(self.selected_ids())
        self.model.reload()
        if kept:
            selection = self.view.selectionModel()
            for row in range(self.model.rowCount()):
                entry = self.model.entry(row)
                if entry is not None and entry.id in kept:
                    selection.select(
                        self.model.index(row, 0),
                        selection.SelectionFlag.Select | selection.SelectionFlag.Rows,
                    )

    def _apply_filter(self, *_args: object) -> None:
        outcome = self.outcome_combo.currentText()
        method = self.method_combo.currentText()
        self.model.set_filter(
            HistoryFilter(
                text=self.filter_edit.text().strip(),
                method="" if method == _ANY else method,
                outcome="" if outcome == _ANY else outcome,
            )
        )

    def _on_reset(self) -> None:
        store = self.model.store
        if store is not None:  # new methods may have been recorded
            methods = store.distinct("rpc_method")
            current = self.method_combo.currentText()
            if [self.method_combo.itemText(i) for i in range(1, self.method_combo.count())] != (
                methods
            ):
                self.method_combo.blockSignals(True)
                self.method_combo.clear()
                self.method_combo.addItems([_ANY, *methods])
                self.method_combo.setCurrentText(current if current in methods else _ANY)
                self.method_combo.blockSignals(False)
        self._update_count()
        self._update_buttons()

    def _update_count(self, *_args: object) -> None:
        if self.model.store is None:
            self.count_label.setText("History off")
            return
        total = self.model.total
        self.count_label.setText(f"{total:,} {'entry' if total == 1 else 'entries'}")

    def _update_buttons(self, *_args: object) -> None:
        selected = len(self.selected_ids())
        has_store = self.model.store is not None
        self.open_button.setEnabled(selected == 1)
        self.open_request_button.setEnabled(selected == 1)
        self.compare_button.setEnabled(selected == 2)
        self.delete_button.setEnabled(selected > 0)
        self.export_fixture_action.setEnabled(selected > 0)
        self.clear_button.setEnabled(has_store and self.model.total > 0)
        self.export_button.setEnabled(has_store and self.model.total > 0)

    def selected_ids(self) -> list[int]:
        """The selected entries' ids, in table order (newest first)."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [e.id for r in rows if (e := self.model.entry(r)) is not None]

    # --- actions ---

    def open_selected(self) -> None:
        """Show the selected entry read-only in the viewer below the table."""
        ids = self.selected_ids()
        store = self.model.store
        if len(ids) != 1 or store is None:
            return
        entry = store.entry(ids[0])
        if entry is None:
            return

        async def load() -> None:
            events = await asyncio.to_thread(store.events, entry.id)
            big = await asyncio.to_thread(big_bodies, events)
            self.viewer.show()
            self.viewer.show_exchange(entry, events, big)

        self._loading.start(load())

    def open_entry(self, entry_id: int) -> None:
        """Show entry ``entry_id`` in the viewer, whatever the filter shows (a check
        report's exchange link); what was recorded last is stored first."""
        store = self.model.store
        if store is None:
            self._host.messages.show("History is not available: nothing was recorded", 8000)
            return

        async def load() -> None:
            loaded = await load_entry(store, entry_id)
            if loaded is None:
                self._host.messages.show(f"History has no entry #{entry_id}", 8000)
                return
            self.viewer.show()
            self.viewer.show_exchange(*loaded)

        self._loading.start(load())

    def open_as_request(self) -> RequestTab | None:
        """A new request tab restored from the selected entry's saved form."""
        ids = self.selected_ids()
        store = self.model.store
        entry = store.entry(ids[0]) if store is not None and len(ids) == 1 else None
        if entry is None:
            return None
        try:
            state = state_from_dict(json.loads(entry.context)["tab"])
        except Exception as exc:
            self._host.messages.show(f"Entry #{entry.id} has no request to restore ({exc})", 8000)
            return None
        tab = self._host.new_a2a_tab()
        tab.restore_draft(state.draft, state.base)
        if state.spec_path:
            tab.draft.spec_path = Path(state.spec_path)
        resolver = self._host.resolver()
        if resolver is not None:
            tab.variables = resolver
        if state.dropped:
            self._host.messages.show(
                "Credentials are not kept in the history; re-enter: " + ", ".join(state.dropped),
                10000,
            )
        return tab

    def compare_selected(self) -> None:
        """Diff the two selected entries (older → newer) in the Compare window."""
        ids = self.selected_ids()
        store = self.model.store
        if len(ids) != 2 or store is None:
            return
        newer, older = ids

        def build() -> str:
            pairs = []
            for exchange_id in (older, newer):
                entry = store.entry(exchange_id)
                if entry is None:
                    raise LookupError(f"entry #{exchange_id} was deleted")
                pairs.append((entry, store.events(exchange_id)))
            return compare_text(pairs[0], pairs[1])

        async def run() -> None:
            try:
                text = await asyncio.to_thread(build)
            except LookupError as exc:
                self._host.messages.show(str(exc), 8000)
                return
            if self.compare_dialog is not None:
                self.compare_dialog.close()
                self.compare_dialog.deleteLater()
            self.compare_dialog = CompareDialog(text, self)
            self.compare_dialog.show()

        self._working.start(run())

    def delete_selected(self) -> None:
        store = self.model.store
        ids = self.selected_ids()
        if store is None or not ids:
            return
        store.delete(ids)
        if self.viewer.entry_id in ids:
            self.viewer.hide()
        self.model.reload()
        self._host.messages.show(f"Deleted {len(ids)} history entries", 5000)

    def delete_all(self) -> None:
        store = self.model.store
        if store is None:
            return
        answer = QMessageBox.question(
            self,
            "Delete all history",
            f"Delete all {store.count():,} recorded exchanges? This cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        deleted = store.clear()
        self.viewer.hide()
        self.model.reload()
        self._host.messages.show(f"Deleted {deleted} history entries", 5000)

    def export(self) -> None:
        """Export the selection (or everything) as HAR 1.2 or JSON Lines."""
        store = self.model.store
        if store is None:
            return
        ids = self.selected_ids()
        what = f"{len(ids)} selected entries" if ids else "all entries"
        path, chosen = QFileDialog.getSaveFileName(
            self, f"Export {what}", "history.har", f"{HAR_FILTER};;{JSONL_FILTER}"
        )
        if not path:
            return
        fmt = "jsonl" if path.endswith(".jsonl") or chosen == JSONL_FILTER else "har"

        async def run() -> None:
            try:
                written = await asyncio.to_thread(_export, store, ids[::-1], fmt, Path(path))
            except OSError as exc:
                self._host.messages.show(f"Export failed: {exc}", 10000)
                return
            self._host.messages.show(f"Exported {written} entries to {path}", 8000)

        self._working.start(run())

    def export_fixture(self) -> None:
        """*Export as fixture…*: the selected entries, through :class:`ExportFixtureDialog`."""
        store, ids = self.model.store, self.selected_ids()
        if store is None or not ids:
            return
        self.fixture_dialog = ask_and_export(self, store, ids, self._host.messages, self._working)

    async def shutdown(self) -> None:
        await self._loading.shutdown()
        await self._working.join()  # an export in progress finishes writing
        if self.compare_dialog is not None:
            with contextlib.suppress(RuntimeError):
                self.compare_dialog.close()


def _export(store: HistoryStore, ids: list[int], fmt: str, path: Path) -> int:
    """Write ``ids`` (all when empty, oldest first) to ``path``; how many were written."""
    from app.history.har_export import har_log
    from app.history.jsonl_export import write_jsonl

    ids = ids or store.ids()
    with path.open("w", encoding="utf-8") as out:
        if fmt == "jsonl":
            write_jsonl(store, ids, out)
            return len(ids)
        document = har_log((e, store.events(e.id)) for i in ids if (e := store.entry(i)))
        json.dump(document, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return len(document["log"]["entries"])


class HistoryDock(QDockWidget):
    """The dock holding the :class:`HistoryPanel` (View → History)."""

    def __init__(self, host: TabHost, parent: QWidget | None = None) -> None:
        super().__init__("History", parent)
        self.setObjectName("historyDock")
        self.panel = HistoryPanel(host, self)
        self.setWidget(self.panel)
        self.toggleViewAction().setObjectName("historyDockAction")
