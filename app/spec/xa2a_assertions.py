"""The ``assertions`` and ``captures`` keys of ``x-a2a`` (evaluated by :mod:`app.spec.assertions`).

::

    x-a2a:
      assertions:
      - {path: /result/task/status/state, op: equals, value: TASK_STATE_COMPLETED}
      - {path: '$.result.task.artifacts[0].parts[*].text', op: contains, value: 'Sum: 42'}
      - {path: /error, op: exists, value: false}
      - {finalState: completed}                       # = {path: finalState, op: equals, ...}
      - {itemCount: {op: lessThan, value: 10}}
      - {durationMs: 2000}                            # shorthand for lessThan 2000
      captures:
        taskId: /result/task/id                       # {{taskId}} for the requests after it

``op`` defaults to ``equals`` (``exists`` when no ``value`` is given). A file that is not
of this shape is an error naming the place; an assertion of this shape that cannot be
evaluated (a path in neither syntax, ``lessThan`` a string, a bad regular expression) is
kept as written and fails with that reason when evaluated, so nothing typed is lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from app.spec.assertions import Assertion, AssertionOp, Subject
from app.spec.xa2a_auth import json_kind

Error = Callable[[str, str], Exception]
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
"""A {{variable}} name, as app.spec.variables reads them."""


def checks_to_x_a2a(
    assertions: tuple[Assertion, ...], captures: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    """The ``assertions`` / ``captures`` entries (none when empty)."""
    out: dict[str, Any] = {}
    if assertions:
        out["assertions"] = [_assertion_to_x(a) for a in assertions]
    if captures:
        out["captures"] = dict(captures)
    return out


def _assertion_to_x(assertion: Assertion) -> dict[str, Any]:
    subject = assertion.subject
    op, value = assertion.op, assertion.value
    if subject is Subject.FINAL_STATE and op is AssertionOp.EQUALS:
        return {subject.value: value}
    if subject is not None:
        return {subject.value: {"op": op.value, "value": value}}
    out: dict[str, Any] = {"path": assertion.path, "op": op.value}
    if not (op is AssertionOp.EXISTS and value in (None, True)):
        out["value"] = value
    return out


def assertions_from_x_a2a(x: Mapping[str, Any], path: str, error: Error) -> tuple[Assertion, ...]:
    """Parse ``x``'s ``assertions``; ``error(path, message)`` builds what is raised."""
    raw = x.get("assertions")
    if raw is None:
        return ()
    where = f"{path}.assertions"
    if not isinstance(raw, list):
        raise error(where, f"must be a list of assertions, got {json_kind(raw)}")
    return tuple(_assertion_from_x(item, f"{where}[{i}]", error) for i, item in enumerate(raw))


def _assertion_from_x(item: Any, where: str, error: Error) -> Assertion:
    if not isinstance(item, Mapping):
        raise error(where, f"must be an object, got {json_kind(item)}")
    subjects = [s for s in Subject if s.value in item]
    if subjects:
        if len(item) != 1:
            raise error(where, f"{subjects[0].value} stands alone in its assertion")
        subject = subjects[0]
        spec = item[subject.value]
        if isinstance(spec, Mapping):
            op = _op(spec, where, error, AssertionOp.EQUALS)
            return Assertion(subject.value, op, spec.get("value"))
        default = AssertionOp.LESS_THAN if subject is Subject.DURATION_MS else AssertionOp.EQUALS
        return Assertion(subject.value, default, spec)
    unknown = sorted(set(item) - {"path", "op", "value"})
    if unknown:
        known = ", ".join(["path", "op", "value", *(s.value for s in Subject)])
        raise error(f"{where}.{unknown[0]}", f"is not a known key ({known})")
    target = item.get("path")
    if not isinstance(target, str):
        raise error(f"{where}.path", "is required: a JSON Pointer (/a/b) or JSONPath ($.a.b)")
    default = AssertionOp.EQUALS if "value" in item else AssertionOp.EXISTS
    return Assertion(target, _op(item, where, error, default), item.get("value"))


def _op(item: Mapping[str, Any], where: str, error: Error, default: AssertionOp) -> AssertionOp:
    text = item.get("op", default.value)
    try:
        return AssertionOp(text)
    except ValueError:
        allowed = ", ".join(o.value for o in AssertionOp)
        raise error(f"{where}.op", f"{text!r} is not one of {allowed}") from None


def captures_from_x_a2a(
    x: Mapping[str, Any], path: str, error: Error
) -> tuple[tuple[str, str], ...]:
    """Parse ``x``'s ``captures``: variable name → path."""
    raw = x.get("captures")
    if raw is None:
        return ()
    where = f"{path}.captures"
    if not isinstance(raw, Mapping):
        raise error(where, f"must be an object of variable: path, got {json_kind(raw)}")
    out = []
    for name, target in raw.items():
        if not isinstance(target, str):
            raise error(f"{where}.{name}", "must be a JSON Pointer (/a/b) or JSONPath ($.a.b)")
        if not VARIABLE_NAME.fullmatch(str(name)):
            raise error(f"{where}.{name}", "is not a variable name (letters, digits, _ . -)")
        out.append((str(name), target))
    return tuple(out)
