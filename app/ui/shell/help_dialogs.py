"""Help → About (the versions a bug report needs) and Help → Keyboard shortcuts (a table
made from the menu actions, so it never goes stale)."""

from __future__ import annotations

import html
import platform
from importlib import metadata

from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import __version__
from app.ui.shell.menus import menu_actions, plain


def versions() -> list[tuple[str, str]]:
    """(component, version) pairs: the app, Python, Qt, PySide6, the A2A SDK and its
    protocol descriptors (proto file and package per supported protocol version)."""
    import PySide6

    from app.protocol.types import ProtocolVersion

    def dist(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    rows = [
        ("A2A Workbench", __version__),
        ("Python", platform.python_version()),
        ("Qt (runtime)", qVersion()),
        ("PySide6", PySide6.__version__),
        ("a2a-sdk", dist("a2a-sdk")),
        ("protobuf", dist("protobuf")),
        ("grpcio", dist("grpcio")),
        ("A2A protocol versions", ", ".join(v.value for v in ProtocolVersion)),
    ]
    rows.extend(_descriptors())
    return rows


def _descriptors() -> list[tuple[str, str]]:
    # The descriptors the app encodes and decodes with (1.0 and the 0.3 compat set).
    found: list[tuple[str, str]] = []
    try:
        from a2a.types import a2a_pb2

        d = a2a_pb2.DESCRIPTOR
        found.append(("A2A 1.0 descriptors", f"{d.name} (package {d.package})"))
    except ImportError:
        found.append(("A2A 1.0 descriptors", "not available"))
    try:
        from a2a.compat.v0_3 import a2a_v0_3_pb2

        d = a2a_v0_3_pb2.DESCRIPTOR
        found.append(("A2A 0.3 descriptors", f"{d.name} (package {d.package})"))
    except ImportError:
        found.append(("A2A 0.3 descriptors", "not available"))
    return found


class AboutDialog(QDialog):
    """The app's name and the versions of what it is built on, with *Copy* for bug reports."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About A2A Workbench")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.rows = versions()
        cells = "".join(
            f"<tr><td>{html.escape(k)}</td><td>&nbsp;&nbsp;<b>{html.escape(v)}</b></td></tr>"
            for k, v in self.rows
        )
        self.text_label = QLabel(
            "<h3>A2A Workbench</h3>"
            "<p>A desktop request debugger for the A2A (Agent2Agent) protocol.</p>"
            f"<table>{cells}</table>"
        )
        self.text_label.setObjectName("aboutText")
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy versions")
        self.copy_button.setObjectName("copyVersionsButton")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_versions)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text_label)
        layout.addWidget(buttons)

    def as_text(self) -> str:
        """The versions as plain lines (``name: version``)."""
        return "\n".join(f"{k}: {v}" for k, v in self.rows)

    def copy_versions(self) -> None:
        """Put :meth:`as_text` on the clipboard."""
        QGuiApplication.clipboard().setText(self.as_text())


class ShortcutsDialog(QDialog):
    """Every menu action that has a shortcut: action, menu, keys (in menu order)."""

    def __init__(self, menu_bar: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        rows: list[tuple[str, str, str]] = []
        for path, action in menu_actions(menu_bar):
            if keys := shortcut_text(action.shortcuts()):
                # A submenu's entry is named with it: "New request › New A2A request" in File.
                top, _, sub = path.partition(" › ")
                name = f"{sub} › {plain(action.text())}" if sub else plain(action.text())
                rows.append((name, top, keys))
        self.table = QTableWidget(len(rows), 3)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Action", "Menu", "Shortcut"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setAlternatingRowColors(True)
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def rows(self) -> list[tuple[str, str, str]]:
        """The table's rows as text."""
        return [
            tuple(  # type: ignore[misc]
                (item.text() if (item := self.table.item(r, c)) else "") for c in range(3)
            )
            for r in range(self.table.rowCount())
        ]


def shortcut_text(keys: list[QKeySequence]) -> str:
    """Key sequences as the platform writes them, ``, ``-separated."""
    return ", ".join(
        k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys if not k.isEmpty()
    )
