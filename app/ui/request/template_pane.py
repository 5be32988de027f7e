"""The template beside the draft: the method's template, and how the draft differs from it.

objectNames: ``templatePane``; in its header ``templateStatusLabel`` (what the draft is to the
template, in words); under it ``templateTabs`` with the pages *Template* (``bodyPreview``)
and *Changes* (``templateDiffView``: the lines that differ from the draft to the template,
what *Replace* would do), and ``replaceBodyButton`` in the tabs' corner. The pane never looks
empty: the template is always shown, and a method without one says so.
"""

from __future__ import annotations

import difflib

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from app.ui.shell import theme
from app.ui.shell.widgets import CodeView

DIFF_CONTEXT = 2
"""Unchanged lines shown around each change."""


HUNK_GAP = "   ⋯"
"""Between two groups of changes: unchanged lines left out."""


def unified_diff(draft: str, template: str) -> tuple[str, int]:
    """The changes from ``draft`` to ``template`` as a unified diff — ``-`` the draft's
    line, ``+`` the template's, without the file and position headers — and how many lines
    differ (0: the same text, and an empty diff)."""
    shown: list[str] = []
    changed = 0
    lines = difflib.unified_diff(
        draft.splitlines(), template.splitlines(), n=DIFF_CONTEXT, lineterm=""
    )
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            if shown:
                shown.append(HUNK_GAP)
            continue
        changed += line[:1] in "+-"
        shown.append(line)
    return "\n".join(shown), changed


class DiffHighlighter(QSyntaxHighlighter):
    """Removed lines in the theme's error colour, added ones in its ok colour."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        theme.manager().changed.connect(self.rehighlight)

    def highlightBlock(self, text: str) -> None:
        c = theme.colours()
        if text.startswith("-"):
            colour = c.text_error
        elif text.startswith("+"):
            colour = c.text_ok
        elif text == HUNK_GAP:
            colour = c.text_muted
        else:
            return
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colour))
        self.setFormat(0, len(text), fmt)


class TemplatePane(QWidget):
    """The header (status, *Replace*) over the template and the changes pages."""

    def __init__(
        self, preview: CodeView, replace_button: QPushButton, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("templatePane")
        self.preview = preview
        self.replace_button = replace_button
        self.status_label = QLabel()
        self.status_label.setObjectName("templateStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)  # method names are typed
        self.diff_view = CodeView("templateDiffView", read_only=True, json=False)
        self.diff_view.setPlaceholderText("No changes: the draft is the template.")
        self._highlighter = DiffHighlighter(self.diff_view.document())
        self.tabs = QTabWidget()
        self.tabs.setObjectName("templateTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(preview, "Template")
        self.tabs.addTab(self.diff_view, "Changes")
        self.tabs.setCornerWidget(replace_button, Qt.Corner.TopRightCorner)

        title = QLabel("<b>Template</b>")
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(title, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.status_label, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)

    def show_changes(self, diff: str, changed: int, *, reveal: bool) -> None:
        """Show ``diff`` (``changed`` lines) on the *Changes* page, brought to the front
        when ``reveal``; no changes bring the template back to the front."""
        if diff != self.diff_view.toPlainText():  # typing in the draft keeps the place
            at = self.diff_view.verticalScrollBar().value()
            self.diff_view.set_text(diff)
            self.diff_view.verticalScrollBar().setValue(at)
        title = f"Changes ({changed})" if changed else "Changes"
        if self.tabs.tabText(1) != title:  # a new title lays the window out again (~5 ms a key)
            self.tabs.setTabText(1, title)
        if changed and reveal:
            self.tabs.setCurrentWidget(self.diff_view)
        elif not changed:
            self.tabs.setCurrentWidget(self.preview)
