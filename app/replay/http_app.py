"""The HTTP side of a replay: the card, JSON-RPC and HTTP+JSON answered from the fixture.

One catch-all Starlette route reads each request, asks the matcher for the recorded
exchange (:mod:`app.replay.matching`) and answers with its recorded status, headers and
bytes — a unary body at the recorded offset, SSE frames each at its own — or fails loudly:
a JSON-RPC error object (``-32601`` for a method never recorded, ``-32099`` otherwise) or an
RFC 9457 problem body (404 for a route never recorded, 400 otherwise), naming the closest
recorded request and the difference.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.replay.answers import HOP_HEADERS, Pacer, Replay, with_request_id
from app.replay.fixture import RecordedExchange
from app.replay.matching import http_shape

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
JSONRPC_NOT_RECORDED = -32601
JSONRPC_UNMATCHED = -32099
MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest request body the replay reads (413 above it); gRPC has the same bound."""
_VERBS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def build_http_app(replay: Replay, card: Callable[[], dict[str, Any]]) -> Starlette:
    """The ASGI app serving ``replay``; ``card`` gives the card to serve."""

    async def serve_card(request: Request) -> Response:
        replay.emit({"event": "card", "path": request.url.path})
        return JSONResponse(card())

    async def handle(request: Request) -> Response:
        body = await _bounded_body(request)
        if body is None:
            problem = {"type": "about:blank", "title": "Request body too large", "status": 413,
                       "detail": f"the replay reads at most {MAX_BODY_BYTES} bytes"}  # fmt: skip
            return JSONResponse(problem, 413, media_type="application/problem+json")
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        shape = http_shape(request.method, path, body)
        x, verdict = replay.lookup(shape)
        client_id = _request_id(body) if shape.binding == "JSONRPC" else None
        if x is None:
            message, data = replay.unmatched(shape, verdict)
            if shape.binding == "JSONRPC":
                code = (
                    JSONRPC_UNMATCHED if replay.matcher.has_method(shape) else JSONRPC_NOT_RECORDED
                )
                error = {"code": code, "message": message, "data": data}
                return JSONResponse({"jsonrpc": "2.0", "id": client_id, "error": error})
            status = 400 if replay.matcher.has_method(shape) else 404
            problem = {"type": "about:blank", "title": "No recorded request matches",
                       "status": status, "detail": message, **data}  # fmt: skip
            return JSONResponse(problem, status, media_type="application/problem+json")
        return await _answer(x, replay.speed, _request_id(x.body), client_id)

    routes = [Route(p, serve_card, methods=["GET"]) for p in CARD_PATHS]
    routes.append(Route("/{path:path}", handle, methods=_VERBS))
    return Starlette(routes=routes)


async def _bounded_body(request: Request) -> bytes | None:
    """The request body, or None when it is larger than :data:`MAX_BODY_BYTES` (told by
    Content-Length before reading, or counted while it streams in)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _request_id(body: bytes) -> Any:
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return value.get("id") if isinstance(value, dict) else None


async def _answer(x: RecordedExchange, speed: float, recorded_id: Any, client_id: Any) -> Response:
    answer = x.answer
    pacer = Pacer(speed)
    headers = [(n.lower().encode("latin-1"), v.encode("latin-1", "replace"))
               for n, v in answer.headers if n.lower() not in HOP_HEADERS]  # fmt: skip
    await pacer.until(answer.t)
    response: Response
    if answer.body is not None:
        response = Response(with_request_id(answer.body, recorded_id, client_id), answer.status)
    else:

        async def frames() -> AsyncIterator[bytes]:
            for frame in answer.frames:
                await pacer.until(frame.t)
                yield with_request_id(frame.data, recorded_id, client_id)
            await pacer.until(answer.end)

        response = StreamingResponse(frames(), answer.status)
    response.raw_headers = [h for h in response.raw_headers if h[0] != b"content-type"] + headers
    return response
