"""*Request → Show in the other version*: the tab's request (and answer) in 0.3 and 1.0.

``explainerView`` is read-only: two highlighted JSON views (:class:`app.ui.shell.widgets.CodeView`)
side by side, the annotated differences (docs/PROTOCOL.md sections) in a table, and for a
recorded answer the same again on a second page. Nothing converts silently: *Open as a new
request in 1.0 / 0.3* (``explainerOpenV10Button`` / ``explainerOpenV03Button``) is the one
action, and it opens a new tab, leaving this one as it was.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol.methods.convert import ConversionError, convert_request
from app.protocol.methods.explain import Difference, Explanation, explain_request, explain_response
from app.protocol.types import ProtocolVersion
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.table_model import Column, TableModel
from app.ui.shell.widgets import CodeView

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.host import TabHost


class DifferencesModel(TableModel[Difference]):
    """One row per :class:`~app.protocol.methods.explain.Difference`."""

    COLUMNS = (
        Column("Aspect", lambda d: d.aspect),
        Column("Where", lambda d: d.where),
        Column("0.3", lambda d: d.v03),
        Column("1.0", lambda d: d.v10),
        Column("Spec (docs/PROTOCOL.md)", lambda d: d.section),
    )

    def __init__(self, differences: list[Difference], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.set_rows(differences)


def _json_view(name: str, text: str) -> CodeView:
    view = CodeView(name, read_only=True)  # the app's JSON view: highlighted, monospace
    view.set_text(text)
    return view


def _page(explanation: Explanation, prefix: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    split = QSplitter(Qt.Orientation.Horizontal)
    for side, tag in ((explanation.v03, "03"), (explanation.v10, "10")):
        box = QWidget()
        inner = QVBoxLayout(box)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(PlainLabel(f"A2A {side.version.value} · {side.method} · "
                                   f"{explanation.binding.value}"))  # fmt: skip
        inner.addWidget(_json_view(f"{prefix}{tag}Text", side.text), 1)
        split.addWidget(box)
    table = QTableView()
    table.setObjectName(f"{prefix}Differences")
    table.setModel(DifferencesModel(explanation.differences, table))
    table.verticalHeader().hide()
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    for column, width in enumerate((130, 190, 230, 230)):
        header.resizeSection(column, width)
    layout.addWidget(split, 3)
    layout.addWidget(QLabel(f"{len(explanation.differences)} difference(s):"))
    layout.addWidget(table, 2)
    for note in explanation.notes:
        layout.addWidget(PlainLabel(f"Note: {note}"))  # notes quote the answer
    return page


class ExplainerView(QDialog):
    """The side-by-side view of one tab (``explainerView``), over the tab's window; *Open as
    a new request* opens a tab in ``host``."""

    def __init__(self, host: TabHost, tab: RequestTab) -> None:
        super().__init__(tab.window())
        self.setObjectName("explainerView")
        self.setWindowTitle(f"{tab.title()} in 0.3 and 1.0")
        self.resize(1100, 720)
        self.host = host
        self.tab = tab
        form = tab.form()
        self.form = form
        layout = QVBoxLayout(self)
        self.pages = QTabWidget()
        self.pages.setObjectName("explainerPages")
        self.error_label = PlainLabel()
        self.error_label.setObjectName("explainerErrorLabel")
        self.error_label.setWordWrap(True)
        self.request: Explanation | None = None
        self.response: Explanation | None = None
        try:
            self.request = explain_request(form.version, form.binding, form.method, form.body)
        except ConversionError as exc:
            self.error_label.setText(f"Cannot show this request in the other version: {exc}")
        if self.request is not None:
            self.pages.addTab(_page(self.request, "explainerRequest"), "Request")
        body = tab.response_view.recorded_body()
        if body is not None:
            text = body.decode("utf-8", "replace")
            self.response = explain_response(form.version, form.binding, form.method, text)
        if self.response is not None:
            self.pages.addTab(_page(self.response, "explainerResponse"), "Recorded answer")
        layout.addWidget(QLabel(
            "Read-only: the tab is not changed. Each difference names its section of "
            "docs/PROTOCOL.md."
        ))  # fmt: skip
        layout.addWidget(self.error_label)
        self.error_label.setVisible(bool(self.error_label.text()))
        layout.addWidget(self.pages, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.open_buttons: dict[ProtocolVersion, QPushButton] = {}
        for version in (ProtocolVersion.V1_0, ProtocolVersion.V0_3):
            button = QPushButton(f"Open as a new request in {version.value}")
            button.setObjectName(f"explainerOpen{version.name.replace('_', '')}Button")
            mine = version is form.version
            button.setEnabled(self.request is not None and not mine)
            if mine:
                button.setToolTip(f"This tab already is {version.value}")
            button.clicked.connect(lambda _c=False: self.open_converted())
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
            self.open_buttons[version] = button
        layout.addWidget(buttons)

    def open_converted(self) -> RequestTab | None:
        """Open the request in the other version as a new tab (this tab is untouched)."""
        form = self.form
        try:
            converted = convert_request(form.version, form.binding, form.method, form.body)
        except ConversionError as exc:
            self.error_label.setText(str(exc))
            self.error_label.show()
            return None
        saved = self.tab.to_saved()
        new_saved = dataclasses.replace(
            saved, version=converted.version, method=converted.method, body=converted.body,
            operation_id="", tenant="", name=f"{saved.name or form.method} ({converted.version})",
        )  # fmt: skip
        new = self.host.new_a2a_tab()
        new.load_saved(new_saved)
        new.variables = self.tab.variables
        new.refresh_card_url()
        note = f"Opened as A2A {converted.version.value} {converted.method} in a new tab"
        self.host.messages.show(" · ".join([note, *converted.notes]), 10000)
        self.accept()
        return new


def open_explainer(host: TabHost, tab: RequestTab) -> ExplainerView:
    """Show the explainer for ``tab`` (non-modal)."""
    view = ExplainerView(host, tab)
    view.open()
    return view
