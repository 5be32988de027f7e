"""Managing the saved requests of a document: rename, duplicate, delete (and put back),
move to another tag. Qt-free; the spec tree runs these on a copy of the open document
and writes it with :func:`app.spec.save.save_edit`.

An operation is named by its ``operationId``, which none of these edits change (open tabs
and ``run --operation`` keep finding it). The spec tree groups operations by their first
tag, so *moving* a request to a tag (a folder in other tools) replaces its first tag.
Everything else in the operation — keys this app does not own included — travels with it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from app.spec.document import SavedOperation, SpecDocument, SpecError, unique_operation_id


@dataclass(frozen=True, slots=True)
class Removed:
    """An operation taken out of a document, and where it was (for :func:`restore`).

    ``position`` is the index of its path item among ``paths``; ``whole_item`` says whether
    the path item went with it (it held nothing else).
    """

    operation_id: str
    path: str
    method: str
    operation: dict[str, Any]
    position: int
    whole_item: bool


def _find(doc: SpecDocument, operation_id: str) -> SavedOperation:
    found = doc.find(operation_id)
    if found is None:
        raise SpecError(f"No request with operationId {operation_id!r} in this document")
    return found


def _operation(doc: SpecDocument, operation_id: str) -> dict[str, Any]:
    ref = _find(doc, operation_id).ref
    op: dict[str, Any] = doc.data["paths"][ref.path][ref.method]
    return op


def rename(doc: SpecDocument, operation_id: str, name: str) -> str:
    """Give the request the display name ``name`` (its ``summary``); returns the old one."""
    name = name.strip()
    if not name:
        raise SpecError("A request needs a name")
    op = _operation(doc, operation_id)
    old = str(op.get("summary") or "")
    op["summary"] = name
    return old


def set_tags(doc: SpecDocument, operation_id: str, tags: list[str]) -> list[str]:
    """Replace the request's ``tags`` (declaring new ones at the top level); returns the
    old list."""
    op = _operation(doc, operation_id)
    old = [str(t) for t in op.get("tags") or []]
    op["tags"] = list(tags)
    declare_tags(doc, tags)
    return old


def move(doc: SpecDocument, operation_id: str, tag: str) -> list[str]:
    """Put the request under ``tag`` (its first tag; the others stay); returns the old
    tags."""
    tag = tag.strip()
    if not tag:
        raise SpecError("A tag needs a name")
    old = [str(t) for t in _operation(doc, operation_id).get("tags") or []]
    set_tags(doc, operation_id, [tag, *(t for t in old[1:] if t != tag)])
    return old


def declare_tags(doc: SpecDocument, tags: list[str]) -> None:
    """Add each of ``tags`` missing from the top-level ``tags`` list (OpenAPI tools expect
    every tag an operation uses to be declared there)."""
    declared = doc.data.get("tags")
    if declared is None:
        declared = doc.data["tags"] = []
    if not isinstance(declared, list):
        return
    known = {t.get("name") for t in declared if isinstance(t, dict)}
    for tag in tags:
        if tag not in known:
            declared.append({"name": tag})
            known.add(tag)


def duplicate(doc: SpecDocument, operation_id: str, name: str = "") -> str:
    """Copy the request, right after it, as ``name`` (default: ``<name> copy``) with a new
    ``operationId`` and path; returns the new ``operationId``."""
    found = _find(doc, operation_id)
    op = copy.deepcopy(doc.data["paths"][found.ref.path][found.ref.method])
    title = name.strip() or f"{found.request.name or operation_id} copy"
    new_id = unique_operation_id(title, doc.operation_ids())
    op["operationId"] = new_id
    op["summary"] = title
    paths: dict[str, Any] = doc.data["paths"]
    path = f"/a2a/{new_id}"
    n = 2
    while path in paths:
        path, n = f"/a2a/{new_id}-{n}", n + 1
    _insert_path(doc, list(paths).index(found.ref.path) + 1, path, {found.ref.method: op})
    return new_id


def delete(doc: SpecDocument, operation_id: str) -> Removed:
    """Take the request out of the document; :func:`restore` puts it back where it was."""
    ref = _find(doc, operation_id).ref
    paths: dict[str, Any] = doc.data["paths"]
    item: dict[str, Any] = paths[ref.path]
    position = list(paths).index(ref.path)
    op = item.pop(ref.method)
    whole = not item
    if whole:
        del paths[ref.path]
    return Removed(operation_id, ref.path, ref.method, op, position, whole)


def restore(doc: SpecDocument, removed: Removed) -> None:
    """Put back what :func:`delete` took out (its path item at its old place)."""
    if removed.operation_id in doc.operation_ids():
        raise SpecError(f"operationId {removed.operation_id!r} is in use again")
    paths = doc.data.setdefault("paths", {})
    if removed.whole_item or removed.path not in paths:
        _insert_path(doc, removed.position, removed.path, {removed.method: removed.operation})
    else:
        paths[removed.path][removed.method] = removed.operation


def _insert_path(doc: SpecDocument, position: int, path: str, item: dict[str, Any]) -> None:
    # `paths` keeps file order (the tree shows operations in that order): rebuild it.
    items = list(doc.data.setdefault("paths", {}).items())
    items.insert(min(position, len(items)), (path, item))
    doc.data["paths"] = dict(items)


def tags_in_use(doc: SpecDocument) -> list[str]:
    """The first tags of the document's requests (the spec tree's groups), in file order,
    then the other declared tags."""
    out: list[str] = []
    for op in doc.operations():
        if op.request.tags and op.request.tags[0] not in out:
            out.append(op.request.tags[0])
    for tag in doc.data.get("tags") or []:
        name = tag.get("name") if isinstance(tag, dict) else None
        if isinstance(name, str) and name not in out:
            out.append(name)
    return out
