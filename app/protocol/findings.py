"""Findings: how an answer deviates from the spec while still being understood.

A *protocol error* is an answer the client cannot understand; a *finding* is one it can
(a 0.3 state spelling in a 1.0 answer, a success response with ``"id": null``, a stream the
server keeps open after its task ended): the client goes on with what was meant and reports
the deviation. Stream lifecycle lint (:mod:`app.protocol.stream.lifecycle`), the exchange's checks
(:mod:`app.protocol.methods.deviations`) and later checks of an agent all speak this one record.

Pure data, no I/O, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    """How much a finding matters: ``error`` breaks a MUST of the spec (``--strict`` fails on
    it), ``warning`` a SHOULD or a likely mistake, ``info`` a remark."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One deviation, understood.

    Attributes:
        rule: a stable id (``state-spelling``, ``after-terminal``).
        message: a sentence for the user.
        severity: see :class:`Severity`.
        section: where docs/PROTOCOL.md explains the rule (``§5.3``).
        spec: the section of the A2A spec (or JSON-RPC 2.0) the rule comes from.
        path: where in the JSON (``$.result.status.state``); empty for the exchange as a whole.
        raw: the value as received, when the finding normalised it (``"cancelled"``).
    """

    rule: str
    message: str
    severity: Severity = Severity.WARNING
    section: str = ""
    spec: str = ""
    path: str = ""
    raw: str = ""

    def as_record(self) -> dict[str, Any]:
        """This finding as a JSON-able object (the CLI ``finding`` record, JSON views)."""
        record: dict[str, Any] = {
            "severity": self.severity.value,
            "rule": self.rule,
            "message": self.message,
        }
        for key in ("section", "spec", "path", "raw"):
            value = getattr(self, key)
            if value:
                record[key] = value
        return record

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.severity.value}: {self.message}{where} ({self.rule})"
