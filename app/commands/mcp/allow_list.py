"""Which hosts the MCP server's tools may call: the ``--allow-host`` list.

A model reads pages, cards and answers that anyone may have written; a prompt injected into
one of them must not make the server call an arbitrary URL. So every tool that goes on the
network names its target host here first and is refused, with the reason in words, unless
the host matches the list. Without ``--allow-host`` the list is this machine's loopback plus
every host the user's collections (:mod:`app.commands.mcp.known_collections`) or history
name: places the user has already chosen to talk to. With ``--allow-host PATTERN`` (shell
wildcards, ``*.example.com``) the patterns replace that default; ``*`` allows every host.

A host is read as the transports read it: a URL's host, or a gRPC target that is one plain
``host:port`` (gRPC reads lists, ``ipv4:``, ``unix:`` and the like in a target, whose first
name need not be where it connects). A carrier that starts a command (stdio) or reaches a
socket file (a Unix socket) names no host at all: only the user's own collections may use
one (:meth:`HostPolicy.check_binding`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from app.check.runner import host_of
from app.commands.history import shared_store
from app.commands.mcp.known_collections import known_collections, saved_endpoint_hosts
from app.commands.push_receiver import is_loopback
from app.errors import UsageError
from app.protocol.bindings import traits
from app.protocol.types import Binding


class HostRefused(UsageError):
    """A tool's target host is not on the allow-list; nothing was sent."""


# host:port (a name, an IPv4 address or a bracketed IPv6 one), as a card's gRPC target is.
_PLAIN_TARGET = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?")


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
        if "://" not in target and not _PLAIN_TARGET.fullmatch(target.strip()):
            raise HostRefused(f"{what or target!r} is not one plain host:port to call")
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

    def check_binding(self, binding: Binding, target: str, what: str, *, own: bool) -> None:
        """:meth:`check`, for a request of ``binding``: one that starts a command (stdio)
        or reaches a socket file (a Unix socket) is refused unless ``own`` (a saved request
        of the user's own collections, whose command or socket the user chose).

        Raises:
            HostRefused: the binding's target is not allowed.
        """
        shape = traits(binding)
        if shape.launches or not shape.url.host:
            if own:
                return
            doing = "starts a command" if shape.launches else "reaches a socket file"
            raise HostRefused(
                f"refused {what}: a {shape.label} request {doing} on this machine; only the "
                "saved requests of your own collections may (send it from the window or the "
                "command line)"
            )
        if shape.url.target:  # what app.protocol.transports.grpc hands to gRPC as its target
            address = target.strip().split("://", 1)[-1].partition("/")[0]
            if not _PLAIN_TARGET.fullmatch(address):
                raise HostRefused(f"{what or target!r} is not one plain host:port to call")
        self.check(target, what)

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
