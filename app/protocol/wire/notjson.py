"""The sentinel for "not JSON" (``None`` is valid JSON), in a module of its own so that the
JSON reader (:mod:`app.protocol.wire.jsonparse`) and the exchange events
(:mod:`app.protocol.events`, which re-exports it) can both use it without importing each
other."""

from __future__ import annotations

from typing import Any


class _Missing:
    """Sentinel type: a body that did not parse as JSON."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"

    def __bool__(self) -> bool:
        return False


NOT_JSON: Any = _Missing()
