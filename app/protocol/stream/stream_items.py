"""What a streamed item is: kind, task, context, state, final flag and a one-line summary.

Pure functions over parsed JSON (no I/O, no Qt). One classifier for every shape a stream
item comes in (docs/PROTOCOL.md §2.4, §3.3, §5.2; docs/PEERS.md Q7):

- JSON-RPC envelopes: ``{"jsonrpc": "2.0", "id": …, "result": X}`` or ``{"error": …}``;
- 1.0 (all bindings) and 0.3 REST/gRPC ``StreamResponse`` wrappers: ``{"task": …}``,
  ``{"message": …}`` (0.3 proto field ``msg``), ``{"statusUpdate": …}``, ``{"artifactUpdate": …}``;
- 0.3 JSON-RPC bare objects typed by ``kind`` (``task``, ``message``, ``status-update``,
  ``artifact-update``);
- bare ``Task`` / ``Message`` objects (a CancelTask or GetTask result).

Task states are normalised to :class:`TaskState` whatever their spelling: 1.0
``TASK_STATE_INPUT_REQUIRED``, 0.3 JSON-RPC ``input-required``, the 0.3 proto's
``TASK_STATE_CANCELLED`` and the enum numbers.
"""

from __future__ import annotations

from typing import Any

from app.protocol.events import NOT_JSON, ResponseBody, StreamItem

# Defined in item_info.py so that events.py can type StreamItem.info without importing this
# module, which imports events.py; re-exported here, their usual home.
from app.protocol.stream.item_info import ItemInfo as ItemInfo
from app.protocol.stream.item_info import ItemKind as ItemKind
from app.protocol.stream.item_info import TaskState as TaskState

_STATE_NUMBERS = {
    0: TaskState.UNSPECIFIED,
    1: TaskState.SUBMITTED,
    2: TaskState.WORKING,
    3: TaskState.COMPLETED,
    4: TaskState.FAILED,
    5: TaskState.CANCELED,
    6: TaskState.INPUT_REQUIRED,
    7: TaskState.REJECTED,
    8: TaskState.AUTH_REQUIRED,
}


def normalize_state(value: Any) -> TaskState | None:
    """A TaskState for any spelling (``TASK_STATE_WORKING``, ``working``, ``2``,
    ``TASK_STATE_CANCELLED``); None when ``value`` is not a known state."""
    if isinstance(value, str):
        try:
            return _STATE_SPELLINGS[value]  # every event of a stream spells it the same way
        except KeyError:
            state = _normalize_text(value)
            if len(_STATE_SPELLINGS) < _STATE_SPELLINGS_MAX:
                _STATE_SPELLINGS[value] = state
            return state
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _STATE_NUMBERS.get(value)
    return None


def _normalize_text(value: str) -> TaskState | None:
    text = value.strip().lower()
    if text.startswith("task_state_"):
        text = text[len("task_state_") :]
    text = text.replace("_", "-")
    if text == "cancelled":
        text = "canceled"
    if text == "unspecified":
        text = "unknown"
    try:
        return TaskState(text)
    except ValueError:
        return None


_STATE_TEXT = {state: state.value for state in TaskState}
_STATE_SPELLINGS: dict[str, TaskState | None] = {}
"""Spellings seen so far (bounded: a peer may send anything as a state)."""
_STATE_SPELLINGS_MAX = 256


_SUMMARY_CHARS = 160


def classify_item(item: StreamItem) -> ItemInfo:
    """What one :class:`StreamItem` (SSE frame or gRPC message) says.

    The transports classify each item as they make it (``StreamItem.info``); this returns
    that, and classifies only items built elsewhere (tests, saved streams).
    """
    info = item.info
    if info is not None:
        return info
    return classify_frame(item.json, item.json_error, item.sse_event, item.raw)


def classify_frame(value: Any, json_error: str, sse_event: str, raw: bytes) -> ItemInfo:
    """Classify a stream item from its parts: parsed JSON (or NOT_JSON and why), the SSE
    ``event:`` field and the raw bytes (for comment frames)."""
    if type(value) is dict and "jsonrpc" in value and "error" not in value:
        # The usual JSON-RPC stream item, `{"jsonrpc", "id", "result": {"statusUpdate": …}}`,
        # straight to its wrapper (classify_json would come to the same answer).
        result = value.get("result")
        if type(result) is dict and len(result) == 1 and sse_event != "error":
            ((key, inner),) = result.items()
            build = _WRAPPERS.get(key)
            if build is not None and type(inner) is dict:
                return build(inner)
    if value is NOT_JSON:
        if not json_error:
            # A frame without data: a keep-alive comment, or only event/id/retry fields.
            return ItemInfo(ItemKind.COMMENT, summary=_one_line(_frame_text(raw)))
        return ItemInfo(
            ItemKind.ERROR, summary=_one_line(f"invalid JSON: {json_error or 'no data'}")
        )
    info = classify_json(value)
    if sse_event == "error" and info.kind is not ItemKind.ERROR:
        return ItemInfo(
            ItemKind.ERROR,
            task_id=info.task_id,
            context_id=info.context_id,
            summary=_one_line("event: error · " + (info.summary or _json_snippet(value))),
        )
    return info


def classify_body(body: ResponseBody) -> ItemInfo:
    """What a unary body says: the classification it carries, else :func:`classify_json`."""
    return body.info if body.info is not None else classify_json(body.json)


def classify_json(value: Any) -> ItemInfo:
    """Classify a parsed stream item or unary result in any of the shapes above."""
    if not isinstance(value, dict):
        return ItemInfo(
            ItemKind.ERROR, summary=_one_line(f"unexpected item: {_json_snippet(value)}")
        )
    if len(value) == 1:
        # The common shape on a stream: a one-key StreamResponse wrapper (`statusUpdate`…).
        # None of the wrapper keys is looked at by the checks below, so this is their answer.
        ((key, inner),) = value.items()
        build = _WRAPPERS.get(key)
        if build is not None and isinstance(inner, dict):
            return build(inner)
    if "jsonrpc" in value or ("id" in value and ("result" in value or "error" in value)):
        if "error" in value:
            return _error_info(value["error"])
        if "result" in value:
            return classify_json(value["result"])
        return ItemInfo(ItemKind.ERROR, summary="JSON-RPC response without result or error")
    if "error" in value and isinstance(value["error"], dict) and len(value) == 1:
        return _error_info(value["error"])
    kind = value.get("kind")
    if isinstance(kind, str) and kind in _KIND_OBJECTS:
        return _KIND_OBJECTS[kind](value)
    # Bare Task and update objects first: their own keys (a `message`, say) are not wrappers.
    if "taskId" in value:
        if "artifact" in value:
            return _artifact_info(value)
        if type(value.get("status")) is dict:
            return _status_info(value)
    elif "id" in value and type(value.get("status")) is dict:
        return _task_info(value)
    for key, build in _WRAPPERS.items():
        inner = value.get(key)
        if isinstance(inner, dict):
            return build(inner)
    # Bare objects without `kind` (1.0/proto Task, Message, events).
    if "artifact" in value and "taskId" in value:
        return _artifact_info(value)
    if "status" in value and "taskId" in value:
        return _status_info(value)
    if "status" in value and "id" in value:
        return _task_info(value)
    if "messageId" in value or "role" in value:
        return _message_info(value)
    return ItemInfo(ItemKind.ERROR, summary=_one_line(f"unrecognised item: {_json_snippet(value)}"))


def _task_info(task: dict[str, Any]) -> ItemInfo:
    status = _dict(task.get("status"))
    raw_state = status.get("state", "")
    artifacts = _list(task.get("artifacts"))
    ids = tuple(
        str(a.get("artifactId", ""))
        for a in artifacts
        if isinstance(a, dict) and a.get("artifactId")
    )
    # Summarised now, not when read: a lazy summary would keep the task alive, artifacts
    # and all (a 25 MiB result the big body views let go of).
    return ItemInfo(
        ItemKind.TASK,
        _str(task.get("id")),
        _str(task.get("contextId")),
        normalize_state(raw_state),
        str(raw_state),
        summary=_task_summary(task),
        artifact_ids=ids,
    )


def _task_summary(task: dict[str, Any]) -> str:
    status = _dict(task.get("status"))
    raw_state = status.get("state", "")
    state = normalize_state(raw_state)
    text = _message_text(status.get("message"))
    summary = f"task {state.value if state else raw_state or '?'}"
    if text:
        summary += f" · {text}"
    elif isinstance(task.get("history"), list) and task["history"]:
        first = _message_text(task["history"][0])
        if first:
            summary += f" · history: {first}"
    return _one_line(summary)


def _message_info(message: dict[str, Any]) -> ItemInfo:
    # Summarised now: a message (a unary result) may carry megabytes of parts.
    return ItemInfo(
        ItemKind.MESSAGE,
        _str(message.get("taskId")),
        _str(message.get("contextId")),
        summary=_message_summary(message),
    )


def _message_summary(message: dict[str, Any]) -> str:
    role = _str(message.get("role")).lower().removeprefix("role_")
    text = _message_text(message)
    return _one_line(f"{role or 'message'}: {text}" if text else role or "message")


def _status_info(event: dict[str, Any]) -> ItemInfo:
    # The most frequent item of a long stream (progress updates): kept lean, its summary
    # written only when read (the timeline derives its own when it paints a row). Only here:
    # a status update holds a status, while a task, a message or an artifact update may hold
    # megabytes that a lazy summary would keep alive.
    status = event.get("status")
    raw_state = status.get("state", "") if isinstance(status, dict) else ""
    final = event.get("final")
    task_id = event.get("taskId")
    context_id = event.get("contextId")
    return ItemInfo.lazy(
        ItemKind.STATUS_UPDATE,
        task_id if isinstance(task_id, str) else "",
        context_id if isinstance(context_id, str) else "",
        normalize_state(raw_state),
        raw_state if isinstance(raw_state, str) else str(raw_state),
        final if isinstance(final, bool) else None,
        _status_summary,
        event,
    )


def _status_summary(event: dict[str, Any]) -> str:
    status = event.get("status")
    if not isinstance(status, dict):
        status = {}
    raw_state = status.get("state", "")
    state = normalize_state(raw_state)
    text = _message_text(status.get("message"))
    summary = _STATE_TEXT[state] if state else str(raw_state or "?")
    if text:
        summary = f"{summary} · {text}"
    if event.get("final") is True:
        summary += " · final"
    return _one_line(summary)


def _artifact_info(event: dict[str, Any]) -> ItemInfo:
    artifact = _dict(event.get("artifact"))
    final = event.get("final")
    return ItemInfo(
        ItemKind.ARTIFACT_UPDATE,
        _str(event.get("taskId")),
        _str(event.get("contextId")),
        final=final if isinstance(final, bool) else None,
        summary=_artifact_summary(event),
        artifact_id=_str(artifact.get("artifactId")),
        append=event.get("append") is True,
        last_chunk=event.get("lastChunk") is True,
    )


def _artifact_summary(event: dict[str, Any]) -> str:
    artifact = _dict(event.get("artifact"))
    name = _str(artifact.get("name")) or _str(artifact.get("artifactId"))
    text = _parts_text(artifact.get("parts"))
    summary = f"artifact {name or '?'}"
    if event.get("append") is True:
        summary += " (append)"
    if text:
        summary += f" · {text}"
    return _one_line(summary)


def _error_info(error: Any) -> ItemInfo:
    if not isinstance(error, dict):
        return ItemInfo(ItemKind.ERROR, summary=_one_line(f"error: {_json_snippet(error)}"))
    code = error.get("code")
    status = error.get("status")
    label = " ".join(str(x) for x in (code, status) if x is not None and x != "")
    message = _str(error.get("message"))
    return ItemInfo(
        ItemKind.ERROR,
        summary=_one_line(f"error {label}: {message}" if label else f"error: {message}"),
        error_code=code if isinstance(code, int | str) and not isinstance(code, bool) else None,
    )


_KIND_OBJECTS = {
    "task": _task_info,
    "message": _message_info,
    "status-update": _status_info,
    "artifact-update": _artifact_info,
}
_WRAPPERS = {
    "task": _task_info,
    "message": _message_info,
    "msg": _message_info,
    "statusUpdate": _status_info,
    "status_update": _status_info,
    "artifactUpdate": _artifact_info,
    "artifact_update": _artifact_info,
}


def _message_text(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    parts = message.get("parts")
    if parts is None:
        parts = message.get("content")  # 0.3 proto
    return _parts_text(parts)


def _parts_text(parts: Any) -> str:
    if not isinstance(parts, list) or not parts:
        return ""
    first = parts[0]
    if isinstance(first, dict):
        text = first.get("text")
        if isinstance(text, str):
            return text  # the usual case: the first part is text
    for part in parts:
        if isinstance(part, dict) and isinstance(text := part.get("text"), str):
            return text
    for part in parts:
        if isinstance(part, dict) and "data" in part:
            return "data " + _json_snippet(part["data"])
    return ""


def _frame_text(raw: bytes) -> str:
    lines = raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    text = " ".join(line for line in lines.split("\n") if line)
    return text or "(empty frame)"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _json_snippet(value: Any) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text[:_SUMMARY_CHARS]


def _one_line(text: str) -> str:
    if (
        len(text) <= _SUMMARY_CHARS
        and text.isprintable()
        and "  " not in text
        and text[:1] != " "
        and text[-1:] != " "
    ):
        # Already one line (printable: no newline, tab or other whitespace split() would
        # fold), no runs of spaces and nothing to trim: what split/join would give back.
        return text
    line = " ".join(text.split())
    return line if len(line) <= _SUMMARY_CHARS else line[: _SUMMARY_CHARS - 1] + "…"
