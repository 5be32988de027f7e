"""How a check is declared: an id, an area, a title, the spec sections, and a rule.

A rule gets the run's :class:`~app.check.context.CheckContext` and one interface (or None
for card-wide checks) and returns a :class:`Verdict`. The runner turns it into a
:class:`~app.check.check_model.CheckResult` with the exchanges the rule cited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from app.check.check_model import CheckArea, CheckStatus
from app.check.context import CheckContext
from app.check.target import Target
from app.protocol.types import Binding, ProtocolVersion


@dataclass(frozen=True)
class Verdict:
    status: CheckStatus
    detail: str = ""


def passed(detail: str = "") -> Verdict:
    return Verdict(CheckStatus.PASS, detail)


def failed(detail: str) -> Verdict:
    return Verdict(CheckStatus.FAIL, detail)


def warned(detail: str) -> Verdict:
    return Verdict(CheckStatus.WARN, detail)


def skipped(detail: str) -> Verdict:
    """Could not be tested (:attr:`CheckStatus.SKIP`)."""
    return Verdict(CheckStatus.SKIP, detail)


def not_applicable(detail: str) -> Verdict:
    """Does not apply to this card, binding or version (:attr:`CheckStatus.NA`)."""
    return Verdict(CheckStatus.NA, detail)


class Scope(Enum):
    CARD = "card"
    """Once per run (``interface`` is ``""``)."""
    INTERFACE = "interface"
    """Once per interface checked."""
    VERSION = "version"
    """Once per protocol version among the interfaces (parity, push)."""


Rule = Callable[[CheckContext, Target | None], Awaitable[Verdict]]


@dataclass(frozen=True)
class CheckSpec:
    check_id: str
    area: CheckArea
    title: str
    section_v1: str
    section_v03: str
    rule: Rule
    scope: Scope = Scope.INTERFACE
    tck: tuple[str, ...] = ()
    """The requirement ids of the official conformance kit a2a-tck (its A2A 1.0 branch)
    whose ground the check covers, in our own words and code (docs/CHECKS.md). An id of one
    binding (``JSONRPC-…``, ``HTTP_JSON-…``, ``GRPC-…``) goes only with that binding's
    results."""

    def section(self, version: ProtocolVersion | None) -> str:
        if version is ProtocolVersion.V0_3:
            return self.section_v03 or self.section_v1
        return self.section_v1 or self.section_v03

    def tck_for(self, binding: Binding | None) -> tuple[str, ...]:
        """The requirement ids a result on ``binding`` (None: card- or version-wide)
        corresponds to."""
        if binding is None:
            return self.tck
        return tuple(i for i in self.tck if tck_binding(i) in (None, binding))


def tck_binding(requirement: str) -> Binding | None:
    """The binding an a2a-tck requirement id is about (``GRPC-ERR-002``), None for the
    binding-free ones (``CORE-SEND-001``); the kit names them after ``Binding``'s members."""
    prefix = requirement.split("-", 1)[0]
    return next((b for b in Binding if b.name == prefix), None)
