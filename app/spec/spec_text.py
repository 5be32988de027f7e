"""Reading spec text into JSON-compatible data, and saying what could not be represented.

A spec is JSON data written as YAML or JSON. The reader makes sure that what it hands on
is exactly that, and that nothing the file says is silently dropped:

- Size: a file above :data:`MAX_SPEC_BYTES` is refused before parsing.
- YAML uses a JSON-compatible schema: null, booleans, numbers, strings, lists and objects.
  Unquoted dates stay strings; explicitly tagged values that JSON cannot hold (``!!binary``,
  ``!!set``, ``!!timestamp``, ``!!omap``, custom ``!tags``…) are kept in their plain JSON
  shape (the text, the list, the object) and reported by path. A tag that asks a loader
  to build a program's object (``!!python/object/apply:os.system``, ``!ruby/object:…``)
  is refused outright, naming the tag and its line: such a file was written to run code.
- A key written twice in one object (YAML or JSON) keeps only one value when parsed; each
  duplicate is reported with its path and line.
- Aliases are expanded into independent copies, within limits (``billion laughs``).

Reports of the last two kinds mean the data no longer says what the file says; the
document refuses to save over its file while they stand (see ``SpecDocument.save``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from app.errors import WorkbenchError
from app.protocol.wire import jsonparse

MAX_SPEC_BYTES = 32 * 1024 * 1024
"""The largest spec file opened (32 MiB: a 1 000-operation document is about 5 MiB)."""

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")

if TYPE_CHECKING:
    _BaseLoader = yaml.SafeLoader
else:  # the C loader is ~10x faster where libyaml is available
    _BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# The tags whose values are JSON values (merge is the ``<<`` key, not a value).
_JSON_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("null", "bool", "int", "float", "str", "seq", "map")
)
_MERGE_TAG = "tag:yaml.org,2002:merge"
# YAML 1.1's type repository (yaml.org/type): any other tag of its namespace names a
# language's object (PyYAML's python/*, and java, ruby, perl, php, js in other loaders).
_YAML_TYPES = frozenset(
    ("binary", "bool", "float", "int", "map", "merge", "null", "omap", "pairs", "seq", "set",
     "str", "timestamp", "value", "yaml")
)  # fmt: skip
_LANGUAGE_TAG = re.compile(r"^!(python|ruby|java|perl|php|js|javascript)\b", re.IGNORECASE)


class SpecError(WorkbenchError):
    """The file cannot be opened as an OpenAPI document; the message names the place.

    Raised by :func:`parse_text` / ``app.spec.document.load`` (unreadable file, not YAML or
    JSON, not an OpenAPI 3.x object) and by ``SpecDocument.save`` when saving would lose
    what the file holds. Caught by ``app.commands.run`` (usage error, exit 3) and by the
    spec dock and the save pipeline (``app.spec.save``), which show it in the message bar.
    """


@dataclass(frozen=True, slots=True)
class Unrepresented:
    """Something in the file the parsed data does not hold as written."""

    json_path: str
    line: int | None
    message: str


class JsonLoader(_BaseLoader):
    """PyYAML's safe loader resolving plain scalars to JSON types only (no timestamps).

    YAML 1.1 booleans (``yes``/``on``) and numbers resolve as they always did; values of
    non-JSON tags are built by node kind (see :func:`_by_kind`).
    """


# Every implicit resolver of the safe loader except timestamps: an unquoted date stays text.
JsonLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _by_kind(loader: Any, node: yaml.Node) -> Any:
    """A non-JSON tagged value as its plain JSON shape: the text, the list, the object."""
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


for _tag in ("binary", "timestamp", "omap", "pairs", "set"):
    JsonLoader.add_constructor("tag:yaml.org,2002:" + _tag, _by_kind)
JsonLoader.add_constructor(None, _by_kind)


# --- reading files ---------------------------------------------------------------------


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``, refused above :data:`MAX_SPEC_BYTES` before reading.

    Raises:
        SpecError: unreadable, not UTF-8, or too large.
    """
    try:
        with path.open("rb") as fh:
            size = _file_size(fh.fileno())
            if size > MAX_SPEC_BYTES:
                raise SpecError(_too_large(str(path), size))
            raw = fh.read(MAX_SPEC_BYTES + 1)  # the file may grow while it is read
    except OSError as exc:
        raise SpecError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(_too_large(str(path), len(raw)))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"Cannot read {path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc


def _file_size(fd: int) -> int:
    import os

    return os.fstat(fd).st_size


def _too_large(name: str, size: int) -> str:
    return (
        f"{name}: the file is {size / 2**20:.1f} MiB; specs larger than "
        f"{MAX_SPEC_BYTES // 2**20} MiB are not opened"
    )


def check_size(text: str, name: str) -> None:
    """Refuse text above :data:`MAX_SPEC_BYTES` (counted in characters, a lower bound of
    its UTF-8 size, so no copy is made)."""
    if len(text) > MAX_SPEC_BYTES:
        raise SpecError(_too_large(name, len(text)))


# --- JSON ------------------------------------------------------------------------------


def parse_json(text: str, name: str) -> tuple[Any, list[Unrepresented]]:
    """Parse JSON text; duplicate keys are reported (with their line when the text also
    composes as YAML, as most JSON does).

    Raises:
        SpecError: invalid JSON (line and column), too deep, or a number Python refuses.
    """
    duplicates: dict[int, list[str]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                duplicates.setdefault(id(out), []).append(key)
            out[key] = value
        return out

    try:
        data = jsonparse.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        hint = ""
        if re.search(r"(^|\s)(//|/\*)", text):
            hint = " (JSON does not allow comments; remove them or save the file as YAML)"
        raise SpecError(
            f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}"
        ) from exc
    except RecursionError as exc:
        raise SpecError(f"{name}: JSON nested too deeply to open") from exc
    except ValueError as exc:  # outside the JSON limits (jsonparse.JsonLimitError)
        raise SpecError(f"{name}: a value cannot be read: {exc}") from exc
    if not duplicates:
        return data, []
    try:
        # JSON is YAML but for tabs, which JSON allows between tokens only: as spaces the
        # text means the same, on the same lines, and every duplicate gets its two lines.
        node = yaml.compose(text.replace("\t", " "), Loader=JsonLoader)
    except (yaml.YAMLError, RecursionError):
        node = None
    if node is not None:
        found = [u for u in scan_nodes(node, name) if "written twice" in u.message]
        if found:
            return data, found
    return data, [
        Unrepresented(f"{place}.{key}" if place else key, None, _DUPLICATE)
        for place, keys in _dict_paths(data, duplicates)
        for key in keys
    ]


_DUPLICATE = "key written twice in one object; only the last value was read"


def _dict_paths(data: Any, wanted: dict[int, list[str]]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        place, node = stack.pop()
        if isinstance(node, dict):
            if id(node) in wanted:
                out.append((place, wanted[id(node)]))
            for key, value in node.items():
                stack.append((f"{place}.{key}" if place else str(key), value))
        elif isinstance(node, list):
            stack.extend((f"{place}[{i}]", v) for i, v in enumerate(node))
    return out


# --- YAML ------------------------------------------------------------------------------


def parse_yaml(text: str, name: str) -> tuple[Any, list[Unrepresented]]:
    """Parse YAML text with the JSON-compatible schema; aliases are expanded into
    independent copies, within limits.

    The node graph is composed first (aliases are shared nodes there) and measured with
    :func:`check_alias_expansion` before anything is copied, so a "billion laughs"
    document is refused in milliseconds instead of eating memory. The same graph is
    scanned for duplicate keys and non-JSON values (:func:`scan_nodes`).

    Raises:
        SpecError: invalid YAML (line and column), or aliases beyond the limits.
    """
    try:
        loader = JsonLoader(text)  # the C loader encodes the text to UTF-8 first
    except UnicodeEncodeError as exc:
        raise SpecError(f"{name}: not UTF-8 text: {exc.reason} at character {exc.start}") from exc
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        shared = _may_alias(text)
        if shared:
            check_alias_expansion(node, name)
        found = scan_nodes(node, name)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "syntax error"
        raise SpecError(f"{name}: invalid YAML{where}: {problem}") from exc
    except yaml.YAMLError as exc:
        raise SpecError(f"{name}: invalid YAML: {exc}") from exc
    except RecursionError as exc:
        raise SpecError(f"{name}: YAML nested too deeply to open") from exc
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise SpecError(f"{name}: a value cannot be read: {exc}") from exc
    finally:
        loader.dispose()
    return (_unshare(data) if shared else data), found


def scan_nodes(root: yaml.Node, name: str = "<text>") -> list[Unrepresented]:
    """Duplicate keys and non-JSON values in a composed YAML graph, by path and line.

    Each node is visited once (an aliased node is reported where it is first written).

    Raises:
        SpecError: a tag that builds a program object (:func:`_builds_objects`).
    """
    found: list[Unrepresented] = []
    seen: set[int] = set()
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    while stack:
        place, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        line = node.start_mark.line + 1 if node.start_mark else None
        if node.tag not in _JSON_TAGS:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            if _builds_objects(node.tag):
                raise SpecError(
                    f"{name}: line {line}: the YAML tag {tag} asks a loader to build a "
                    "program object (and run its code); a spec holds data only, so the "
                    "file is not opened"
                )
            found.append(
                Unrepresented(
                    place or "(document)",
                    line,
                    f"{tag} is not a JSON value; it was read as its plain "
                    f"{_shape(node)} and cannot be saved as written",
                )
            )
        if isinstance(node, yaml.SequenceNode):
            for i, child in reversed(list(enumerate(node.value))):
                stack.append((f"{place}[{i}]", child))
        elif isinstance(node, yaml.MappingNode):
            keys: dict[tuple[str, str], int] = {}
            children = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    children.append((place, value_node))  # merged keys are not duplicates
                    continue
                if not isinstance(key_node, yaml.ScalarNode):
                    continue  # refused when the mapping is constructed (unhashable key)
                child = f"{place}.{key_node.value}" if place else str(key_node.value)
                key = (key_node.tag, key_node.value)
                key_line = key_node.start_mark.line + 1
                if key in keys:
                    found.append(
                        Unrepresented(
                            child,
                            key_line,
                            f"key written twice in one object (also at line {keys[key]}); "
                            "only the last value was read",
                        )
                    )
                else:
                    keys[key] = key_line
                children.append((child, value_node))
            stack.extend(reversed(children))
    found.sort(key=lambda u: u.line or 0)
    return found


def _builds_objects(tag: str) -> bool:
    """Whether ``tag`` names a programming language's object rather than a YAML type."""
    if tag.startswith("tag:yaml.org,2002:"):
        kind = tag.removeprefix("tag:yaml.org,2002:")
        return kind.split(":", 1)[0] not in _YAML_TYPES
    return bool(_LANGUAGE_TAG.match(tag))


def _shape(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return "text"
    return "list" if isinstance(node, yaml.SequenceNode) else "object"


def _may_alias(text: str) -> bool:
    return bool(re.search(r"(^|[\s\[{,:-])[&*][^\s]", text))


# Limits on what YAML aliases may add when they are expanded into copies (see
# check_alias_expansion). Hand-written anchors (shared defaults, a reused example or
# schema) stay far below them; "billion laughs" documents go far above.
ALIAS_GROWTH_PER_NODE = 50
"""Aliases may add at most this many nodes per node written in the file…"""
ALIAS_GROWTH_MIN = 1_000_000
"""…but always at least this many…"""
ALIAS_GROWTH_MAX = 5_000_000
"""…and never more than this many."""
MAX_EXPANDED_DEPTH = 400
"""Nesting depth of the expanded document (aliases inside aliases can deepen it)."""


def check_alias_expansion(root: yaml.Node, name: str = "<text>") -> tuple[int, int]:
    """Measure the document ``root`` would become once every alias is copied, without
    copying anything: each node's expanded size and depth are computed once (memoized)
    over the composed node graph, where an alias is the anchored node itself.

    Returns:
        ``(written, expanded)`` node counts.

    Raises:
        SpecError: a recursive alias (a node that contains itself), aliases adding more
            than ``min(ALIAS_GROWTH_MAX, max(ALIAS_GROWTH_MIN, ALIAS_GROWTH_PER_NODE ×
            written))`` nodes, or an expanded depth above ``MAX_EXPANDED_DEPTH``.
    """
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    # Iterative post-order walk: (node, children already pushed?).
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            on_path.discard(key)
            continue
        if key in size:
            continue
        on_path.add(key)
        stack.append((node, True))
        for kid in _children(node):
            kid_key = id(kid)
            if kid_key in on_path:  # an alias inside the node it refers to
                line = kid.start_mark.line + 1 if kid.start_mark else "?"
                raise SpecError(
                    f"{name}: the YAML anchor at line {line} is aliased inside itself "
                    "(a recursive structure cannot be opened)"
                )
            if kid_key not in size:
                stack.append((kid, False))
    written, expanded = len(size), size[id(root)]
    allowed = min(ALIAS_GROWTH_MAX, max(ALIAS_GROWTH_MIN, ALIAS_GROWTH_PER_NODE * written))
    if expanded - written > allowed:
        raise SpecError(
            f"{name}: YAML aliases would expand the document's {written:,} nodes to "
            f"{expanded:,} (more than {allowed:,} added); refusing to open it "
            '(a "billion laughs" document?)'
        )
    if depth[id(root)] > MAX_EXPANDED_DEPTH:
        raise SpecError(
            f"{name}: YAML aliases nest the document {depth[id(root)]:,} levels deep "
            f"(at most {MAX_EXPANDED_DEPTH}); refusing to open it"
        )
    return written, expanded


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _unshare(node: Any) -> Any:
    """Copy a tree so that aliased (shared) nodes become independent values."""
    if isinstance(node, dict):
        return {k: _unshare(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_unshare(v) for v in node]
    return node


# --- finding lines -----------------------------------------------------------------------


def locate(text: str, json_path: str) -> int | None:
    """The 1-based line of ``json_path`` (dot-separated keys) in YAML ``text``, if found.

    Composes the YAML node tree only when asked, so loading stays fast.
    """
    return locate_in(compose(text), json_path)


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree of ``text``; None when it does not compose."""
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=JsonLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    return node


def locate_in(node: yaml.Node | None, json_path: str) -> int | None:
    """:func:`locate` in an already composed YAML node tree."""
    keys = _split_path(json_path)
    line = None
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            break
        for k_node, v_node in node.value:
            if isinstance(k_node, yaml.ScalarNode) and k_node.value == key:
                line = k_node.start_mark.line + 1
                node = v_node
                break
        else:
            break
    return line


def _split_path(json_path: str) -> list[str]:
    # Path keys start with '/' and may contain dots; rebuild them from the pieces.
    parts = json_path.split(".")
    keys: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if keys and keys[-1] == "paths" and part.startswith("/"):
            # Greedily join until the next piece is an HTTP method.
            j = i + 1
            while j < len(parts) and parts[j] not in HTTP_METHODS:
                j += 1
            keys.append(".".join(parts[i:j]))
            i = j
            continue
        keys.append(re.sub(r"\[\d+\]$", "", part))
        i += 1
    return keys
