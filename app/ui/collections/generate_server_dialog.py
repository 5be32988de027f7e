"""*Request → Generate server…*: a runnable A2A server project from a card.

The dialog loads a card (the current tab's, a card URL or file, or an opened spec), lets
the user edit what the new server will publish, and re-plans on every change:
:func:`app.generate.plan.plan_from_card` gives the card with its interfaces on the chosen
host/ports and the card validator's findings, shown live. *Generate* writes the project
off the GUI thread and then shows the two commands that start it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.errors import WorkbenchError
from app.generate.plan import PlanResult, plan_from_card
from app.generate.project_model import Language
from app.generate.source import load_source
from app.generate.write import start_commands, write
from app.protocol.bindings import traits
from app.protocol.card.card_shape import Severity
from app.protocol.types import Binding
from app.ui.collections.server_card_editor import ServerCardEditor
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel, shown
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

__all__ = ["GenerateServerDialog", "open_generate_server"]

_OK, _WARN, _ERR, _IDLE = "badge-ok", "badge-warn", "badge-error", "badge-idle"
_BINDING_LABELS = (
    (Binding.JSONRPC, "JSON-RPC", "serverBindingJsonRpcCheck"),
    (Binding.HTTP_JSON, "HTTP+JSON (REST)", "serverBindingRestCheck"),
    (Binding.GRPC, "gRPC", "serverBindingGrpcCheck"),
)


class GenerateServerDialog(QDialog):
    """The non-modal *Generate server* dialog.

    Attributes:
        plan_result: the plan of the card as edited now (None when it cannot be planned).
        written: the files of the last generated project.
    """

    def __init__(
        self,
        *,
        card: dict[str, Any] | None = None,
        origin: str = "",
        source: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("generateServerDialog")
        self.setWindowTitle("Generate server")
        self.plan_result: PlanResult | None = None
        self.written: list[Path] = []
        self._has_card = False
        self._load_task = OwnedTask()
        self._write_task = OwnedTask()
        self._build()
        if card is not None:
            self.show_card(card, origin)
        elif source:
            self.source_edit.setText(source)
            self.load_source()
        self.replan()
        self.resize(980, 760)

    # --- construction ---------------------------------------------------------------

    def _build(self) -> None:
        self.source_edit = QLineEdit()
        self.source_edit.setObjectName("serverSourceEdit")
        self.source_edit.setPlaceholderText("Card URL, card file or spec file")
        self.source_edit.returnPressed.connect(self.load_source)
        self.source_browse = QPushButton("Browse…")
        self.source_browse.setObjectName("serverSourceBrowseButton")
        self.source_browse.clicked.connect(self._choose_source)
        self.load_button = QPushButton("Load")
        self.load_button.setObjectName("serverSourceLoadButton")
        self.load_button.clicked.connect(self.load_source)
        self.origin_label = PlainLabel("No card loaded", multiline=False)
        self.origin_label.setObjectName("serverCardOriginLabel")
        self.origin_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        source_row = QHBoxLayout()
        source_row.addWidget(QLabel("From"))
        source_row.addWidget(self.source_edit, 1)
        source_row.addWidget(self.source_browse)
        source_row.addWidget(self.load_button)

        self.editor = ServerCardEditor()
        self.editor.edited.connect(self.replan)
        card_box = QGroupBox("Card the server publishes")
        card_layout = QVBoxLayout(card_box)
        card_layout.addWidget(self.origin_label)
        card_layout.addWidget(self.editor)

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self._server_box())
        self.interfaces_list = QListWidget()
        self.interfaces_list.setObjectName("serverInterfacesList")
        self.findings_list = QListWidget()
        self.findings_list.setObjectName("serverFindingsList")
        self.findings_list.setWordWrap(True)
        side_layout.addWidget(QLabel("Interfaces in the card"))
        side_layout.addWidget(self.interfaces_list, 1)
        self.findings_label = QLabel("Findings")
        self.findings_label.setObjectName("serverFindingsLabel")
        side_layout.addWidget(self.findings_label)
        side_layout.addWidget(self.findings_list, 2)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("generateServerSplitter")
        splitter.addWidget(card_box)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(source_row)
        layout.addWidget(splitter, 1)
        layout.addWidget(self._output_box())

    def _server_box(self) -> QGroupBox:
        box = QGroupBox("Server")
        form = QFormLayout(box)
        self.language_combo = QComboBox()
        self.language_combo.setObjectName("serverLanguageCombo")
        for language in Language:
            self.language_combo.addItem(language.value, language)
        self.language_combo.currentIndexChanged.connect(self.replan)
        form.addRow("&Language", self.language_combo)
        bindings = QHBoxLayout()
        self.binding_checks: dict[Binding, QCheckBox] = {}
        for binding, label, name in _BINDING_LABELS:
            check = QCheckBox(label)
            check.setObjectName(name)
            check.setChecked(True)
            check.toggled.connect(self.replan)
            self.binding_checks[binding] = check
            bindings.addWidget(check)
        bindings.addStretch(1)
        form.addRow("Bindings", bindings)
        self.compat_check = QCheckBox("Also serve A2A 0.3")
        self.compat_check.setObjectName("serverCompatCheck")
        self.compat_check.toggled.connect(self.replan)
        form.addRow("", self.compat_check)
        self.host_edit = QLineEdit("127.0.0.1")
        self.host_edit.setObjectName("serverHostEdit")
        self.host_edit.textChanged.connect(self.replan)
        form.addRow("&Host", self.host_edit)
        self.port_spin = _port_spin("serverPortSpin", 8000)
        self.port_spin.valueChanged.connect(self.replan)
        self.grpc_port_spin = _port_spin("serverGrpcPortSpin", 50051)
        self.grpc_port_spin.valueChanged.connect(self.replan)
        ports = QHBoxLayout()
        for caption, spin in (("HTTP", self.port_spin), ("gRPC", self.grpc_port_spin)):
            port_label = QLabel(caption)
            port_label.setBuddy(spin)
            ports.addWidget(port_label)
            ports.addWidget(spin)
        ports.addStretch(1)
        form.addRow("Ports", ports)
        return box

    def _output_box(self) -> QGroupBox:
        box = QGroupBox("Project")
        layout = QVBoxLayout(box)
        row = QHBoxLayout()
        self.output_edit = QLineEdit()
        self.output_edit.setObjectName("serverOutputEdit")
        self.output_edit.setPlaceholderText("Folder to write the project into")
        self.output_edit.textChanged.connect(self._update_button)
        self.output_browse = QPushButton("Browse…")
        self.output_browse.setObjectName("serverOutputBrowseButton")
        self.output_browse.clicked.connect(self._choose_output)
        self.force_check = QCheckBox("Write into a non-empty folder")
        self.force_check.setObjectName("serverForceCheck")
        self.generate_button = QPushButton("Generate")
        self.generate_button.setObjectName("generateServerButton")
        self.generate_button.setDefault(True)
        self.generate_button.clicked.connect(self.generate)
        row.addWidget(QLabel("Folder"))
        row.addWidget(self.output_edit, 1)
        row.addWidget(self.output_browse)
        row.addWidget(self.force_check)
        row.addWidget(self.generate_button)
        layout.addLayout(row)
        self.status_label = PlainLabel()  # errors quote the card's fetch
        self.status_label.setObjectName("serverStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status_label)
        commands = QHBoxLayout()
        self.commands_view = QPlainTextEdit()
        self.commands_view.setObjectName("serverStartCommands")
        self.commands_view.setReadOnly(True)
        self.commands_view.setFixedHeight(self.fontMetrics().lineSpacing() * 2 + 16)
        self.commands_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.commands_view.setPlaceholderText("How to start the project appears here.")
        self.copy_button = QPushButton("Copy")
        self.copy_button.setObjectName("serverCopyCommandsButton")
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_commands)
        commands.addWidget(self.commands_view, 1)
        commands.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(commands)
        self._set_status("Load a card to start.", _IDLE)
        return box

    # --- the card -------------------------------------------------------------------

    def show_card(self, card: dict[str, Any], origin: str) -> None:
        """Edit ``card`` (from ``origin``, in words)."""
        self._has_card = True
        self.origin_label.setText(f"From {origin}" if origin else "")
        self.editor.load(card)

    @property
    def loading(self) -> bool:
        """True while a card is being loaded from the source field."""
        return self._load_task.running

    def load_source(self) -> None:
        """Load the card named in the source field (a URL is fetched without credentials)."""
        text = self.source_edit.text().strip()
        if not text:
            self._set_status("Type a card URL, or a card or spec file, first.", _ERR)
            return
        self._set_status(f"Loading {text}…", _IDLE)
        self.load_button.setEnabled(False)
        self._load_task.start(self._load(text), then=lambda: self.load_button.setEnabled(True))

    async def _load(self, text: str) -> None:
        try:
            loaded = await load_source(text)
        except WorkbenchError as exc:
            self._set_status(str(exc), _ERR)
            return
        self.show_card(loaded.card, loaded.origin)

    def _choose_source(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, "Card or spec file", "", "Cards and specs (*.json *.yaml *.yml);;All files (*)"
        )
        if path:
            self.source_edit.setText(path)
            self.load_source()

    # --- planning -------------------------------------------------------------------

    def language(self) -> Language:
        """The chosen project language."""
        return Language(self.language_combo.currentData())

    def bindings(self) -> frozenset[Binding]:
        """The ticked bindings."""
        return frozenset(b for b, check in self.binding_checks.items() if check.isChecked())

    def replan(self, *_args: object) -> None:
        """Plan the card as edited now and show its interfaces and findings."""
        bindings = self.bindings()
        # The bindings that ride HTTP share the HTTP server's port; gRPC listens on its own.
        self.grpc_port_spin.setEnabled(any(not traits(b).rides_http for b in bindings))
        self.port_spin.setEnabled(any(traits(b).rides_http for b in bindings))
        self.interfaces_list.clear()
        self.findings_list.clear()
        self.plan_result = None
        if not self._has_card:
            self._update_button()
            return
        try:
            self.plan_result = plan_from_card(
                self.editor.card(),
                language=self.language(),
                host=self.host_edit.text().strip(),
                port=self.port_spin.value(),
                grpc_port=self.grpc_port_spin.value(),
                bindings=self.bindings(),
                compat_v03=self.compat_check.isChecked(),
            )
        except ValueError as exc:
            self.findings_label.setText("Findings: cannot plan the server")
            self.findings_list.addItem(shown(f"error: {exc}"))
            self._set_status(f"Fix this first: {exc}.", _ERR)
            self._update_button()
            return
        for entry in self.plan_result.plan.card.get("supportedInterfaces", []):
            self.interfaces_list.addItem(  # the card's words, control characters shown
                shown(f"{entry['protocolBinding']} {entry['protocolVersion']}   {entry['url']}")
            )
        problems = self.plan_result.problems
        for problem in problems:
            where = f"{problem.path}: " if problem.path else ""
            self.findings_list.addItem(shown(f"{problem.severity.value}: {where}{problem.message}"))
        for note in self.plan_result.notes:
            self.findings_list.addItem(shown(f"note: {note}"))
        errors = sum(p.severity is Severity.ERROR for p in problems)
        warnings = sum(p.severity is Severity.WARNING for p in problems)
        self.findings_label.setText(
            f"Findings: {errors} error(s), {warnings} warning(s)"
            if problems
            else "Findings: the card validates"
        )
        if not self.generating:
            if errors:
                self._set_status(
                    f"The card has {errors} error(s): a strict client would refuse it.", _WARN
                )
            elif warnings:
                self._set_status(f"Ready to generate; the card has {warnings} warning(s).", _WARN)
            else:
                self._set_status("Ready to generate.", _OK)
        self._update_button()

    # --- generating -----------------------------------------------------------------

    @property
    def generating(self) -> bool:
        """True while the project is being written."""
        return self._write_task.running

    def _update_button(self, *_args: object) -> None:
        self.generate_button.setEnabled(
            self.plan_result is not None
            and bool(self.output_edit.text().strip())
            and not self.generating
        )

    def _choose_output(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder for the project")
        if path:
            self.output_edit.setText(path)

    def generate(self) -> None:
        """Write the project into the chosen folder (in a worker thread)."""
        if self.plan_result is None or self.generating:
            return
        text = self.output_edit.text().strip()
        if not text:
            self._set_status("Choose a folder for the project first.", _ERR)
            return
        out = Path(text).expanduser()
        plan = self.plan_result.plan
        self.commands_view.clear()
        self.copy_button.setEnabled(False)
        self.copy_button.setText("Copy")
        self._set_status(f"Writing the {plan.language.value} project to {out}…", _IDLE)
        self._write_task.start(
            self._write(plan.language, out, self.force_check.isChecked()),
            then=self._update_button,
        )
        self._update_button()

    async def _write(self, language: Language, out: Path, force: bool) -> None:
        assert self.plan_result is not None
        plan = self.plan_result.plan
        try:
            self.written = await asyncio.to_thread(write, plan, out, force=force)
        except (WorkbenchError, OSError, ValueError) as exc:
            self._set_status(f"Not written: {exc}", _ERR)
            return
        install, start = start_commands(language, out)
        self.commands_view.setPlainText(f"{install}\n{start}")
        self.copy_button.setEnabled(True)
        self._set_status(
            f"Wrote {len(self.written)} files to {out}. Start it with the two commands below "
            "(put a random token of 32+ characters in A2A_TOKEN).",
            _OK,
        )

    def copy_commands(self) -> None:
        """Put the start commands on the clipboard."""
        QGuiApplication.clipboard().setText(self.commands_view.toPlainText())
        self.copy_button.setText("Copied")

    # --- closing --------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Cancel a running load and wait for a running write to finish."""
        await self._load_task.shutdown()
        await self._write_task.join()

    def done(self, result: int) -> None:
        self._load_task.cancel()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._load_task.cancel()
        super().closeEvent(event)

    def _set_status(self, text: str, style: str) -> None:
        self.status_label.setText(text)
        theme.style(self.status_label, style, theme.BADGE_SHAPE)


def _port_spin(name: str, value: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setObjectName(name)
    spin.setRange(1, 65535)
    spin.setValue(value)
    spin.setAccelerated(True)
    return spin


class GenerateServerHost(Protocol):
    """What opening the dialog uses of the main window (``MainWindow``: typed here, not
    imported)."""

    generate_server_dialog: GenerateServerDialog | None
    """The dialog while it is open (one at a time)."""

    def current_tab(self) -> RequestTab | None:
        """The focused request tab, if any."""
        ...


def open_generate_server(host: GenerateServerHost, window: QWidget) -> GenerateServerDialog:
    """Open the dialog over ``window`` on what ``host`` (the same main window) shows: the
    current tab's card (or its card URL), else the opened spec; the user can load another
    source in the dialog."""
    if host.generate_server_dialog is not None:
        host.generate_server_dialog.close()
    tab = host.current_tab()
    panel = tab.card_panel if tab is not None else None
    spec = getattr(host, "spec", None)
    document = spec.document if spec is not None else None
    if panel is not None and isinstance(panel.card, dict):
        dialog = GenerateServerDialog(card=panel.card, origin=panel.source, parent=window)
        dialog.source_edit.setText(panel.source)
    elif document is not None and document.path is not None:
        dialog = GenerateServerDialog(source=str(document.path), parent=window)
    elif panel is not None and panel.url_edit.text().strip():
        dialog = GenerateServerDialog(source=panel.url_edit.text().strip(), parent=window)
    else:
        dialog = GenerateServerDialog(parent=window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.destroyed.connect(lambda *_: _forget(host, dialog))
    host.generate_server_dialog = dialog
    dialog.show()
    dialog.raise_()
    return dialog


def _forget(host: GenerateServerHost, dialog: GenerateServerDialog) -> None:
    if host.generate_server_dialog is dialog:
        host.generate_server_dialog = None
