"""The Agent Cards a window knows, and which of their interfaces an endpoint should become.

A request tab switched to another binding (or version) needs that binding's URL: a REST
base such as ``http://host/rest``, a gRPC ``host:port``. The card says it, so the window
keeps the cards it knows in one :class:`KnownCards`, shared by its tabs:

- the demo agent's card: the app starts the agent and reads its ready line, which names the
  card URL and the addresses it listens on (:meth:`KnownCards.expect`); the card itself is
  fetched when a tab first needs it;
- every card fetched in this session (the *Agent Card* page, :meth:`KnownCards.add`);
- else one public fetch from the endpoint's origin, under the card-fetch rules of
  :func:`app.protocol.card.fetch.fetch_card` (no credentials, no redirects, ≤ 1 MiB, a
  deadline), tried once per card URL.

:meth:`KnownCards.lookup` does all three; :meth:`KnownCards.find` only the first two, without
I/O. Qt-free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from app.protocol.card.fetch import fetch_card, resolve_card_url
from app.protocol.card.read import ReadOutcome, read_card
from app.protocol.card.view import CardView, InterfaceView, normalize_card
from app.protocol.net.network import NetworkOptions
from app.protocol.types import Binding, ProtocolVersion

DEMO_SOURCE = "the demo agent's card"
FETCHED_SOURCE = "the card fetched on the Agent Card page"
LOOKUP_TIMEOUT_S = 5.0
"""The public fetch's overall deadline: it runs while the user waits for the endpoint."""


@dataclass(frozen=True, slots=True)
class KnownCard:
    """A card the window knows: where it came from and what it lists.

    Attributes:
        card_url: the URL it was fetched from (a file card: its path).
        view: the card as read (:func:`app.protocol.card.view.normalize_card`).
        source: where it came from, in words (``the demo agent's card``).
    """

    card_url: str
    view: CardView
    source: str

    def interface(self, binding: Binding, version: ProtocolVersion) -> InterfaceView | None:
        """The card's interface for ``binding`` and ``version``, if it lists one."""
        for iface in self.view.interfaces:
            if (
                iface.speakable
                and iface.known_binding is binding
                and iface.major_minor == version.value
            ):
                return iface
        return None

    def interfaces(self, binding: Binding) -> list[InterfaceView]:
        """The card's speakable interfaces for ``binding``, in card order."""
        return [i for i in self.view.interfaces if i.speakable and i.known_binding is binding]

    def lists(self, endpoint: str) -> bool:
        """Whether ``endpoint`` is one of the card's interfaces (any binding or version)."""
        key = address(endpoint)
        return bool(key) and any(address(i.url) == key for i in self.view.interfaces)


@dataclass(frozen=True, slots=True)
class _Expected:
    """A card announced but not fetched yet (the demo agent's ready line)."""

    card_url: str
    source: str
    addresses: frozenset[str]


class KnownCards:
    """The cards one window knows (module docstring); shared by its tabs."""

    def __init__(self) -> None:
        self._cards: dict[str, KnownCard] = {}
        self._expected: dict[str, _Expected] = {}
        self._tried: set[str] = set()  # card URLs fetched once without a card
        self._pending: dict[str, asyncio.Future[KnownCard | None]] = {}

    def add(self, card: KnownCard) -> None:
        """Remember ``card`` (a newer fetch of the same URL replaces the older)."""
        self._cards[card.card_url] = card
        self._tried.discard(card.card_url)

    def expect(self, card_url: str, source: str, addresses: Iterable[str]) -> None:
        """The card at ``card_url`` belongs to an agent listening on ``addresses`` (URLs or
        ``host:port``); fetched when first needed."""
        keys = frozenset(k for k in map(address, addresses) if k)
        self._expected[card_url] = _Expected(card_url, source, keys | {address(card_url)})

    def find(self, endpoint: str) -> KnownCard | None:
        """The known card of the agent at ``endpoint``: one that lists it, else one served
        from its origin; None without I/O when none is known yet."""
        cards = list(self._cards.values())[::-1]  # the latest first
        for card in cards:
            if card.lists(endpoint):
                return card
        origin = _origin(endpoint)
        for card in cards:
            if origin and _origin(card.card_url) == origin:
                return card
        return None

    def to_fetch(self, endpoint: str) -> tuple[str, str] | None:
        """``(card_url, source)`` of the card to fetch for ``endpoint``: an expected card of
        the agent at that address or origin, else the origin's well-known card; None when
        there is nothing (left) to try."""
        key, origin = address(endpoint), _origin(endpoint)
        for expected in self._expected.values():
            if expected.card_url in self._tried or expected.card_url in self._cards:
                continue
            if key in expected.addresses or (origin and _origin(expected.card_url) == origin):
                return expected.card_url, expected.source
        if not origin:
            return None
        try:
            card_url, _ = resolve_card_url(origin)
        except ValueError:
            return None
        if card_url in self._tried or card_url in self._cards:
            return None
        return card_url, f"the card at {origin}"

    async def lookup(
        self,
        endpoint: str,
        version: ProtocolVersion,
        *,
        network: NetworkOptions | None = None,
        timeout: float = LOOKUP_TIMEOUT_S,
    ) -> KnownCard | None:
        """The card of the agent at ``endpoint``: a known one, else one fetched now (once per
        card URL, shared by concurrent callers); None when there is none."""
        found = self.find(endpoint)
        if found is not None:
            return found
        target = self.to_fetch(endpoint)
        if target is None:
            return None
        card_url, source = target
        pending = self._pending.get(card_url)
        if pending is not None:  # another tab fetches it: wait for that one
            return await asyncio.shield(pending)
        future: asyncio.Future[KnownCard | None] = asyncio.get_running_loop().create_future()
        self._pending[card_url] = future
        card: KnownCard | None = None
        try:
            card = await self._fetch(card_url, source, version, network, timeout)
        finally:  # cancelled: not tried, a later lookup fetches it again
            del self._pending[card_url]
            future.set_result(card)
        if card is None:
            self._tried.add(card_url)
        else:
            self.add(card)
        return card

    async def _fetch(
        self,
        card_url: str,
        source: str,
        version: ProtocolVersion,
        network: NetworkOptions | None,
        timeout: float,
    ) -> KnownCard | None:
        result = await fetch_card(
            card_url, a2a_version=version.value, timeout=timeout, network=network
        )
        reading = read_card(result)
        if reading.outcome is not ReadOutcome.CARD or not isinstance(reading.card, dict):
            return None
        return KnownCard(result.card_url, normalize_card(reading.card), source)


def address(url: str) -> str:
    """``url`` reduced to what names one listening address and path: the scheme, a trailing
    slash and case dropped, so a gRPC ``host:port`` matches the card's
    ``http://host:port`` and ``http://host/`` matches ``http://host``."""
    text = url.strip().lower()
    for scheme in ("http://", "https://", "grpc://", "grpcs://"):
        if text.startswith(scheme):
            text = text[len(scheme) :]
            break
    return text.rstrip("/")


def _origin(url: str) -> str:
    """``scheme://host:port`` of an http(s) URL, else ""."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
