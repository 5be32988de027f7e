"""The request tab's *TLS* page: the CA to trust, the client certificate, verification off.

Files are named by path (they are read when the request is sent, never copied into a spec);
the key password stays in the widget (sent, never saved). With verification off the page
shows a red warning, and the tab carrying it turns red (:meth:`TlsPanel.mark_tab`).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.protocol.net.network import TlsSettings
from app.ui.request.secret_edit import SecretEdit
from app.ui.shell import theme


class _PathEdit(QWidget):
    """A path line edit (``object_name``) with a *Browse…* button (``<object_name>Browse``)."""

    def __init__(self, object_name: str, placeholder: str, folder: bool = False) -> None:
        super().__init__()
        self.edit = QLineEdit()
        self.edit.setObjectName(object_name)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setClearButtonEnabled(True)
        self.browse = QToolButton()
        self.browse.setObjectName(f"{object_name}Browse")
        self.browse.setText("Browse…")
        self._folder = folder
        self.dialog: QFileDialog | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.browse)
        self.browse.clicked.connect(self._pick)

    def _pick(self) -> None:
        # Non-modal (open()): tests and the event loop keep running while it is shown.
        self.dialog = QFileDialog(self, "Choose a file", self.edit.text())
        self.dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        self.dialog.setNameFilters(
            ["Certificates and keys (*.pem *.crt *.cer *.key *.p12 *.pfx)", "All files (*)"]
        )
        self.dialog.fileSelected.connect(self.edit.setText)
        self.dialog.open()


class TlsPanel(QWidget):
    """TLS settings of the tab's requests (``objectName`` ``tlsPanel``).

    Signals:
        changed: any field changed (no args).
        insecure_changed: verification was switched off or on (arg: whether it is off).
    """

    changed = Signal()
    insecure_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tlsPanel")
        self.ca_cert = _PathEdit("caCertEdit", "PEM file or folder of CA certificates")
        self.ca_only_check = QCheckBox("Trust only this CA (replace the system store)")
        self.ca_only_check.setObjectName("caOnlyCheck")
        self.client_cert = _PathEdit("clientCertEdit", "PEM certificate, or PKCS#12 (.p12/.pfx)")
        self.client_key = _PathEdit("clientKeyEdit", "PEM private key (if not in the certificate)")
        self.key_password = SecretEdit("keyPasswordEdit", "key or PKCS#12 password (not saved)")
        self.server_name_edit = QLineEdit()
        self.server_name_edit.setObjectName("serverNameEdit")
        self.server_name_edit.setPlaceholderText("gRPC: the name the certificate is issued to")
        self.insecure_check = QCheckBox("Do not verify the server's certificate (insecure)")
        self.insecure_check.setObjectName("insecureCheck")
        self.warning_label = QLabel(
            "TLS verification is OFF: any server can pose as this one. Local experiments only."
        )
        self.warning_label.setObjectName("tlsWarningLabel")
        theme.style(self.warning_label, "text-error", "font-weight: bold;")
        self.warning_label.setWordWrap(True)
        self.warning_label.hide()

        form = QFormLayout()
        # Long rows put their label above the field rather than widening the window.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("CA certificate", self.ca_cert)
        # The check boxes span the form: their texts are longer than a field column.
        form.addRow(self.ca_only_check)
        form.addRow("Client certificate", self.client_cert)
        form.addRow("Client key", self.client_key)
        form.addRow("Key password", self.key_password)
        form.addRow("Server name", self.server_name_edit)
        form.addRow(self.insecure_check)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.warning_label)
        layout.addStretch(1)

        for edit in (
            self.ca_cert.edit,
            self.client_cert.edit,
            self.client_key.edit,
            self.key_password.edit,
            self.server_name_edit,
        ):
            edit.textChanged.connect(self.changed)
        self.ca_only_check.toggled.connect(self.changed)
        self.insecure_check.toggled.connect(self._on_insecure)

    def settings(self) -> TlsSettings:
        """The page as :class:`TlsSettings` (paths stripped)."""
        return TlsSettings(
            ca_cert=self.ca_cert.edit.text().strip(),
            ca_only=self.ca_only_check.isChecked(),
            client_cert=self.client_cert.edit.text().strip(),
            client_key=self.client_key.edit.text().strip(),
            key_password=self.key_password.text(),
            insecure=self.insecure_check.isChecked(),
            server_name=self.server_name_edit.text().strip(),
        )

    def show_settings(self, tls: TlsSettings) -> None:
        """Fill the page from ``tls`` (a saved request's; ``{{variables}}`` stay)."""
        self.ca_cert.edit.setText(tls.ca_cert)
        self.ca_only_check.setChecked(tls.ca_only)
        self.client_cert.edit.setText(tls.client_cert)
        self.client_key.edit.setText(tls.client_key)
        self.key_password.edit.setText(tls.key_password)
        self.server_name_edit.setText(tls.server_name)
        self.insecure_check.setChecked(tls.insecure)

    def mark_tab(self, tabs: QTabWidget) -> None:
        """Keep this page's tab title red (``TLS ⚠``) while verification is off."""

        def mark(off: bool) -> None:
            index = tabs.indexOf(self)
            tabs.setTabText(index, "TLS ⚠" if off else "TLS")
            tabs.tabBar().setTabTextColor(
                index, QColor(theme.colours().text_error) if off else QColor()
            )
            tabs.setTabToolTip(index, "Certificate verification is off" if off else "")

        self.insecure_changed.connect(mark)
        mark(self.insecure_check.isChecked())

    def _on_insecure(self, off: bool) -> None:
        self.warning_label.setVisible(off)
        self.insecure_changed.emit(off)
        self.changed.emit()
