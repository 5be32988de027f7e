"""The ``x-a2a`` extension: one saved request tab as plain data, and its validation.

An A2A operation in an OpenAPI 3.2 document is marked ``x-protocol: a2a`` and carries::

    x-a2a:
      version: '1.0'                 # or '0.3'
      binding: JSONRPC               # JSONRPC | HTTP+JSON | GRPC | websocket | unix
                                     # | stdio | redis-streams
      endpoint: '{{baseUrl}}/'       # where requests go (the path is only an identifier)
      agentCardUrl: '{{baseUrl}}/.well-known/agent-card.json'
      method: SendMessage
      tenant: acme                   # optional
      command: 'agent --stdio'       # stdio only: the command line that starts the agent
      headers: {X-Trace: on}         # optional, non-secret; a list value repeats a header
      query: {}                      # optional extra query parameters
      auth: {type: bearer, token: '{{token}}'}   # type + variable references, never values
      tls: {caCert: ca.pem}          # optional; proxy: {url: ...} (app/spec/xa2a_network.py)
      extensions: [https://example.com/ext/v1]   # optional A2A-Extensions
      timeout: 30                    # optional, seconds
      assertions: [...]              # optional checks of the response; captures: {var: path}
                                     # (app/spec/xa2a_assertions.py)
      requestSchema: {...}           # JSON Schema of `example` (generated)
      responseSchema: {...}          # JSON Schema of a response / one stream item
      example: {...}                 # the JSON-RPC envelope, or the REST/gRPC request object
      agentCard: {...}               # optional snapshot of the card

Secrets never appear: :func:`extract_secrets` turns credential values into ``{{variable}}``
references before a request is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote_plus, urlsplit

from app.errors import WorkbenchError
from app.protocol.bindings import traits
from app.protocol.methods.catalog import find_method
from app.protocol.types import Binding, ProtocolVersion
from app.spec.assertions import Assertion
from app.spec.secret_literals import claim_literals
from app.spec.xa2a_assertions import assertions_from_x_a2a, captures_from_x_a2a, checks_to_x_a2a
from app.spec.xa2a_auth import SECRET_AUTH_FIELDS, AuthShapeError, auth_from_x, auth_to_x
from app.spec.xa2a_auth import SavedAuth as SavedAuth  # re-exported: the file's auth form
from app.spec.xa2a_auth import json_kind as _kind
from app.spec.xa2a_auth import scalar_text as _scalar_text
from app.spec.xa2a_network import SavedNetwork, network_from_x_a2a, network_to_x_a2a

X_A2A = "x-a2a"
X_PROTOCOL = "x-protocol"
MAX_TIMEOUT_S = 86_400.0
"""The largest ``timeout`` accepted (one day)."""
SENSITIVE_HEADER_NAMES = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}
)
_VARIABLE_ONLY = re.compile(r"^\s*\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}\s*$")
_HAS_VARIABLE = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}")


class XA2AError(WorkbenchError, ValueError):
    """An invalid ``x-a2a`` block; ``path`` is the JSON path of the offending value.

    Raised by :func:`from_x_a2a`. Caught by ``app.spec.document`` (the operation is listed
    as a skipped ``Problem`` instead of a saved request). Still a ``ValueError`` for callers
    that treat any bad value alike.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True, slots=True)
class SavedRequest:
    """Everything a request tab holds, Qt-free. ``body`` is the editor text.

    ``name`` is the tab name (``summary``); ``operation_id`` is set once the request lives
    in a document. ``tags`` group operations in the spec tree.
    """

    name: str
    version: ProtocolVersion
    binding: Binding
    endpoint: str
    method: str
    body: str
    operation_id: str = ""
    tags: tuple[str, ...] = ()
    agent_card_url: str = ""
    agent_card: dict[str, Any] | None = None
    tenant: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    auth: SavedAuth = field(default_factory=SavedAuth)
    extensions: tuple[str, ...] = ()
    timeout: float | None = None
    network: SavedNetwork = field(default_factory=SavedNetwork)  # x-a2a tls, proxy
    assertions: tuple[Assertion, ...] = ()
    captures: tuple[tuple[str, str], ...] = ()
    """``(variable, path)``: values of the response kept for the requests after it."""
    command: str = ""
    """The command line that starts a stdio agent (``A2ARequest.command``)."""

    @property
    def streaming(self) -> bool:
        """Whether the method answers with a stream."""
        spec = find_method(self.version, self.method)
        return bool(spec and spec.streaming)


# --- secrets ----------------------------------------------------------------------------


def variable_name_for(*parts: str) -> str:
    """A camelCase variable name from words: ``("api", "key")`` → ``apiKey``."""
    words = [w for p in parts for w in re.split(r"[^A-Za-z0-9]+", p) if w]
    if not words:
        return "secret"
    first, rest = words[0], words[1:]
    name = first[0].lower() + first[1:] + "".join(w[0].upper() + w[1:] for w in rest)
    return name if name[0].isalpha() else "v" + name


def split_endpoint(endpoint: str) -> tuple[str, str, str, str]:
    """``http://u:p@host:80/a?b#c`` → ``("http://", "u:p@", "host:80", "/a?b#c")``.

    The authority ends at the first ``/``, ``?`` or ``#``; the user info is what comes
    before its last ``@`` (as :func:`urllib.parse.urlsplit` and httpx read it). An
    endpoint without ``://`` (a gRPC ``host:port``) has an empty scheme part.
    """
    scheme, sep, after = endpoint.partition("://")
    prefix = scheme + sep if sep else ""
    if not sep:
        after = endpoint
    authority = re.match(r"[^/?#]*", after).group(0)  # type: ignore[union-attr]
    userinfo, at, hostport = authority.rpartition("@")
    return prefix, userinfo + at, hostport, after[len(authority) :]


def endpoint_host(endpoint: str) -> tuple[str, int | None] | None:
    """The host (lower case, as urlsplit reads it) and port of ``endpoint``; None when it
    has none, or when its scheme or host:port holds a ``{{variable}}``."""
    if not endpoint:
        return None
    prefix, _, hostport, _ = split_endpoint(endpoint.strip())
    if _HAS_VARIABLE.search(prefix + hostport):
        return None
    try:
        parts = urlsplit((prefix or "//") + hostport)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return None
    return (host, port) if host else None


def secret_scope(endpoint: str) -> str:
    """The part of a secret's variable name that ties it to one agent: ``host-port``.

    Credentials are sent only to the endpoint they were configured for, so two agents'
    tokens must not share a variable (and a keyring entry). An endpoint whose host is
    itself a ``{{variable}}`` has no fixed host: its secrets keep the plain name.
    Variables in the user info, path or query do not change the host.
    """
    target = endpoint_host(endpoint)
    if target is None:
        return ""
    host, port = target
    scope = host if port is None else f"{host}-{port}"
    return re.sub(r"[^A-Za-z0-9.-]", "-", scope)


def _scoped(name: str, scope: str) -> str:
    return f"{name}.{scope}" if scope else name


def is_reference(value: str) -> bool:
    """True when ``value`` is exactly one ``{{variable}}`` reference."""
    return bool(_VARIABLE_ONLY.match(value))


SENSITIVE_NAME_PARTS = (
    "token",
    "secret",
    "password",
    "passwd",
    "api-key",
    "apikey",
    "api_key",
    "auth",
    "session",
    "cookie",
    "key",
)
"""A header or query parameter whose name contains one of these (case-insensitive) holds
a credential: ``Authorization``, ``Proxy-Authorization``, ``Cookie``, ``X-Auth-Token``,
``X-Api-Key``, ``api_key``, ``access_token``, ``sessionId``, ``client_secret``…"""


def is_sensitive_name(name: str) -> bool:
    """True when a header or query parameter called ``name`` holds a credential."""
    lowered = name.lower()
    return lowered in SENSITIVE_HEADER_NAMES or any(p in lowered for p in SENSITIVE_NAME_PARTS)


def extract_secrets(saved: SavedRequest) -> tuple[SavedRequest, dict[str, str]]:
    """Replace credential values by ``{{variable.scope}}`` references.

    Credential values are:

    - the auth token / password / API key value (``token``, ``password``, ``apiKey``);
    - the password in the endpoint's user info (``http://alice:PASS@host/`` →
      ``http://alice:{{urlPassword.host}}@host/``);
    - the values of endpoint query parameters, headers and ``query`` entries whose names
      look sensitive (:data:`SENSITIVE_NAME_PARTS`, plus the configured API-key name):
      ``X-Auth-Token`` → ``{{xAuthToken.host}}``, ``?api_key=`` → ``{{apiKey2.host}}`` when
      ``apiKey`` is already taken by another value;
    - any of those values (four characters or more) repeated in another header or
      ``query`` value, whatever its name;
    - in a value that already holds a ``{{variable}}``, each literal secret beside it
      (:func:`app.spec.secret_literals.claim_literals`: a ``Cookie`` pair by pair).

    The scope is :func:`secret_scope` of the endpoint. A value that holds only
    ``{{variables}}`` (and an auth scheme word, separators, cookie names) stays as it is.
    Endpoint values are kept exactly as written in the URL (percent-encoding included), so
    the resolved endpoint is the one typed.

    Returns:
        The cleaned request and ``{variable name: secret value}`` for the keyring.
    """
    secrets: dict[str, str] = {}
    scope = secret_scope(saved.endpoint)
    taken = {m.group(1) for m in _VARIABLE_NAME.finditer(_all_text(saved))}

    def claim(base: str, value: str) -> str:
        """A variable for ``value``: ``base.scope``, or ``base2.scope``… when that name
        already means something else in this request."""
        n = 1
        while True:
            var = _scoped(base if n == 1 else f"{base}{n}", scope)
            if secrets.get(var) == value or (var not in secrets and var not in taken):
                secrets[var] = value
                return var
            n += 1

    params = dict(saved.auth.params)
    for key in SECRET_AUTH_FIELDS.get(saved.auth.kind, ()):
        value = params.get(key, "")
        base = {"token": "token", "password": "password", "value": "apiKey"}.get(key, key)
        if value and not _HAS_VARIABLE.search(value):
            params[key] = "{{" + claim(base, value) + "}}"
        elif value:
            params[key] = claim_literals(value, base, claim, name_for=variable_name_for)
        elif saved.auth.kind == "oauth2":
            params.pop(key, None)  # a public client has no secret
        else:
            var = _scoped(base, scope)
            taken.add(var)
            params[key] = "{{" + var + "}}"
    auth = replace(saved.auth, params=tuple(params.items()))
    key_name = params.get("name", "").strip().lower() if saved.auth.kind == "api_key" else ""

    def sensitive(name: str) -> bool:
        return is_sensitive_name(name) or (bool(key_name) and name.strip().lower() == key_name)

    def clean(name: str, value: str, header: str = "") -> str:
        if not (sensitive(name) and value):
            return value
        if not _HAS_VARIABLE.search(value):
            return "{{" + claim(variable_name_for(name), value) + "}}"
        # Literal secrets beside a variable (``session={{sid}}; csrftoken=abc``).
        base = variable_name_for(name)
        return claim_literals(value, base, claim, header=header, name_for=variable_name_for)

    endpoint = _clean_endpoint(saved.endpoint, claim, sensitive)
    headers = tuple((name, clean(name, value, name)) for name, value in saved.headers)
    query = tuple((name, clean(name, value)) for name, value in saved.query)

    def by_value(value: str) -> str:
        # By value too: a credential repeated under a name that does not look secret
        # (an unusual header, a cookie beside other pairs) becomes its reference.
        for var, secret in secrets.items():
            if len(secret) >= 4 and secret in value:
                value = value.replace(secret, "{{" + var + "}}")
        return value

    headers = tuple((name, by_value(value)) for name, value in headers)
    query = tuple((name, by_value(value)) for name, value in query)
    cleaned = replace(saved, endpoint=endpoint, auth=auth, headers=headers, query=query)
    return cleaned, secrets


_VARIABLE_NAME = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")


def _all_text(saved: SavedRequest) -> str:
    pieces = [saved.endpoint, saved.body, saved.tenant, saved.command]
    pieces += [v for _, v in saved.headers] + [v for _, v in saved.query]
    pieces += [v for _, v in saved.auth.params]
    return "\n".join(pieces)


def _clean_endpoint(
    endpoint: str,
    claim: Callable[[str, str], str],
    sensitive: Callable[[str], bool],
) -> str:
    """``endpoint`` with its user-info password and sensitive query values replaced."""
    prefix, userinfo, hostport, rest = split_endpoint(endpoint)
    if userinfo:
        user, colon, password = userinfo[:-1].partition(":")
        if colon and password and not _HAS_VARIABLE.search(password):
            userinfo = f"{user}:{{{{{claim('urlPassword', password)}}}}}@"
        elif colon and password:
            password = claim_literals(password, "urlPassword", claim, name_for=variable_name_for)
            userinfo = f"{user}:{password}@"
    path, hash_sign, fragment = rest.partition("#")
    path, question, query = path.partition("?")
    if query:
        pieces = []
        for piece in query.split("&"):
            name, eq, value = piece.partition("=")
            base = variable_name_for(unquote_plus(name))
            if eq and value and sensitive(unquote_plus(name)) and not _HAS_VARIABLE.search(value):
                piece = f"{name}={{{{{claim(base, value)}}}}}"
            elif eq and value and sensitive(unquote_plus(name)):
                piece = f"{name}={claim_literals(value, base, claim, name_for=variable_name_for)}"
            pieces.append(piece)
        query = "&".join(pieces)
    return prefix + userinfo + hostport + path + question + query + hash_sign + fragment


# --- to and from the x-a2a object -------------------------------------------------------


def _pairs_to_mapping(pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            existing = out[name]
            out[name] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            out[name] = value
    return out


def example_value(body: str) -> tuple[str, Any]:
    """``("example", parsed)`` for a JSON body, ``("exampleText", body)`` for a draft that
    does not parse (kept verbatim so nothing the user typed is lost)."""
    try:
        return "example", json.loads(body)
    except ValueError:
        return "exampleText", body


def to_x_a2a(
    saved: SavedRequest,
    request_schema: dict[str, Any] | None,
    response_schema: dict[str, Any] | None,
) -> dict[str, Any]:
    """The ``x-a2a`` object for ``saved`` (secrets must already be extracted)."""
    out: dict[str, Any] = {
        "version": saved.version.value,
        "binding": saved.binding.value,
        "endpoint": saved.endpoint,
    }
    if saved.agent_card_url:
        out["agentCardUrl"] = saved.agent_card_url
    out["method"] = saved.method
    if saved.tenant:
        out["tenant"] = saved.tenant
    if saved.command:
        out["command"] = saved.command
    if saved.headers:
        out["headers"] = _pairs_to_mapping(saved.headers)
    if saved.query:
        out["query"] = _pairs_to_mapping(saved.query)
    if saved.auth.kind != "none":
        out["auth"] = auth_to_x(saved.auth)
    out |= network_to_x_a2a(saved.network)
    if saved.extensions:
        out["extensions"] = list(saved.extensions)
    if saved.timeout is not None:
        out["timeout"] = saved.timeout
    out |= checks_to_x_a2a(saved.assertions, saved.captures)
    if request_schema is not None:
        out["requestSchema"] = request_schema
    if response_schema is not None:
        out["responseSchema"] = response_schema
    key, value = example_value(saved.body)
    out[key] = value
    if saved.agent_card is not None:
        out["agentCard"] = saved.agent_card
    return out


OWNED_KEYS = frozenset(
    {
        "version", "binding", "endpoint", "agentCardUrl", "method", "tenant", "command", "headers",
        "query", "auth", "tls", "proxy", "extensions", "timeout", "assertions", "captures",
        "requestSchema", "responseSchema",
        "example", "exampleText", "agentCard",
    }
)  # fmt: skip
"""The ``x-a2a`` keys :func:`to_x_a2a` writes; any other key belongs to someone else."""


def merge_x_a2a(old: Any, new: dict[str, Any]) -> dict[str, Any]:
    """``new`` (from :func:`to_x_a2a`) with the keys of ``old`` we do not own kept.

    Owned keys come in ``new``'s order (absent ones are gone: they were cleared); each
    foreign key stays right after the owned key it followed in ``old`` (at the start when
    none did, at the end when that key is gone), so a re-save moves nothing of others'.
    """
    if not isinstance(old, Mapping) or all(k in OWNED_KEYS for k in old):
        return new
    after: dict[str | None, list[str]] = {}
    anchor: str | None = None
    for key in old:
        if key in OWNED_KEYS:
            anchor = key
        else:
            after.setdefault(anchor, []).append(key)
    out: dict[str, Any] = {k: old[k] for k in after.pop(None, [])}
    for key, value in new.items():
        out[key] = value
        for foreign in after.pop(key, []):
            out[foreign] = old[foreign]
    for foreign_keys in after.values():
        for foreign in foreign_keys:
            out[foreign] = old[foreign]
    return out


def _str(obj: Mapping[str, Any], key: str, path: str, *, required: bool = False) -> str:
    if key not in obj:
        if required:
            raise XA2AError(path, f"missing required key {key!r}")
        return ""
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise XA2AError(f"{path}.{key}", f"must be a string, got {_kind(value)}")
    return str(value)


def _pairs(obj: Mapping[str, Any], key: str, path: str) -> tuple[tuple[str, str], ...]:
    value = obj.get(key)
    if value is None:
        return ()
    where = f"{path}.{key}"
    pairs: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        for name, v in value.items():
            values = v if isinstance(v, list) else [v]
            for item in values:
                if isinstance(item, dict | list) or item is None:
                    raise XA2AError(f"{where}.{name}", f"must be a string, got {_kind(item)}")
                pairs.append((str(name), _scalar_text(item)))
        return tuple(pairs)
    if isinstance(value, list):  # [{name: ..., value: ...}] is accepted too
        for i, item in enumerate(value):
            if not isinstance(item, Mapping) or "name" not in item:
                raise XA2AError(f"{where}[{i}]", "must be an object with 'name' and 'value'")
            pairs.append((str(item["name"]), _scalar_text(item.get("value", ""))))
        return tuple(pairs)
    raise XA2AError(where, f"must be an object of name: value, got {_kind(value)}")


def from_x_a2a(
    x: Any,
    *,
    path: str,
    name: str = "",
    operation_id: str = "",
    tags: tuple[str, ...] = (),
) -> SavedRequest:
    """Parse and validate one ``x-a2a`` object.

    Args:
        x: the value under ``x-a2a``.
        path: its JSON path, used in error messages (``paths./a2a/op.post.x-a2a``).
        name, operation_id, tags: from the enclosing operation.

    Raises:
        XA2AError: the first problem, naming the place, e.g.
            ``paths./a2a/x.post.x-a2a.binding: 'SOAP' is not one of JSONRPC, HTTP+JSON, GRPC``.
    """
    if not isinstance(x, Mapping):
        raise XA2AError(path, f"must be an object, got {_kind(x)}")
    version_text = _str(x, "version", path, required=True)
    if version_text == "0.3.0":
        version_text = "0.3"
    try:
        version = ProtocolVersion(version_text)
    except ValueError:
        allowed = ", ".join(v.value for v in ProtocolVersion)
        raise XA2AError(f"{path}.version", f"{version_text!r} is not one of {allowed}") from None
    binding_text = _str(x, "binding", path, required=True)
    try:
        binding = Binding(binding_text)
    except ValueError:
        allowed = ", ".join(b.value for b in Binding)
        raise XA2AError(f"{path}.binding", f"{binding_text!r} is not one of {allowed}") from None
    endpoint = _str(x, "endpoint", path, required=True)
    method = _str(x, "method", path, required=True)
    if not method:
        raise XA2AError(f"{path}.method", "must not be empty")
    if "example" in x:
        example = x["example"]
        if traits(binding).payload.envelope and not isinstance(example, Mapping):
            raise XA2AError(
                f"{path}.example",
                f"must be a JSON-RPC request object, got {_kind(example)}"
                + (
                    " (a list would be sent as a JSON-RPC batch)"
                    if isinstance(example, list)
                    else ""
                ),
            )
        body = json.dumps(example, indent=2, ensure_ascii=False)
    elif "exampleText" in x:
        body = _str(x, "exampleText", path)
    else:
        raise XA2AError(path, "missing required key 'example' (the request body)")
    auth = SavedAuth()
    if x.get("auth") is not None:
        try:
            auth = auth_from_x(x["auth"], f"{path}.auth")
        except AuthShapeError as exc:
            raise XA2AError(exc.path, exc.message) from None
    extensions_raw = x.get("extensions") or []
    if not isinstance(extensions_raw, list) or not all(isinstance(e, str) for e in extensions_raw):
        raise XA2AError(f"{path}.extensions", "must be a list of extension URIs")
    timeout = x.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_TIMEOUT_S  # also rejects NaN and infinity
    ):
        raise XA2AError(
            f"{path}.timeout",
            f"must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, got {timeout!r}",
        )
    card = x.get("agentCard")
    if card is not None and not isinstance(card, Mapping):
        raise XA2AError(f"{path}.agentCard", f"must be an object, got {_kind(card)}")
    for key in ("requestSchema", "responseSchema"):
        if key in x and not isinstance(x[key], Mapping | bool):
            raise XA2AError(f"{path}.{key}", f"must be a JSON Schema object, got {_kind(x[key])}")
    return SavedRequest(
        name=name or operation_id or method,
        version=version,
        binding=binding,
        endpoint=endpoint,
        method=method,
        body=body,
        operation_id=operation_id,
        tags=tags,
        agent_card_url=_str(x, "agentCardUrl", path),
        agent_card=dict(card) if card is not None else None,
        tenant=_str(x, "tenant", path),
        command=_str(x, "command", path),
        headers=_pairs(x, "headers", path),
        query=_pairs(x, "query", path),
        auth=auth,
        extensions=tuple(extensions_raw),
        timeout=timeout,  # as written: 12 stays 12, never becomes 12.0 on the next save
        network=network_from_x_a2a(x, path, XA2AError),
        assertions=assertions_from_x_a2a(x, path, XA2AError),
        captures=captures_from_x_a2a(x, path, XA2AError),
    )


def strip_private_metadata(card: Mapping[str, Any]) -> dict[str, Any]:
    """A card snapshot without ``signatures`` and without any ``metadata`` objects."""

    def clean(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {k: clean(v) for k, v in node.items() if k not in ("metadata", "signatures")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    result: dict[str, Any] = clean(card)
    return result
