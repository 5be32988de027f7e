"""The card page's *Send credentials* box: opt in to sending the tab's credentials with the
card fetch, for a card behind them (``CardAuth``, docs/PROTOCOL.md §6.3.2).

Unticked (the default), the card is fetched without credentials, as the spec asks. Ticked,
the tab's Auth and credential headers go with it — only when the card URL is on the origin
of the tab's endpoint, whose credentials they are, and never across a redirect (none is
followed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QCheckBox

from app.errors import UsageError
from app.protocol.card.card_auth import CardAuth, origin_of
from app.protocol.request import A2ARequest

CHECK_TIP = (
    "Send this tab's credentials with the card fetch — only to the origin of the tab's "
    "endpoint, never across a redirect. For a card behind credentials; off, the card is "
    "fetched without any, as the spec asks"
)
HINT = " It may be behind credentials: tick “Send credentials” to send the tab's to its origin."


def card_auth_check() -> QCheckBox:
    """The box (``cardAuthCheck``), unticked."""
    box = QCheckBox("Send credentials")
    box.setObjectName("cardAuthCheck")
    box.setToolTip(CHECK_TIP)
    return box


def card_auth_of(
    box: QCheckBox, request_provider: Callable[[], A2ARequest] | None
) -> CardAuth | None:
    """The credentials the fetch may carry: None unless the box is ticked and the tab's
    request has a credential (its headers hold its Auth already)."""
    if not box.isChecked() or request_provider is None:
        return None
    try:
        request = request_provider()
    except UsageError:  # the tab's request cannot be built (a credential it cannot encode)
        return None
    origin = origin_of(request.endpoint)
    names = {"authorization", "cookie", *(n.lower() for n in request.secret_headers)}
    headers = tuple(pair for pair in request.headers if pair[0].lower() in names)
    query = tuple(pair for pair in request.query if pair[0] in request.secret_query)
    if not origin or not (headers or query):
        return None
    return CardAuth(origin, headers, query, tuple(sorted(names)))
