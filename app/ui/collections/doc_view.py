"""Documentation and Code views of one saved operation (``objectName`` ``docView``).

*Documentation*: summary, endpoint, method, the schemas as an outline, the example;
*Copy for LLM* puts Markdown with the full ``x-a2a`` block on the clipboard.
*Code*: ``curl`` / ``httpx`` (JSON-RPC, HTTP+JSON) or ``grpcurl`` (gRPC) snippets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.protocol.wire.a2a_errors import UsageError
from app.spec.document import SavedOperation, SpecDocument
from app.spec.markdown import documentation, llm_markdown
from app.spec.snippets import snippet, snippet_kinds
from app.ui.shell.widgets import CodeView

NOTHING_SELECTED = "*Select a request in Collections to read its documentation here.*"


class DocView(QWidget):
    """Shows the operation set with :meth:`show_operation`."""

    def __init__(
        self,
        values: Callable[[], Mapping[str, str]] = dict,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("docView")
        self._values = values
        self._doc: SpecDocument | None = None
        self._op: SavedOperation | None = None

        self.browser = QTextBrowser()
        self.browser.setObjectName("docBrowser")
        self.browser.setOpenExternalLinks(False)
        self.browser.setOpenLinks(False)  # a spec's text may hold links: never followed
        self.copy_button = QPushButton("Copy for LLM")
        self.copy_button.setObjectName("copyForLlmButton")
        self.copy_button.setToolTip("Copy Markdown with the full x-a2a block")
        self.copy_button.setEnabled(False)
        doc_page = QWidget()
        doc_layout = QVBoxLayout(doc_page)
        doc_layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addStretch(1)
        top.addWidget(self.copy_button)
        doc_layout.addLayout(top)
        doc_layout.addWidget(self.browser, 1)

        self.kind_combo = QComboBox()
        self.kind_combo.setObjectName("snippetKindCombo")
        self.copy_code_button = QPushButton("Copy")
        self.copy_code_button.setObjectName("copySnippetButton")
        self.code = CodeView("snippetView", read_only=True, json=False)
        self.code_note = QLabel("Secrets appear as $A2A_WB_<NAME> environment variables.")
        self.code_note.setWordWrap(True)
        code_page = QWidget()
        code_layout = QVBoxLayout(code_page)
        code_layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.kind_combo)
        row.addStretch(1)
        row.addWidget(self.copy_code_button)
        code_layout.addLayout(row)
        code_layout.addWidget(self.code, 1)
        code_layout.addWidget(self.code_note)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("docTabs")
        self.tabs.addTab(doc_page, "Documentation")
        self.tabs.addTab(code_page, "Code")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.browser.setMarkdown(NOTHING_SELECTED)

        self.copy_button.clicked.connect(self.copy_for_llm)
        self.copy_code_button.clicked.connect(self._on_copy_code_clicked)
        self.kind_combo.currentIndexChanged.connect(self._render_code)

    def show_operation(self, doc: SpecDocument | None, op: SavedOperation | None) -> None:
        """Render ``op`` of ``doc`` (None clears)."""
        self._doc, self._op = doc, op
        self.copy_button.setEnabled(op is not None)
        if doc is None or op is None:
            self.browser.setMarkdown(NOTHING_SELECTED)
            self.code.set_text("")
            self.kind_combo.clear()
            return
        # HTML inside a spec's names or bodies stays text (no image or link is loaded).
        features = QTextDocument.MarkdownFeature
        self.browser.document().setMarkdown(
            documentation(doc, op), features.MarkdownDialectGitHub | features.MarkdownNoHTML
        )
        self.kind_combo.blockSignals(True)
        self.kind_combo.clear()
        self.kind_combo.addItems(snippet_kinds(op.request))
        self.kind_combo.blockSignals(False)
        self._render_code()

    def llm_text(self) -> str:
        """The *Copy for LLM* Markdown of the shown operation ("" when none)."""
        if self._doc is None or self._op is None:
            return ""
        return llm_markdown(self._doc, self._op)

    def copy_for_llm(self) -> None:
        """Put :meth:`llm_text` on the clipboard."""
        text = self.llm_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def _render_code(self) -> None:
        if self._op is None or not self.kind_combo.currentText():
            self.code.set_text("")
            return
        try:
            text = snippet(self.kind_combo.currentText(), self._op.request, self._values())
        except (UsageError, ValueError) as exc:
            text = f"# No snippet: {exc}\n"
        self.code.set_text(text)

    def _on_copy_code_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.code.toPlainText())
