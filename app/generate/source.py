"""Where the card of a generated server comes from: a card file, a card URL or a spec.

- A card URL (``http://`` / ``https://``, a base URL or the card's own URL) is fetched with
  the public card GET (:func:`app.protocol.card.fetch.fetch_card`: no credentials, no
  redirects, at most 1 MiB, ``A2A-Version: 1.0``).
- A file is read once; an OpenAPI document (a top-level ``openapi`` member) is read as a
  spec (:func:`app.spec.document.load`), anything else as a card.
- In a spec, the saved request ``operation`` (its ``operationId``) gives the card: its
  ``x-a2a.agentCard`` snapshot when saved, else its ``agentCardUrl``, fetched once its
  ``{{variables}}`` are resolved as ``run`` resolves them (``values`` first, then the
  document's environment ``environment``, then ``A2A_WB_*`` environment variables; never
  the keyring: a card URL holds no secret). Without ``operation``, the first saved request
  with a card snapshot is used.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.errors import UsageError, WorkbenchError
from app.protocol.card.fetch import fetch_card
from app.protocol.card.read import ReadOutcome, read_bytes, read_card
from app.spec import environments
from app.spec.document import SpecDocument, SpecError, load

__all__ = ["CardUnreachable", "LoadedCard", "SourceError", "load_source"]


class SourceError(UsageError):
    """The source is not a usable card or spec (CLI exit 3); the message says why."""


class CardUnreachable(WorkbenchError):
    """A card URL gave no card: refused, timed out, an HTTP error (CLI exit 2)."""


@dataclass(frozen=True)
class LoadedCard:
    """A card and where it came from, in words (``https://…/agent-card.json``, a path,
    ``spec.yaml, operation send-message``)."""

    card: dict[str, Any]
    origin: str


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


async def _fetch(url: str) -> LoadedCard:
    result = await fetch_card(url, a2a_version="1.0")
    reading = read_card(result)
    if reading.outcome is ReadOutcome.FAILED:
        raise CardUnreachable(f"card not fetched from {result.card_url}: {reading.error}")
    if result.status != 200:
        where = f" (redirect to {result.redirect_location})" if result.redirect_location else ""
        raise CardUnreachable(
            f"card not fetched from {result.card_url}: HTTP {result.status}{where}"
        )
    return LoadedCard(_as_card(reading.card, reading.parse_error, result.card_url), result.card_url)


def _as_card(value: Any, parse_error: Any, origin: str) -> dict[str, Any]:
    if parse_error is not None:
        raise SourceError(f"{origin} is not JSON: {parse_error.message}")
    if not isinstance(value, dict):
        raise SourceError(f"{origin} is not an Agent Card (not a JSON object)")
    return value


def _resolve(doc: SpecDocument, url: str, origin: str, env: str, values: Mapping[str, str]) -> str:
    found, _ = environments.read(doc.data)
    if env and environments.find(found, env) is None:
        known = ", ".join(e.name for e in found) or "none"
        raise SourceError(f"unknown environment {env!r} (environments: {known})")
    resolver = environments.resolver_for(found, env, values=values)
    try:
        return dataclasses.replace(resolver, use_keyring=False).substitute(url, "agentCardUrl")
    except UsageError as exc:
        raise SourceError(f"{origin}: {exc}") from exc


def _from_spec(
    doc: SpecDocument,
    name: str,
    operation: str | None,
    env: str = "",
    values: Mapping[str, str] | None = None,
) -> tuple[Any, str]:
    """``(card or card URL, origin)`` of the spec's chosen saved request."""
    if operation is not None:
        found = doc.find(operation)
        if found is None:
            ids = ", ".join(sorted(doc.operation_ids())) or "none"
            raise SourceError(f"{name} has no saved request {operation!r} (saved: {ids})")
        request = found.request
        origin = f"{name}, operation {operation}"
        if request.agent_card is not None:
            return request.agent_card, origin
        url = request.agent_card_url
        if not url:
            raise SourceError(f"{origin} saves neither an agentCard nor an agentCardUrl")
        return _resolve(doc, url, origin, env, values or {}), origin
    for op in doc.operations():
        if op.request.agent_card is not None:
            return op.request.agent_card, f"{name}, operation {op.request.operation_id}"
    raise SourceError(f"{name} saves no agentCard; choose a request with --operation ID")


async def load_source(
    source: str | Path,
    *,
    operation: str | None = None,
    environment: str = "",
    values: Mapping[str, str] | None = None,
) -> LoadedCard:
    """The card named by ``source`` (module docstring).

    Args:
        source: a card URL, a card file or an OpenAPI spec file with ``x-a2a`` requests.
        operation: in a spec, the ``operationId`` of the saved request whose card is used.
        environment: in a spec, the environment that resolves ``agentCardUrl`` variables.
        values: explicit variable values (``--var``); they win over the environment.

    Raises:
        SourceError: unreadable file, not JSON, not a card, no such operation or
            environment, an unresolved variable, ``operation`` given for a card.
        CardUnreachable: a card URL gave no card.
    """
    text = str(source)
    if _is_url(text):
        if operation is not None:
            raise SourceError("--operation applies to a spec, not to a card URL")
        return await _fetch(text)
    path = Path(text)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read {text}: {exc.strerror or exc}") from exc
    if _looks_like_spec(raw):
        try:
            doc = load(path)
        except SpecError as exc:
            raise SourceError(str(exc)) from exc
        found, origin = _from_spec(doc, text, operation, environment, values)
        if isinstance(found, str):
            loaded = await _fetch(found)
            return LoadedCard(loaded.card, f"{origin} ({loaded.origin})")
        return LoadedCard(dict(found), origin)
    if operation is not None:
        raise SourceError(f"--operation applies to a spec; {text} is not an OpenAPI document")
    reading = read_bytes(raw, text)
    return LoadedCard(_as_card(reading.card, reading.parse_error, text), text)


def _looks_like_spec(raw: bytes) -> bool:
    """An OpenAPI document has a top-level ``openapi`` (JSON) or ``openapi:`` (YAML) key."""
    head = raw.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        try:
            value = json.loads(raw)
        except ValueError:
            return False
        return isinstance(value, dict) and "openapi" in value
    return any(line.startswith(b"openapi:") for line in raw.splitlines())
