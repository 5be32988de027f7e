"""Marking methods an Agent Card says are unsupported: marked in the picker, never hidden."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from app.protocol.methods.catalog import Capability, MethodSpec
from app.ui.shell import theme

NOT_IN_CARD = " — not in card"


def unsupported_reason(spec: MethodSpec, caps: Mapping[str, Any] | None) -> str:
    """Why the card says ``spec`` is unsupported, or ``""`` (also when no card is known).

    ``caps`` is the card's ``capabilities`` object; an absent flag counts as false (the
    proto default). For 0.3 cards pass ``extendedAgentCard`` from the top-level
    ``supportsAuthenticatedExtendedCard``.
    """
    if caps is None or spec.capability is None or caps.get(spec.capability.value):
        return ""
    what = {
        Capability.STREAMING: "streaming",
        Capability.PUSH_NOTIFICATIONS: "push notifications",
        Capability.EXTENDED_CARD: "an extended Agent Card",
    }[spec.capability]
    return (
        f"The Agent Card does not announce {what} (capabilities.{spec.capability.value} is "
        "not true). You can still send it to see what the agent does."
    )


def mark_methods(
    combo: QComboBox, specs: dict[str, MethodSpec], caps: Mapping[str, Any] | None
) -> None:
    """Relabel ``combo`` 's items (data = method name) with the card's verdict."""
    for i in range(combo.count()):
        spec = specs.get(str(combo.itemData(i)))
        if spec is None:
            continue
        reason = unsupported_reason(spec, caps)
        label = f"{spec.name} (legacy)" if spec.legacy else spec.name
        combo.setItemText(i, label + NOT_IN_CARD if reason else label)
        combo.setItemData(
            i, theme.brushes().muted_text if reason else None, Qt.ItemDataRole.ForegroundRole
        )
        tip = f"{spec.summary}\n\n{reason}" if reason else spec.summary
        combo.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
