"""*File → Recent specs*: the menu of the spec files opened or saved last, newest first
(the file itself: :mod:`app.spec.recent_specs`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMenu, QWidget

from app.paths import recent_specs_path, user_documents_dir
from app.spec.recent_specs import read_recent, write_recent


class RecentSpecs:
    """The *Recent specs* menu (``recentSpecsMenu``): picking an entry calls ``open_later``
    with its path; a file that cannot be written is said through ``say``."""

    def __init__(
        self,
        parent: QWidget,
        open_later: Callable[[Path], None],
        say: Callable[[str], None],
    ) -> None:
        self.path = recent_specs_path()
        self._open_later = open_later
        self._say = say
        self.menu = QMenu("&Recent specs", parent)
        self.menu.setObjectName("recentSpecsMenu")
        self.fill()

    def fill(self) -> None:
        """List the file's entries (the menu is disabled when there are none)."""
        self.menu.clear()
        items = read_recent(self.path)
        for item in items:
            action = self.menu.addAction(item)
            action.triggered.connect(lambda _checked=False, p=item: self._open_later(Path(p)))
        self.menu.setEnabled(bool(items))

    def folder(self, skip: Path | None = None) -> Path:
        """Where a file dialog starts: the folder of the spec opened or saved last (other
        than ``skip``), else the documents folder (never the directory the app was
        started in)."""
        for item in read_recent(self.path):
            parent = Path(item).parent
            if parent.is_dir() and parent != skip:
                return parent
        return user_documents_dir()

    def remember(self, path: Path | None) -> None:
        """Put ``path`` first."""
        if path is None:
            return
        text = str(Path(path).resolve())
        items = [text, *(p for p in read_recent(self.path) if p != text)]
        try:
            write_recent(self.path, items)
        except OSError as exc:
            self._say(f"Could not update recent specs: {exc}")
        self.fill()
