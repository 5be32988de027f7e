"""The request tab's form: its widgets, their layout, and reading or filling them as data.

:class:`RequestForm` has no behaviour of its own; :class:`app.ui.request.request_tab.RequestTab`
adds the actions (generate, send, save) on top of it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol.bindings import picker_label
from app.protocol.request import DEFAULT_TIMEOUT_S
from app.protocol.types import Binding, ProtocolVersion
from app.spec.draft import Form, first_text
from app.spec.xa2a import MAX_TIMEOUT_S, SavedRequest
from app.ui.request.assertions_panel import AssertionsPanel
from app.ui.request.auth_panel import AuthPanel
from app.ui.request.body_editor import BodyEditor, BodyEditorStack
from app.ui.request.extensions_panel import ExtensionsPanel
from app.ui.request.headers_panel import HeadersPanel
from app.ui.request.shape_banner import ShapeBanner
from app.ui.request.template_pane import TemplatePane
from app.ui.request.tls_panel import TlsPanel
from app.ui.response.response_view import ResponseView
from app.ui.shell import spacing
from app.ui.shell.widgets import CodeView, titled
from app.ui.timeline.timeline_panel import TimelinePanel


def whole_tabs(tabs: QTabWidget) -> None:
    """Every tab title of ``tabs`` shows whole: the pane is never narrower than its tab bar
    (no titles behind scroll arrows, none elided)."""
    bar = tabs.tabBar()
    bar.setUsesScrollButtons(False)
    bar.setElideMode(Qt.TextElideMode.ElideNone)


class RequestForm(QWidget):
    """Version, binding, endpoint, method, body draft and the request pages, with the
    result pages (response, timeline) beside them."""

    def __init__(
        self, *, endpoint: str = "", message_text: str = "hello", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.version_combo = QComboBox()
        self.version_combo.setObjectName("versionCombo")
        self.version_combo.setToolTip("A2A protocol version this tab speaks")
        for version in ProtocolVersion:
            self.version_combo.addItem(version.value, version)
        self.binding_combo = QComboBox()
        self.binding_combo.setObjectName("bindingCombo")
        self.binding_combo.setToolTip("Protocol binding")
        for binding in Binding:
            self.binding_combo.addItem(picker_label(binding), binding)
        # A stdio agent is started from a command line, not reached at the endpoint.
        self.command_edit = QLineEdit()
        self.command_edit.setObjectName("agentCommandEdit")
        self.command_edit.setPlaceholderText("agent command line, e.g. my-agent --stdio")
        self.command_edit.setToolTip(
            "The command line that starts the stdio agent: the app runs it (no shell), keeps"
            " it for the next requests, shows its stderr and stops it"
        )
        self.endpoint_edit = QLineEdit(endpoint)
        self.endpoint_edit.setObjectName("endpointEdit")
        self.endpoint_edit.setPlaceholderText("Interface URL, e.g. http://127.0.0.1:8000/")
        self.tenant_edit = QLineEdit()
        self.tenant_edit.setObjectName("tenantEdit")
        self.tenant_edit.setPlaceholderText("tenant")
        self.tenant_edit.setToolTip("The interface's tenant (1.0); set by “Use this interface”")
        self.tenant_edit.setMaximumWidth(140)
        # A bound on the whole exchange, streams included (A2ARequest.deadline); 0 = none.
        self.deadline_spin = QDoubleSpinBox()
        self.deadline_spin.setObjectName("deadlineSpin")
        self.deadline_spin.setRange(0.0, 86400.0)
        self.deadline_spin.setDecimals(1)
        self.deadline_spin.setPrefix("deadline ")
        self.deadline_spin.setSuffix(" s")
        self.deadline_spin.setSpecialValueText("no deadline")
        self.deadline_spin.setToolTip(
            "Deadline for the whole exchange, streams included (DEADLINE_EXCEEDED past it)"
        )
        # The network timeout (A2ARequest.timeout): waiting for the answer, or for a stream
        # to start. A saved request's ``timeout`` sets it; otherwise the default does.
        self._default_timeout = DEFAULT_TIMEOUT_S
        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setObjectName("timeoutSpin")
        self.timeout_spin.setRange(0.1, MAX_TIMEOUT_S)
        self.timeout_spin.setDecimals(1)
        self.timeout_spin.setPrefix("timeout ")
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setValue(DEFAULT_TIMEOUT_S)
        self.timeout_spin.setToolTip(
            "Network timeout: how long to wait for the answer (unary) or for the stream to"
            " start; the deadline bounds the whole exchange"
        )
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
        self.generate_button.setToolTip(
            "Generate the method's template again with a fresh messageId and JSON-RPC id"
            " (an untouched draft follows it)"
        )
        self.replace_button = QPushButton("Replace request body")
        self.replace_button.setObjectName("replaceBodyButton")
        self.replace_button.setEnabled(False)

        self.body_editor = BodyEditor()
        self.body_stack = BodyEditorStack(self.body_editor)
        self.body_editor.setPlaceholderText("JSON-RPC request envelope")
        self.preview = CodeView("bodyPreview", read_only=True, wrap=True)
        self.template_pane = TemplatePane(self.preview, self.replace_button)
        self.response_view = ResponseView()
        # Auth, headers, extensions and the shape check.
        self.headers_panel = HeadersPanel()
        self.auth_panel = AuthPanel()
        self.extensions_panel = ExtensionsPanel()
        self.shape_banner = ShapeBanner()

        row1 = QHBoxLayout()
        spacing.flush(row1)
        row1.addWidget(self.version_combo)
        row1.addWidget(self.binding_combo)
        row1.addWidget(self.endpoint_edit, 1)
        row1.addWidget(self.command_edit, 1)
        row1.addWidget(self.tenant_edit)
        row1.addWidget(self.timeout_spin)
        row1.addWidget(self.deadline_spin)
        row1.addWidget(self.send_button)
        self.endpoint_row = row1  # app/ui/request/agent_wiring.py adds the agent's controls
        row2 = QHBoxLayout()
        spacing.flush(row2)
        row2.addWidget(QLabel("Method"))
        row2.addWidget(self.method_combo)
        row2.addWidget(QLabel("Text"))
        row2.addWidget(self.message_text_edit, 1)
        row2.addWidget(self.generate_button)
        self.text_row = row2  # app/ui/request/body_flow.py adds the template id fields here

        body_page = QSplitter(Qt.Orientation.Vertical)
        draft_box = titled("Request body (draft)", self.body_stack)
        draft_layout = draft_box.layout()
        assert isinstance(draft_layout, QVBoxLayout)
        draft_layout.insertWidget(1, self.shape_banner)
        self._draft_title = draft_box.findChild(QLabel)
        body_page.addWidget(draft_box)
        body_page.addWidget(self.template_pane)
        body_page.setSizes([400, 200])
        # Feature pages (headers, auth, …) are added to these two tab widgets by their own
        # modules, so each feature stays one file.
        self.editor_tabs = QTabWidget()
        self.editor_tabs.setObjectName("requestEditorTabs")
        self.editor_tabs.addTab(body_page, "Body")
        self.editor_tabs.addTab(self.headers_panel, "Headers")
        self.editor_tabs.addTab(self.auth_panel, "Auth")
        self.tls_panel = TlsPanel()
        self.editor_tabs.addTab(self.tls_panel, "TLS")
        self.tls_panel.mark_tab(self.editor_tabs)
        self.editor_tabs.addTab(self.extensions_panel, "Extensions")
        self.assertions_panel = AssertionsPanel()  # results: app/ui/request/assertions_wiring.py
        self.editor_tabs.addTab(self.assertions_panel, "Assertions")
        self.result_tabs = QTabWidget()
        self.result_tabs.setObjectName("resultTabs")
        self.result_tabs.addTab(self.response_view, "Response")
        # The stream timeline: streaming methods switch to it.
        self.timeline = TimelinePanel()
        self.result_tabs.addTab(self.timeline, "Timeline")
        for tabs in (self.editor_tabs, self.result_tabs):
            whole_tabs(tabs)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("requestSplitter")
        split.addWidget(self.editor_tabs)
        split.addWidget(self.result_tabs)
        split.setSizes([500, 600])

        layout = QVBoxLayout(self)
        spacing.page(layout)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addWidget(split, 1)

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
    def default_timeout(self) -> float:
        """The timeout a request gets when it does not set its own (seconds)."""
        return self._default_timeout

    def set_default_timeout(self, seconds: float) -> None:
        """Change the default timeout (the Settings dialog); a spin box still showing the
        old default follows, a request's own timeout stays."""
        if self.timeout_spin.value() == self._default_timeout:
            self.timeout_spin.setValue(seconds)
        self._default_timeout = seconds

    def saved_timeout(self, base: float | None) -> float | None:
        """The ``timeout`` to save: None (not written) while the spin box shows the default
        of a request that had none, and the saved value itself while the spin box shows
        it, so that saving an untouched request changes nothing (``12`` stays ``12``). A
        whole number of seconds is saved as one (the spin box holds ``12.0``)."""
        value = self.timeout_spin.value()
        if value == base:
            return base
        if base is None and value == self._default_timeout:
            return None
        return int(value) if value.is_integer() else value

    def form(self, body: str | None = None) -> Form:
        """What the widgets hold now, as plain data (``body`` instead of the editor's text
        when given: the unsaved-marker check, app/ui/request/body_dirty.py)."""
        return Form(
            version=self.version,
            binding=self.binding,
            method=self.method,
            endpoint=self.endpoint_edit.text(),
            tenant=self.tenant_edit.text(),
            body=self.body_editor.toPlainText() if body is None else body,
            headers=tuple(self.headers_panel.headers()),
            extensions=tuple(self.extensions_panel.selected()),
            auth=self.auth_panel.config(),
            tls=self.tls_panel.settings(),
            assertions=self.assertions_panel.assertions(),
            captures=self.assertions_panel.captures(),
            command=self.command_edit.text(),
        )

    def show_saved(self, saved: SavedRequest) -> None:
        """Fill the widgets from ``saved`` exactly as saved (``{{variables}}`` stay)."""
        self.version_combo.setCurrentIndex(self.version_combo.findData(saved.version))
        self.binding_combo.setCurrentIndex(self.binding_combo.findData(saved.binding))
        index = self.method_combo.findData(saved.method)
        if index < 0:
            self.method_combo.addItem(saved.method, saved.method)
            index = self.method_combo.count() - 1
        self.method_combo.setCurrentIndex(index)
        self.endpoint_edit.setText(saved.endpoint)
        self.command_edit.setText(saved.command)
        self.tenant_edit.setText(saved.tenant)
        self.timeout_spin.setValue(saved.timeout or self._default_timeout)
        self.body_editor.setPlainText(saved.body)
        text = first_text(saved.body)
        if text is not None:  # so that Generate renders the same message again
            self.message_text_edit.setText(text)
        self.headers_panel.set_headers(saved.headers)
        self.auth_panel.show_saved(saved.auth)
        self.tls_panel.show_settings(saved.network.tls)
        self.extensions_panel.set_ticked(saved.extensions)
        self.assertions_panel.show_saved(saved.assertions, saved.captures)
