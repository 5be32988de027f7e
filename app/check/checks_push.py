"""Push checks (placeholder until the receiver lands)."""

from __future__ import annotations

from app.check.spec import CheckSpec

CHECKS: tuple[CheckSpec, ...] = ()
