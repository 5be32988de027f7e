"""Selecting values in a JSON document: JSON Pointer (RFC 6901) and a JSONPath subset.

A path starting with ``/`` (or the empty path, the whole document) is a JSON Pointer:
``/result/status/state``, ``/result/artifacts/0``, ``~1`` and ``~0`` escaping ``/`` and
``~``. A path starting with ``$`` is JSONPath (RFC 9535) restricted to what assertions
need: ``.name``, ``['name']``, ``[N]`` (negative from the end), ``[*]`` and ``.*``:
``$.result.artifacts[0].parts[*].text``. No filters, slices or recursive descent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_SEGMENT = re.compile(
    r"""\.(?P<name>[A-Za-z_$][\w$-]*)      # .name
      | \.\*                               # .*
      | \[\s*(?P<index>-?\d+)\s*\]         # [0], [-1]
      | \[\s*\*\s*\]                       # [*]
      | \[\s*'(?P<quoted>(?:[^'\\]|\\.)*)'\s*\]   # ['name']
      | \[\s*"(?P<dquoted>(?:[^"\\]|\\.)*)"\s*\]  # ["name"]
    """,
    re.VERBOSE,
)
_WILDCARD = object()


class PathError(ValueError):
    """A path that is neither a JSON Pointer nor in the supported JSONPath subset."""


@dataclass(frozen=True, slots=True)
class Selection:
    """What a path selected: ``values`` (none when nothing is there); ``multiple`` when the
    path has a wildcard, so the value it stands for is the list of every match."""

    values: tuple[Any, ...]
    multiple: bool

    @property
    def found(self) -> bool:
        return bool(self.values) or self.multiple

    @property
    def value(self) -> Any:
        """The selected value: the list of matches for a wildcard path, else the one match
        (None when nothing matched: check :attr:`found` first)."""
        if self.multiple:
            return list(self.values)
        return self.values[0] if self.values else None


def parse_path(path: str) -> tuple[object, ...]:
    """``path`` as steps: str keys, int indexes and the wildcard.

    Raises:
        PathError: the path is neither form (the message says where it stops making sense).
    """
    if path == "" or path.startswith("/"):
        if path == "":
            return ()
        return tuple(part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/"))
    if not path.startswith("$"):
        raise PathError(f"{path!r}: a path starts with '/' (JSON Pointer) or '$' (JSONPath)")
    steps: list[object] = []
    pos = 1
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise PathError(f"{path!r}: unsupported JSONPath at {path[pos:]!r}")
        if match.group("name") is not None:
            steps.append(match.group("name"))
        elif match.group("index") is not None:
            steps.append(int(match.group("index")))
        elif match.group("quoted") is not None:
            steps.append(re.sub(r"\\(.)", r"\1", match.group("quoted")))
        elif match.group("dquoted") is not None:
            steps.append(re.sub(r"\\(.)", r"\1", match.group("dquoted")))
        else:
            steps.append(_WILDCARD)
        pos = match.end()
    return tuple(steps)


def select(document: Any, path: str) -> Selection:
    """The values ``path`` selects in ``document``.

    A JSON Pointer step on an array must be an index (``0``, not ``-``); JSONPath ``[N]``
    steps count from the end when negative.

    Raises:
        PathError: as :func:`parse_path`.
    """
    steps = parse_path(path)
    pointer = not path.startswith("$")
    current: list[Any] = [document]
    multiple = False
    for step in steps:
        following: list[Any] = []
        for node in current:
            if step is _WILDCARD:
                multiple = True
                if isinstance(node, dict):
                    following.extend(node.values())
                elif isinstance(node, list):
                    following.extend(node)
            elif isinstance(node, dict) and isinstance(step, str) and step in node:
                following.append(node[step])
            elif isinstance(node, list):
                index = _index(step, len(node), pointer)
                if index is not None:
                    following.append(node[index])
        current = following
    return Selection(tuple(current), multiple)


def _index(step: object, length: int, pointer: bool) -> int | None:
    if pointer:
        if not isinstance(step, str) or not re.fullmatch(r"0|[1-9]\d*", step):
            return None
        index = int(step)
    elif isinstance(step, int):
        index = step + length if step < 0 else step
    else:
        return None
    return index if 0 <= index < length else None
