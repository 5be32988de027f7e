"""*Copy as curl* for a request tab: the tab's request as a command line, secrets masked.

Qt-free. The command is built by :mod:`app.spec.snippets` from the request as it would be
saved (:func:`app.spec.xa2a.extract_secrets` first), so credential values never appear:
they become ``"${A2A_WB_…}"`` environment variables, as in a saved spec's snippets.
"""

from __future__ import annotations

from app.protocol.bindings import traits
from app.spec.snippets import snippet, snippet_kinds
from app.spec.variables import Resolver, references
from app.spec.xa2a import SavedRequest, extract_secrets


def copy_command(saved: SavedRequest, variables: Resolver | None) -> str:
    """``curl`` (JSON-RPC, HTTP+JSON) or ``grpcurl`` (gRPC) for ``saved``.

    Only the endpoint's ``{{variables}}`` are filled in from ``variables`` (the spec's
    ``baseUrl``); every other reference stays an environment variable.

    Raises:
        UsageError: the request cannot be built (e.g. invalid JSON in the draft).
        ValueError: no command exists for it.
    """
    masked, _secrets = extract_secrets(saved)
    values: dict[str, str] = {}
    if variables is not None:
        for name in references(masked.endpoint):
            value = variables.values.get(name)
            if value is not None:
                values[name] = value
    kinds = snippet_kinds(masked)
    if not kinds:
        raise ValueError(f"{traits(masked.binding).label} requests have no command line")
    return snippet(kinds[0], masked, values)
