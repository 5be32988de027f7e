"""``run``'s assertions and captures: the records it prints and the JUnit report it writes.

After each operation its ``x-a2a.assertions`` are evaluated over what came back
(:mod:`app.spec.assertions`): one ``assertion`` record each, and its ``x-a2a.captures``
become variables of the requests after it (one ``capture`` record each). Each request's
outcome and duration are kept too: the JUnit report has a case per request, sent or not,
and one per assertion.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.commands.junit import CaseStatus, JUnitCase, JUnitSuite, write_junit
from app.protocol.events import Outcome
from app.spec.assertions import Assertion, AssertionResult, Observed, capture, evaluate
from app.spec.variables import Resolver
from app.spec.xa2a import SavedRequest, is_sensitive_name

MASK = "***"

_CASE_STATUS = {
    Outcome.OK: CaseStatus.PASSED,
    # The agent answered, with an error: the request failed.
    Outcome.RPC_ERROR: CaseStatus.FAILED,
}
"""A request's case; every other outcome (transport, protocol, usage, cancelled) is an
error: the request could not be made or answered."""


@dataclass(frozen=True)
class RequestCase:
    """One request of the run, as its JUnit case reports it."""

    operation: str
    label: str
    """``SendMessage (JSONRPC 1.0)``."""
    outcome: Outcome
    seconds: float
    """From the first byte out to the end of the answer (0 when nothing was sent)."""
    message: str = ""
    """Why it failed: the first error, or why it was not sent."""


@dataclass
class RunChecks:
    """The assertion results and captured variables of one ``run``, operation by operation."""

    reveal_secrets: bool = False
    results: list[tuple[str, Assertion, AssertionResult]] = field(default_factory=list)
    """(operationId, the assertion as written, its result with the values resolved)."""
    captured: dict[str, str] = field(default_factory=dict)
    requests: list[RequestCase] = field(default_factory=list)
    lost: dict[str, tuple[str, Outcome]] = field(default_factory=dict)
    """Captures an operation declared but did not make: variable → (that operation, its
    outcome). A later request needing one is not sent, because of that operation."""

    @property
    def failed(self) -> int:
        """How many assertions failed."""
        return sum(not r.passed for _, _, r in self.results)

    def sent(self, case: RequestCase) -> None:
        """Keep one request's case for the JUnit report."""
        self.requests.append(case)

    def after(
        self,
        saved: SavedRequest,
        observed: Observed,
        resolver: Resolver,
        outcome: Outcome = Outcome.OK,
    ) -> list[dict[str, Any]]:
        """Evaluate ``saved``'s assertions (``{{variables}}`` in their values resolved by
        ``resolver``) and captures (of an exchange that ended ``outcome``); the records to
        print."""
        op_id = saved.operation_id

        def substitute(text: str) -> str:
            return resolver.substitute(text, f"{op_id}: x-a2a.assertions")

        records: list[dict[str, Any]] = []
        results = evaluate(saved.assertions, observed, substitute)
        for written, result in zip(saved.assertions, results, strict=True):
            self.results.append((op_id, written, result))
            records.append({"event": "assertion", **result.record(op_id)})
        values, problems = capture(saved.captures, observed)
        for name, path in saved.captures:
            record: dict[str, Any] = {"event": "capture", "operation": op_id,
                                      "variable": name, "path": path}  # fmt: skip
            if name in values:
                hidden = is_sensitive_name(name) and not self.reveal_secrets
                record |= {"captured": True, "value": MASK if hidden else values[name]}
            else:
                record |= {"captured": False, "message": next(
                    (p for p in problems if p.startswith(f"capture {name}:")), "")}  # fmt: skip
            records.append(record)
        self.captured |= values
        for name, _ in saved.captures:
            if name in values:
                self.lost.pop(name, None)
            else:
                self.lost[name] = (op_id, outcome)
        return records

    def write_junit(self, path: Path, operations: list[str]) -> None:
        """One suite per operation: a case for its request (passed, a failure when the agent
        answered with an error, an error when it could not be sent or answered; its real
        duration) and one per assertion."""
        suites = []
        for op in dict.fromkeys(operations):
            cases = [_request_case(r) for r in self.requests if r.operation == op]
            cases += [
                JUnitCase(
                    classname=op,
                    # As written ({{variables}} unresolved): the same case in every run.
                    name=f"{a.path} {a.op.value} {_text(a.value)}",
                    status=CaseStatus.PASSED if r.passed else CaseStatus.FAILED,
                    message=r.message,
                    detail="" if r.passed else f"actual: {_text(r.actual)}",
                )
                for op_id, a, r in self.results
                if op_id == op
            ]
            if cases:
                suites.append(JUnitSuite(op, cases))
        write_junit(path, suites or [JUnitSuite("run")], "a2a-workbench run")


def _request_case(request: RequestCase) -> JUnitCase:
    status = _CASE_STATUS.get(request.outcome, CaseStatus.ERROR)
    message = request.message or request.outcome.value
    return JUnitCase(
        classname=request.operation,
        name=f"request {request.label}",
        status=status,
        time_s=request.seconds,
        message="" if status is CaseStatus.PASSED else message,
        detail="" if status is CaseStatus.PASSED else f"outcome: {request.outcome.value}",
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def pretty_check(record: dict[str, Any]) -> str | None:
    """The pretty line of an ``assertion`` or ``capture`` record (None for other records)."""
    if record.get("event") == "assertion":
        mark = "✓" if record["passed"] else "✗"
        line = f"{mark} assert {record['path']} {record['op']} {_text(record['expected'])}"
        if not record["passed"]:
            line += f"  — {record['message']}"
        return line
    if record.get("event") == "capture":
        if record["captured"]:
            return f"⇢ {{{{{record['variable']}}}}} = {record['value']}  ({record['path']})"
        return f"⇢ {{{{{record['variable']}}}}} not captured: {record['message']}"
    return None
