"""Applying an exchange's secrets (:func:`app.protocol.secrets.request_secrets`) to the
events it emits, so no text leaving the exchange carries a credential.

A server may echo a token back (in a header, an error message, a body or a stream item),
an error may quote a URL with its user info: every event but :class:`RequestSent` is
redacted here. :class:`RequestSent` keeps the exact bytes sent and carries the values, so
its :meth:`~app.protocol.events.RequestSent.masked` view hides them and
``--reveal-secrets`` can still show what went out.
"""

from __future__ import annotations

import dataclasses

from app.protocol.events import (
    NOT_JSON,
    ExchangeError,
    ExchangeEvent,
    Headers,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.secrets import redact, redact_bytes, redact_json


def mask_event(event: ExchangeEvent, secrets: tuple[str, ...]) -> ExchangeEvent:
    """``event`` with every occurrence of ``secrets`` masked (RequestSent: registered)."""
    if not secrets:
        return event
    match event:
        case RequestSent():
            return dataclasses.replace(event, secret_values=secrets)
        case ResponseHead():
            return dataclasses.replace(
                event,
                reason=redact(event.reason, secrets),
                headers=_headers(event.headers, secrets),
            )
        case ResponseBody():
            body = redact_bytes(event.body, secrets)
            if body == event.body and not _in_headers(event.trailers, secrets):
                return event
            return dataclasses.replace(
                event,
                body=body,
                json=_json(event.json, secrets),
                json_error=redact(event.json_error, secrets),
                trailers=_headers(event.trailers, secrets),
                info=None,  # its summary may quote a secret: classified again when asked
            )
        case StreamItem():
            raw = redact_bytes(event.raw, secrets)
            if raw == event.raw:
                return event
            info = event.info
            if info is not None:
                info = info.with_summary(redact(info.summary, secrets))
            return dataclasses.replace(
                event,
                raw=raw,
                json=_json(event.json, secrets),
                json_error=redact(event.json_error, secrets),
                info=info,
            )
        case ExchangeError():
            return mask_error(event, secrets)
    return event


def mask_error(event: ExchangeError, secrets: tuple[str, ...]) -> ExchangeError:
    """``event`` with ``secrets`` masked in every text it holds (gRPC details included)."""
    return dataclasses.replace(
        event,
        message=redact(event.message, secrets),
        name=redact(event.name, secrets),
        code=redact(event.code, secrets) if isinstance(event.code, str) else event.code,
        data=_json(event.data, secrets) if event.data is not None else None,
        details=tuple(redact(line, secrets) for line in event.details),
        trailers=_headers(event.trailers, secrets),
    )


def _headers(headers: Headers, secrets: tuple[str, ...]) -> Headers:
    return tuple((redact(n, secrets), redact(v, secrets)) for n, v in headers)


def _in_headers(headers: Headers, secrets: tuple[str, ...]) -> bool:
    return _headers(headers, secrets) != headers


def _json(value: object, secrets: tuple[str, ...]) -> object:
    if value is NOT_JSON:
        return value
    try:
        return redact_json(value, secrets)
    except RecursionError:
        return NOT_JSON  # too deep to walk: the raw text (redacted) is still shown
