"""A draft that follows its template until the user edits it.

While the draft is the text last generated into it, every change of the template (method,
version, binding, *Text*, the ids, attachments) is written into the draft at once: no
*Replace* step, and a freshly generated body is what gets sent. The first edit makes the
draft the user's: from then on the template pane (:mod:`app.ui.request.template_pane`) shows
the template beside it with the changes from the draft, and only *Replace* (one undoable
step) overwrites it. A draft that equals the template again follows again.

The template keeps the draft's ``messageId`` and JSON-RPC ``id``: the tab's own, fixed
until *Generate* asks for fresh ones or a send used them, or, for the user's draft, read
from it, so that the changes show what differs rather than two random ids.

A draft that follows goes out with ids no send used: *Send again*, or the first send of a
reopened request, takes fresh ones into the draft first (:meth:`BodyFollow.fresh_ids`), so
the editor shows what was sent and an agent that de-duplicates by ``messageId`` sees a new
message. The user's draft is sent as typed, its ids too.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QTextCursor

from app.ui.request.body_editor import utf16_units
from app.ui.request.template_pane import unified_diff

if TYPE_CHECKING:
    from PySide6.QtWidgets import QPushButton

    from app.ui.request.body_editor import BodyEditor
    from app.ui.request.template_pane import TemplatePane

COMPARE_CHARS = 32 * 1024
"""A draft longer than this is not diffed on every keystroke (nor read for its ids)."""

FOLLOWING = "The draft follows it (method, version, binding, Text, ids) until you edit it."
SAME = "Your draft matches it."
REPLACE_TIP = "Overwrite the draft with the template (one step: Ctrl+Z in the draft undoes it)"
NOTHING_TO_REPLACE = "Nothing to replace: the draft is the template"


class BodyFollowTab(Protocol):
    """What the follow uses of its request tab (``RequestTab``, which creates it: typed
    here, not imported)."""

    @property
    def body_editor(self) -> BodyEditor: ...
    @property
    def template_pane(self) -> TemplatePane: ...
    @property
    def replace_button(self) -> QPushButton: ...

    def generate_preview(self) -> None:
        """Render the method's template again (it calls :meth:`BodyFollow.show_template`)."""
        ...


class BodyFollow(QObject):
    """Whether the draft follows the template; writing it, diffing it, replacing it."""

    def __init__(self, tab: BodyFollowTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._template: str | None = None
        self._no_template = ""
        self._generated: str | None = None  # the text last generated into the draft
        self._following = True
        self._writing = False
        self._ids_used = False
        self._ids_taken = False  # the ids are the draft's own, not generated here
        self.message_id = str(uuid.uuid4())
        self.request_id: str | int = str(uuid.uuid4())
        self._rendered_ids: tuple[str, str | int] | None = None  # the template's
        tab.body_editor.textChanged.connect(self._on_draft_changed)

    @property
    def following(self) -> bool:
        """True while the draft is the text last generated into it (untouched)."""
        return self._following

    @property
    def template(self) -> str | None:
        """The template shown now (None: the method has none)."""
        return self._template

    # --- the template's ids -----------------------------------------------------------

    def template_ids(self) -> tuple[str, str | int]:
        """``(messageId, JSON-RPC id)`` for the next template: the user's draft's own where
        it has them, else the tab's (fresh ones once a send used them)."""
        found = None if self._following else self._draft_ids()
        if found is None:
            if self._ids_used:
                self.new_ids()
            found = (self.message_id, self.request_id)
        self._rendered_ids = found
        return found

    def new_ids(self) -> None:
        """Fresh ids for the next template (*Generate*)."""
        self.message_id, self.request_id = str(uuid.uuid4()), str(uuid.uuid4())
        self._ids_used = self._ids_taken = False

    def fresh_ids(self) -> None:
        """Before a send: a following draft whose ids a send used, or that came with its
        own (a reopened request, a Replace), takes fresh ones."""
        own = (self.message_id, self.request_id)
        if self._following and (self._ids_used or self._ids_taken or self._rendered_ids != own):
            self.new_ids()
            self._tab.generate_preview()

    def sent(self) -> None:
        """The draft went out: the next template gets a fresh ``messageId`` (A2A: one per
        message); the draft itself stays until the template changes."""
        self._ids_used = self._following

    def _draft_ids(self) -> tuple[str, str | int] | None:
        editor = self._tab.body_editor
        if editor.text_units() > COMPARE_CHARS:
            return None
        try:
            body = json.loads(editor.toPlainText())
        except (ValueError, RecursionError):
            return None
        if not isinstance(body, dict):
            return None
        request_id = body.get("id")
        params = body.get("params", body)
        message = params.get("message") if isinstance(params, dict) else None
        message_id = message.get("messageId") if isinstance(message, dict) else None
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            request_id = self.request_id
        return (message_id if isinstance(message_id, str) else self.message_id), request_id

    # --- following --------------------------------------------------------------------

    def show_template(self, text: str | None, no_template: str = "") -> None:
        """The template is ``text`` now (None: there is none, ``no_template`` says why): an
        untouched draft becomes it at once, an edited one is compared with it."""
        self._template = text
        self._no_template = no_template
        self._tab.template_pane.preview.set_text(text or "")
        self._tab.template_pane.preview.setPlaceholderText(no_template)
        if text is not None and self._following and not self._matches(text):
            self._write(text)
        elif text is not None and not self._following and self._matches(text):
            self._adopt(text)
        self._update(reveal=True)

    def take_over(self) -> None:
        """The draft was loaded (a saved request, a restored draft): it is the user's until
        the next template equals it."""
        self._following = False
        self._generated = None

    def replace(self) -> None:
        """*Replace*: the template into the draft, as one undoable step; it follows again."""
        text = self._template
        if text is None or self._matches(text):
            return
        self._writing = True
        try:
            replace_text(self._tab.body_editor, text)
        finally:
            self._writing = False
        self._generated, self._following = text, True
        self._update(reveal=False)

    def _adopt(self, text: str) -> None:
        """The draft equals the template ``text``: it follows from now on, keeping the ids
        the template took from it."""
        self._generated, self._following = text, True
        if self._rendered_ids is not None:
            self.message_id, self.request_id = self._rendered_ids
            self._ids_taken = True  # the draft's own: saved, restored, maybe sent before

    def _write(self, text: str) -> None:
        self._writing = True
        try:
            self._tab.body_editor.setPlainText(text)
        finally:
            self._writing = False
        self._generated, self._following = text, True

    def _on_draft_changed(self) -> None:
        if self._writing:
            return
        generated = self._generated
        self._following = generated is not None and self._matches(generated)
        if not self._following and self._template is not None and self._matches(self._template):
            self._adopt(self._template)
        if not self._following and self._template is not None:
            ids = self._draft_ids()
            if ids is not None and ids != self._rendered_ids:
                self._tab.generate_preview()  # the template takes the draft's own ids
                return
        self._update(reveal=False)

    def _matches(self, text: str) -> bool:
        """Whether the draft is ``text``; by length first (O(1)), so a big draft is read
        only when it may be equal."""
        editor = self._tab.body_editor
        if editor.text_units() != utf16_units(text):
            return False
        return editor.toPlainText() == text

    # --- what the pane says -------------------------------------------------------------

    def _update(self, *, reveal: bool) -> None:
        pane, button = self._tab.template_pane, self._tab.replace_button
        template = self._template
        if template is None:
            pane.status_label.setText(self._no_template)
            pane.show_changes("", 0, reveal=False)
            self._enable(button, False, "There is no template to replace the draft with")
            return
        if self._following:
            pane.status_label.setText(FOLLOWING)
            pane.show_changes("", 0, reveal=False)
            self._enable(button, False, NOTHING_TO_REPLACE)
            return
        editor = self._tab.body_editor
        if editor.text_units() > COMPARE_CHARS or len(template) > COMPARE_CHARS:
            pane.status_label.setText(
                "Your draft is too big to compare here; only Replace overwrites it."
            )
            pane.show_changes("", 0, reveal=False)
            self._enable(button, True, REPLACE_TIP)
            return
        diff, changed = unified_diff(editor.toPlainText(), template)
        if not changed:
            pane.status_label.setText(SAME)
            self._enable(button, False, NOTHING_TO_REPLACE)
        else:
            lines = f"{changed} line{'s' * (changed != 1)}"
            pane.status_label.setText(
                f"Your draft differs in {lines} (Changes); only Replace overwrites it."
            )
            self._enable(button, True, REPLACE_TIP)
        pane.show_changes(diff, changed, reveal=reveal)

    @staticmethod
    def _enable(button: QPushButton, on: bool, tip: str) -> None:
        button.setEnabled(on)
        button.setToolTip(tip)


def replace_text(editor: BodyEditor, text: str) -> None:
    """Put ``text`` into ``editor`` as one undoable step (Ctrl+Z brings the draft back)."""
    if editor.holding:  # a big draft is not in the document: nothing to undo into
        editor.setPlainText(text)
        return
    cursor = QTextCursor(editor.document())
    cursor.select(QTextCursor.SelectionType.Document)
    cursor.insertText(text)
