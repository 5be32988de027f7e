"""A password-style line edit with a *Show* toggle (the Auth page's secret fields)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QToolButton, QWidget


class SecretEdit(QWidget):
    """A password-style line edit with a *Show* toggle.

    The line edit carries ``object_name``; the toggle is ``<object_name>Reveal``.
    """

    def __init__(self, object_name: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit()
        self.edit.setObjectName(object_name)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.reveal_button = QToolButton()
        self.reveal_button.setObjectName(f"{object_name}Reveal")
        self.reveal_button.setText("Show")
        self.reveal_button.setCheckable(True)
        self.reveal_button.setToolTip("Show or hide the secret")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.reveal_button)
        self.reveal_button.toggled.connect(self._on_reveal_toggled)

    def text(self) -> str:
        """The secret as typed."""
        return self.edit.text()

    def _on_reveal_toggled(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.reveal_button.setText("Hide" if shown else "Show")
