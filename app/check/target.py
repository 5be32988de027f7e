"""The interfaces a check exercises, and the A2A errors it expects in each binding's form.

One :class:`Target` per Agent Card interface the app can speak (``supportedInterfaces`` of a
1.0 card; ``url`` + ``additionalInterfaces`` of a 0.3 one). An expected error is judged in
the form its binding carries it (docs/PROTOCOL.md §8.3): the JSON-RPC code, the HTTP status
(with the ErrorInfo ``reason`` where the server sends one) or the gRPC status code name —
in the v1.0.1 table or the v1.0.0 one, which differ for six errors (:class:`ErrorTable`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.protocol.bindings import ErrorForm, traits
from app.protocol.events import ExchangeError
from app.protocol.types import Binding, ProtocolVersion


@dataclass(frozen=True, slots=True)
class Target:
    """One interface of the card, as the check speaks to it."""

    index: int
    """Its position in the card's interface list (``--interface N``)."""
    url: str
    binding: Binding
    version: ProtocolVersion
    tenant: str = ""

    @property
    def label(self) -> str:
        """``"JSONRPC 1.0 http://127.0.0.1:8000/"``: how results name the interface."""
        return f"{self.binding.value} {self.version.value} {self.url}"

    @property
    def v1(self) -> bool:
        return self.version is ProtocolVersion.V1_0


class ErrorTable(StrEnum):
    """The two patches of the A2A 1.0 error table (§5.4), which map six errors differently:
    v1.0.0 (the a2a-tck's table) and v1.0.1 (a2a-sdk's and @a2a-js/sdk's). Both are
    conforming; an agent follows one of them (docs/PROTOCOL.md §8.3)."""

    V1_0_0 = "v1.0.0"
    V1_0_1 = "v1.0.1"


BOTH_TABLES = frozenset(ErrorTable)


@dataclass(frozen=True, slots=True)
class A2AErrorForm:
    """How one A2A error looks in each binding (docs/PROTOCOL.md §8.3), in the v1.0.1 table
    and, where the v1.0.0 table differs, in that one too."""

    name: str
    jsonrpc: int
    http: int
    grpc: str
    reason: str
    http_v100: int | None = None
    """The v1.0.0 HTTP status where it is not ``http``."""
    grpc_v100: str | None = None
    """The v1.0.0 gRPC status where it is not ``grpc``."""

    def http_codes(self) -> dict[ErrorTable, int]:
        return {ErrorTable.V1_0_1: self.http, ErrorTable.V1_0_0: self.http_v100 or self.http}

    def grpc_codes(self) -> dict[ErrorTable, str]:
        return {ErrorTable.V1_0_1: self.grpc, ErrorTable.V1_0_0: self.grpc_v100 or self.grpc}


def _form(
    name: str,
    jsonrpc: int,
    http: int,
    grpc: str,
    reason: str,
    *,
    http_v100: int | None = None,
    grpc_v100: str | None = None,
) -> A2AErrorForm:
    return A2AErrorForm(name, jsonrpc, http, grpc, reason, http_v100, grpc_v100)


TASK_NOT_FOUND = _form("TaskNotFoundError", -32001, 404, "NOT_FOUND", "TASK_NOT_FOUND")
TASK_NOT_CANCELABLE = _form(
    "TaskNotCancelableError",
    -32002,
    400,
    "FAILED_PRECONDITION",
    "TASK_NOT_CANCELABLE",
    http_v100=409,
)
PUSH_NOT_SUPPORTED = _form(
    "PushNotificationNotSupportedError",
    -32003,
    400,
    "FAILED_PRECONDITION",
    "PUSH_NOTIFICATION_NOT_SUPPORTED",
    grpc_v100="UNIMPLEMENTED",
)
UNSUPPORTED_OPERATION = _form(
    "UnsupportedOperationError",
    -32004,
    400,
    "FAILED_PRECONDITION",
    "UNSUPPORTED_OPERATION",
    grpc_v100="UNIMPLEMENTED",
)
CONTENT_TYPE_NOT_SUPPORTED = _form(
    "ContentTypeNotSupportedError",
    -32005,
    400,
    "INVALID_ARGUMENT",
    "CONTENT_TYPE_NOT_SUPPORTED",
    http_v100=415,
)
EXTENSION_REQUIRED = _form(
    "ExtensionSupportRequiredError",
    -32008,
    400,
    "FAILED_PRECONDITION",
    "EXTENSION_SUPPORT_REQUIRED",
)
VERSION_NOT_SUPPORTED = _form(
    "VersionNotSupportedError",
    -32009,
    400,
    "FAILED_PRECONDITION",
    "VERSION_NOT_SUPPORTED",
    grpc_v100="UNIMPLEMENTED",
)
INVALID_PARAMS = _form("invalid params", -32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS")
METHOD_NOT_FOUND = _form("method not found", -32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND")
PARSE_ERROR = _form("parse error", -32700, 400, "INVALID_ARGUMENT", "PARSE_ERROR")
INVALID_REQUEST = _form("invalid request", -32600, 400, "INVALID_ARGUMENT", "INVALID_REQUEST")

ALL_FORMS = (
    TASK_NOT_FOUND,
    TASK_NOT_CANCELABLE,
    PUSH_NOT_SUPPORTED,
    UNSUPPORTED_OPERATION,
    CONTENT_TYPE_NOT_SUPPORTED,
    _form(
        "InvalidAgentResponseError",
        -32006,
        500,
        "INTERNAL",
        "INVALID_AGENT_RESPONSE",
        http_v100=502,
    ),
    _form(
        "ExtendedAgentCardNotConfiguredError",
        -32007,
        400,
        "FAILED_PRECONDITION",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    ),
    EXTENSION_REQUIRED,
    VERSION_NOT_SUPPORTED,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    _form("internal error", -32603, 500, "INTERNAL", "INTERNAL_ERROR"),
)

_REASON = re.compile(r"reason=([A-Z0-9_]+)")
# 0.3 gRPC servers send no rich status: the message reads "<ErrorClassName>: <message>".
_CLASS_PREFIX = re.compile(r"^([A-Za-z]+Error):")


def error_reason(error: ExchangeError, body: Any = None) -> str:
    """The ErrorInfo ``reason`` the error carries (REST body, gRPC rich status), or ``""``."""
    for line in error.details:
        match = _REASON.search(line)
        if match:
            return match.group(1)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        for detail in body["error"].get("details") or ():
            if isinstance(detail, dict) and isinstance(detail.get("reason"), str):
                return str(detail["reason"])
    return ""


def tables_matched(
    binding: Binding, form: A2AErrorForm, error: ExchangeError, body: Any = None
) -> frozenset[ErrorTable]:
    """The error tables in which ``error`` is ``form`` as ``binding`` carries it: both when
    the tables agree, one where they differ and the agent followed that one, none when it
    is not ``form`` at all.

    HTTP and gRPC share status codes among several errors: where the server names the
    error (ErrorInfo ``reason``, a 0.3 gRPC class-name prefix) the name must match too.
    """
    carried = traits(binding).errors
    if carried is ErrorForm.JSONRPC:
        return BOTH_TABLES if error.code == form.jsonrpc else frozenset()
    reason = error_reason(error, body)
    if reason and reason != form.reason:
        return frozenset()
    if carried is ErrorForm.HTTP:
        codes: dict[ErrorTable, int] | dict[ErrorTable, str] = form.http_codes()
    else:
        if not reason and form.name.endswith("Error"):
            prefix = _CLASS_PREFIX.match(error.message)
            if prefix and prefix.group(1) != form.name:
                return frozenset()
        codes = form.grpc_codes()
    return frozenset(table for table, code in codes.items() if code == error.code)


def matches(binding: Binding, form: A2AErrorForm, error: ExchangeError, body: Any = None) -> bool:
    """Whether ``error`` is ``form`` as ``binding`` carries it, in either table."""
    return bool(tables_matched(binding, form, error, body))


def what_differed(binding: Binding, form: A2AErrorForm, error: ExchangeError, body: Any) -> str:
    """The parts of ``error`` that are not ``form`` as ``binding`` carries it — the status or
    code, the ErrorInfo reason — each beside what was expected (``""`` when none is named)."""
    carried = traits(binding).errors
    parts: list[str] = []
    if carried is ErrorForm.JSONRPC:
        if error.code != form.jsonrpc:
            parts.append(f"code {error.code} where {form.jsonrpc} was expected")
        return "; ".join(parts)
    wanted: int | str = form.http if carried is ErrorForm.HTTP else form.grpc
    if error.code != wanted:
        parts.append(f"status {error.code} where {wanted} was expected")
    reason = error_reason(error, body)
    if reason != form.reason:
        got = f"ErrorInfo reason {reason}" if reason else "no ErrorInfo reason"
        parts.append(f"{got} where {form.reason} was expected")
    return "; ".join(parts)


def expected_form(binding: Binding, form: A2AErrorForm) -> str:
    """``"JSON-RPC -32001 (TaskNotFoundError)"``, ``"HTTP 400 (v1.0.1) or 409 (v1.0.0)
    (TASK_NOT_CANCELABLE)"``: what the rule asks for, in both tables where they differ."""
    carried = traits(binding).errors
    if carried is ErrorForm.JSONRPC:
        return f"{carried.value} {form.jsonrpc} ({form.name})"
    codes: dict[ErrorTable, int] | dict[ErrorTable, str]
    codes = form.http_codes() if carried is ErrorForm.HTTP else form.grpc_codes()
    if len(set(codes.values())) == 1:
        return f"{carried.value} {codes[ErrorTable.V1_0_1]} ({form.reason})"
    alternatives = " or ".join(f"{code} ({table.value})" for table, code in codes.items())
    return f"{carried.value} {alternatives} ({form.reason})"


def classify(binding: Binding, error: ExchangeError, body: Any = None) -> str:
    """The A2A error ``error`` is, by name, for comparing bindings; the raw code when
    ambiguous or unknown (``"HTTP 400"``)."""
    found = [form.name for form in ALL_FORMS if matches(binding, form, error, body)]
    prefix = _CLASS_PREFIX.match(error.message)
    if len(found) > 1 and prefix and prefix.group(1) in found:
        return prefix.group(1)
    if len(found) == 1:
        return found[0]
    return f"{traits(binding).errors.value} {error.code}"


def table_note(tables: frozenset[ErrorTable]) -> str:
    """``", as in the v1.0.0 table"`` when the answer fits one error table only; ``""``
    when both tables agree on it."""
    if len(tables) != 1:
        return ""
    (table,) = tables
    return f", as in the {table.value} table"


def answered(binding: Binding, error: ExchangeError) -> str:
    """``"HTTP 409"``, ``"gRPC UNIMPLEMENTED"``, ``"JSON-RPC -32001"``: what came back."""
    return f"{traits(binding).errors.value} {error.code}"
