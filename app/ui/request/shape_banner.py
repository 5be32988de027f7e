"""The non-modal banner shown above the body when it does not fit the tab (``shapeBanner``).

Send checks the draft with :func:`app.protocol.methods.body_shape.check_body`; when something is
off,
the banner lists the reasons and waits: *Generate the right template* fills the preview for
the tab's method × binding, *Send anyway* sends the draft as it is. Nothing modal, so the
qasync loop keeps running (a modal dialog would block it).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.protocol.methods.body_shape import ShapeProblem
from app.ui.shell import theme
from app.ui.shell.plain_text import shown


class ShapeBanner(QFrame):
    """Why the draft does not fit, and what to do about it.

    Inside: ``shapeBannerText``, ``generateTemplateButton``, ``forceSendButton``,
    ``dismissShapeBannerButton``.

    Signals:
        generate_requested: the user wants the right template in the preview (no args).
        send_anyway_requested: the user wants the draft sent as it is (no args).
    """

    generate_requested = Signal()
    send_anyway_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shapeBanner")
        theme.style(self, "frame-warn:shapeBanner", "QFrame#shapeBanner { border-radius: 4px; }")
        self.problems: list[ShapeProblem] = []
        self.text_label = QLabel()
        self.text_label.setObjectName("shapeBannerText")
        self.text_label.setWordWrap(True)
        self.text_label.setTextFormat(Qt.TextFormat.RichText)
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.generate_button = QPushButton("Generate the right template")
        self.generate_button.setObjectName("generateTemplateButton")
        self.generate_button.setToolTip(
            "Render the method's template for this tab into the preview"
        )
        self.force_button = QPushButton("Send anyway")
        self.force_button.setObjectName("forceSendButton")
        self.force_button.setToolTip("Send the draft exactly as it is")
        self.dismiss_button = QPushButton("Cancel")
        self.dismiss_button.setObjectName("dismissShapeBannerButton")
        self.dismiss_button.setToolTip("Do not send; keep editing")

        buttons = QHBoxLayout()
        buttons.addWidget(self.generate_button)
        buttons.addWidget(self.force_button)
        buttons.addStretch(1)
        buttons.addWidget(self.dismiss_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.text_label)
        layout.addLayout(buttons)
        self.hide()

        self.generate_button.clicked.connect(self._on_generate_clicked)
        self.force_button.clicked.connect(self._on_force_clicked)
        self.dismiss_button.clicked.connect(self.dismiss)

    def show_problems(self, problems: Sequence[ShapeProblem], expected: str) -> None:
        """List ``problems``; ``expected`` names the shape this tab sends."""
        self.problems = list(problems)
        items = "".join(f"<li>{escape(shown(str(p), multiline=False))}</li>" for p in problems)
        self.text_label.setText(
            f"<b>Not sent: the body does not look like a {escape(expected)}.</b>"
            f"<ul style='margin: 2px 0 0 -20px'>{items}</ul>"
        )
        self.show()

    def dismiss(self) -> None:
        """Hide the banner; the pending send is dropped."""
        self.problems = []
        self.hide()

    def _on_generate_clicked(self) -> None:
        self.dismiss()
        self.generate_requested.emit()

    def _on_force_clicked(self) -> None:
        self.dismiss()
        self.send_anyway_requested.emit()
