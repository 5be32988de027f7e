"""Printing exchange events for the CLI: ``jsonl`` (one JSON object a line) or ``pretty``.

The records themselves (what each holds, the ``"event"`` key, the masking of credentials)
are :mod:`app.protocol.records`; this module writes them out, as JSON lines or as the
lines a person reads, made safe for a terminal, and maps outcomes to exit statuses.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from app.protocol.events import ExchangeEvent, ExchangeFinding, Outcome
from app.protocol.findings import Severity
from app.protocol.records import ExchangeRecords, line
from app.protocol.records import body_value as body_value  # re-exported: tests read it here
from app.protocol.visible_text import escape_controls, json_for

EXIT_OK, EXIT_RPC, EXIT_TRANSPORT, EXIT_USAGE = 0, 1, 2, 3

EXIT_STATUS = {
    Outcome.OK: EXIT_OK,
    Outcome.RPC_ERROR: EXIT_RPC,
    Outcome.PROTOCOL_ERROR: EXIT_TRANSPORT,
    Outcome.TRANSPORT_ERROR: EXIT_TRANSPORT,
    Outcome.CANCELLED: EXIT_TRANSPORT,
    Outcome.USAGE_ERROR: EXIT_USAGE,
}
"""Exit statuses: 0 success, 1 the agent answered with an error, 2 transport or protocol
failure, 3 usage error."""


class Printer:
    """Writes the records of events (:class:`app.protocol.records.ExchangeRecords`) to
    ``out`` as they arrive, as jsonl or pretty lines; counts the error findings."""

    def __init__(
        self,
        fmt: str,
        out: TextIO = sys.stdout,
        *,
        reveal_secrets: bool = False,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
    ) -> None:
        self._fmt = fmt
        self._out = out
        self._records = ExchangeRecords(
            reveal_secrets=reveal_secrets, secret_headers=secret_headers, secret_query=secret_query
        )
        self.error_findings = 0
        """``finding`` records of error severity printed so far (``--strict``)."""

    def emit(self, event: ExchangeEvent) -> None:
        """Print one event (the response record waits for the body), then the lint
        findings it brings."""
        for record in self.records(event):
            jsonl = self._fmt == "jsonl"
            text = line(record) if jsonl else pretty(record)
            self._out.write(for_terminal(text, self._out, pretty=not jsonl) + "\n")
        self._out.flush()

    def records(self, event: ExchangeEvent) -> list[dict[str, Any]]:
        """The records for ``event`` (:meth:`ExchangeRecords.records`), counted for
        ``--strict``."""
        if isinstance(event, ExchangeFinding) and event.finding.severity is Severity.ERROR:
            self.error_findings += 1
        return self._records.records(event)


def pretty_finding(record: dict[str, Any]) -> str:
    """The pretty line of a ``finding`` record."""
    where = f"#{record['seq']} " if record.get("seq") is not None else ""
    path = f" at {record['path']}" if record.get("path") else ""
    cite = ", ".join(record[k] for k in ("section", "spec") if record.get(k))
    cite = f" ({cite})" if cite else ""
    return f"◆ {where}{record['severity']} {record['rule']}: {record['message']}{path}{cite}"


def pretty(record: dict[str, Any]) -> str:
    """A human-readable rendering of one JSON-lines record."""
    kind = record["event"]
    if kind == "finding":
        return pretty_finding(record)
    if kind == "request":
        lines = [f"→ {record['method']} {record['url']}  ({record['rpc_method']})"]
        if "descriptors" in record:
            lines.append(f"  via {record['descriptors']}")
        if record.get("tls_verification") == "off":
            lines.append("  ! TLS verification OFF: the server's certificate was not checked")
        if "proxy" in record:
            lines.append(f"  via proxy {record['proxy']}")
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        lines.append(_indent(record["body"]))
        return "\n".join(lines)
    if kind == "response":
        lines = [f"← {record['status']} {record['reason']}  ({record['elapsed_ms']} ms)"]
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        if not record.get("stream"):  # a stream's items follow as their own lines
            lines.append(_indent(record["body"]))
        return "\n".join(lines)
    if kind == "item":
        state = f" {record['state']}" if record.get("state") else ""
        task = f" task {record['task_id']}" if record.get("task_id") else ""
        return (
            f"· #{record['seq']} +{record['elapsed_ms']} ms {record['kind']}{state}{task}"
            f"  {record['summary']}"
        )
    if kind == "error":
        code = f" {record['code']}" if "code" in record else ""
        name = (
            f" {record['name']}"
            if record.get("name", "") not in ("", str(record.get("code")))
            else ""
        )
        lines = [f"✗ {record['kind']} error{code}{name}: {record['message']}"]
        lines += [f"  {d}" for d in record.get("details", [])]
        return "\n".join(lines)
    if kind == "lint":
        where = f"#{record['seq']}" if record["seq"] is not None else "end"
        return f"⚠ {where} {record['rule']}: {record['message']}"
    return f"■ {record['outcome']} in {record['elapsed_ms']} ms"


def for_terminal(text: str, out: TextIO, *, pretty: bool = False) -> str:
    """``text`` made safe to print on ``out``.

    Pretty text is for people, who read it on a terminal now or later (a log, a pager):
    its control characters are always shown as escapes (:func:`escape_controls`). JSON
    goes exactly to pipes and files; on a terminal the characters a JSON encoder leaves raw
    (DEL, C1, bidirectional marks) are spelled as ``\\uNNNN``, the same JSON value."""
    if pretty:
        return escape_controls(text, multiline=True)
    return json_for(text, out)


def _indent(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join("  " + line for line in text.splitlines())
