"""The ``auth`` member of ``x-a2a``: :class:`SavedAuth` and its file form.

Example (credentials are ``{{variable}}`` references in a file, never values)::

    auth: {type: oauth2, flow: clientCredentials, tokenUrl: https://idp/token,
           clientId: my-client, clientSecret: '{{clientSecret.idp}}', scopes: [a2a]}

Kinds: ``bearer`` (``token``), ``basic`` (``username``, ``password``), ``api_key`` (``in``,
``name``, ``value``), ``oauth2`` (``flow``, ``tokenUrl``, ``deviceAuthorizationUrl``,
``authorizationUrl``, ``discoveryUrl``, ``scopes`` list, ``clientId``, ``clientSecret``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

AUTH_KINDS = ("none", "bearer", "basic", "api_key", "oauth2")
API_KEY_LOCATIONS = ("header", "query", "cookie")
# Auth fields that hold a credential: in the file they must be a {{variable}} reference.
SECRET_AUTH_FIELDS = {
    "bearer": ("token",),
    "basic": ("password",),
    "api_key": ("value",),
    "oauth2": ("clientSecret",),
}
# OAuth 2 fields holding a list in the file (kept space-separated in SavedAuth.params).
_LIST_AUTH_FIELDS = {"oauth2": ("scopes",)}


class AuthShapeError(ValueError):
    """An unusable ``auth`` value at ``path`` (turned into an ``XA2AError`` by the caller)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True, slots=True)
class SavedAuth:
    """The auth *type* of a tab plus its non-secret settings and variable references.

    ``params`` keys by kind: bearer ``token``; basic ``username``, ``password``; api_key
    ``in`` (header|query|cookie), ``name``, ``value``. Credential fields hold
    ``{{variable}}`` references in a saved file.
    """

    kind: str = "none"
    params: tuple[tuple[str, str], ...] = ()

    def get(self, key: str, default: str = "") -> str:
        """The value of ``key`` in ``params``."""
        return dict(self.params).get(key, default)


def json_kind(value: Any) -> str:
    """``value`` 's JSON type in words, for messages."""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def scalar_text(value: Any) -> str:
    """A YAML scalar as the text it stands for."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def auth_from_x(raw: Any, where: str) -> SavedAuth:
    """The :class:`SavedAuth` of an ``x-a2a.auth`` value.

    Raises:
        AuthShapeError: not an object, an unknown ``type`` or API-key location, a field
            that is not a string (or, for ``scopes``, a list of strings).
    """
    if not isinstance(raw, Mapping):
        raise AuthShapeError(where, f"must be an object, got {json_kind(raw)}")
    if "type" not in raw:
        raise AuthShapeError(where, "missing required key 'type'")
    kind = raw["type"]
    if isinstance(kind, bool) or not isinstance(kind, str | int | float):
        raise AuthShapeError(f"{where}.type", f"must be a string, got {json_kind(kind)}")
    kind = str(kind).replace("apiKey", "api_key")
    if kind not in AUTH_KINDS:
        raise AuthShapeError(f"{where}.type", f"{kind!r} is not one of {', '.join(AUTH_KINDS)}")
    params = _auth_params(kind, raw, where)
    if kind == "api_key":
        location = dict(params).get("in", "header")
        if location not in API_KEY_LOCATIONS:
            raise AuthShapeError(
                f"{where}.in", f"{location!r} is not one of {', '.join(API_KEY_LOCATIONS)}"
            )
    return SavedAuth(kind, params)


def auth_to_x(auth: SavedAuth) -> dict[str, Any]:
    """The file form of ``auth``: ``type`` first, list fields (OAuth ``scopes``) as lists."""
    lists = _LIST_AUTH_FIELDS.get(auth.kind, ())
    out: dict[str, Any] = {"type": auth.kind}
    for key, value in auth.params:
        out[key] = value.split() if key in lists else value
    return out


def _auth_params(kind: str, raw: Mapping[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    """The ``auth`` fields as strings; list fields (OAuth ``scopes``) space-joined."""
    lists = _LIST_AUTH_FIELDS.get(kind, ())
    params: list[tuple[str, str]] = []
    for k, v in raw.items():
        if k == "type":
            continue
        if k in lists and isinstance(v, list) and all(isinstance(i, str) for i in v):
            params.append((str(k), " ".join(v)))
            continue
        if isinstance(v, Mapping | list) or v is None:
            raise AuthShapeError(f"{where}.{k}", f"must be a string, got {json_kind(v)}")
        params.append((str(k), scalar_text(v)))
    return tuple(params)
