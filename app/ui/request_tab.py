"""One request tab: version, binding, endpoint, method, body draft, Send, and the response."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import httpx
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol import exchange
from app.protocol.catalog import TemplateContext, find_method, methods_for
from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion
from app.ui.formatting import body_pretty
from app.ui.response_view import ResponseView
from app.ui.widgets import CodeView

# Formatting more than this on the GUI thread would freeze repainting.
_THREADED_FORMAT_BYTES = 256 * 1024


class RequestTab(QWidget):
    """A request being edited and sent.

    The body editor holds the user's draft; only *Replace request body* overwrites it.

    Signals:
        title_changed: the tab's title changed (arg: new title).
        exchange_finished: an exchange ended (arg: the ExchangeEnd event).
    """

    title_changed = Signal(str)
    exchange_finished = Signal(object)

    def __init__(
        self,
        http_client: Callable[[], httpx.AsyncClient],
        *,
        endpoint: str = "",
        message_text: str = "hello",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._http_client = http_client
        self._task: asyncio.Task[None] | None = None

        self.version_combo = QComboBox()
        self.version_combo.setObjectName("versionCombo")
        self.version_combo.setToolTip("A2A protocol version this tab speaks")
        for version in ProtocolVersion:
            self.version_combo.addItem(version.value, version)
        self.binding_combo = QComboBox()
        self.binding_combo.setObjectName("bindingCombo")
        self.binding_combo.setToolTip("Protocol binding")
        for binding in Binding:
            self.binding_combo.addItem(binding.value, binding)
        self.endpoint_edit = QLineEdit(endpoint)
        self.endpoint_edit.setObjectName("endpointEdit")
        self.endpoint_edit.setPlaceholderText("Interface URL, e.g. http://127.0.0.1:8000/")
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.setToolTip("Send the request (Ctrl+Enter)")
        self.send_button.setShortcut(QKeySequence("Ctrl+Return"))
        self.send_button.setDefault(True)

        self.method_combo = QComboBox()
        self.method_combo.setObjectName("methodCombo")
        self.method_combo.setMinimumContentsLength(24)
        self.message_text_edit = QLineEdit(message_text)
        self.message_text_edit.setObjectName("messageTextEdit")
        self.message_text_edit.setPlaceholderText("Message text for templates")
        self.generate_button = QPushButton("Generate request body")
        self.generate_button.setObjectName("generateBodyButton")
        self.generate_button.setToolTip("Render the method's template into the preview")
        self.replace_button = QPushButton("Replace request body")
        self.replace_button.setObjectName("replaceBodyButton")
        self.replace_button.setToolTip("Overwrite the draft with the preview")
        self.replace_button.setEnabled(False)

        self.body_editor = CodeView("bodyEditor", read_only=False)
        self.body_editor.setPlaceholderText("JSON-RPC request envelope")
        self.preview = CodeView("bodyPreview", read_only=True)
        self.preview.setPlaceholderText(
            "Press “Generate request body” to preview the method's template here"
        )
        self.response_view = ResponseView()

        row1 = QHBoxLayout()
        row1.addWidget(self.version_combo)
        row1.addWidget(self.binding_combo)
        row1.addWidget(self.endpoint_edit, 1)
        row1.addWidget(self.send_button)
        row2 = QHBoxLayout()
        row2.addWidget(QLabel("Method"))
        row2.addWidget(self.method_combo)
        row2.addWidget(QLabel("Text"))
        row2.addWidget(self.message_text_edit, 1)
        row2.addWidget(self.generate_button)
        row2.addWidget(self.replace_button)

        body_page = QSplitter(Qt.Orientation.Vertical)
        body_page.addWidget(_titled("Request body (draft)", self.body_editor))
        body_page.addWidget(_titled("Template preview", self.preview))
        body_page.setSizes([400, 200])
        # Feature pages (headers, auth, …) are added to these two tab widgets by their own
        # modules, so each feature stays one file.
        self.editor_tabs = QTabWidget()
        self.editor_tabs.setObjectName("requestEditorTabs")
        self.editor_tabs.addTab(body_page, "Body")
        self.result_tabs = QTabWidget()
        self.result_tabs.setObjectName("resultTabs")
        self.result_tabs.addTab(self.response_view, "Response")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("requestSplitter")
        split.addWidget(self.editor_tabs)
        split.addWidget(self.result_tabs)
        split.setSizes([500, 600])

        layout = QVBoxLayout(self)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addWidget(split, 1)

        self.version_combo.currentIndexChanged.connect(self._fill_methods)
        self.send_button.clicked.connect(self.send_or_cancel)
        self.generate_button.clicked.connect(self.generate_preview)
        self.replace_button.clicked.connect(self.replace_body)
        self.method_combo.currentIndexChanged.connect(self._on_method_changed)
        self._fill_methods()
        self.generate_preview()
        self.replace_body()

    # --- state read by the window and tests -------------------------------------------

    @property
    def version(self) -> ProtocolVersion:
        """The selected protocol version."""
        return ProtocolVersion(self.version_combo.currentData())

    @property
    def binding(self) -> Binding:
        """The selected binding."""
        return Binding(self.binding_combo.currentData())

    @property
    def method(self) -> str:
        """The selected method name."""
        return str(self.method_combo.currentData() or self.method_combo.currentText())

    @property
    def busy(self) -> bool:
        """True while an exchange is running."""
        return self._task is not None and not self._task.done()

    def title(self) -> str:
        """A short tab title: the method name."""
        return self.method

    def build_request(self) -> A2ARequest:
        """The request the widgets describe (plain data for the protocol layer)."""
        return A2ARequest(
            endpoint=self.endpoint_edit.text().strip(),
            method=self.method,
            body=self.body_editor.toPlainText(),
            version=self.version,
            binding=self.binding,
        )

    # --- actions --------------------------------------------------------------------

    def _fill_methods(self) -> None:
        previous = self.method_combo.currentText()
        self.method_combo.blockSignals(True)
        self.method_combo.clear()
        for spec in methods_for(self.version):
            label = f"{spec.name} (legacy)" if spec.legacy else spec.name
            self.method_combo.addItem(label, spec.name)
            self.method_combo.setItemData(
                self.method_combo.count() - 1, spec.summary, Qt.ItemDataRole.ToolTipRole
            )
        index = self.method_combo.findData(previous)
        self.method_combo.setCurrentIndex(max(index, 0))
        self.method_combo.blockSignals(False)
        self._on_method_changed()

    def _on_method_changed(self) -> None:
        # Changing the method never touches the draft; the preview is now stale.
        self.replace_button.setEnabled(False)
        self.preview.set_text("")
        self.title_changed.emit(self.title())

    def generate_preview(self) -> None:
        """Render the selected method's template into the read-only preview."""
        spec = find_method(self.version, self.method)
        if spec is None:
            return
        ctx = TemplateContext(text=self.message_text_edit.text())
        self.preview.set_text(render_body(spec, self.binding, ctx))
        self.replace_button.setEnabled(True)

    def replace_body(self) -> None:
        """Overwrite the draft with the preview: the only action that does."""
        text = self.preview.toPlainText()
        if text:
            self.body_editor.setPlainText(text)
            self.preview.set_text("")
            self.replace_button.setEnabled(False)

    def send_or_cancel(self) -> None:
        """Send the request, or cancel the running one."""
        if self.busy:
            self.cancel()
            return
        request = self.build_request()
        self.response_view.clear()
        self._set_busy(True)
        self._task = asyncio.get_event_loop().create_task(self._run(request))

    def cancel(self) -> None:
        """Stop the running exchange (locally: the connection is closed)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def shutdown(self) -> None:
        """Cancel and await the running exchange (before the tab or the app closes)."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, request: A2ARequest) -> None:
        view = self.response_view
        try:
            async for event in exchange.run(request, http=self._http_client()):
                if isinstance(event, RequestSent):
                    view.show_request(event)
                elif isinstance(event, ResponseHead):
                    view.show_head(event)
                elif isinstance(event, ResponseBody):
                    if len(event.body) > _THREADED_FORMAT_BYTES:
                        view.status_label.setText(view.status_label.text() + " · formatting…")
                        pretty = await asyncio.to_thread(body_pretty, event.json, event.body)
                    else:
                        pretty = body_pretty(event.json, event.body)
                    view.show_body(event, pretty)
                elif isinstance(event, ExchangeError):
                    view.show_error(event)
                elif isinstance(event, ExchangeEnd):
                    view.show_end(event)
                    self.exchange_finished.emit(event)
        finally:
            self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        self.send_button.setText("Cancel" if busy else "Send")
        self.send_button.setToolTip(
            "Stop waiting and close the connection" if busy else "Send the request (Ctrl+Enter)"
        )
        if not busy:
            self.send_button.setShortcut(QKeySequence("Ctrl+Return"))


def _titled(title: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    label = QLabel(f"<b>{title}</b>")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return box
