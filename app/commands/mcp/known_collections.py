"""The user's collections: the saved-request specs the window has open or opened lately.

They are the specs of ``recent-specs.json`` (:mod:`app.spec.recent_specs`), the spec files
of the tabs the window keeps in ``session.json`` (read, never repaired: a damaged session is
the window's to set aside), and the examples shipped with the app. The MCP server lists
them (``list_collections``) and allows the hosts they name (:mod:`app.commands.mcp.allow_list`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from app import session
from app.commands.mcp.local_files import local_file
from app.errors import UsageError
from app.paths import recent_specs_path, secrets_path, session_path
from app.shipped import resource_path
from app.spec import environments
from app.spec.document import SpecDocument, SpecError, load
from app.spec.recent_specs import read_recent
from app.spec.variables import VARIABLE, Resolver, SecretStore
from app.spec.xa2a import endpoint_host

EXAMPLES = ("demo-agent.a2a.yaml", "demo-scenario.a2a.yaml")
"""The shipped example collections (``resources/examples/``), for the bundled demo agent."""


@dataclass(frozen=True, slots=True)
class KnownCollection:
    """A spec file and why the server knows it: ``recent``, ``open tab`` or ``example``."""

    path: Path
    origin: str


def known_collections() -> list[KnownCollection]:
    """The user's collections, each once: recent specs first, then open tabs' specs, then
    the shipped examples. Files that no longer exist are left out."""
    found: dict[Path, KnownCollection] = {}

    def add(path: Path, origin: str) -> None:
        resolved = path.expanduser().resolve()
        if resolved not in found and resolved.is_file():
            found[resolved] = KnownCollection(resolved, origin)

    for text in read_recent(recent_specs_path()):
        add(Path(text), "recent")
    for spec_path in _tab_specs():
        add(Path(spec_path), "open tab")
    for name in EXAMPLES:
        add(resource_path(f"examples/{name}"), "example")
    return list(found.values())


def _tab_specs() -> list[str]:
    try:
        text = session_path().read_text(encoding="utf-8")
        state, _ = session.loads(text)
    except (OSError, UnicodeDecodeError, session.SessionError):
        return []
    return [tab.spec_path for tab in (*state.tabs, *state.closed) if tab.spec_path]


def open_collection(path: str) -> SpecDocument:
    """The collection at ``path`` (a spec file; ``~`` expanded).

    Raises:
        SpecError: the file cannot be read or is no OpenAPI document.
        UsageError: a file no tool reads (:func:`~app.commands.mcp.local_files.local_file`)
            that is not one of the user's collections.
    """
    given = Path(path).expanduser()
    # The user's own collections may live anywhere (a pipx install's examples under ~/.local).
    return load(given if is_known(given) else local_file(path))


def saved_endpoint_hosts(path: Path) -> frozenset[str]:
    """The hosts the saved requests of ``path`` call: each endpoint as written, and with
    each of the document's environments' plain values put in for its ``{{variables}}``."""
    try:
        doc = load(path)
    except SpecError:
        return frozenset()
    envs, _ = environments.read(doc.data)
    plain: list[dict[str, str]] = [{}]
    plain += [{v.name: v.value for v in e.variables if not v.secret} for e in envs]
    hosts: set[str] = set()
    for op in doc.operations():
        for values in plain:
            endpoint = _filled(op.request.endpoint, values)
            if (found := endpoint_host(endpoint)) is not None:
                hosts.add(found[0].lower().rstrip("."))
    return frozenset(hosts)


def _filled(text: str, values: dict[str, str]) -> str:
    """``text`` with the ``{{variables}}`` ``values`` has put in (the others left)."""
    return VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def is_known(path: Path) -> bool:
    """Whether ``path`` is one of the user's collections (:func:`known_collections`)."""
    resolved = path.expanduser().resolve()
    return any(k.path == resolved for k in known_collections())


def collection_resolver(
    doc: SpecDocument, environment: str, values: dict[str, str] | None = None
) -> Resolver:
    """The ``{{variable}}`` resolver for a saved request of ``doc``: ``values`` first, then
    the named ``environment`` of the document (its plain values), then ``A2A_WB_*``.

    The OS keyring and the window's secrets file are read only for the user's own
    collections (:func:`is_known`): a spec file a model wrote must not be able to send the
    user's stored secrets wherever it likes.

    Raises:
        UsageError: ``environment`` is not one of the document's environments.
    """
    trusted = doc.path is not None and is_known(doc.path)
    found, _ = environments.read(doc.data)
    if environment and environments.find(found, environment) is None:
        known = ", ".join(e.name for e in found) or "(the document defines none)"
        raise UsageError(f"unknown environment {environment!r} (environments: {known})")
    hint = "give it in `variables`, or select an environment that defines it" + (
        "" if trusted else "; stored secrets are read only for your own collections"
    )
    resolver = environments.resolver_for(
        found,
        environment,
        values=values,
        store=SecretStore(secrets_path()) if trusted else None,
        gui_hint=hint,
    )
    return replace(resolver, use_keyring=trusted)
