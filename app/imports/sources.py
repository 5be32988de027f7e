"""Which kind of source a text or file is, and the parsed :class:`~app.imports.raw.Source`.

Kinds are told by content, not by file name: a curl command line starts with ``curl``; JSON
or YAML is a Postman collection when ``info.schema`` names one, HAR when it has
``log.entries``, OpenAPI when it has ``openapi: 3.x``. Files are read with the spec
reader's limits (:mod:`app.spec.spec_text`: size cap, safe YAML, duplicate keys found).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from app.imports.build import ImportResult, build
from app.imports.curl import parse_curl
from app.imports.har_import import is_har, parse_har
from app.imports.openapi import is_openapi, parse_openapi
from app.imports.postman import is_postman, parse_postman
from app.imports.raw import ImportSourceError, Source
from app.spec import spec_text as parse
from app.spec.spec_text import SpecError

KINDS = {
    "curl": "curl command line",
    "postman": "Postman Collection v2.1",
    "har": "HAR 1.2",
    "openapi": "OpenAPI 3 document",
}


def kind_of(data: Any) -> str:
    """``postman``, ``har`` or ``openapi`` for parsed data; "" when none fits."""
    if is_postman(data):
        return "postman"
    if is_har(data):
        return "har"
    if is_openapi(data):
        return "openapi"
    return ""


def parse_text(text: str, name: str = "<pasted text>") -> Source:
    """The source in ``text``: a curl command line, or a JSON/YAML document.

    Raises:
        ImportSourceError: unreadable, or of no known kind (the message says what it is).
    """
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("curl ", "curl\t", "curl.exe ")):
        return parse_curl(stripped)
    try:
        parse.check_size(text, name)
        if stripped.startswith(("{", "[")):
            data, unread = parse.parse_json(text, name)
        else:
            data, unread = parse.parse_yaml(text, name)
    except SpecError as exc:
        raise ImportSourceError(str(exc)) from exc
    kind = kind_of(data)
    # What the parsed data does not hold as written (a key twice: only its last value).
    notes = tuple(
        f"{u.json_path}" + (f" (line {u.line})" if u.line else "") + f": {u.message}"
        for u in unread
    )
    try:
        source = _parse_kind(kind, data, name)
        return dataclasses.replace(source, notes=(*notes, *source.notes)) if notes else source
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError) as exc:
        if isinstance(exc, ImportSourceError):
            raise
        # A wrong type deep in a hostile document the parser's checks missed: still an
        # import error that names the document, not a crash (tests/attack/test_import_fuzz.py).
        raise ImportSourceError(
            f"{name}: a malformed {KINDS.get(kind, 'document')} ({type(exc).__name__}: {exc})"
        ) from exc


def _parse_kind(kind: str, data: Any, name: str) -> Source:
    if kind == "postman":
        return parse_postman(data)
    if kind == "har":
        return parse_har(data)
    if kind == "openapi" or (isinstance(data, dict) and "swagger" in data):
        return parse_openapi(data)  # which refuses Swagger 2.0 by name
    raise ImportSourceError(
        f"{name}: not a curl command, Postman collection (info.schema), HAR (log.entries) "
        "or OpenAPI 3 document (openapi: 3.x)"
    )


def parse_file(path: Path) -> Source:
    """:func:`parse_text` of a file (blocking: the GUI calls it in a worker thread).

    Raises:
        ImportSourceError: unreadable, too large, not UTF-8, or of no known kind.
    """
    try:
        text = parse.read_text(path)
    except SpecError as exc:
        raise ImportSourceError(str(exc)) from exc
    return parse_text(text, path.name)


def import_text(text: str, name: str = "<pasted text>") -> ImportResult:
    """Parse and build in one step (see :func:`app.imports.build.build`)."""
    return build(parse_text(text, name))


def import_file(path: Path) -> ImportResult:
    """Read, parse and build in one step (blocking)."""
    return build(parse_file(path))
