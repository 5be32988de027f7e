"""Help → *Use with a coding assistant*: the configuration that makes Claude Code, VS Code or
Cursor start this install's MCP server (``a2a-workbench mcp``), ready to copy
(:mod:`app.install`)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.install import Snippet, snippets

INTRO = (
    "A coding assistant can fetch and check cards, send requests and streams, verify "
    "signatures, check agents and read the History through the workbench's MCP server. "
    "Paste the configuration for yours; it starts <code>a2a-workbench mcp</code> itself. "
    "Credentials are never pasted here: put a token in an environment variable of the "
    "server's configuration (<code>env</code>) and name that variable in a tool call. "
    "See docs/MCP.md for the tools."
)


class AssistantDialog(QDialog):
    """One tab per assistant: where the configuration goes and the text, with a copy button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codingAssistantDialog")
        self.setWindowTitle("Use with a coding assistant")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        intro = QLabel(INTRO)
        intro.setObjectName("codingAssistantIntro")
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("codingAssistantTabs")
        self.snippets = snippets()
        for snippet in self.snippets:
            self.tabs.addTab(self._page(snippet), snippet.assistant)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
        self.resize(640, 460)

    def _page(self, snippet: Snippet) -> QWidget:
        page = QWidget()
        where = QLabel(f"Where: {snippet.where}")
        where.setTextFormat(Qt.TextFormat.PlainText)
        text = QPlainTextEdit(snippet.text)
        text.setObjectName("assistantSnippetEdit")
        text.setReadOnly(True)
        text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        copy = QPushButton("&Copy")
        copy.setObjectName("copySnippetButton")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(snippet.text))
        layout = QVBoxLayout(page)
        layout.addWidget(where)
        layout.addWidget(text)
        layout.addWidget(copy, alignment=Qt.AlignmentFlag.AlignRight)
        return page

    def snippet_text(self, assistant: str) -> str:
        """The text shown for ``assistant`` (``Claude Code``, ``VS Code``, ``Cursor``)."""
        for index, snippet in enumerate(self.snippets):
            if snippet.assistant == assistant:
                page = self.tabs.widget(index)
                edit = page.findChild(QPlainTextEdit, "assistantSnippetEdit") if page else None
                return edit.toPlainText() if edit is not None else ""
        raise KeyError(assistant)


def open_assistant_dialog(parent: QWidget) -> AssistantDialog:
    """Show the dialog (not modal: the user copies and pastes elsewhere)."""
    dialog = AssistantDialog(parent)
    dialog.show()
    return dialog
