"""Credentials for a card behind them, sent only when the user asks (``--card-auth``, the card
page's *Send credentials* box; docs/PROTOCOL.md §6.3.2).

A public card is fetched without credentials, as the spec asks (A2A 1.0 §8.2). Some agents
guard every route, the well-known card included (iac-code: docs/PEERS.md Q24); then the
user may opt in to sending the request's own credentials — and only to the origin of the
endpoint they belong to (scheme, host and port alike), never to another host a URL or a
redirect names (the fetch follows no redirects).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from app.protocol.events import Headers
from app.protocol.net.auth import AuthConfig, auth_headers, auth_query, secret_header_names

__all__ = ["CARD_AUTH_HINT", "CardAuth", "origin_of"]

# Headers that carry a credential to the origin itself (Proxy-Authorization is the proxy's).
_CARRIED = frozenset({"authorization", "cookie"})

CARD_AUTH_HINT = (
    "the card is behind credentials: --card-auth sends the request's credentials to its own "
    "origin (in the window: Send credentials, on the card page)"
)
"""What a 401 or 403 on the public card adds, so the user learns the option exists."""


def origin_of(url: str) -> str:
    """``scheme://host:port`` of an http(s) URL (the default port written out), lower-case;
    ``""`` for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return ""
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return ""
    port = port or (443 if scheme == "https" else 80)
    return f"{scheme}://{host}:{port}"


@dataclass(frozen=True, slots=True)
class CardAuth:
    """The credentials a card fetch may carry, and the one origin they are for.

    Attributes:
        origin: the origin of the endpoint the credentials belong to (:func:`origin_of`).
        headers: the credential headers (``Authorization``, an API key's header).
        query: an API key sent in the query.
        secret_headers: header names whose values are masked wherever shown.
    """

    origin: str
    headers: Headers = ()
    query: Headers = ()
    secret_headers: tuple[str, ...] = field(default=())

    @classmethod
    def for_endpoint(
        cls, endpoint: str, auth: AuthConfig, headers: Headers = ()
    ) -> CardAuth | None:
        """The credentials of a request to ``endpoint``: its auth's headers and query, and
        those of ``headers`` that carry credentials. None when there are none, or the
        endpoint has no http(s) origin."""
        origin = origin_of(endpoint)
        names = {n.lower() for n in secret_header_names(auth)} | _CARRIED
        carried = (*auth_headers(auth), *(p for p in headers if p[0].lower() in names))
        query = auth_query(auth)
        if not origin or not (carried or query):
            return None
        return cls(origin, tuple(carried), query, tuple(sorted(names)))

    def applies_to(self, card_url: str) -> bool:
        """Whether ``card_url`` is on the origin these credentials are for."""
        return bool(self.origin) and origin_of(card_url) == self.origin
