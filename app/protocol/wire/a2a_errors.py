"""Error names and decoding of typed error details.

Codes and names: A2A spec §5.4 (normative rows) and a2a-sdk 1.3.0 ``a2a/utils/errors.py``
(docs/PROTOCOL.md §8.3). JSON-RPC 2.0 reserves -32768…-32000; A2A uses -32001…-32099.

``UsageError`` is re-exported from ``app.errors`` (the one exception tree) for the builders
of this package.
"""

from __future__ import annotations

from typing import Any

from app.errors import UsageError

__all__ = ["JSONRPC_ERROR_NAMES", "UsageError", "describe_details", "jsonrpc_error_name"]

JSONRPC_ERROR_NAMES: dict[int, str] = {
    -32700: "JSONParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32001: "TaskNotFoundError",
    -32002: "TaskNotCancelableError",
    -32003: "PushNotificationNotSupportedError",
    -32004: "UnsupportedOperationError",
    -32005: "ContentTypeNotSupportedError",
    -32006: "InvalidAgentResponseError",
    -32007: "ExtendedAgentCardNotConfiguredError",
    -32008: "ExtensionSupportRequiredError",
    -32009: "VersionNotSupportedError",
}
"""JSON-RPC code → A2A error name (0.3 names -32007 AuthenticatedExtendedCardNotConfigured)."""


def jsonrpc_error_name(code: Any) -> str:
    """The A2A/JSON-RPC name of ``code``, ``ServerError`` in the reserved range, else ``""``."""
    if isinstance(code, bool) or not isinstance(code, int):
        return ""
    if code in JSONRPC_ERROR_NAMES:
        return JSONRPC_ERROR_NAMES[code]
    if -32099 <= code <= -32000:
        return "ServerError"
    return ""


def describe_details(details: Any) -> tuple[str, ...]:
    """Readable lines for typed error details (``google.rpc.ErrorInfo`` / ``BadRequest``).

    Accepts the JSON forms peers send: a list of ``{"@type": ..., ...}`` objects (JSON-RPC
    ``error.data`` in 1.0, REST ``error.details``) or a single such object. ErrorInfo
    ``metadata`` may hold any JSON (the SDK stores lists there), so it is shown as JSON text.
    Anything else yields no lines; the raw value is always shown elsewhere.
    """
    import json

    items = details if isinstance(details, list) else [details]
    lines: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = str(item.get("@type", "")).rsplit("/", 1)[-1]
        if kind == "google.rpc.ErrorInfo":
            line = f"ErrorInfo: reason={item.get('reason', '')} domain={item.get('domain', '')}"
            if item.get("metadata"):
                line += " metadata=" + json.dumps(item["metadata"], ensure_ascii=False)
            lines.append(line)
        elif kind == "google.rpc.BadRequest":
            for violation in item.get("fieldViolations", []) or []:
                if isinstance(violation, dict):
                    lines.append(
                        f"BadRequest: {violation.get('field', '?')}: "
                        f"{violation.get('description', '')}"
                    )
        elif kind:
            lines.append(f"{kind}: " + json.dumps(item, ensure_ascii=False)[:500])
    return tuple(lines)
