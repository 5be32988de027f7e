"""Which recorded exchange answers an incoming request (docs/FIXTURES.md, "Matching").

Every request — recorded or incoming — is reduced to a :class:`Shape`: its binding, its
method (the JSON-RPC method, the REST verb and route with ids generalised, the gRPC path),
the texts of its message parts, the task it names and its parameters without ids. A match
mode picks the fields that must be equal:

- ``method``: the method only;
- ``method+text`` (default): the method, the message text and the task id;
- ``method+params``: the method and every parameter (and the REST query) except message
  and request ids.

Requests that match several exchanges get them in recorded order, the last one again
once all were served (a task polled until it completed). A redacted value (``****``) in a
recorded request matches any text in its place. An unmatched request gets the
closest recorded one (the same method first, then the fewest differences) and the
differences, for the loud error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from app.protocol.secrets import MASK
from app.replay.fixture import RecordedExchange

MATCH_MODES = ("method", "method+text", "method+params")
DEFAULT_MATCH = "method+text"
_FIELDS = {"method": ("method",), "method+text": ("method", "text", "task"),
           "method+params": ("method", "params", "query")}  # fmt: skip
_ID_SEGMENT = re.compile(r"/(tasks|pushNotificationConfigs)/([^/:?]+)")
_IGNORED_KEYS = frozenset({"messageId"})


@dataclass(frozen=True, slots=True)
class Shape:
    """What matching compares (see the module docstring)."""

    binding: str
    method: str
    text: tuple[str, ...] = ()
    task: str = ""
    params: Any = None
    query: str = ""

    def field(self, name: str) -> Any:
        return getattr(self, name)


@dataclass(frozen=True, slots=True)
class Difference:
    field: str
    recorded: Any
    got: Any

    def __str__(self) -> str:
        return f"{self.field} differs: recorded {_short(self.recorded)}, got {_short(self.got)}"

    def as_record(self) -> dict[str, Any]:
        return {"field": self.field, "recorded": self.recorded, "got": self.got}


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json(data: bytes | str) -> Any:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # deep nesting: not JSON the matcher can use
        return None
    # The matcher walks values recursively: a body nested deeper than any A2A request is
    # not one, and must not run it out of stack.
    return value if _depth_within(value, MAX_DEPTH) else None


MAX_DEPTH = 64
"""Nesting of a request body the matcher reads (A2A requests are a dozen levels deep)."""


def _depth_within(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= limit:
                return False
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return True


def http_shape(verb: str, path: str, body: bytes, binding: str | None = None) -> Shape:
    """The shape of an HTTP request (JSON-RPC when its body is a JSON-RPC request object)."""
    value = _json(body) if body else None
    parts = urlsplit(path)
    if binding == "JSONRPC" or (binding is None and isinstance(value, dict) and "jsonrpc" in value):
        envelope = value if isinstance(value, dict) else {}
        params = envelope.get("params")
        return _shape("JSONRPC", str(envelope.get("method", "")), params, "", "")
    route = _ID_SEGMENT.sub(lambda m: f"/{m.group(1)}/{{id}}", parts.path)
    ids = _ID_SEGMENT.findall(parts.path)
    path_task = unquote(ids[0][1]) if ids and ids[0][0] == "tasks" else ""
    return _shape("HTTP+JSON", f"{verb.upper()} {route}", value, path_task, parts.query)


def grpc_shape(path: str, message: Any) -> Shape:
    """The shape of a gRPC call: its ``/service/Method`` path and request as ProtoJSON."""
    return _shape("GRPC", path, message, "", "")


def recorded_shape(x: RecordedExchange) -> Shape:
    if x.binding == "GRPC":
        return grpc_shape(x.path, _json(x.body))
    return http_shape(x.http_method, x.path, x.body, x.binding)


def _shape(binding: str, method: str, params: Any, path_task: str, query: str) -> Shape:
    return Shape(binding, method, tuple(_texts(params)), path_task or _task(params),
                 _without_ids(params), query)  # fmt: skip


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["text"]] if isinstance(value.get("text"), str) else []
        return found + [
            t for k, v in value.items() if k not in ("text", "metadata") for t in _texts(v)
        ]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def _task(params: Any) -> str:
    if not isinstance(params, dict):
        return ""
    for key in ("id", "taskId"):
        if isinstance(params.get(key), str):
            return str(params[key])
    name = params.get("name")
    if isinstance(name, str) and name.startswith("tasks/"):
        return name.split("/")[1]
    for key in ("message", "request", "params"):  # 1.0 message, 0.3 gRPC request, push config
        inner = _task(params.get(key))
        if inner:
            return inner
    return ""


def _without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items() if k not in _IGNORED_KEYS}
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


def _masked_match(pieces: list[str], got: str) -> bool:
    """Whether ``got`` is ``pieces`` in order with any text between them: a glob with only
    ``*``, matched greedily left to right in linear time (a regex ``a.*a.*…`` backtracks
    polynomially over request-controlled text)."""
    first, *middle, last = pieces
    if len(got) < len(first) + len(last) or not got.startswith(first) or not got.endswith(last):
        return False
    at, end = len(first), len(got) - len(last)
    for piece in middle:
        found = got.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def same(recorded: Any, got: Any) -> bool:
    """Equal, except that ``****`` in a recorded string (a redacted value) matches any text."""
    if isinstance(recorded, str) and isinstance(got, str) and MASK in recorded:
        return _masked_match(recorded.split(MASK), got)
    if isinstance(recorded, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(recorded) == len(got) and all(
            same(r, g) for r, g in zip(recorded, got, strict=True)
        )
    if isinstance(recorded, dict) and isinstance(got, dict):
        return recorded.keys() == got.keys() and all(same(v, got[k]) for k, v in recorded.items())
    return bool(recorded == got)


@dataclass(frozen=True, slots=True)
class Verdict:
    """``index`` the exchange to serve, or None; then ``closest`` and its ``differences``."""

    index: int | None
    closest: int | None = None
    differences: tuple[Difference, ...] = ()


class Matcher:
    """Matches incoming requests against a fixture's exchanges (state: what was served)."""

    def __init__(self, exchanges: tuple[RecordedExchange, ...], mode: str = DEFAULT_MATCH) -> None:
        if mode not in _FIELDS:
            raise ValueError(f"unknown match mode {mode!r}")
        self._fields = _FIELDS[mode]
        self._shapes = [recorded_shape(x) for x in exchanges]
        self._served = [0] * len(exchanges)

    def differences(self, index: int, shape: Shape) -> tuple[Difference, ...]:
        recorded = self._shapes[index]
        return tuple(
            Difference(name, recorded.field(name), shape.field(name))
            for name in self._fields
            if not same(recorded.field(name), shape.field(name))
        )

    def has_method(self, shape: Shape) -> bool:
        return any(s.binding == shape.binding and s.method == shape.method for s in self._shapes)

    def match(self, shape: Shape) -> Verdict:
        same_binding = [i for i, s in enumerate(self._shapes) if s.binding == shape.binding]
        matches = [i for i in same_binding if not self.differences(i, shape)]
        if matches:
            index = next((i for i in matches if not self._served[i]), matches[-1])
            self._served[index] += 1
            return Verdict(index)
        if not same_binding:
            return Verdict(None)

        def distance(i: int) -> tuple[int, int, int]:
            diffs = self.differences(i, shape)
            return (any(d.field == "method" for d in diffs), len(diffs), i)

        closest = min(same_binding, key=distance)
        return Verdict(None, closest, self.differences(closest, shape))
