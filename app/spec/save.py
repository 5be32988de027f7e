"""Saving a request into a spec file: choose the target, strip secrets, validate, write.

The GUI runs :func:`save_request` in a worker thread (no Qt here) and shows its
:class:`SaveResult`; the steps are those of *File → Save to spec*:

1. the target's document is the open one (copied), else the file on disk, else a new one
   (an open document without a file yet, an import, is written whole into a new target);
   a read-only document (an example, a converted spec) is written as a new editable file;
2. credential values become ``{{variables}}`` and go to the :class:`SecretStore`;
3. the operation is inserted or updated and validated as OpenAPI 3.2; with errors nothing
   is written unless ``force`` is set;
4. the named environments go into ``x-a2a-environments`` (:mod:`app.spec.environments`),
   their secret values into the :class:`SecretStore`; a new file without environments of
   its own gets those its request's ``{{variables}}`` came from (``carried``), so that
   ``run FILE --env NAME`` can replay what the window sent.

:func:`save_environments` writes only the environments (the Environments dialog's OK);
:func:`save_document` writes a whole document under a new name (*Save collection as…*).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from app.spec import environments as envs
from app.spec.document import (
    OPENAPI_VERSION,
    SpecDocument,
    load,
    validate_operation,
)
from app.spec.environments import Environment
from app.spec.spec_text import SpecError
from app.spec.variables import SecretStore
from app.spec.xa2a import SavedRequest, extract_secrets


@dataclass(frozen=True, slots=True)
class SaveResult:
    """What a save did.

    Attributes:
        doc: the document as written; None when nothing was written (see ``errors``).
        saved: the request as it is stored (``{{variables}}`` for secrets, its operation id).
        errors: OpenAPI validation errors that stopped the save.
        notes: one line per secret stored (where it went).
    """

    doc: SpecDocument | None
    saved: SavedRequest
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def save_target(
    spec_path: Path | None, current: SpecDocument | None, protected: Path
) -> Path | None:
    """Where a request belonging to ``spec_path`` is saved: its spec, else the open
    editable document; None (ask the user) when that is ``protected`` (the example
    bundled with the app, which is never written to) or there is none."""
    path = spec_path
    if path is None and current is not None and not current.read_only:
        path = current.path
    if path is None or same_file(Path(path), protected):
        return None
    return Path(path)


def for_target(saved: SavedRequest, spec_path: Path | None, target: Path) -> SavedRequest:
    """``saved`` as it goes into ``target``: a request saved into another file than its
    own spec becomes a new operation there."""
    if spec_path is None or not same_file(spec_path, target):
        return dataclasses.replace(saved, operation_id="")
    return saved


def save_request(
    saved: SavedRequest,
    target: Path,
    *,
    current: SpecDocument | None,
    store: SecretStore,
    force: bool = False,
    environments: list[Environment] | None = None,
    carried: list[Environment] | None = None,
) -> SaveResult:
    """Insert or update ``saved`` in the spec at ``target`` and write it (blocking).

    ``current`` is the document open in the window; it is copied, never changed.
    ``environments`` (those of ``current``; None: the file's stay as they are) are
    written with it (:func:`app.spec.environments.write`); without them, ``carried`` are
    written when ``target`` is a new file.

    Raises:
        SpecError: the file cannot be read or written.
    """
    new_file = not target.exists()
    doc = _target_document(target, current)
    saved, secrets = extract_secrets(saved)
    # The tab's operation was removed from the file meanwhile: say that this save adds it
    # again rather than creating a second copy without a word.
    gone = saved.operation_id if saved.operation_id and doc.find(saved.operation_id) is None else ""
    saved = doc.upsert(saved)
    errors = validate_operation(doc, saved.operation_id)
    if errors and not force:
        return SaveResult(None, saved, errors)
    notes = [f"{gone} was no longer in the file: added as a new request"] if gone else []
    notes += [store.put(name, value) for name, value in secrets.items()]
    if environments is None and carried and new_file:
        environments, current = carried, None
    if environments is not None:
        same = current is not None and current.path == target
        envs.write(doc.data, environments, replace=same)
        notes += envs.store_secrets(environments, store)
    doc.save(target)
    return SaveResult(doc, saved, [], notes)


def save_environments(
    target: Path,
    environments: list[Environment],
    *,
    current: SpecDocument | None,
    store: SecretStore,
) -> tuple[SpecDocument, list[str]]:
    """Write ``environments`` (those of ``current``, the open document) into the spec at
    ``target`` and their secrets into ``store`` (blocking); returns the document as
    written and one note per secret stored.

    Raises:
        SpecError: the file cannot be read or written, or it is read-only.
    """
    doc = _target_document(target, current)
    if doc.read_only:
        raise SpecError(f"{target} is opened read-only; save a request to a new file first")
    same = current is not None and current.path == target
    envs.write(doc.data, environments, replace=same)
    notes = envs.store_secrets(environments, store)
    doc.save(target)
    return doc, notes


def save_document(
    current: SpecDocument,
    target: Path,
    *,
    environments: list[Environment],
    store: SecretStore,
) -> tuple[SpecDocument, list[str]]:
    """Write all of ``current`` (an import, a new collection, any open document) with
    ``environments`` into ``target``, replacing what the file held (blocking); their
    secret values go to ``store``. ``current`` is copied, never changed; a read-only
    document is written as an editable OpenAPI 3.2 one.

    Returns:
        The document as written and one note per secret stored.

    Raises:
        SpecError: the file cannot be written.
    """
    doc = copy.deepcopy(current)
    fmt = "json" if target.suffix.lower() == ".json" else "yaml"
    if doc.read_only:
        doc = SpecDocument(doc.data, target, fmt)
        doc.data["openapi"] = OPENAPI_VERSION
    doc.notice = ""
    envs.write(doc.data, environments, replace=True)
    notes = envs.store_secrets(environments, store)
    doc.save(target, fmt)  # refuses to write over the file of content it could not read
    return doc, notes


def _target_document(target: Path, current: SpecDocument | None) -> SpecDocument:
    """The document a save into ``target`` starts from (see the module docstring, 1.)."""
    if current is not None and current.path == target:
        doc = copy.deepcopy(current)
    elif current is not None and current.path is None and not target.exists():
        # An unsaved document (an import): its first save writes all of it.
        doc = copy.deepcopy(current)
        doc.path, doc.notice = target, ""
    elif target.exists():
        doc = load(target)
    else:  # a new file: named after it (the spec dock shows the title)
        doc = SpecDocument.new(title=title_for(target), path=target)
    if doc.read_only:
        doc = SpecDocument(doc.data, target, "yaml" if target.suffix != ".json" else "json")
        doc.data["openapi"] = OPENAPI_VERSION
    return doc


T = TypeVar("T")


def title_for(path: Path) -> str:
    """A new document's ``info.title`` from its file name: ``my-agent.a2a.yaml`` → ``my-agent``."""
    name = path.name
    for suffix in (".json", ".yaml", ".yml", ".a2a"):
        name = name.removesuffix(suffix)
    return name or "A2A requests"


def save_edit(current: SpecDocument, change: Callable[[SpecDocument], T]) -> tuple[SpecDocument, T]:
    """Apply ``change`` (an :mod:`app.spec.edit` function) to a copy of ``current`` and
    write the copy over its file, atomically (blocking: the GUI runs it in a worker thread).

    ``current`` is never changed, so a failed edit or write leaves the open document as
    it was.

    Returns:
        The document as written and what ``change`` returned.

    Raises:
        SpecError: the edit is not possible, the document is read-only, or the write failed.
    """
    doc = copy.deepcopy(current)
    result = change(doc)
    doc.save()
    return doc, result


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name the same file (False when either cannot be resolved)."""
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
