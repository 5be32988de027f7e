"""A HAR 1.2 file → :class:`~app.imports.raw.RawRequest` values (every entry's request).

HAR (``log.entries[].request``: ``method``, ``url``, ``headers``, ``postData.text``) comes
from browser developer tools and from this app's own history export
(:mod:`app.history.har_export`), whose entries also carry an ``_a2a`` block (binding, version,
JSON-RPC method): those are kept as hints and shown, but the request itself still decides
(:mod:`app.imports.detect`). Request cookies are session state and are not imported.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from app.imports.raw import ImportSourceError, RawRequest, Source


def is_har(data: Any) -> bool:
    """Whether parsed JSON looks like HAR (``log.entries`` is a list)."""
    log = data.get("log") if isinstance(data, dict) else None
    return isinstance(log, dict) and isinstance(log.get("entries"), list)


def parse_har(data: Any) -> Source:
    """The requests of a parsed HAR document, in entry order, grouped by host.

    Raises:
        ImportSourceError: no ``log.entries`` list.
    """
    if not is_har(data):
        raise ImportSourceError("Not a HAR file (no log.entries list)")
    log = data["log"]
    creator = log.get("creator") if isinstance(log.get("creator"), dict) else {}
    made_by = str(creator.get("name") or "HAR")
    out = []
    for n, entry in enumerate(log["entries"]):
        request = entry.get("request") if isinstance(entry, dict) else None
        if not isinstance(request, dict):
            continue
        out.append(_request(request, entry, f"log.entries[{n}]"))
    return Source("har", f"Imported from {made_by}", tuple(out))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _request(request: dict[str, Any], entry: dict[str, Any], place: str) -> RawRequest:
    url = str(request.get("url") or "")
    headers = tuple(
        (str(h.get("name", "")), str(h.get("value", "")))
        for h in _list(request.get("headers"))
        if isinstance(h, dict)
    )
    post = request.get("postData")
    body = str(post.get("text") or "") if isinstance(post, dict) else ""
    notes = []
    if request.get("cookies"):
        notes.append("request cookies dropped (browser session state)")
    hints: tuple[tuple[str, str], ...] = ()
    ours = entry.get("_a2a")
    name = ""
    if isinstance(ours, dict):
        hints = tuple((str(k), str(v)) for k, v in ours.items() if isinstance(v, str))
        name = str(ours.get("rpcMethod") or "")
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return RawRequest(
        method=str(request.get("method") or "GET").upper(),
        url=url,
        headers=headers,
        body=body,
        name=name,
        place=place,
        folder=host,
        notes=tuple(notes),
        hints=hints,
    )


def check_hints(raw: RawRequest, version: str, binding: str) -> str:
    """A note when our own export's ``_a2a`` labels disagree with what was detected."""
    hints = dict(raw.hints)
    said = (hints.get("version", ""), hints.get("binding", ""))
    if said == ("", "") or said == (version, binding):
        return ""
    return (
        f"the export's _a2a block says {said[0]} {said[1]}; "
        f"the request reads as {version} {binding}"
    )
