"""Whether the body editor differs from the clean body, without reading 5 MB per key.

The unsaved marker compares the whole form with its clean state on every change; the body
part of that cost a full ``toPlainText()`` (~13 ms for 5 MB) and a compare per keystroke.
Here a changed length (the document's character count, O(1); a big body held aside,
app/ui/request/body_editor.py, has its count kept) settles it; the text is read
and compared only when the length is the clean one again (a key typed and deleted).
"""

from __future__ import annotations

from app.ui.request.body_editor import BodyEditor, utf16_units

DIRTY = "\x00body changed\x00"
"""Stands for the body in the form compared with the clean state when it differs (no body
a user types starts with NUL, and it differs from the clean body in any case)."""


class BodyDirty:
    """Tracks ``editor``'s text against the body of the clean state."""

    def __init__(self, editor: BodyEditor) -> None:
        self._editor = editor
        self._clean = ""
        self._clean_units = 0  # UTF-16 code units, as the document counts them
        self._same = True

    def set_clean(self, body: str) -> None:
        """``body`` is the clean state's body now."""
        self._clean = body
        self._clean_units = utf16_units(body)
        self._same = self._compare()

    def changed(self) -> None:
        """The editor's text changed."""
        self._same = self._compare()

    def body_for_key(self) -> str:
        """The clean body itself while the text is the same (the compare is by identity),
        else :data:`DIRTY`."""
        return self._clean if self._same else DIRTY

    def _compare(self) -> bool:
        if self._editor.text_units() != self._clean_units:
            return False
        return self._editor.toPlainText() == self._clean
