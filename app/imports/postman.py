"""A Postman Collection v2.1 file → :class:`~app.imports.raw.RawRequest` values.

Format: the v2.1 schema (``info.schema`` names it; a copy is the test data's
``postman-collection-v2.1.0.schema.json``). Folders
(items holding ``item``) nest; each request has ``method``, ``header`` (``disabled``
entries skipped), ``body`` (``mode: raw`` is the one A2A can use), ``url`` (a string or
an object with ``raw``) and ``auth`` (``bearer``, ``basic``, ``apikey``, ``oauth2``;
inherited from the enclosing folder or the collection, ``noauth`` stops that).

Postman's ``{{variable}}`` syntax is the app's own (:mod:`app.spec.variables`), so a
reference such as ``{{baseUrl}}`` is kept as it is and resolves from the app's
environments; names the app cannot hold (``{{$guid}}``, names with spaces) are reported.
"""

from __future__ import annotations

import re
from typing import Any

from app.imports.raw import ImportSourceError, RawAuth, RawRequest, Source
from app.spec.variables import VARIABLE

_ANY_REFERENCE = re.compile(r"\{\{([^{}]*)\}\}")


def is_postman(data: Any) -> bool:
    """Whether parsed JSON looks like a Postman collection (``info.schema`` names one)."""
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        return False
    schema = data["info"].get("schema")
    return isinstance(schema, str) and "schema.getpostman.com" in schema


def parse_postman(data: Any) -> Source:
    """The requests of a parsed Postman collection, folders as tags.

    Raises:
        ImportSourceError: not a collection, or not v2.1 / v2.0 (v1 has no ``item`` tree).
    """
    if not is_postman(data):
        raise ImportSourceError("Not a Postman collection (no info.schema naming one)")
    schema = str(data["info"]["schema"])
    if "/v2." not in schema:
        raise ImportSourceError(f"Postman collection schema {schema!r}: only v2.1 is read")
    title = str(data["info"].get("name") or "Postman collection")
    out: list[RawRequest] = []
    _walk(data.get("item"), "item", "", _auth(data.get("auth")), out)
    notes = _variable_notes(data.get("variable"))
    return Source("postman", title, tuple(out), notes)


def _walk(items: Any, place: str, folder: str, auth: RawAuth | None, out: list[RawRequest]) -> None:
    if not isinstance(items, list):
        return
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        here = f"{place}[{n}]"
        own = _auth(item.get("auth")) if "auth" in item else None
        inherited = own if own is not None else auth
        name = str(item.get("name") or "")
        if "item" in item:
            sub = f"{folder}/{name}" if folder and name else name or folder
            _walk(item["item"], f"{here}.item", sub, inherited, out)
        elif "request" in item:
            request = item["request"]
            if isinstance(request, dict) and "auth" in request:
                inherited = _auth(request.get("auth"))
            out.append(_request(request, name, here, folder, inherited))


def _request(request: Any, name: str, place: str, folder: str, auth: RawAuth | None) -> RawRequest:
    if isinstance(request, str):  # a bare URL is allowed by the schema
        request = {"url": request, "method": "GET"}
    if not isinstance(request, dict):
        return RawRequest("GET", "", name=name, place=place, notes=("request is not an object",))
    notes: list[str] = []
    headers = tuple(
        (str(h.get("key", "")), str(h.get("value", "")))
        for h in _list(request.get("header"))
        if isinstance(h, dict) and not h.get("disabled")
    )
    body = ""
    raw_body = request.get("body")
    if isinstance(raw_body, dict) and not raw_body.get("disabled"):
        mode = raw_body.get("mode")
        if mode == "raw":
            body = str(raw_body.get("raw") or "")
        elif mode:
            notes.append(f"body mode {mode!r} is not JSON; left out")
    url = _url(request.get("url"))
    for text in (url, body, *(v for _, v in headers)):
        notes += _reference_notes(text)
    return RawRequest(
        method=str(request.get("method") or "GET").upper(),
        url=url,
        headers=headers,
        body=body,
        name=name,
        place=place,
        folder=folder,
        auth=auth or RawAuth(),
        notes=tuple(dict.fromkeys(notes)),
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _url(url: Any) -> str:
    if isinstance(url, str):
        return url
    if not isinstance(url, dict):
        return ""
    text = str(url.get("raw") or "")
    if not text:
        host = url.get("host")
        path = url.get("path")
        host_text = ".".join(str(h) for h in host) if isinstance(host, list) else str(host or "")
        path_text = "/".join(str(p) for p in path) if isinstance(path, list) else str(path or "")
        protocol = f"{url['protocol']}://" if url.get("protocol") else ""
        text = f"{protocol}{host_text}/{path_text}" if path_text else f"{protocol}{host_text}"
    # Postman path variables (`/tasks/:taskId`) take their values from url.variable.
    for variable in _list(url.get("variable")):
        if isinstance(variable, dict) and variable.get("key") and "value" in variable:
            text = text.replace(f":{variable['key']}", str(variable["value"]))
    return text


def _auth(block: Any) -> RawAuth | None:
    """The auth of a Postman ``auth`` block; None for ``inherit``/absent (use the parent's)."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind in (None, "inherit"):
        return None
    if kind == "noauth" or not isinstance(kind, str):  # a list or object names no scheme
        return RawAuth()
    pairs = block.get(kind)
    values: dict[str, str] = {}
    if isinstance(pairs, list):  # v2.1: [{key, value, type}]
        values = {str(p.get("key")): str(p.get("value", "")) for p in pairs if isinstance(p, dict)}
    elif isinstance(pairs, dict):  # v2.0 allowed a plain object
        values = {str(k): str(v) for k, v in pairs.items()}
    if kind == "bearer":
        return RawAuth("bearer", (("token", values.get("token", "")),))
    if kind == "basic":
        user, password = values.get("username", ""), values.get("password", "")
        return RawAuth("basic", (("username", user), ("password", password)))
    if kind == "apikey":
        location = values.get("in", "header")
        key, value = values.get("key", "X-API-Key"), values.get("value", "")
        return RawAuth("api_key", (("in", location), ("name", key), ("value", value)))
    if kind == "oauth2" and values.get("accessToken"):
        return RawAuth("bearer", (("token", values["accessToken"]),))
    return RawAuth()


def _reference_notes(text: str) -> list[str]:
    notes = []
    for match in _ANY_REFERENCE.finditer(text):
        if not VARIABLE.fullmatch(match.group(0)):
            notes.append(
                f"{match.group(0)} is a Postman variable the app cannot resolve "
                "(names are letters, digits, _ . -); replace it before sending"
            )
    return notes


def _variable_notes(variables: Any) -> tuple[str, ...]:
    if not isinstance(variables, list):
        return ()
    names = [str(v.get("key")) for v in variables if isinstance(v, dict) and v.get("key")]
    if not names:
        return ()
    return (
        "collection variables (" + ", ".join(names) + ") are kept as {{references}}; "
        "give them values in File → Environments…",
    )
