"""The non-modal banner shown above the body when it does not fit the tab (``shapeBanner``).

Send and Save check the draft first (:mod:`app.ui.request.shape_gate`); when something is
off, the banner lists the reasons and waits: the fix (``generateTemplateButton``: the draft
converted to the tab's version, or the template, then sent or saved) or the action as it is
(``forceSendButton``: *Send anyway*, *Save anyway*). Nothing modal, so the qasync loop keeps
running (a modal dialog would block it).
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
        generate_requested: the user wants the fix, then the action (no args).
        send_anyway_requested: the user wants the action with the draft as it is (no args).
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
            "Make the draft fit the tab (converted to its version, or the method's template;"
            " Ctrl+Z in the draft undoes it), then go on"
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

    def show_problems(
        self,
        problems: Sequence[ShapeProblem],
        expected: str,
        *,
        verb: str = "sent",
        fix: str = "Generate the right template",
        anyway: str = "Send anyway",
    ) -> None:
        """List ``problems``; ``expected`` names the shape this tab sends, ``verb`` what was
        not done (``sent``, ``saved``), ``fix`` and ``anyway`` the two buttons."""
        self.problems = list(problems)
        items = "".join(f"<li>{escape(shown(str(p), multiline=False))}</li>" for p in problems)
        self.text_label.setText(
            f"<b>Not {escape(verb)}: the body does not look like a {escape(expected)}.</b>"
            f"<ul style='margin: 2px 0 0 -20px'>{items}</ul>"
        )
        self.generate_button.setText(fix)
        self.force_button.setText(anyway)
        self.force_button.setToolTip(f"{anyway}: the draft exactly as it is")
        self.dismiss_button.setToolTip(f"Not {verb}; keep editing")
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
