"""Which hosts the MCP server's tools may call: the ``--allow-host`` list.

A model reads pages, cards and answers that anyone may have written; a prompt injected into
one of them must not make the server call an arbitrary URL. So every tool that goes on the
network names its target host here first and is refused, with the reason in words, unless
the host matches the list. Without ``--allow-host`` the list is this machine's loopback plus
every host the user's collections (:mod:`app.commands.mcp.known_collections`) or history
name: places the user has already chosen to talk to. With ``--allow-host PATTERN`` (shell
wildcards, ``*.example.com``) the patterns replace that default; ``*`` allows every host.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from app.check.runner import host_of
from app.commands.history import shared_store
from app.commands.mcp.known_collections import known_collections, saved_endpoint_hosts
from app.commands.push_receiver import is_loopback
from app.errors import UsageError


class HostRefused(UsageError):
    """A tool's target host is not on the allow-list; nothing was sent."""


@dataclass
class HostPolicy:
    """The allow-list of one server run.

    ``patterns`` are the ``--allow-host`` values; empty means the default (loopback and
    the hosts of the user's collections and history), computed afresh at each check so a
    collection opened in the window meanwhile counts.
    """

    patterns: tuple[str, ...] = ()
    _spec_hosts: dict[Path, tuple[int, frozenset[str]]] = field(default_factory=dict)

    def check(self, target: str, what: str = "") -> None:
        """Refuse ``target`` (a URL or gRPC ``host:port``) unless its host is allowed.

        Raises:
            HostRefused: the host is not allowed, or ``target`` names none.
        """
        host = host_of(target)
        if not host:
            raise HostRefused(f"{what or target!r} names no host to call")
        if self.allows(host):
            return
        if self.patterns:
            why = f"it matches none of --allow-host {', '.join(self.patterns)}"
        else:
            why = (
                "the server allows loopback and the hosts your collections and history name, "
                "and this host is none of them"
            )
        raise HostRefused(
            f"refused to call {host} ({what or target}): {why}. If you trust it, restart "
            f"the server with --allow-host {host}"
        )

    def allows(self, host: str) -> bool:
        """Whether ``host`` (lower case, no port) may be called."""
        if self.patterns:
            return any(fnmatch.fnmatchcase(host, p.lower()) for p in self.patterns)
        return is_loopback(host) or host in self.default_hosts()

    def default_hosts(self) -> frozenset[str]:
        """The hosts the user's collections and history name (loopback aside)."""
        found: set[str] = set()
        for known in known_collections():
            found |= self._hosts_of(known.path)
        store = shared_store()
        if store is not None:
            found |= {host_of(endpoint) for endpoint in store.distinct("endpoint")}
        found.discard("")
        return frozenset(found)

    def _hosts_of(self, path: Path) -> frozenset[str]:
        # A spec is parsed again only when it changed: a big one takes a while.
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            return frozenset()
        cached = self._spec_hosts.get(path)
        if cached is None or cached[0] != stamp:
            cached = (stamp, saved_endpoint_hosts(path))
            self._spec_hosts[path] = cached
        return cached[1]
