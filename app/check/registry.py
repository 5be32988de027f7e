"""Every check, in the order a run makes and the report lists them."""

from __future__ import annotations

from app.check import (
    checks_access,
    checks_card,
    checks_core,
    checks_errors,
    checks_gaps,
    checks_parity,
    checks_push,
    checks_streaming,
)
from app.check.spec import CheckSpec

CHECKS: tuple[CheckSpec, ...] = (
    *checks_card.CHECKS,
    *checks_core.CHECKS,
    *checks_errors.CHECKS,
    *checks_streaming.CHECKS,
    *checks_push.CHECKS,
    *checks_access.CHECKS,
    *checks_parity.CHECKS,
    *checks_gaps.CHECKS,
)

CARD_AVAILABLE = "card.available"
"""The card fetch itself: judged by the runner before any other check."""

CREDENTIALS_WITHHELD = "card.credentials-withheld"
"""An interface off the card's host: called without the run's credentials (the runner's)."""

INTERFACE_ANSWERS = "card.interface-answers"
"""When no interface answers this, the agent is unreachable and the run stops."""


def check_ids() -> tuple[str, ...]:
    """Every check id (``card.available`` first)."""
    return (CARD_AVAILABLE, CREDENTIALS_WITHHELD, *(spec.check_id for spec in CHECKS))
