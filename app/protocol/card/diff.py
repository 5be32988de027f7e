"""Differences between two Agent Cards (public vs. extended), as a flat list for a table.

The extended card (``GetExtendedAgentCard``, ``agent/getAuthenticatedExtendedCard``) is meant
to be the public card plus what an authenticated client may see (docs/PROTOCOL.md
§6.3.1). The user wants to know *what* differs, so the diff is member-level with JSON paths:

- objects are compared key by key (public key order first, then keys only the extended card
  has);
- arrays whose elements are all objects with a unique string ``id`` (skills) are matched by
  ``id`` (path ``skills[id=sum]``), so an inserted skill does not shift every later one;
- other arrays are compared index by index;
- ``signatures`` is skipped by default: each card carries its own;
- :func:`diff_public_extended` also skips the 0.3 mirror fields when only one card is hybrid
  (the Python SDK merges them into the public card but not into the JSON-RPC answer), so the
  diff shows what the extended card *says* differently, not how it is serialised.

Qt-free; never raises on any JSON input.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.protocol.card.card_shape import MIRROR_FIELDS_03, CardShape, detect_shape

__all__ = ["CardDiffEntry", "DiffKind", "diff_cards", "diff_public_extended", "diff_summary"]

_MAX_DEPTH = 64

# Members of a hybrid card that a pure 0.3 card expresses differently or not at all.
_V1_ONLY = (
    "supportedInterfaces",
    "securityRequirements",
    "capabilities.extendedAgentCard",
)


class DiffKind(enum.Enum):
    """How one member differs."""

    ADDED = "added"
    """Only the extended card has it."""
    REMOVED = "removed"
    """Only the public card has it."""
    CHANGED = "changed"
    """Both have it, with different values."""


@dataclass(frozen=True, slots=True)
class CardDiffEntry:
    """One difference.

    Attributes:
        path: JSON path from the card root (``""`` = the whole card), e.g. ``skills[id=x]``.
        kind: ADDED, REMOVED or CHANGED.
        before: the public card's value as compact JSON ("" when ADDED).
        after: the extended card's value as compact JSON ("" when REMOVED).
    """

    path: str
    kind: DiffKind
    before: str = ""
    after: str = ""


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return "(not shown: not serialisable or too deep)"


def _same(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1, 1 equals 1.0 (both are the JSON number 1).
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b) or isinstance(a, dict | list):
        return False  # containers are walked member by member
    return bool(a == b)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _ids(items: list[Any]) -> list[str] | None:
    ids: list[str] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return None
        ids.append(item["id"])
    return ids if len(set(ids)) == len(ids) else None


class _Differ:
    def __init__(self, ignore: frozenset[str]) -> None:
        self.ignore = ignore
        self.out: list[CardDiffEntry] = []

    def changed(self, path: str, a: Any, b: Any) -> None:
        self.out.append(CardDiffEntry(path, DiffKind.CHANGED, _compact(a), _compact(b)))

    def walk(self, a: Any, b: Any, path: str, depth: int) -> None:
        if _same(a, b):
            return
        if depth > _MAX_DEPTH:
            self.changed(path, a, b)
        elif isinstance(a, dict) and isinstance(b, dict):
            self.objects(a, b, path, depth)
        elif isinstance(a, list) and isinstance(b, list):
            self.arrays(a, b, path, depth)
        else:
            self.changed(path, a, b)

    def objects(self, a: dict[str, Any], b: dict[str, Any], path: str, depth: int) -> None:
        keys = list(a) + [k for k in b if k not in a]
        for key in keys:
            sub = _join(path, str(key))
            if sub in self.ignore:
                continue
            if key not in b:
                self.out.append(CardDiffEntry(sub, DiffKind.REMOVED, before=_compact(a[key])))
            elif key not in a:
                self.out.append(CardDiffEntry(sub, DiffKind.ADDED, after=_compact(b[key])))
            else:
                self.walk(a[key], b[key], sub, depth + 1)

    def arrays(self, a: list[Any], b: list[Any], path: str, depth: int) -> None:
        ids_a, ids_b = _ids(a), _ids(b)
        if ids_a is not None and ids_b is not None:
            by_a = dict(zip(ids_a, a, strict=True))
            by_b = dict(zip(ids_b, b, strict=True))
            for ident in ids_a + [i for i in ids_b if i not in by_a]:
                sub = f"{path}[id={ident}]"
                if ident not in by_b:
                    self.out.append(CardDiffEntry(sub, DiffKind.REMOVED, _compact(by_a[ident])))
                elif ident not in by_a:
                    self.out.append(CardDiffEntry(sub, DiffKind.ADDED, "", _compact(by_b[ident])))
                else:
                    self.walk(by_a[ident], by_b[ident], sub, depth + 1)
            return
        for i in range(max(len(a), len(b))):
            sub = f"{path}[{i}]"
            if i >= len(b):
                self.out.append(CardDiffEntry(sub, DiffKind.REMOVED, before=_compact(a[i])))
            elif i >= len(a):
                self.out.append(CardDiffEntry(sub, DiffKind.ADDED, after=_compact(b[i])))
            else:
                self.walk(a[i], b[i], sub, depth + 1)


def diff_cards(
    public: Any, extended: Any, *, ignore: Iterable[str] = ("signatures",)
) -> tuple[CardDiffEntry, ...]:
    """List how ``extended`` differs from ``public``; never raises.

    Args:
        public: the public card JSON (any JSON value).
        extended: the extended card JSON (any JSON value).
        ignore: member paths to leave out (``"signatures"``, ``"capabilities.streaming"``).

    Returns:
        Differences in document order; empty when the cards are equal.
    """
    differ = _Differ(frozenset(ignore))
    try:
        differ.walk(public, extended, "", 1)
    except RecursionError:
        return (CardDiffEntry("", DiffKind.CHANGED, "(too deep to compare)", ""),)
    return tuple(differ.out)


def diff_summary(entries: Iterable[CardDiffEntry]) -> str:
    """``"1 added, 0 removed, 2 changed"`` or ``"no differences"``."""
    counts = dict.fromkeys(DiffKind, 0)
    for entry in entries:
        counts[entry.kind] += 1
    if not any(counts.values()):
        return "no differences"
    return ", ".join(f"{counts[k]} {k.value}" for k in DiffKind)


def diff_public_extended(public: Any, extended: Any) -> tuple[tuple[CardDiffEntry, ...], str]:
    """Diff for the *Extended card* view: ``(entries, note)``; never raises.

    When exactly one of the two cards is hybrid, the members only the other convention has
    are left out (the 0.3 mirror fields against a pure 1.0 card; the 1.0-only members against
    a pure 0.3 card) and ``note`` says so ("" otherwise).
    """
    shapes = {detect_shape(public), detect_shape(extended)}
    ignore = ["signatures"]
    note = ""
    if CardShape.HYBRID in shapes and len(shapes) == 2:
        other = next(iter(shapes - {CardShape.HYBRID}))
        skipped = MIRROR_FIELDS_03 if other is CardShape.V1_0 else _V1_ONLY
        if other in (CardShape.V1_0, CardShape.V0_3):
            ignore.extend(skipped)
            note = (
                f"the hybrid card's members that a {other.value} card does not have "
                f"({', '.join(skipped)}) were left out of the comparison"
            )
    return diff_cards(public, extended, ignore=ignore), note
