"""The session file: the open request tabs (unsaved drafts included) and recently closed
ones, kept across restarts. Qt-free; :mod:`app.ui.shell.tab_session` decides when to save and
restore.

The file lives in the user data directory (:func:`app.paths.session_path`), is written
atomically (:func:`app.fileio.atomic_write`, mode 0600) and never holds a
credential: values that :func:`app.spec.xa2a.extract_secrets` identifies as secrets (auth
token, password, API key value, credential-looking headers and query parameters) are
dropped; other rewritten values (a password in the endpoint's user info) keep the
``{{variable}}`` that replaced them. Where the tab's saved spec request holds a
``{{variable}}`` for that field, the reference is kept instead (the spec save already put
the value in the keyring), so a saved tab comes back whole; otherwise the field comes back
empty and the restored tab lists it in :attr:`TabState.dropped`.

The spec dock's open collections come back too: each spec file in the dock's order, the
environment selected in it and the tree rows the user collapsed. A collection without a file
(an import, *New collection*) is never kept here: quitting asks to save it first. A file
written before collections were kept has no ``collections`` member; the app then opens the
bundled example, as on a first start.

Format (``schema_version`` 1)::

    {"schema_version": 1, "current": 0,
     "tabs":   [{"draft": {SavedRequest}, "base": {SavedRequest} | null,
                 "spec_path": "/abs/file.yaml" | null, "dirty": true, "dropped": ["token"]}],
     "closed": [... same, oldest first ...],
     "collections": [{"path": "/abs/file.yaml", "environment": "demo",
                      "collapsed": ["", "A2A 0.3"]}]}

(``""`` in ``collapsed`` is the collection's own row, the others are its tags.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from app.errors import WorkbenchError
from app.fileio import atomic_write, set_aside
from app.protocol.types import Binding, ProtocolVersion
from app.spec.secret_literals import has_variable
from app.spec.xa2a import SavedAuth, SavedRequest, extract_secrets
from app.spec.xa2a_assertions import assertions_from_x_a2a, captures_from_x_a2a, checks_to_x_a2a
from app.spec.xa2a_network import network_from_x_a2a, network_to_x_a2a

SCHEMA_VERSION = 1
CLOSED_LIMIT = 20


class SessionError(WorkbenchError):
    """The session file cannot be read or is not a session (the message says why).

    Raised by the readers of this module (``request_from_dict``, ``loads``). Caught
    in this module: a bad tab is skipped, a bad file is set aside and an empty session used.
    """


@dataclass(frozen=True, slots=True)
class TabState:
    """One tab as the session keeps it.

    ``draft`` is what the tab shows (``RequestTab.to_saved()``); ``base`` the request it
    was last opened from or saved to (the clean state), if any; ``dropped`` names the
    credential fields left out of the file (filled in when it is written or read).
    """

    draft: SavedRequest
    base: SavedRequest | None = None
    spec_path: str | None = None
    dirty: bool = False
    dropped: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The tab's name (its saved name, else the method)."""
        return self.base.name if self.base is not None else self.draft.name


@dataclass(frozen=True, slots=True)
class CollectionState:
    """One open spec file of the spec dock: its environment and its collapsed tree rows."""

    path: str
    environment: str = ""
    collapsed: tuple[str, ...] = ()


@dataclass(slots=True)
class Session:
    """Open tabs in order, the index of the current one, closed tabs oldest first."""

    tabs: list[TabState] = field(default_factory=list)
    current: int = 0
    closed: list[TabState] = field(default_factory=list)
    demo: dict[str, str] = field(default_factory=dict)
    """Where the bundled demo agent listened (``base_url``, ``grpc_target``): it gets new
    ports at every start, and restored tabs pointed at it are moved to the new ones."""
    collections: list[CollectionState] | None = None
    """The spec dock's collections in order; None when the file kept none (a first start,
    or a file from before collections were kept)."""


# --- secrets ----------------------------------------------------------------------------


def strip_secrets(
    saved: SavedRequest, base: SavedRequest | None = None
) -> tuple[SavedRequest, tuple[str, ...]]:
    """``saved`` without credential values, and the names of the fields emptied.

    A secret field becomes the ``{{variable}}`` form that ``base`` (stripped first) holds
    for it (same auth parameter, or same header / query name), else the empty string.
    """
    cleaned, secrets = extract_secrets(saved)
    if not secrets:
        return saved, ()
    dropped: list[str] = []
    base_auth = dict(base.auth.params) if base is not None else {}
    clean_params = dict(cleaned.auth.params)
    params = []
    for key, value in saved.auth.params:
        if value and clean_params.get(key, value) != value:
            value = _reference(base_auth.get(key, ""))
            if not value:
                dropped.append(f"auth {key}")
        params.append((key, value))
    headers = _strip_pairs(
        saved.headers, cleaned.headers, base.headers if base else (), "header", dropped
    )
    query = _strip_pairs(saved.query, cleaned.query, base.query if base else (), "query", dropped)
    # Anything else extract_secrets rewrote (the endpoint's user-info password or
    # credential query parameters, …) keeps its {{variable}} form: the rest of the value
    # (the URL) is worth more than a blank.
    others = {
        f.name: getattr(cleaned, f.name)
        for f in fields(SavedRequest)
        if f.name not in ("auth", "headers", "query")
        and getattr(cleaned, f.name) != getattr(saved, f.name)
    }
    dropped += others
    stripped = replace(
        saved,
        auth=SavedAuth(saved.auth.kind, tuple(params)),
        headers=headers,
        query=query,
        **others,
    )
    return stripped, tuple(dropped)


def _strip_pairs(
    pairs: tuple[tuple[str, str], ...],
    cleaned: tuple[tuple[str, str], ...],
    base: tuple[tuple[str, str], ...],
    what: str,
    dropped: list[str],
) -> tuple[tuple[str, str], ...]:
    if len(pairs) != len(cleaned):  # not a value-for-value rewrite: trust extract_secrets
        return cleaned
    refs = {name.lower(): value for name, value in base if _reference(value)}
    out = []
    for (name, value), (_, clean) in zip(pairs, cleaned, strict=True):
        if clean != value:
            value = refs.get(name.lower(), "")
            if not value:
                dropped.append(f"{what} {name}")
        out.append((name, value))
    return tuple(out)


def _reference(value: str) -> str:
    """``value`` (of a base already stripped) when it can stand in for a secret field: it
    holds ``{{variables}}`` (``session={{sid}}; csrftoken={{csrftoken.host}}``), else ""."""
    return value if has_variable(value) else ""


def _private_state(state: TabState) -> TabState:
    base = strip_secrets(state.base)[0] if state.base is not None else None
    draft, dropped = strip_secrets(state.draft, base)
    return replace(state, draft=draft, base=base, dropped=tuple(dict.fromkeys(dropped)))


# --- to and from JSON -------------------------------------------------------------------


def request_to_dict(saved: SavedRequest) -> dict[str, Any]:
    """A JSON-ready dict of every field of ``saved``."""
    return {
        "name": saved.name,
        "version": saved.version.value,
        "binding": saved.binding.value,
        "endpoint": saved.endpoint,
        "method": saved.method,
        "body": saved.body,
        "operation_id": saved.operation_id,
        "tags": list(saved.tags),
        "agent_card_url": saved.agent_card_url,
        "agent_card": saved.agent_card,
        "tenant": saved.tenant,
        "headers": [list(p) for p in saved.headers],
        "query": [list(p) for p in saved.query],
        "auth": {"kind": saved.auth.kind, "params": [list(p) for p in saved.auth.params]},
        "extensions": list(saved.extensions),
        "timeout": saved.timeout,
        **({"network": network} if (network := network_to_x_a2a(saved.network)) else {}),
        **checks_to_x_a2a(saved.assertions, saved.captures),
    }


def request_from_dict(data: Any) -> SavedRequest:
    """The inverse of :func:`request_to_dict`.

    Raises:
        SessionError: not a saved request (wrong types, unknown version or binding).
    """
    if not isinstance(data, dict):
        raise SessionError("a tab is not an object")
    try:
        auth = data.get("auth") or {}
        timeout = data.get("timeout")
        card = data.get("agent_card")
        return SavedRequest(
            name=_text(data, "name"),
            version=ProtocolVersion(data["version"]),
            binding=Binding(data["binding"]),
            endpoint=_text(data, "endpoint"),
            method=_text(data, "method"),
            body=_text(data, "body"),
            operation_id=_text(data, "operation_id"),
            tags=tuple(str(t) for t in data.get("tags") or ()),
            agent_card_url=_text(data, "agent_card_url"),
            agent_card=dict(card) if isinstance(card, dict) else None,
            tenant=_text(data, "tenant"),
            headers=_pairs(data.get("headers")),
            query=_pairs(data.get("query")),
            auth=SavedAuth(str(auth.get("kind") or "none"), _pairs(auth.get("params"))),
            extensions=tuple(str(e) for e in data.get("extensions") or ()),
            timeout=timeout if isinstance(timeout, int | float) else None,
            network=network_from_x_a2a(data.get("network") or {}, "network", _network_error),
            assertions=assertions_from_x_a2a(data, "tab", _network_error),
            captures=captures_from_x_a2a(data, "tab", _network_error),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SessionError(f"a tab cannot be read: {exc!r}") from exc


def _network_error(path: str, message: str) -> SessionError:
    return SessionError(f"a tab's {path} cannot be read: {message}")


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise TypeError(f"{key} must be a string")
    return value


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    out = []
    for item in value:
        name, text = item
        out.append((str(name), str(text)))
    return tuple(out)


def state_to_dict(state: TabState) -> dict[str, Any]:
    """One tab's JSON (secrets must already be stripped)."""
    return {
        "draft": request_to_dict(state.draft),
        "base": request_to_dict(state.base) if state.base is not None else None,
        "spec_path": state.spec_path,
        "dirty": state.dirty,
        "dropped": list(state.dropped),
    }


def state_from_dict(data: Any) -> TabState:
    """The inverse of :func:`state_to_dict`. Raises SessionError."""
    if not isinstance(data, dict):
        raise SessionError("a tab is not an object")
    base = data.get("base")
    spec_path = data.get("spec_path")
    return TabState(
        draft=request_from_dict(data.get("draft")),
        base=request_from_dict(base) if base is not None else None,
        spec_path=spec_path if isinstance(spec_path, str) else None,
        dirty=bool(data.get("dirty")),
        dropped=tuple(str(d) for d in data.get("dropped") or ()),
    )


def collection_to_dict(state: CollectionState) -> dict[str, Any]:
    """One collection's JSON."""
    return {
        "path": state.path,
        "environment": state.environment,
        "collapsed": list(state.collapsed),
    }


def collection_from_dict(data: Any) -> CollectionState:
    """The inverse of :func:`collection_to_dict`. Raises SessionError."""
    if not isinstance(data, dict) or not isinstance(data.get("path"), str) or not data["path"]:
        raise SessionError("a collection is not an object with a path")
    environment = data.get("environment")
    collapsed = data.get("collapsed")
    return CollectionState(
        path=data["path"],
        environment=environment if isinstance(environment, str) else "",
        collapsed=tuple(str(c) for c in collapsed) if isinstance(collapsed, list) else (),
    )


def dumps(session: Session) -> str:
    """The session file's text; credential values are stripped here."""
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "current": session.current,
        "tabs": [state_to_dict(_private_state(s)) for s in session.tabs],
        "closed": [state_to_dict(_private_state(s)) for s in session.closed[-CLOSED_LIMIT:]],
        "demo": dict(session.demo),
    }
    if session.collections is not None:
        data["collections"] = [collection_to_dict(c) for c in session.collections]
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def loads(text: str) -> tuple[Session, list[str]]:
    """Parse a session file; a tab that cannot be read is skipped and described.

    Raises:
        SessionError: not JSON, or not a session this version understands.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SessionError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise SessionError("not a version 1 session file")
    problems: list[str] = []
    lists: dict[str, list[TabState]] = {"tabs": [], "closed": []}
    for key, out in lists.items():
        items = data.get(key) or []
        if not isinstance(items, list):
            raise SessionError(f"{key!r} is not a list")
        for i, item in enumerate(items):
            try:
                out.append(state_from_dict(item))
            except SessionError as exc:
                problems.append(f"{key}[{i}]: {exc}")
    current = data.get("current")
    demo = data.get("demo")
    demo = {str(k): str(v) for k, v in demo.items()} if isinstance(demo, dict) else {}
    return Session(
        lists["tabs"],
        current if isinstance(current, int) else 0,
        lists["closed"],
        demo,
        _collections(data.get("collections"), problems),
    ), problems


def _collections(items: Any, problems: list[str]) -> list[CollectionState] | None:
    if items is None:
        return None
    if not isinstance(items, list):
        raise SessionError("'collections' is not a list")
    found: list[CollectionState] = []
    for i, item in enumerate(items):
        try:
            found.append(collection_from_dict(item))
        except SessionError as exc:
            problems.append(f"collections[{i}]: {exc}")
    return found


# --- the file ---------------------------------------------------------------------------


def save(path: Path, session: Session) -> None:
    """Strip secrets, serialise and write ``session`` (blocking: run it in a thread).

    Raises:
        OSError: the file cannot be written (the old one is kept).
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write(path, dumps(session), mode=0o600)


def load(path: Path) -> tuple[Session, list[str]]:
    """Read the session at ``path``; an empty session when there is none.

    A damaged file — not UTF-8, not JSON, not a session, or holding a tab that cannot be
    read — is renamed aside (``session.json.bad-<time>``, see :func:`app.fileio.set_aside`)
    and reported in the problems; never deleted or overwritten. The tabs that can be read
    are kept, so the next save writes them to a fresh ``session.json``.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Session(), []
    except OSError as exc:  # e.g. a directory or unreadable: keep it, start afresh
        return Session(), [_keep_aside(path, f"cannot be read: {exc.strerror or exc}")]
    try:
        session, problems = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return Session(), [_keep_aside(path, f"not UTF-8 text: {exc.reason} at byte {exc.start}")]
    except SessionError as exc:
        return Session(), [_keep_aside(path, str(exc))]
    if problems:
        return session, [_keep_aside(path, "; ".join(problems))]
    return session, []


def _keep_aside(path: Path, reason: str) -> str:
    """Rename the damaged session file aside; the line that tells the user."""
    try:
        aside = set_aside(path)
    except OSError as exc:
        return (
            f"The last session ({path}) is damaged ({reason}) and could not be moved aside "
            f"({exc.strerror or exc})"
        )
    return f"The last session was damaged ({reason}); the file was kept as {aside}"
