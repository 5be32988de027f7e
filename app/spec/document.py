"""OpenAPI 3.2 documents holding saved A2A requests: load, edit, validate, save.

The document is kept as the plain dict tree the YAML/JSON parser produced, so everything
this module does not own — other paths, other ``x-`` keys, unknown members, key order —
survives a load–save round trip untouched. Comments do not survive.

- Reading: YAML (anchors, aliases and ``<<`` merge keys welcome) or JSON (no comments),
  through :mod:`app.spec.spec_text` (JSON-compatible values only, duplicate keys found, a size
  limit). OpenAPI 3.2 opens editable; 3.0 and 3.1 open read-only with an upgrade notice.
- Nothing is fetched: ``$ref`` values leaving the document are reported, never resolved.
- Writing: YAML without anchors/aliases (PyYAML ``safe_load`` reads it back) or JSON,
  atomically (:func:`app.fileio.atomic_write`).

Problems name their place: ``line 12, column 3`` for syntax, a JSON path such as
``paths./a2a/get-task.post.x-a2a.binding`` (plus the line, for YAML) for content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from app.fileio import atomic_write as atomic_write
from app.spec import environments, openapi_meta, operations
from app.spec import spec_text as parse
from app.spec.spec_text import HTTP_METHODS as HTTP_METHODS
from app.spec.spec_text import MAX_SPEC_BYTES as MAX_SPEC_BYTES
from app.spec.spec_text import SpecError as SpecError
from app.spec.spec_text import locate_in
from app.spec.xa2a import X_A2A, SavedRequest, XA2AError, from_x_a2a, merge_x_a2a

OPENAPI_VERSION = "3.2.0"

if TYPE_CHECKING:
    _BaseDumper = yaml.SafeDumper
else:  # the C dumper is much faster where libyaml is available
    _BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):
    """Safe YAML without anchors or aliases; multi-line strings as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str_representer(dumper: Any, data: str) -> Any:
    style = "|" if "\n" in data and not data.startswith((" ", "\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _list_representer(dumper: Any, data: list[Any]) -> Any:
    # Short lists of scalars read best inline: `required: [jsonrpc, method]`.
    flow = (
        0 < len(data) <= 8
        and all(isinstance(v, str | int | float | bool) or v is None for v in data)
        and sum(len(str(v)) + 2 for v in data) <= 60
        and not any(isinstance(v, str) and ("\n" in v or not v) for v in data)
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(str, _str_representer)
_Dumper.add_representer(list, _list_representer)


@dataclass(frozen=True, slots=True)
class OperationRef:
    """Where an A2A operation lives in the document."""

    path: str
    method: str

    @property
    def json_path(self) -> str:
        """``paths./a2a/x.post``."""
        return f"paths.{self.path}.{self.method}"


@dataclass(frozen=True, slots=True)
class SavedOperation:
    """One A2A operation found in a document, in file order."""

    ref: OperationRef
    request: SavedRequest


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with one part of the document; the rest is still usable.

    ``kind`` says what it costs: ``skipped`` (an operation that cannot be used),
    ``unrepresented`` (the data does not hold what the file says: saving over the file is
    refused), ``external-ref`` (a reference that is never fetched) or ``environment`` (an
    ``x-a2a-environments`` entry that is not a variable's text: not used, kept in the file).
    """

    place: str
    message: str
    kind: str = "skipped"

    def __str__(self) -> str:
        return f"{self.place}: {self.message}"

    @property
    def wording(self) -> str:
        """The problem in words for the user, by ``kind`` (CLI warning, spec dock)."""
        lead = _PROBLEM_LEADS.get(self.kind, _PROBLEM_LEADS["skipped"])
        return f"{lead}: {self}"


_PROBLEM_LEADS = {
    "skipped": "skipped invalid operation",
    "unrepresented": "not representable, file will not be saved over",
    "external-ref": "remote $ref not fetched",
    "environment": "environment entry not used",
}


@dataclass
class SpecDocument:
    """An OpenAPI document in memory.

    Attributes:
        data: the parsed tree (mutated in place by :meth:`upsert`).
        path: the file it came from or goes to; None for a new document.
        fmt: ``"yaml"`` or ``"json"``.
        read_only: True for OpenAPI 3.0/3.1 imports (saving needs an upgrade).
        notice: a line for the user about how the file was opened (e.g. the upgrade notice).
        problems: what the reader reports: content the data does not hold as written
            (``unrepresented``), invalid ``x-a2a`` blocks (those operations are skipped),
            references to other files or URLs (never fetched).
        unrepresented: duplicate keys and non-JSON values (see :mod:`app.spec.spec_text`);
            while any stand, :meth:`save` refuses to write over the file they came from.
    """

    data: dict[str, Any]
    path: Path | None = None
    fmt: str = "yaml"
    read_only: bool = False
    notice: str = ""
    problems: list[Problem] = field(default_factory=list)
    source_text: str = ""
    unrepresented: list[Problem] = field(default_factory=list)

    # --- creating and reading ------------------------------------------------------

    @classmethod
    def new(cls, title: str = "A2A requests", path: Path | None = None) -> SpecDocument:
        """An empty OpenAPI 3.2 document."""
        data: dict[str, Any] = {
            "openapi": OPENAPI_VERSION,
            "info": {
                "title": title,
                "version": "1.0.0",
                "description": "A2A requests saved by A2A Workbench.",
            },
            "paths": {},
        }
        fmt = "json" if path is not None and path.suffix.lower() == ".json" else "yaml"
        return cls(data, path, fmt)

    def operations(self) -> list[SavedOperation]:
        """Every valid A2A operation, in file order (``problems`` lists the invalid ones)."""
        return self._scan(locate_problems=False)[0]

    def _scan(self, *, locate_problems: bool = True) -> tuple[list[SavedOperation], list[Problem]]:
        found: list[SavedOperation] = []
        problems: list[tuple[str, str]] = []  # (JSON path, message)
        seen: dict[str, OperationRef] = {}
        for ref, op in self._iter_operations():
            op_id = op.get("operationId")
            if isinstance(op_id, str | int | float) and not isinstance(op_id, bool):
                first = seen.setdefault(str(op_id), ref)
                if first != ref:
                    # OpenAPI requires unique operationIds; `run --operation` and the spec
                    # tree find operations by it. The first one wins; this one is skipped.
                    problems.append(
                        (
                            f"{ref.json_path}.operationId",
                            f"duplicate operationId {str(op_id)!r} (first used at "
                            f"{first.json_path}); this operation is skipped",
                        )
                    )
                    continue
            if X_A2A not in op:
                continue
            json_path = f"{ref.json_path}.{X_A2A}"
            tags = op.get("tags") or ()
            try:
                request = from_x_a2a(
                    op[X_A2A],
                    path=json_path,
                    name=str(op.get("summary") or ""),
                    operation_id=str(op.get("operationId") or ""),
                    tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
                )
            except XA2AError as exc:
                problems.append((exc.path, exc.message))
                continue
            found.append(SavedOperation(ref, request))
        paths = [place for place, _ in problems]
        places = self._places(paths) if locate_problems else paths
        return found, [
            Problem(place, msg) for place, (_, msg) in zip(places, problems, strict=True)
        ]

    def _external_refs(self) -> list[Problem]:
        note = "points outside this document; it is not fetched (only #/... is resolved)"
        paths = [(p, f"$ref {ref!r} {note}") for p, ref in external_refs(self.data)]
        places = self._places([p for p, _ in paths])
        return [
            Problem(place, msg, "external-ref")
            for place, (_, msg) in zip(places, paths, strict=True)
        ]

    def _environment_problems(self) -> list[Problem]:
        found = environments.problems_of(self.data)
        places = self._places([p for p, _ in found])
        return [
            Problem(place, msg, "environment")
            for place, (_, msg) in zip(places, found, strict=True)
        ]

    def _iter_operations(self) -> Iterator[tuple[OperationRef, dict[str, Any]]]:
        paths = self.data.get("paths")
        if not isinstance(paths, dict):
            return
        for path, item in paths.items():
            if not isinstance(item, dict):
                continue
            for method, op in item.items():
                if method in HTTP_METHODS and isinstance(op, dict):
                    yield OperationRef(str(path), method), op

    def find(self, operation_id: str) -> SavedOperation | None:
        """The A2A operation with ``operationId``, if any."""
        for op in self.operations():
            if op.request.operation_id == operation_id:
                return op
        return None

    def _places(self, json_paths: list[str]) -> list[str]:
        """Each JSON path with its YAML line appended, when found (one compose for all)."""
        tree = parse.compose(self.source_text) if self.fmt == "yaml" and json_paths else None
        out = []
        for json_path in json_paths:
            line = locate_in(tree, json_path)
            out.append(f"{json_path} (line {line})" if line else json_path)
        return out

    # --- editing ---------------------------------------------------------------------

    def operation_ids(self) -> set[str]:
        """Every ``operationId`` in the document (A2A or not)."""
        return {str(op["operationId"]) for _, op in self._iter_operations() if "operationId" in op}

    def upsert(self, saved: SavedRequest, *, strip_card_metadata: bool = False) -> SavedRequest:
        """Write ``saved`` (secrets already extracted) as an operation; returns it with its
        ``operation_id`` set.

        An existing operation with the same ``operation_id`` is updated in place: keys this
        module does not own (``description``, other ``x-`` keys, …) stay where they are.
        A new request gets a unique ``operationId`` and its own path ``/a2a/<operationId>``.

        Raises:
            SpecError: the document is read-only (an OpenAPI 3.0/3.1 import).
        """
        if self.read_only:
            raise SpecError(
                "This document is OpenAPI "
                f"{self.data.get('openapi')} and opened read-only; save it as a new "
                "OpenAPI 3.2 document to keep changes"
            )
        existing = self.find(saved.operation_id) if saved.operation_id else None
        if existing is None:
            op_id = unique_operation_id(saved.name or saved.method, self.operation_ids())
            saved = _with_operation_id(saved, op_id)
        if not saved.tags:
            from dataclasses import replace

            saved = replace(saved, tags=(saved.method,))
        built = operations.build_operation(saved, strip_card_metadata=strip_card_metadata)
        paths = self.data.setdefault("paths", {})
        if existing is not None:
            item = paths[existing.ref.path]
            op = item[existing.ref.method]
            if existing.ref.method != built.http_method:
                # The verb changed (e.g. another REST method): move it, keeping its keys.
                del item[existing.ref.method]
                item[built.http_method] = op
            _merge_operation(op, built.operation)
        else:
            paths[built.path] = {built.http_method: built.operation}
        components = self.data.setdefault("components", {})
        schemas = components.setdefault("schemas", {})
        for name, schema in built.components.items():
            schemas[name] = schema
        self._ensure_tag(saved)
        return saved

    def _ensure_tag(self, saved: SavedRequest) -> None:
        tags = self.data.get("tags")
        if tags is None:
            tags = self.data["tags"] = []
        if not isinstance(tags, list):
            return
        known = {t.get("name") for t in tags if isinstance(t, dict)}
        for tag in saved.tags:
            if tag not in known:
                tags.append({"name": tag})

    # --- validation and saving ----------------------------------------------------

    def dumps(self, fmt: str | None = None) -> str:
        """The document as YAML or JSON text."""
        return dumps(self.data, fmt or self.fmt)

    def save(self, path: Path | None = None, fmt: str | None = None) -> Path:
        """Write the document atomically; the old file stays intact if anything fails.

        Raises:
            SpecError: read-only document, no path, or the write failed.
        """
        target = path or self.path
        if target is None:
            raise SpecError("No file name given")
        if self.read_only:
            raise SpecError("This document is read-only (OpenAPI 3.0/3.1 import)")
        if self.unrepresented and self.path is not None and _same_file(target, self.path):
            first = self.unrepresented[0]
            raise SpecError(
                f"Not saved over {target}: the file holds content this document could not "
                f"read as written ({len(self.unrepresented)} place(s), first {first}); "
                "saving would lose it. Fix the file by hand or save to a new file."
            )
        chosen = fmt or ("json" if target.suffix.lower() == ".json" else "yaml")
        openapi_meta.refresh(self.data)  # servers and security for other OpenAPI tools
        text = dumps(self.data, chosen)
        try:
            atomic_write(target, text)
        except OSError as exc:
            raise SpecError(f"Could not save {target}: {exc.strerror or exc}") from exc
        self.path, self.fmt, self.source_text = target, chosen, text
        if self.unrepresented:  # the new file holds exactly the data: nothing left to lose
            self.unrepresented = []
            self.problems = [p for p in self.problems if p.kind != "unrepresented"]
        return target


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a.absolute() == b.absolute()


def external_refs(data: Any) -> list[tuple[str, str]]:
    """``(JSON path, $ref)`` of every reference that leaves the document (a URL or another
    file): spec handling resolves only ``#/...`` references and never fetches."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        place, node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                out.append((f"{place}.$ref" if place else "$ref", ref))
            for key, value in reversed(node.items()):
                stack.append((f"{place}.{key}" if place else str(key), value))
        elif isinstance(node, list):
            stack.extend((f"{place}[{i}]", v) for i, v in reversed(list(enumerate(node))))
    return out


def _local_only(node: Any) -> Any:
    """A copy of ``node`` with every reference leaving the document removed."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        drop = isinstance(ref, str) and not ref.startswith("#")
        return {k: _local_only(v) for k, v in node.items() if not (drop and k == "$ref")}
    if isinstance(node, list):
        return [_local_only(v) for v in node]
    return node


def _with_operation_id(saved: SavedRequest, op_id: str) -> SavedRequest:
    from dataclasses import replace

    return replace(saved, operation_id=op_id)


def _merge_operation(op: dict[str, Any], new: dict[str, Any]) -> None:
    """Update ``op`` with ``new``: existing keys keep their position, unknown keys stay
    (inside ``x-a2a`` too)."""
    for key, value in new.items():
        op[key] = merge_x_a2a(op.get(key), value) if key == X_A2A else value
    for key in ("requestBody", "parameters"):  # owned, and absent for this verb/binding
        if key not in new:
            op.pop(key, None)


def unique_operation_id(name: str, taken: set[str]) -> str:
    """A readable ``operationId`` from ``name`` (``Sum numbers`` → ``sum-numbers``), made
    unique by a numeric suffix."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "request"
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}-{n}", n + 1
    return candidate


# --- reading -------------------------------------------------------------------------


def load(path: Path) -> SpecDocument:
    """Read ``path`` (YAML or JSON).

    Raises:
        SpecError: unreadable file, broken syntax, not an OpenAPI document, or an
            unsupported ``openapi`` version — the message names the place.
    """
    text = parse.read_text(path)
    doc = loads(text, name=str(path), json_hint=path.suffix.lower() == ".json")
    doc.path = path
    return doc


def loads(text: str, *, name: str = "<text>", json_hint: bool = False) -> SpecDocument:
    """Parse document text; see :func:`load`."""
    parse.check_size(text, name)
    stripped = text.lstrip("\ufeff \t\r\n")
    is_json = json_hint or stripped.startswith("{")
    data: Any
    if is_json:
        data, unrepresented = parse.parse_json(text, name)
        fmt = "json"
    else:
        data, unrepresented = parse.parse_yaml(text, name)
        fmt = "yaml"
    if not isinstance(data, dict):
        raise SpecError(f"{name}: not an OpenAPI document (the top level is not an object)")
    if "swagger" in data:
        raise SpecError(
            f"{name}: 'swagger: {data['swagger']}' is Swagger 2.0; "
            "convert it to OpenAPI 3 first (openapi must be 3.2.x)"
        )
    version = data.get("openapi")
    if version is None:
        raise SpecError(f"{name}: missing 'openapi' key (line 1): not an OpenAPI document")
    version_text = str(version)
    read_only, notice = False, ""
    if re.match(r"^3\.2(\.\d+)?$", version_text):
        pass
    elif re.match(r"^3\.[01](\.\d+)?$", version_text):
        read_only = True
        notice = (
            f"OpenAPI {version_text} document opened read-only. A2A requests in it can be "
            "opened and sent; save to a new file to upgrade it to OpenAPI 3.2."
        )
    else:
        line = parse.locate(text, "openapi") if fmt == "yaml" else None
        where = f" (line {line})" if line else ""
        raise SpecError(
            f"{name}: openapi{where}: version {version_text!r} is not supported "
            "(expected 3.2.x; 3.0 and 3.1 open read-only)"
        )
    doc = SpecDocument(data, None, fmt, read_only, notice, source_text=text)
    doc.unrepresented = [
        Problem(
            f"{u.json_path} (line {u.line})" if u.line else u.json_path, u.message, "unrepresented"
        )
        for u in unrepresented
    ]
    doc.problems = doc.unrepresented + doc._scan()[1] + doc._external_refs()
    doc.problems += doc._environment_problems()
    return doc


# --- writing -------------------------------------------------------------------------


def dumps(data: Any, fmt: str = "yaml") -> str:
    """YAML (no anchors/aliases, key order kept) or 2-space JSON."""
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return text


def validate_openapi(data: dict[str, Any], limit: int = 5) -> list[str]:
    """Errors openapi-spec-validator finds (at most ``limit``), each naming its JSON path.

    Never touches the network or other files: references leaving the document are listed
    as errors and removed from the copy that is validated, and the validator gets no URL
    or file handlers at all.
    """
    try:
        from openapi_spec_validator import OpenAPIV32SpecValidator
    except ImportError:  # pragma: no cover - validator is a dependency of the test extra
        return []

    class LocalValidator(OpenAPIV32SpecValidator):
        resolver_handlers: dict[str, Any] = {}  # noqa: RUF012 - replaces the URL handlers

    errors = [
        f"{place}: {ref!r} points outside this document and is not fetched"
        for place, ref in external_refs(data)
    ][:limit]
    try:
        for error in LocalValidator(_local_only(data)).iter_errors():
            if len(errors) >= limit:
                break
            where = ".".join(str(p) for p in getattr(error, "path", ())) or "(document)"
            errors.append(f"{where}: {getattr(error, 'message', str(error))}")
    except Exception as exc:  # the validator's own failures are findings, not crashes
        errors.append(f"(document): could not be validated: {type(exc).__name__}: {exc}")
    return errors[:limit]


def _refs(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            out.add(ref.rsplit("/", 1)[-1])
        for value in node.values():
            _refs(value, out)
    elif isinstance(node, list):
        for value in node:
            _refs(value, out)


def validate_operation(doc: SpecDocument, operation_id: str) -> list[str]:
    """Validate one operation quickly: a small document holding just it and the component
    schemas it references (validating a 1 000-operation file takes far longer)."""
    op = doc.find(operation_id)
    if op is None:
        return [f"operation {operation_id!r} not found"]
    item = doc.data["paths"][op.ref.path]
    schemas = (doc.data.get("components") or {}).get("schemas") or {}
    wanted: set[str] = set()
    _refs(item, wanted)
    todo = list(wanted)
    while todo:
        found: set[str] = set()
        _refs(schemas.get(todo.pop()), found)
        for name in found - wanted:
            wanted.add(name)
            todo.append(name)
    mini: dict[str, Any] = {
        "openapi": doc.data.get("openapi", OPENAPI_VERSION),
        "info": doc.data.get("info") or {"title": "A2A", "version": "1"},
        "paths": {op.ref.path: item},
    }
    if wanted:
        mini["components"] = {"schemas": {n: schemas[n] for n in wanted if n in schemas}}
    return validate_openapi(mini)
