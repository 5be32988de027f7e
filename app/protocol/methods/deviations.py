"""The findings an answer carries: deviations the client still understands.

:func:`body_findings` judges a unary body, :func:`item_findings` one stream item; both are
pure and return :class:`app.protocol.findings.Finding` s with the JSON path of what deviates.
:func:`app.protocol.exchange.run` calls them for every body and item of every binding, so
the GUI and the CLI report the same findings.

Rules:

- ``state-spelling``: a task state spelt in another dialect than the answer's (a 0.3
  ``completed`` or the 0.3 proto's ``TASK_STATE_CANCELLED`` in 1.0, a British
  ``cancelled``), an enum number (``3``), or a state no dialect knows
  (``TASK_STATE_PAUSED``). The state is still normalised for display and lifecycle
  (:func:`app.protocol.stream.stream_items.normalize_state`; an unknown one counts as not
  terminal); the raw value stays visible. docs/PROTOCOL.md §5.3; A2A 1.0 §4.1.3 (TaskState),
  0.3 §6.3.
- ``null-id``: a JSON-RPC success response with ``"id": null``; null is only for errors
  where the request id could not be read (JSON-RPC 2.0 §5; docs/PROTOCOL.md §2.1). An id
  that is not the request's is no finding but a protocol error: the answer is another
  request's (:func:`app.protocol.wire.jsonrpc_envelope.classify_response`).
- ``duplicate-member``: a member name written twice in one object of a unary body; this
  client reads the last value, another parser the first (RFC 8259 §4, RFC 7493 §2.3;
  docs/PROTOCOL.md §5.5). Stream items are not searched: the check costs a few
  microseconds per item, a tenth of what the app spends on one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.protocol.bindings import traits
from app.protocol.findings import Finding, Severity
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.methods.results import V03_JSONRPC_STATES, V03_PROTO_STATES, V1_STATES
from app.protocol.stream.stream_items import ItemInfo, normalize_state
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.json_duplicates import duplicates_in

# Where a state can sit in a body or item: the keys walked down from the top.
_WRAPPER_KEYS = ("result", "task", "statusUpdate", "status_update")
_STATES = {
    Dialect.V1: V1_STATES,
    Dialect.V03_JSONRPC: V03_JSONRPC_STATES,
    Dialect.V03_PROTO: V03_PROTO_STATES,
}
_STATE_SPEC = {
    ProtocolVersion.V1_0: "A2A 1.0 §4.1.3 TaskState",
    ProtocolVersion.V0_3: "A2A 0.3 §6.3 TaskState",
}


def expected_states(version: ProtocolVersion, binding: Binding) -> frozenset[str]:
    """The state spellings of the dialect ``version`` × ``binding`` answers in."""
    return _STATES[dialect_of(version, binding)]


def body_findings(version: ProtocolVersion, binding: Binding, value: Any) -> list[Finding]:
    """The findings of a parsed unary body (or plain body answering a stream)."""
    findings = _null_id(binding, value)
    findings += _state_findings(version, binding, value)
    return findings


def item_findings(
    version: ProtocolVersion, binding: Binding, value: Any, info: ItemInfo
) -> list[Finding]:
    """The findings of one parsed stream item, classified as ``info``."""
    # Runs for every event of a stream: the usual item (a known spelling, a real id) is
    # dismissed with two look-ups.
    findings: list[Finding] = []
    if type(value) is dict and value.get("id", 0) is None and traits(binding).payload.envelope:
        findings += _null_id(binding, value)
    if info.raw_state and info.raw_state not in expected_states(version, binding):
        findings += _state_findings(version, binding, value)
    return findings


def duplicate_findings(raw: bytes, value: Any) -> list[Finding]:
    """The ``duplicate-member`` findings of a unary body ``raw`` parsed to ``value`` (a count
    and a walk when there are none, :func:`app.protocol.wire.json_duplicates.duplicates_in`)."""
    return [
        Finding(
            "duplicate-member",
            d.describe(),
            Severity.ERROR,
            section="§5.5",
            spec="RFC 8259 §4; RFC 7493 §2.3",
            path=d.json_path(),
        )
        for d in duplicates_in(raw, value)
    ]


def _null_id(binding: Binding, value: Any) -> list[Finding]:
    if (
        not traits(binding).payload.envelope
        or type(value) is not dict
        or "result" not in value
        or "id" not in value
        or value["id"] is not None
    ):
        return []
    return [
        Finding(
            "null-id",
            'A success response with "id": null; null is reserved for errors whose request '
            "id could not be read",
            Severity.ERROR,
            section="§2.1",
            spec="JSON-RPC 2.0 §5",
            path="$.id",
            raw="null",
        )
    ]


def _state_findings(version: ProtocolVersion, binding: Binding, value: Any) -> list[Finding]:
    allowed = expected_states(version, binding)
    findings = []
    for path, raw in _states(value, "$", 0):
        if isinstance(raw, str) and raw in allowed:
            continue
        findings.append(_state_finding(version, binding, path, raw, allowed))
    return findings


def _state_finding(
    version: ProtocolVersion, binding: Binding, path: str, raw: Any, allowed: frozenset[str]
) -> Finding:
    state = normalize_state(raw)
    proto_json = allowed is not V03_JSONRPC_STATES
    shown = raw if isinstance(raw, str) else repr(raw) if not isinstance(raw, int) else str(raw)
    if state is None:
        message = f"Unknown task state {shown!r}; treated as not terminal"
        severity = Severity.ERROR
    elif isinstance(raw, int) and not isinstance(raw, bool):
        message = f"Task state as the enum number {raw} ({state.value})"
        # ProtoJSON parsers must accept enum numbers; writers should send names.
        severity = Severity.WARNING if proto_json else Severity.ERROR
    else:
        dialect = f"{version.value} {'ProtoJSON' if proto_json else 'JSON-RPC'}"
        message = f"Task state {shown!r} is not a {dialect} spelling; read as {state.value}"
        severity = Severity.ERROR
    return Finding(
        "state-spelling",
        message,
        severity,
        section="§5.3",
        spec=_STATE_SPEC[version],
        path=path,
        raw=shown,
    )


def _states(value: Any, path: str, depth: int) -> Iterator[tuple[str, Any]]:
    """``(path, raw state)`` for every Task or status update state in ``value``."""
    if type(value) is not dict or depth > 3:
        return
    status = value.get("status")
    if type(status) is dict and "state" in status:
        yield f"{path}.status.state", status["state"]
    for key in _WRAPPER_KEYS:
        inner = value.get(key)
        if type(inner) is dict:
            yield from _states(inner, f"{path}.{key}", depth + 1)
    tasks = value.get("tasks")
    if type(tasks) is list:
        for index, task in enumerate(tasks[:1000]):
            yield from _states(task, f"{path}.tasks[{index}]", depth + 1)
