"""The window's spacing scale: the few distances every layout uses, so that gaps read alike
from one pane to the next (a rhythm as in Postman's or Bruno's panes, not one per file).

``TIGHT`` within a group (a caption and its field, stacked id rows), ``GAP`` between the
controls of a row or column, ``GROUP`` between groups (a row of buttons and the next
section), ``MARGIN`` around a page's contents inside its tab or dock.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLayout

TIGHT = 2
GAP = 6
GROUP = 12
MARGIN = 6


def page(layout: QLayout, *, margin: int = MARGIN, gap: int = GAP) -> QLayout:
    """Give ``layout`` a page's margins and the gap between its items; returns it."""
    layout.setContentsMargins(margin, margin, margin, margin)
    layout.setSpacing(gap)  # a grid: both directions
    return layout


def flush(layout: QLayout, *, gap: int = GAP) -> QLayout:
    """``layout`` without margins (a part inside a page), its items ``gap`` apart."""
    return page(layout, margin=0, gap=gap)
