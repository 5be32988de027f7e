"""Imported requests → a new, unsaved spec document, and the report of what happened.

Each :class:`~app.imports.raw.RawRequest` goes through :func:`app.imports.detect.detect`;
the A2A ones become :class:`~app.spec.xa2a.SavedRequest` operations of a new OpenAPI 3.2
document, the others are listed with the reason they were skipped.

Credentials follow the app's saving rule (docs/ARCHITECTURE.md, saving a request): a file never
holds a secret. ``Authorization: Bearer``/``Basic``, curl ``-u``, Postman auth blocks and
API-key headers become the request's *auth* setting; :func:`app.spec.xa2a.extract_secrets`
then replaces every credential value (auth fields, sensitive headers and query values) by
a scoped ``{{variable}}``, and the values are returned in :attr:`ImportResult.secrets` for
the caller to put into the :class:`~app.spec.variables.SecretStore` (OS keyring, else the
private fallback file) — nothing secret is in the document. Browser cookies are dropped:
they are session state, not a credential the user configured.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace

from app.imports.detect import Detection, detect
from app.imports.har_import import check_hints
from app.imports.raw import RawAuth, RawRequest, Source
from app.protocol.secrets import MASK
from app.spec.document import SpecDocument
from app.spec.variables import VARIABLE
from app.spec.xa2a import SavedAuth, SavedRequest, extract_secrets

# Headers the app sets itself per version and binding (docs/PROTOCOL.md §3.1.3, §8.1), or
# that describe one browser's connection rather than the request.
_DROPPED_HEADERS = frozenset(
    {
        "content-type", "accept", "content-length", "host", "connection", "a2a-version",
        "accept-encoding", "accept-language", "user-agent", "origin", "referer", "pragma",
        "cache-control", "expect", "te", "upgrade-insecure-requests", "priority",
    }
)  # fmt: skip
_EXTENSION_HEADERS = ("a2a-extensions", "x-a2a-extensions")
_API_KEY_HEADERS = ("x-api-key", "api-key", "apikey", "x-goog-api-key")


@dataclass(frozen=True, slots=True)
class ImportItem:
    """One request of the source and what became of it (a row of the preview).

    ``operation_id`` is set for imported requests; ``detection.a2a`` False means skipped
    (``detection.explanation`` says why).
    """

    raw: RawRequest
    detection: Detection
    name: str
    operation_id: str = ""
    notes: tuple[str, ...] = ()

    @property
    def imported(self) -> bool:
        """True when the request is in the document."""
        return bool(self.operation_id)


@dataclass
class ImportResult:
    """The new document, one :class:`ImportItem` per source request, and the credentials
    taken out of them (``{variable: value}``, for the secret store)."""

    kind: str
    doc: SpecDocument
    items: list[ImportItem] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def imported(self) -> int:
        """How many requests are in the document."""
        return sum(1 for item in self.items if item.imported)

    @property
    def skipped(self) -> list[ImportItem]:
        """The requests left out, each with its reason."""
        return [item for item in self.items if not item.imported]

    def summary(self) -> str:
        """``3 A2A request(s) to import, 2 skipped`` (the report's first line)."""
        text = f"{self.imported} A2A request(s) to import, {len(self.skipped)} skipped"
        if self.secrets:
            text += f"; {len(self.secrets)} credential(s) go to the secret store, not the file"
        return text


def build(source: Source) -> ImportResult:
    """Detect every request of ``source`` and put the A2A ones into a new document."""
    doc = SpecDocument.new(title=source.title or f"Imported from {source.kind}")
    doc.notice = f"Imported from {source.kind}; not saved yet (Ctrl+S on a request saves the file)"
    result = ImportResult(source.kind, doc, notes=source.notes)
    # Names the source itself uses ({{token}} in a Postman collection) must keep meaning
    # what the user's environment says, not a credential found in another request.
    referenced = {m.group(1) for raw in source.requests for m in VARIABLE.finditer(_text(raw))}
    for raw in source.requests:
        detection = detect(raw)
        name = raw.name or _default_name(raw, detection)
        if not detection.a2a:
            result.items.append(ImportItem(raw, detection, name, notes=raw.notes))
            continue
        saved, notes = _saved(raw, detection, name, source.kind)
        cleaned, secrets = extract_secrets(saved)
        for var, value in secrets.items():
            unique = _unique_name(var, value, result.secrets, referenced)
            if unique != var:
                cleaned = _renamed(cleaned, var, unique)
            result.secrets[unique] = value
            notes.append(f"credential moved to {{{{{unique}}}}} (secret store)")
        stored = doc.upsert(cleaned)
        result.items.append(
            ImportItem(raw, detection, name, stored.operation_id, (*raw.notes, *notes))
        )
    return result


def _text(raw: RawRequest) -> str:
    pieces = [raw.url, raw.body, *(v for _, v in raw.headers), *(v for _, v in raw.auth.params)]
    return "\n".join(pieces)


def _unique_name(var: str, value: str, taken: dict[str, str], referenced: set[str]) -> str:
    """``var``, or ``var`` numbered, so that one name never means two credentials."""
    candidate, n = var, 2
    while (candidate in taken and taken[candidate] != value) or candidate in referenced:
        base, dot, scope = var.partition(".")
        candidate, n = f"{base}{n}{dot}{scope}", n + 1
    return candidate


def _renamed(saved: SavedRequest, old: str, new: str) -> SavedRequest:
    ref = re.compile(r"\{\{\s*" + re.escape(old) + r"\s*\}\}")

    def swap(text: str) -> str:
        return ref.sub("{{" + new + "}}", text)

    auth = SavedAuth(saved.auth.kind, tuple((k, swap(v)) for k, v in saved.auth.params))
    return dc_replace(
        saved,
        endpoint=swap(saved.endpoint),
        auth=auth,
        headers=tuple((k, swap(v)) for k, v in saved.headers),
        query=tuple((k, swap(v)) for k, v in saved.query),
    )


def _default_name(raw: RawRequest, detection: Detection) -> str:
    if detection.method:
        return detection.method
    path = re.sub(r"^[a-z]+://[^/]+", "", raw.url.split("?")[0]) or "/"
    return f"{raw.method} {path}"


def _saved(
    raw: RawRequest, detection: Detection, name: str, kind: str
) -> tuple[SavedRequest, list[str]]:
    assert detection.version is not None and detection.binding is not None
    notes: list[str] = list(detection.notes)
    if note := check_hints(raw, detection.version.value, detection.binding.value):
        notes.append(note)
    auth = _auth_from_raw(raw.auth)
    headers: list[tuple[str, str]] = []
    extensions: list[str] = []
    for header, value in raw.headers:
        lowered = header.lower()
        if lowered in _EXTENSION_HEADERS:
            extensions += [u.strip() for u in value.split(",") if u.strip()]
        elif lowered == "authorization" and auth.kind == "none":
            auth, note = _auth_from_authorization(value)
            if note:
                notes.append(note)
            if auth.kind == "none":
                headers.append((header, value))
        elif lowered in _API_KEY_HEADERS and auth.kind == "none":
            auth = SavedAuth("api_key", (("in", "header"), ("name", header), ("value", value)))
        elif MASK in value and lowered != "authorization":
            notes.append(f"{header} was masked in the source ({MASK}); left out")
        elif lowered == "cookie":
            notes.append("Cookie header dropped (browser session state)")
        elif lowered.startswith(("sec-", ":")) or lowered in _DROPPED_HEADERS:
            continue
        else:
            headers.append((header, value))
    auth, masked = _unmasked(auth)
    if masked:
        notes.append(
            f"the {auth.kind} credential was masked in the source ({MASK}): give the "
            "{{variable}} shown in the Auth panel its value"
        )
    tags = (raw.folder,) if raw.folder else (kind,)
    saved = SavedRequest(
        name=name,
        version=detection.version,
        binding=detection.binding,
        endpoint=detection.endpoint,
        method=detection.method,
        body=detection.body,
        tags=tags,
        agent_card_url=_card_url(detection.endpoint),
        headers=tuple(headers),
        query=detection.query,
        auth=auth,
        extensions=tuple(dict.fromkeys(extensions)),
    )
    return saved, notes


def _auth_from_raw(raw: RawAuth) -> SavedAuth:
    return SavedAuth(raw.kind, raw.params) if raw.kind != "none" else SavedAuth()


def _auth_from_authorization(value: str) -> tuple[SavedAuth, str]:
    scheme, _, credentials = value.strip().partition(" ")
    credentials = credentials.strip()
    if scheme.lower() == "bearer" and credentials:
        return SavedAuth("bearer", (("token", credentials),)), ""
    if scheme.lower() == "basic" and MASK in credentials:
        return SavedAuth("basic", (("username", ""), ("password", MASK))), ""
    if scheme.lower() == "basic" and credentials:
        try:
            decoded = base64.b64decode(credentials, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return SavedAuth(), "Authorization: Basic value is not base64 of user:password"
        user, colon, password = decoded.partition(":")
        if colon:
            return SavedAuth("basic", (("username", user), ("password", password))), ""
    return SavedAuth(), ""


def _unmasked(auth: SavedAuth) -> tuple[SavedAuth, bool]:
    """``auth`` with masked credentials (our own exports write ``****``) emptied, so that
    saving turns them into a ``{{variable}}`` instead of storing the mask as a secret."""
    params = tuple((k, "" if MASK in v else v) for k, v in auth.params)
    return SavedAuth(auth.kind, params), params != auth.params


def _card_url(endpoint: str) -> str:
    """The well-known card URL at the endpoint's origin (docs/PROTOCOL.md §6.3.1)."""
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+|\{\{[^}]+\}\})", endpoint)
    return f"{match.group(1)}/.well-known/agent-card.json" if match else ""
