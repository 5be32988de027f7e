"""Assertions and captures of a saved request, evaluated over what came back (Qt-free).

An :class:`Assertion` checks one value of the response: ``path`` is a JSON Pointer or a
JSONPath subset (:mod:`app.spec.json_paths`) into the response **as received**: a
JSON-RPC request's whole envelope (``/result/status/state``, ``/error/code``), a REST or
gRPC response's body (``/status/state``). For a stream, paths look at the last item; the
stream-level subjects look at the whole exchange:

- ``finalState``: the last task state the response reported (a unary Task's, or the last
  one a stream reported), compared spelling-neutral (``TASK_STATE_COMPLETED`` equals
  ``completed``);
- ``itemCount``: how many stream items arrived (0 for a unary response);
- ``durationMs``: how long the exchange took, in milliseconds.

A capture stores the value at a path as a ``{{variable}}`` for the requests after it (for
a stream, the last item that has a value there).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import re2

from app.errors import WorkbenchError
from app.protocol.events import (
    NOT_JSON,
    BigResponseBody,
    ExchangeEnd,
    ExchangeEvent,
    ResponseBody,
    StreamItem,
)
from app.protocol.stream.stream_items import classify_body, classify_item, normalize_state
from app.protocol.wire.item_json import json_of_raw
from app.spec.json_paths import PathError, Selection, parse_path, select


class AssertionOp(StrEnum):
    EQUALS = "equals"
    CONTAINS = "contains"
    MATCHES = "matches"
    """``value`` is a regular expression in RE2 syntax (no backreferences or lookaround),
    searched anywhere in the text in linear time (:func:`pattern`)."""
    EXISTS = "exists"
    """``value`` true (the default) or false: the path must (not) select something."""
    TYPE = "type"
    LESS_THAN = "lessThan"


class Subject(StrEnum):
    """The stream-level things an assertion can check instead of a path."""

    FINAL_STATE = "finalState"
    ITEM_COUNT = "itemCount"
    DURATION_MS = "durationMs"


JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")


@dataclass(frozen=True, slots=True)
class Assertion:
    """``path`` (or a :class:`Subject` name) ``op`` ``value``."""

    path: str
    op: AssertionOp = AssertionOp.EQUALS
    value: Any = None

    @property
    def subject(self) -> Subject | None:
        """The stream-level subject, or None for a path."""
        try:
            return Subject(self.path)
        except ValueError:
            return None


def problem(assertion: Assertion) -> str:
    """Why ``assertion`` cannot be evaluated ("" when it can): a bad path, a value the op
    cannot use."""
    op, value = assertion.op, assertion.value
    if assertion.subject is None:
        try:
            parse_path(assertion.path)
        except PathError as exc:
            return str(exc)
    if op is AssertionOp.EXISTS and not isinstance(value, bool | None):
        return "exists takes true or false"
    if op is AssertionOp.MATCHES:
        if not isinstance(value, str):
            return "matches takes a regular expression (a string)"
        if len(value) > MAX_PATTERN:
            return f"the regular expression is longer than {MAX_PATTERN} characters"
        try:
            pattern(value)
        except re2.error as exc:
            return f"invalid regular expression (RE2 syntax): {_error_text(exc)}"
    if op is AssertionOp.TYPE and value not in JSON_TYPES:
        return f"type takes one of {', '.join(JSON_TYPES)}"
    if op is AssertionOp.LESS_THAN and not _is_number(value):
        return "lessThan takes a number"
    return ""


@dataclass
class Observed:
    """What one exchange returned, gathered event by event (:meth:`feed`)."""

    document: Any = NOT_JSON
    """The unary body's JSON, or the last stream item's (NOT_JSON: none that parsed)."""
    raw_items: list[bytes | None] = field(default_factory=list)
    """Every stream item's raw bytes (None for one whose data did not parse as JSON).

    Kept instead of the parsed JSON: a long stream's thousands of parsed items would be
    walked by every full garbage collection while the stream runs (see
    :mod:`app.protocol.wire.item_json`); :attr:`items` parses them when an assertion asks."""
    final_state: str = ""
    """The last task state reported, normalised (``completed``); "" when none."""
    duration_ms: float | None = None
    streaming: bool = False
    big_body: BigResponseBody | None = None
    """A big unary body that parsed, kept instead of its value (which the GUI lets go once
    shown); :attr:`document` is NOT_JSON meanwhile and :meth:`resolved` parses it."""

    def resolved(self) -> Observed:
        """This, with a big body's value parsed into :attr:`document`."""
        if self.big_body is None:
            return self
        return replace(self, document=self.big_body.json, big_body=None)

    @property
    def items(self) -> list[Any]:
        """Every stream item's JSON (NOT_JSON for one that did not parse), in order."""
        return [NOT_JSON if raw is None else json_of_raw(raw) for raw in self.raw_items]

    def feed(self, event: ExchangeEvent) -> None:
        """Take in one event of the exchange."""
        if isinstance(event, ResponseBody):
            if isinstance(event, BigResponseBody) and event.is_json:
                self.document, self.big_body = NOT_JSON, event
            else:
                self.document, self.big_body = event.json, None
            if event.is_json:
                state = classify_body(event).state
                if state is not None:
                    self.final_state = state.value
        elif isinstance(event, StreamItem):
            self.streaming = True
            self.raw_items.append(None if event.json is NOT_JSON else event.raw)
            if event.json is not NOT_JSON:
                self.document, self.big_body = event.json, None
            state = classify_item(event).state
            if state is not None:
                self.final_state = state.value
        elif isinstance(event, ExchangeEnd):
            self.duration_ms = event.elapsed_ms


@dataclass(frozen=True, slots=True)
class AssertionResult:
    assertion: Assertion
    passed: bool
    actual: Any
    """The value found (JSON-able); None when nothing was there."""
    message: str

    def record(self, operation: str) -> dict[str, Any]:
        """The CLI ``assertion`` record (without the ``event`` key)."""
        return {
            "operation": operation,
            "path": self.assertion.path,
            "op": self.assertion.op.value,
            "expected": self.assertion.value,
            "actual": self.actual,
            "passed": self.passed,
            "message": self.message,
        }


def evaluate(
    assertions: Iterable[Assertion],
    observed: Observed,
    substitute: Callable[[str], str] | None = None,
) -> list[AssertionResult]:
    """Each assertion's result, in order.

    ``substitute`` resolves ``{{variables}}`` in string values first (a task id captured
    by an earlier request); a value it cannot resolve fails its assertion with its message.
    """
    observed = observed.resolved()
    results = []
    for assertion in assertions:
        value = assertion.value
        if substitute is not None and isinstance(value, str) and "{{" in value:
            try:
                assertion = replace(assertion, value=substitute(value))
            except WorkbenchError as exc:
                results.append(AssertionResult(assertion, False, None, str(exc)))
                continue
        results.append(_evaluate(assertion, observed))
    return results


def _evaluate(assertion: Assertion, observed: Observed) -> AssertionResult:
    bad = problem(assertion)
    if bad:
        return AssertionResult(assertion, False, None, bad)
    found, actual = _actual(assertion, observed)
    op, expected = assertion.op, assertion.value
    if op is AssertionOp.EXISTS:
        wanted = expected is not False
        passed = found == wanted
        message = "" if passed else ("nothing there" if wanted else "present, expected absent")
        return AssertionResult(assertion, passed, actual, message)
    if not found:
        what = "no response body" if observed.document is NOT_JSON else "nothing there"
        if assertion.subject is Subject.FINAL_STATE:
            what = "no task state reported"
        return AssertionResult(assertion, False, None, what)
    if assertion.subject is Subject.FINAL_STATE and isinstance(expected, str):
        expected = _state(expected)
    passed, why = _compare(op, actual, expected)
    message = "" if passed else why or f"expected {op.value} {_show(expected)}, got {_show(actual)}"
    return AssertionResult(assertion, passed, actual, message)


def _actual(assertion: Assertion, observed: Observed) -> tuple[bool, Any]:
    subject = assertion.subject
    if subject is Subject.FINAL_STATE:
        return bool(observed.final_state), observed.final_state or None
    if subject is Subject.ITEM_COUNT:
        return True, len(observed.raw_items)
    if subject is Subject.DURATION_MS:
        duration = observed.duration_ms
        return duration is not None, None if duration is None else round(duration, 1)
    if observed.document is NOT_JSON:
        return False, None
    selection = select(observed.document, assertion.path)
    return selection.found, selection.value


def _compare(op: AssertionOp, actual: Any, expected: Any) -> tuple[bool, str]:
    if op is AssertionOp.EQUALS:
        return json_equal(actual, expected), ""
    if op is AssertionOp.CONTAINS:
        if isinstance(actual, str):
            return isinstance(expected, str) and expected in actual, ""
        if isinstance(actual, list):
            return any(
                json_equal(item, expected)
                or (isinstance(item, str) and isinstance(expected, str) and expected in item)
                for item in actual
            ), ""
        if isinstance(actual, dict):
            return isinstance(expected, str) and expected in actual, ""
        return False, f"{_show(actual)} is not a string, array or object"
    if op is AssertionOp.MATCHES:
        texts = actual if isinstance(actual, list) else [actual]
        strings = [t for t in texts if isinstance(t, str)]
        if not strings:
            return False, f"{_show(actual)} is not a string"
        try:
            compiled = pattern(expected)
        except re2.error as exc:
            return False, f"invalid regular expression (RE2 syntax): {_error_text(exc)}"
        strings = strings[:MAX_SUBJECTS]
        if any(len(t) > MAX_SUBJECT for t in strings):
            return False, f"a text longer than {MAX_SUBJECT} characters is not searched"
        return any(compiled.search(t) for t in strings), ""
    if op is AssertionOp.TYPE:
        kind = json_type(actual)
        return kind == expected or (expected == "number" and kind == "integer"), (
            f"expected type {expected}, got {kind}"
        )
    if not _is_number(actual):
        return False, f"{_show(actual)} is not a number"
    return actual < expected, ""


MAX_PATTERN = 4096
"""Characters of a ``matches`` pattern: RE2 bounds its program's memory, this its size."""
MAX_SUBJECT = 16 << 20
"""Characters of a text ``matches`` searches: RE2 is linear, this bounds the line (a
longer one fails the assertion rather than be searched in part, which could pass ``$``)."""
MAX_SUBJECTS = 1000
"""Strings of an array ``matches`` searches (the first thousand)."""


@functools.lru_cache(maxsize=256)
def pattern(text: str) -> Any:
    """``text`` compiled by RE2: a linear-time engine, so no user pattern can backtrack
    catastrophically over agent-controlled text (``(a+)+$``, which Python's ``re`` takes
    ages over).

    Raises:
        re2.error: not a valid RE2 expression (backreferences, lookaround).
    """
    options = re2.Options()
    options.log_errors = False  # the error is the caller's to report, not stderr's
    return re2.compile(text, options=options)


def _error_text(exc: Exception) -> str:
    arg = exc.args[0] if exc.args else ""
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def json_type(value: Any) -> str:
    """The JSON type name of ``value`` (``integer`` for whole numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0``, but ``true`` is not ``1`` (Python's ``==`` says it is)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def _state(text: str) -> str:
    state = normalize_state(text)
    return state.value if state is not None else text


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


# --- captures ------------------------------------------------------------------------


def capture(
    captures: Mapping[str, str] | Iterable[tuple[str, str]], observed: Observed
) -> tuple[dict[str, str], list[str]]:
    """The captured variables and, for each capture that found nothing, why.

    A string is stored as it is; any other value as its compact JSON text.
    """
    pairs = captures.items() if isinstance(captures, Mapping) else captures
    values: dict[str, str] = {}
    problems: list[str] = []
    documents = _Newest(observed.resolved())
    for name, path in pairs:
        try:
            selection = next(
                (s for s in (select(d, path) for d in documents) if s.values),
                Selection((), False),
            )
        except PathError as exc:
            problems.append(f"capture {name}: {exc}")
            continue
        if not selection.values:
            problems.append(f"capture {name}: nothing at {path or '(the whole response)'}")
            continue
        value = selection.value
        values[name] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return values, problems


class _Newest:
    """The documents captures look in, newest first: the stream items' JSON, else the
    document. Items are parsed from their raw bytes only as far as a capture looks (a
    capture found in the last of 20 000 items parsed them all: ~0.2 s at the stream's end),
    each once for all the captures."""

    def __init__(self, observed: Observed) -> None:
        self._raw = reversed(observed.raw_items)
        self._parsed: list[Any] = []
        self._document = observed.document

    def __iter__(self) -> Iterator[Any]:
        yield from self._parsed
        for raw in self._raw:
            document = NOT_JSON if raw is None else json_of_raw(raw)
            if document is not NOT_JSON:
                self._parsed.append(document)
                yield document
        if not self._parsed and self._document is not NOT_JSON:
            yield self._document
