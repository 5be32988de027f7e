"""Message parts the user attaches (files and data), in the three wire dialects.

A :class:`Attachment` is what the request form holds: a file read into memory (sent inline
as base64 bytes), a file referred to by URI, or a JSON data part. :func:`to_part` turns it
into the part object of the tab's dialect (docs/PROTOCOL.md §5.2), field names as in the
official protobuf descriptors of ``a2a-sdk``:

- 1.0 (every binding, ``lf.a2a.v1.Part``): one of ``raw`` (bytes, base64) / ``url`` /
  ``data`` plus ``mediaType`` and ``filename``;
- 0.3 JSON-RPC: ``{"kind": "file", "file": {"bytes"|"uri", "mimeType", "name"}}`` and
  ``{"kind": "data", "data": {…}}``;
- 0.3 REST/gRPC (``a2a.v1.Part`` of the 0.3 proto): ``{"file": {"fileWithBytes"|
  "fileWithUri", "mimeType", "name"}}`` and ``{"data": {"data": {…}}}``.

Inline files are bounded (:data:`MAX_INLINE_BYTES`); the base64 text lands in the body the
user sees and edits, so a large one is worth a warning (:data:`LARGE_INLINE_BYTES`).
"""

from __future__ import annotations

import base64
import json
import mimetypes
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from app.errors import UsageError
from app.protocol.bindings import traits
from app.protocol.types import Binding, ProtocolVersion

MAX_INLINE_BYTES = 10 * 1024 * 1024
"""The largest file sent inline (10 MiB); bigger ones must go by URI."""

LARGE_INLINE_BYTES = 1024 * 1024
"""Inline files from this size on get a warning (the body grows by 4/3 of it)."""

OCTET_STREAM = "application/octet-stream"
JSON_MEDIA_TYPE = "application/json"

# Leading bytes of common formats: the file's content decides over a misleading extension.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
)


class PartKind(StrEnum):
    """The kinds of part an :class:`Attachment` becomes (text parts come from the template)."""

    FILE = "file"
    DATA = "data"


class Dialect(StrEnum):
    """The part shapes of docs/PROTOCOL.md §5.2."""

    V1 = "1.0"
    V03_JSONRPC = "0.3 JSON-RPC"
    V03_PROTO = "0.3 proto"


def dialect_of(version: ProtocolVersion, binding: Binding) -> Dialect:
    """The part shape (and, in 0.3, the schema) a tab of ``version`` over ``binding`` sends:
    0.3 JSON-RPC payloads follow the JSON-RPC schema, the others the 0.3 proto."""
    if version is ProtocolVersion.V1_0:
        return Dialect.V1
    return Dialect.V03_JSONRPC if traits(binding).payload.envelope else Dialect.V03_PROTO


@dataclass(frozen=True, slots=True)
class Attachment:
    """One part the user added to the message.

    Attributes:
        kind: file or data.
        name: the file name sent (``filename`` / ``name``); "" for none.
        media_type: the media type sent ("" for a data part: the shapes have none for it).
        raw: the file's bytes when sent inline, else None.
        uri: the file's URI when sent by reference, else "".
        data: the JSON value of a data part.
    """

    kind: PartKind
    name: str = ""
    media_type: str = ""
    raw: bytes | None = None
    uri: str = ""
    data: Any = None

    @property
    def size(self) -> int | None:
        """Bytes sent inline (None for a URI or data part)."""
        return None if self.raw is None else len(self.raw)

    @property
    def accepted_type(self) -> str:
        """The media type checked against the card's input modes."""
        return JSON_MEDIA_TYPE if self.kind is PartKind.DATA else self.media_type or OCTET_STREAM

    def label(self) -> str:
        """A one-line description for the attachment list."""
        if self.kind is PartKind.DATA:
            return f"data part ({_short_json(self.data)})"
        where = f"{format_size(len(self.raw))} inline" if self.raw is not None else self.uri
        return f"{self.name or 'file'} — {self.media_type or OCTET_STREAM}, {where}"


def detect_media_type(name: str, head: bytes = b"") -> str:
    """The media type of a file called ``name`` starting with ``head``: a known signature
    first, then the extension (:mod:`mimetypes`), else ``application/octet-stream``."""
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    guessed, _encoding = mimetypes.guess_type(name, strict=False)
    return guessed or OCTET_STREAM


def file_attachment(path: Path, *, limit: int = MAX_INLINE_BYTES) -> Attachment:
    """``path`` read for sending inline, its media type detected.

    Raises:
        UsageError: the file cannot be read, or is larger than ``limit`` bytes.
    """
    try:
        size = path.stat().st_size
        if size > limit:
            raise UsageError(
                f"{path.name} is {format_size(size)}; files over {format_size(limit)} are not"
                " sent inline — attach it by URI instead"
            )
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    if len(raw) > limit:  # it grew since stat()
        raise UsageError(f"{path.name} is over {format_size(limit)}; attach it by URI instead")
    return Attachment(PartKind.FILE, path.name, detect_media_type(path.name, raw[:16]), raw=raw)


def uri_attachment(uri: str, media_type: str = "", name: str = "") -> Attachment:
    """A file part by reference; the media type is guessed from the URI's path if not given.

    Raises:
        UsageError: ``uri`` is empty.
    """
    uri = uri.strip()
    if not uri:
        raise UsageError("A file part by URI needs a URI")
    tail = uri.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return Attachment(PartKind.FILE, name or tail, media_type or detect_media_type(tail), uri=uri)


def data_attachment(text: str) -> Attachment:
    """A data part from JSON text (an object: the 0.3 shapes allow nothing else).

    Raises:
        UsageError: the text is not JSON or not an object.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"The data part is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from exc
    except RecursionError:
        raise UsageError("The data part is nested too deeply to parse") from None
    if not isinstance(value, dict):
        raise UsageError("A data part must be a JSON object")
    return Attachment(PartKind.DATA, data=value)


def size_warning(attachment: Attachment) -> str:
    """A warning for an inline file that makes the body large, else ""."""
    size = attachment.size
    if size is None or size < LARGE_INLINE_BYTES:
        return ""
    return (
        f"{attachment.name or 'the file'} is {format_size(size)}: the body carries it as"
        f" about {format_size(size * 4 // 3)} of base64"
    )


def to_part(attachment: Attachment, dialect: Dialect) -> dict[str, Any]:
    """The part object of ``attachment`` in ``dialect`` (ProtoJSON for the proto shapes)."""
    if attachment.kind is PartKind.DATA:
        if dialect is Dialect.V1:
            return {"data": attachment.data}
        if dialect is Dialect.V03_JSONRPC:
            return {"kind": "data", "data": attachment.data}
        return {"data": {"data": attachment.data}}
    encoded = (
        base64.b64encode(attachment.raw).decode("ascii") if attachment.raw is not None else None
    )
    if dialect is Dialect.V1:
        part: dict[str, Any] = {"raw": encoded} if encoded is not None else {"url": attachment.uri}
        return _put(part, mediaType=attachment.media_type, filename=attachment.name)
    if dialect is Dialect.V03_JSONRPC:
        file = {"bytes": encoded} if encoded is not None else {"uri": attachment.uri}
        return {
            "kind": "file",
            "file": _put(file, mimeType=attachment.media_type, name=attachment.name),
        }
    file = {"fileWithBytes": encoded} if encoded is not None else {"fileWithUri": attachment.uri}
    return {"file": _put(file, mimeType=attachment.media_type, name=attachment.name)}


def parts_of(attachments: tuple[Attachment, ...], dialect: Dialect) -> list[dict[str, Any]]:
    """Every attachment as a part of ``dialect``, in order."""
    return [to_part(attachment, dialect) for attachment in attachments]


def accepts(media_type: str, modes: tuple[str, ...]) -> bool:
    """Whether ``media_type`` matches one of ``modes`` (``type/*`` and ``*/*`` wildcards;
    parameters such as ``; charset=utf-8`` ignored). No modes: nothing is said, accepted."""
    if not modes:
        return True
    kind = media_type.split(";", 1)[0].strip().lower()
    major = kind.split("/", 1)[0]
    for mode in modes:
        mode = mode.split(";", 1)[0].strip().lower()
        if mode in (kind, "*/*", "*") or mode == f"{major}/*":
            return True
    return False


def format_size(size: int) -> str:
    """``size`` bytes for people: ``512 B``, ``1.5 KiB``, ``10.0 MiB``."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            return f"{value:.1f} {unit}"
    return f"{size} B"  # pragma: no cover - the loop always returns


def _put(target: dict[str, Any], **fields: str) -> dict[str, Any]:
    # Empty strings are left out, as ProtoJSON leaves out fields at their default.
    target.update({key: value for key, value in fields.items() if value})
    return target


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 40 else text[:39] + "…"
