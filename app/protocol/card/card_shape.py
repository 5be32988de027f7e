"""Which protocol version(s) an Agent Card's JSON follows, and the finding record.

Three shapes are told apart (docs/PROTOCOL.md §6.3.3, docs/PEERS.md Q10):

- **pure 1.0**: ``supportedInterfaces`` and no 0.3 top-level fields;
- **pure 0.3**: top-level ``url`` + ``preferredTransport`` + ``additionalInterfaces``;
- **hybrid**: a 1.0 card with the 0.3 mirror fields merged in, as a2a-sdk 1.3.0 serves it
  whenever the card lists a 0.3 interface (``agent_card_to_dict``).

Also here: the small vocabulary the validator, the view and the signature checks share
(versions the app speaks, standard bindings, JSON type names). Nothing here raises.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MIRROR_FIELDS_03",
    "SPEAKABLE_VERSIONS",
    "CardProblem",
    "CardShape",
    "Severity",
    "detect_shape",
    "json_type",
    "major_minor",
]

SPEAKABLE_VERSIONS = ("1.0", "0.3")
"""Protocol versions (Major.Minor) this app can speak."""


MIRROR_FIELDS_03 = (
    "url",
    "preferredTransport",
    "protocolVersion",
    "additionalInterfaces",
    "security",
    "supportsAuthenticatedExtendedCard",
)
"""Top-level 0.3 fields a2a-sdk 1.3.0 merges into a 1.0 card (docs/PROTOCOL.md §6.3.3)."""


class CardShape(enum.Enum):
    """Which protocol version(s) a card's JSON follows."""

    V1_0 = "pure 1.0"
    V0_3 = "pure 0.3"
    HYBRID = "hybrid"
    NOT_A_CARD = "not a card"


class Severity(enum.Enum):
    """How bad a ``CardProblem`` is."""

    ERROR = "error"
    """Violates the spec or the descriptor; a strict peer would reject the card."""
    WARNING = "warning"
    """Legal but likely to break something (e.g. an interface version the app cannot speak)."""
    INFO = "info"
    """Worth knowing (e.g. 0.3 mirror fields, which a 1.0 signature does not cover)."""


@dataclass(frozen=True, slots=True)
class CardProblem:
    """One field-level finding.

    Attributes:
        path: JSON path from the card root, e.g. ``supportedInterfaces[0].url``; ``""`` = root.
        message: what is wrong, in words.
        severity: ERROR, WARNING or INFO.
    """

    path: str
    message: str
    severity: Severity = Severity.ERROR


def _has(card: dict[str, Any], *names: str) -> bool:
    return any(name in card for name in names)


def detect_shape(card: object) -> CardShape:
    """Classify parsed card JSON.

    Args:
        card: any JSON value.

    Returns:
        ``NOT_A_CARD`` for non-objects; ``HYBRID`` when ``supportedInterfaces`` sits next to
        0.3 mirror fields; ``V1_0`` when it has ``supportedInterfaces`` (or neither
        convention); ``V0_3`` when it has only the 0.3 ``url`` / ``preferredTransport`` /
        ``additionalInterfaces`` / ``protocolVersion``.
    """
    if not isinstance(card, dict):
        return CardShape.NOT_A_CARD
    has_v1 = _has(card, "supportedInterfaces", "supported_interfaces")
    has_v03 = _has(card, *MIRROR_FIELDS_03, "preferred_transport", "additional_interfaces")
    if has_v1 and has_v03:
        return CardShape.HYBRID
    if has_v1:
        return CardShape.V1_0
    if _has(card, "url", "preferredTransport", "additionalInterfaces", "protocolVersion"):
        return CardShape.V0_3
    return CardShape.V1_0


def major_minor(version: str) -> str | None:
    """``"1.0"`` for ``"1.0"`` / ``"1.0.2"`` / ``" 01.0 "``; ``None`` when not Major.Minor[.x]."""
    parts = version.strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return f"{int(parts[0])}.{int(parts[1])}"


def json_type(value: object) -> str:
    """The JSON type name of a parsed value (``"object"``, ``"array"``, ``"null"``…)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
