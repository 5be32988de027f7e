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
    checks_tables,
    checks_turns,
    checks_wire,
)
from app.check.spec import CheckSpec

CHECKS: tuple[CheckSpec, ...] = (
    *checks_card.CHECKS,
    *checks_core.CHECKS,
    *checks_wire.CHECKS,
    *checks_turns.CHECKS,
    *checks_errors.CHECKS,
    *checks_streaming.CHECKS,
    *checks_push.CHECKS,
    *checks_access.CHECKS,
    *checks_parity.CHECKS,
    *checks_gaps.CHECKS,
    *checks_tables.CHECKS,  # last: it judges what the others saw
)

CARD_AVAILABLE = "card.available"
"""The card fetch itself: judged by the runner before any other check."""

CREDENTIALS_WITHHELD = "card.credentials-withheld"
"""An interface off the card's host: called without the run's credentials (the runner's)."""

INTERFACE_ANSWERS = "card.interface-answers"
"""When no interface answers this, the agent is unreachable and the run stops."""


RUNNER_TCK: dict[str, tuple[str, ...]] = {
    CARD_AVAILABLE: ("CARD-DISC-001",),
    CREDENTIALS_WITHHELD: (),
}
"""The a2a-tck requirement ids of the results the runner makes itself (none: ours only)."""


def tck_ids(check_id: str) -> tuple[str, ...]:
    """Every a2a-tck requirement id ``check_id`` corresponds to (docs/CHECKS.md)."""
    if check_id in RUNNER_TCK:
        return RUNNER_TCK[check_id]
    return next(spec.tck for spec in CHECKS if spec.check_id == check_id)


def check_ids() -> tuple[str, ...]:
    """Every check id (``card.available`` first)."""
    return (CARD_AVAILABLE, CREDENTIALS_WITHHELD, *(spec.check_id for spec in CHECKS))
