"""Artifacts and their parts read out of results and stream items, in every dialect.

A result (JSON-RPC envelope, REST body or gRPC message) or one stream item is searched for
the artifacts it carries: a Task's ``artifacts``, an artifact update's ``artifact``, and the
parts of a Message result (shown like an artifact, so that a file sent back in a plain reply
can be saved too). Parts are normalised to :class:`PartView` from the three shapes of
docs/PROTOCOL.md §5.2 (1.0 ``text``/``raw``/``url``/``data``; 0.3 JSON-RPC ``kind``; 0.3
proto ``file.fileWithBytes``/``fileWithUri``, ``data.data``). Nothing here ever opens or
runs what it reads; bytes are only decoded from base64.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, replace
from typing import Any

from app.protocol.methods.parts import JSON_MEDIA_TYPE, OCTET_STREAM

TEXT = "text"
FILE = "file"
DATA = "data"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class PartView:
    """One part as shown.

    Attributes:
        kind: ``text``, ``file`` or ``data`` (``unknown`` for a part of no known shape).
        text: the text of a text part.
        data: the JSON value of a data part (the whole part object for an unknown one).
        raw: a file's bytes when it came inline (None when by URI or not decodable).
        uri: a file's URI when it came by reference.
        media_type, name: as the part says ("" when it says nothing).
        problem: why the bytes could not be read ("" when they could).
    """

    kind: str
    text: str = ""
    data: Any = None
    raw: bytes | None = None
    uri: str = ""
    media_type: str = ""
    name: str = ""
    problem: str = ""

    @property
    def is_image(self) -> bool:
        """Whether the part is an inline image (previewed, never executed)."""
        return self.raw is not None and self.media_type.lower().startswith("image/")

    @property
    def size(self) -> int | None:
        """Bytes of an inline file; None otherwise."""
        return None if self.raw is None else len(self.raw)


@dataclass(frozen=True, slots=True)
class ArtifactView:
    """One artifact (or a Message's parts) as found in a result or stream item.

    Attributes:
        artifact_id, name, description: as the artifact says ("" for a Message).
        parts: its parts in order.
        source: where it was found (``result``, ``stream item 3``).
        append: an artifact update with ``append: true`` (a chunk of an earlier artifact).
    """

    artifact_id: str
    name: str
    parts: tuple[PartView, ...]
    source: str = "result"
    description: str = ""
    append: bool = False

    def title(self) -> str:
        """``name`` else the id else ``message``, for the list."""
        return self.name or self.artifact_id or "message"


def artifacts_in(value: Any, source: str = "result") -> list[ArtifactView]:
    """The artifacts ``value`` carries (a whole response body or one stream item)."""
    return artifacts_up_to(value, source, None)[0]


_STATUS_WRAPPERS = frozenset(("statusUpdate", "status_update"))


def may_carry_artifacts(value: Any) -> bool:
    """False when ``value`` is surely without artifacts: a status update in its one-key
    wrapper, alone or in a JSON-RPC envelope (the bulk of a long stream; :func:`_collect`
    looks into no such wrapper). True when it may carry some."""
    if type(value) is dict and "jsonrpc" in value and "result" in value:
        value = value["result"]
    return not (type(value) is dict and len(value) == 1 and not _STATUS_WRAPPERS.isdisjoint(value))


def artifacts_up_to(value: Any, source: str, limit: int | None) -> tuple[list[ArtifactView], int]:
    """:func:`artifacts_in`, but of a task's artifact list only the first ``limit`` are read
    (a result with 20 000 artifacts costs half a second to read whole); returns them and how
    many were left unread."""
    found: list[ArtifactView] = []
    skipped = [0]
    _collect(_unwrap_envelope(value), source, found, depth=0, limit=limit, skipped=skipped)
    return found, skipped[0]


def merge(
    known: list[ArtifactView],
    artifact: ArtifactView,
    positions: dict[str, int] | None = None,
) -> tuple[int, bool]:
    """Fold ``artifact`` into ``known`` (in place) as A2A artifact updates mean it: with
    ``append`` its parts extend the artifact of the same ``artifactId``; without, it
    replaces that artifact (a Task snapshot repeats what updates sent). Returns the index
    it landed at and whether it is new. Artifacts without an id are always new.

    ``positions`` (artifactId → index in ``known``, kept up to date here) makes the lookup
    constant-time: a Task may carry tens of thousands of artifacts."""
    if positions is None:
        positions = {a.artifact_id: i for i, a in enumerate(known) if a.artifact_id}
    index = positions.get(artifact.artifact_id) if artifact.artifact_id else None
    if index is not None:
        old = known[index]
        if artifact.append:
            artifact = replace(
                old, parts=old.parts + artifact.parts, source=artifact.source, append=True
            )
        known[index] = artifact
        return index, False
    known.append(artifact)
    if artifact.artifact_id:
        positions[artifact.artifact_id] = len(known) - 1
    return len(known) - 1, True


def read_part(part: Any) -> PartView:
    """``part`` (any dialect) as a :class:`PartView`."""
    if not isinstance(part, dict):
        return PartView(UNKNOWN, data=part)
    kind = part.get("kind")
    if isinstance(part.get("text"), str) and kind in (None, "text"):
        return PartView(TEXT, text=part["text"])
    if "raw" in part or "url" in part:  # 1.0
        return _file(part.get("raw"), part.get("url"), part.get("mediaType"), part.get("filename"))
    file = part.get("file")
    if isinstance(file, dict):
        if kind == "file" or "bytes" in file or "uri" in file:  # 0.3 JSON-RPC
            return _file(file.get("bytes"), file.get("uri"), file.get("mimeType"), file.get("name"))
        return _file(  # 0.3 proto
            file.get("fileWithBytes"), file.get("fileWithUri"), file.get("mimeType"),
            file.get("name"),
        )  # fmt: skip
    if "data" in part:
        data = part["data"]
        if kind is None and isinstance(data, dict) and set(data) == {"data"}:
            data = data["data"]  # 0.3 proto DataPart wrapper
        media = part.get("mediaType")
        return PartView(DATA, data=data, media_type=media if isinstance(media, str) else "")
    return PartView(UNKNOWN, data=part)


def suggested_name(part: PartView, index: int) -> str:
    """A file name for *Save as…*: the part's own name (without any directory), else
    ``part-<index>`` with an extension that fits its kind."""
    name = part.name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if name and name not in (".", ".."):
        return name
    if part.kind == TEXT:
        return f"part-{index}.txt"
    if part.kind == DATA:
        return f"part-{index}.json"
    return f"part-{index}.bin"


def content_type(part: PartView) -> str:
    """The media type shown for ``part`` (``text/plain`` for text, JSON for data)."""
    if part.kind == TEXT:
        return part.media_type or "text/plain"
    if part.kind == DATA:
        return part.media_type or JSON_MEDIA_TYPE
    return part.media_type or OCTET_STREAM


# --- walking ----------------------------------------------------------------------------

_MAX_DEPTH = 4  # envelope → result → wrapper → task: no artifact sits deeper


def _unwrap_envelope(value: Any) -> Any:
    if isinstance(value, dict) and "jsonrpc" in value and "result" in value:
        return value["result"]
    return value


def _collect(
    value: Any,
    source: str,
    found: list[ArtifactView],
    depth: int,
    limit: int | None = None,
    skipped: list[int] | None = None,
) -> None:
    if depth > _MAX_DEPTH or not isinstance(value, dict):
        return
    if isinstance(value.get("artifacts"), list):  # a Task
        listed = [a for a in value["artifacts"] if isinstance(a, dict)]
        if limit is not None and skipped is not None and len(listed) > limit:
            skipped[0] += len(listed) - limit
            listed = listed[:limit]
        found.extend(_artifact(a, source) for a in listed)
        return
    artifact = value.get("artifact")
    if isinstance(artifact, dict) and ("taskId" in value or "kind" in value):
        found.append(_artifact(artifact, source, append=value.get("append") is True))
        return
    if isinstance(value.get("tasks"), list):  # ListTasks
        for task in value["tasks"]:
            _collect(task, source, found, depth + 1, limit, skipped)
        return
    for key in ("task", "message", "msg", "artifactUpdate"):  # 1.0 / 0.3 proto wrappers
        if isinstance(value.get(key), dict):
            _collect(value[key], source, found, depth + 1, limit, skipped)
            return
    parts = value.get("parts", value.get("content"))
    if isinstance(parts, list) and "messageId" in value:  # a Message
        found.append(ArtifactView("", "", tuple(read_part(p) for p in parts), source))


def _artifact(artifact: dict[str, Any], source: str, *, append: bool = False) -> ArtifactView:
    parts = artifact.get("parts")
    return ArtifactView(
        artifact_id=_str(artifact.get("artifactId")),
        name=_str(artifact.get("name")),
        description=_str(artifact.get("description")),
        parts=tuple(read_part(p) for p in parts) if isinstance(parts, list) else (),
        source=source,
        append=append,
    )


def _file(encoded: Any, uri: Any, media_type: Any, name: Any) -> PartView:
    raw: bytes | None = None
    problem = ""
    if isinstance(encoded, str):
        raw, problem = _decode(encoded)
    return PartView(
        FILE,
        raw=raw,
        uri=_str(uri),
        media_type=_str(media_type),
        name=_str(name),
        problem=problem,
    )


def _decode(text: str) -> tuple[bytes | None, str]:
    # ProtoJSON parsers accept standard and URL-safe base64, with or without padding.
    cleaned = "".join(text.split()).replace("-", "+").replace("_", "/")
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        return base64.b64decode(cleaned, validate=True), ""
    except (binascii.Error, ValueError) as exc:
        return None, f"the bytes are not valid base64 ({exc})"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
