"""What every importer produces: plain HTTP requests, before anyone decides they are A2A.

Each source format (curl, Postman, HAR, OpenAPI) only parses its own syntax into
:class:`RawRequest` values; :mod:`app.imports.detect` decides A2A-ness, version and binding,
and :mod:`app.imports.build` turns the A2A ones into saved requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.errors import WorkbenchError


class ImportSourceError(WorkbenchError, ValueError):
    """A source that cannot be read at all (not JSON, not a collection, a broken curl
    line); the message names the place. Single requests that are not A2A are never
    errors: they are reported and skipped."""


@dataclass(frozen=True, slots=True)
class RawAuth:
    """Credentials the source gave apart from the headers (curl ``-u``, a Postman auth
    block). ``kind`` is an :data:`app.spec.xa2a_auth.AUTH_KINDS` name; ``params`` as in
    :class:`app.spec.xa2a_auth.SavedAuth`."""

    kind: str = "none"
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RawRequest:
    """One HTTP request as a source described it.

    Attributes:
        name: a display name (Postman item name, an OpenAPI summary); may be empty.
        method: the HTTP verb, upper case.
        url: the full URL (may hold ``{{variables}}``).
        headers: name/value pairs in source order.
        body: the request body text ("" for none).
        place: where in the source it came from (``item[2].item[0]``, ``entries[5]``).
        folder: a grouping the source had (a Postman folder, an OpenAPI tag).
        auth: credentials given outside the headers.
        notes: what the parser dropped or changed, for the report.
        hints: extra facts a source knows (our own HAR export's ``_a2a`` block).
    """

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    name: str = ""
    place: str = ""
    folder: str = ""
    auth: RawAuth = field(default_factory=RawAuth)
    notes: tuple[str, ...] = ()
    hints: tuple[tuple[str, str], ...] = ()

    def header(self, wanted: str) -> str:
        """The first value of header ``wanted`` (case-insensitive), or ""."""
        lowered = wanted.lower()
        return next((v for n, v in self.headers if n.lower() == lowered), "")


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed source: its kind (``curl``, ``postman``, ``har``, ``openapi``), a title for
    the new document, the requests found, and notes about the whole source."""

    kind: str
    title: str
    requests: tuple[RawRequest, ...]
    notes: tuple[str, ...] = ()
