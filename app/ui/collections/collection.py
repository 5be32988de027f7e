"""One open collection of the spec dock: a spec document, its environments and how its
tree was left. Qt-free; :mod:`app.ui.collections.spec_dock` keeps the open ones in order.

A collection is a spec file (``document.path``) or a document without a file yet: an
import or *File → New collection*. Its *unsaved* mark shows while it has no file or holds
changes its file does not (environments edited where they cannot be written: the bundled
example, an OpenAPI 3.0/3.1 document opened read-only).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from app.spec.document import SpecDocument
from app.spec.environments import Environment
from app.spec.save import same_file

ROOT_NODE = ""
"""The collection's own row among :attr:`Collection.collapsed` (its tags are the others)."""

_keys = itertools.count(1)


@dataclass(eq=False)
class Collection:
    """An open collection.

    Attributes:
        document: the document as last read or written.
        key: stable for as long as the collection is open (a file can be saved under
            another name, and a document without one needs an identity too).
        environments: the document's named environments, with the secret values loaded
            this session; the selected one is ``active`` ("" for none).
        pending: the document or its environments hold changes that are in no file.
        collapsed: the tree rows the user collapsed: :data:`ROOT_NODE` or a tag.
    """

    document: SpecDocument
    key: str = field(default_factory=lambda: f"collection-{next(_keys)}")
    environments: list[Environment] = field(default_factory=list)
    active: str = ""
    pending: bool = False
    collapsed: set[str] = field(default_factory=set)

    @property
    def path(self) -> Path | None:
        """The spec file, None before the first save."""
        return self.document.path

    @property
    def name(self) -> str:
        """What the tree calls it: the document's ``info.title``, else its file name."""
        info = self.document.data.get("info")
        title = info.get("title") if isinstance(info, dict) else None
        if isinstance(title, str) and title.strip():
            return title.strip()
        return self.path.name if self.path is not None else "Untitled collection"

    @property
    def unsaved(self) -> bool:
        """Whether the tree marks it unsaved (no file yet, or changes the file lacks)."""
        return self.path is None or self.pending

    @property
    def has_work(self) -> bool:
        """Whether closing it loses something: unsaved changes, or a document without a
        file that holds requests or environments (an empty *New collection* holds none)."""
        if self.pending:
            return True
        return self.path is None and bool(self.document.operations() or self.environments)

    def is_file(self, path: Path | None) -> bool:
        """Whether this collection is the spec file ``path``."""
        return path is not None and self.path is not None and same_file(self.path, path)

    def writable(self, protected: Path) -> bool:
        """Whether saves and edits may write its file (not the example, not read-only)."""
        return (
            self.path is not None
            and not self.document.read_only
            and not same_file(self.path, protected)
        )


def new_title(taken: list[str], base: str = "New collection") -> str:
    """``base``, or ``base 2``, ``base 3``… whichever no open collection is called."""
    if base not in taken:
        return base
    return next(f"{base} {n}" for n in itertools.count(2) if f"{base} {n}" not in taken)
