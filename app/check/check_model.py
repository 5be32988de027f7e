"""What a check run yields: the records the CLI, JUnit report and report view consume.

A run is an async stream of :data:`CheckEvent`: one :class:`CheckStarted`, then
:class:`CheckProgress` and :class:`CheckResult` records in any order, and always exactly one
final :class:`CheckEnded`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class CheckStatus(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"
    """Could not be tested: a prerequisite failed, no credentials were given, the budget ran
    out, the agent is out of the push receiver's reach."""
    NA = "n/a"
    """Not applicable: the card does not claim what the check tests (streaming, push, an
    extended card, security, a required extension), or the binding or version has no such
    thing (a JSON-RPC rule over gRPC, ListTasks in 0.3)."""


class CheckArea(StrEnum):
    """Report groups, in the order the report lists them."""

    CARD = "card"
    CORE = "core"
    ERRORS = "errors"
    STREAMING = "streaming"
    PUSH = "push"
    EXTENDED_CARD = "extended-card"
    EXTENSIONS = "extensions"
    SECURITY = "security"
    PARITY = "parity"
    GAPS = "gaps"


@dataclass(frozen=True)
class CheckResult:
    check_id: str
    """Stable, dotted: ``errors.task-not-found``; with the interface it identifies a row."""
    area: CheckArea
    title: str
    """What was checked, one line: "unknown task id gets TaskNotFound"."""
    status: CheckStatus
    section: str
    """The spec section the rule comes from, e.g. ``A2A 1.0 §3.3.2`` (``""`` if none)."""
    detail: str = ""
    """Why it failed / was skipped / does not apply / what was seen; one or more lines."""
    interface: str = ""
    """Which interface: ``"JSONRPC 1.0 http://127.0.0.1:8000/"``; ``""`` for card-wide."""
    exchanges: tuple[int, ...] = ()
    """History entry ids of the exchanges that show it (``history show ID``)."""
    duration_ms: float = 0.0
    tck: tuple[str, ...] = ()
    """The a2a-tck requirement ids (its A2A 1.0 branch) the check corresponds to, e.g.
    ``("CORE-GET-002", "GRPC-ERR-002")`` (docs/CHECKS.md)."""


@dataclass(frozen=True)
class CheckStarted:
    card_url: str
    agent_name: str
    interfaces: tuple[str, ...]
    """The interfaces being checked, in the same spelling as ``CheckResult.interface``."""
    planned: int
    """How many checks are planned (progress total; may be revised by CheckProgress)."""


@dataclass(frozen=True)
class CheckProgress:
    done: int
    """Results yielded so far (the card's availability counts as the first)."""
    total: int
    """Results the run will yield: ``CheckStarted.planned``, in the same units."""
    current: str
    """The check now running, as its title."""


class EndReason(StrEnum):
    COMPLETED = "completed"
    UNREACHABLE = "unreachable"
    """The card could not be read, or no interface answered."""
    BUDGET = "budget"
    """The whole-run time budget ran out; the remaining checks are skipped."""
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class CheckEnded:
    reason: EndReason
    counts: dict[CheckStatus, int] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    message: str = ""


CheckEvent = CheckStarted | CheckProgress | CheckResult | CheckEnded
