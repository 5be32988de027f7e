"""What the tools of one MCP server run share: the allow-list, the secrets met so far, the
output bounds, the replays started and the last check report.

:class:`SecretLedger` is what keeps credentials from the model: every value a tool resolved
from a reference (an environment variable, a saved collection's keyring entry, an OAuth
token) and the HTTP transport's own token are entered here, and the server masks them in
every result it returns (:func:`app.commands.mcp.mcp_app.masking`), on top of the masking
the exchange and the history already do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.commands.mcp.allow_list import HostPolicy
from app.commands.mcp.replays import Replays
from app.protocol.oauth import TokenCache
from app.protocol.secrets import redact_json

MIN_SECRET_LENGTH = 4
"""Shorter values are not masked (as in History): masking them would mangle ordinary text."""


class SecretLedger:
    """The credential values this server has handled, for masking its results."""

    def __init__(self) -> None:
        self._values: tuple[str, ...] = ()

    def add(self, values: Iterable[str]) -> None:
        """Remember ``values`` (the short ones are left out, as History leaves them)."""
        new = {v for v in values if len(v) >= MIN_SECRET_LENGTH} - set(self._values)
        if new:
            # Longest first, so a secret that contains another is masked whole.
            self._values = tuple(sorted({*self._values, *new}, key=len, reverse=True))

    def mask(self, value: Any) -> Any:
        """``value`` (JSON-like) with every remembered secret masked in its strings."""
        return redact_json(value, self._values)


@dataclass(frozen=True, slots=True)
class Limits:
    """Output bounds: a body or stream item whose JSON is larger than ``max_body_bytes`` is
    replaced by its size and the history entry that holds it; a stream lists at most
    ``max_items`` items (the first ones and the last ones)."""

    max_body_bytes: int = 64 * 1024
    max_items: int = 100


@dataclass
class ServerState:
    """One server run's shared state (module docstring)."""

    hosts: HostPolicy = field(default_factory=HostPolicy)
    ledger: SecretLedger = field(default_factory=SecretLedger)
    limits: Limits = field(default_factory=Limits)
    replays: Replays = field(default_factory=Replays)
    tokens: TokenCache = field(default_factory=TokenCache)
    """OAuth 2 tokens of saved client-credentials grants, for the run."""
    last_check: dict[str, Any] | None = None
    """The last ``check_agent`` report (the ``a2a-wb://check/last`` resource)."""
