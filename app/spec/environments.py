"""Named environments (``local``, ``staging``, ``demo``): sets of variable values saved with
a document and selected when sending (``run --env NAME``, the window's environment combo).

In the file they are one top-level object, ``x-a2a-environments``, environment name →
variable name → value::

    x-a2a-environments:
      demo:
        baseUrl: http://127.0.0.1:8000
        grpcTarget: 127.0.0.1:50051
      staging:
        baseUrl: https://staging.example.com
        token: <secret>

A secret variable is written as the marker :data:`SECRET_MARKER` (``<secret>``), never its
value: the marker keeps the variable's name and secret flag in the file, and the value
lives in the OS keyring (service ``a2a-workbench``) or the private fallback file, under
:func:`app.spec.variables.environment_secret_key` (``env/staging/token``). A plain value
that is exactly ``<secret>`` therefore reads back as a secret. Where the selected
environment stands among the other sources of values: :mod:`app.spec.variables`.

The environment named :data:`DEMO_ENVIRONMENT` (``demo``) is filled by the app with the
addresses of the bundled demo agent it starts (its port changes on every start), for the
session only (:func:`without_session_values` before a save).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.spec.variables import (
    NoKeyring,
    Resolver,
    SecretStore,
    environment_secret_key,
    keyring_get,
)
from app.spec.xa2a import split_endpoint

X_ENVIRONMENTS = "x-a2a-environments"
SECRET_MARKER = "<secret>"
"""What the file holds in place of a secret value (no ``{{`` in it: never resolved)."""
DEMO_ENVIRONMENT = "demo"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
"""A variable name an environment may hold (no dot: dotted names are scoped credentials
of one host, see :mod:`app.spec.variables`)."""
_ENV_NAME = re.compile(r"[^\x00-\x1f\x7f/]{1,64}")


def valid_environment_name(name: str) -> bool:
    """Environment names: 1–64 printable characters, no ``/``, not blank."""
    return bool(_ENV_NAME.fullmatch(name)) and bool(name.strip())


@dataclass
class Variable:
    """One variable of an environment. ``loaded`` is False for a secret whose value has
    not been read from the keyring / fallback file yet (``value`` is then "")."""

    name: str
    value: str = ""
    secret: bool = False
    loaded: bool = True


@dataclass
class Environment:
    """A named set of variables, in file order."""

    name: str
    variables: list[Variable] = field(default_factory=list)

    def get(self, name: str) -> Variable | None:
        """The variable ``name``, if any."""
        return next((v for v in self.variables if v.name == name), None)

    def set(self, name: str, value: str, *, secret: bool = False) -> Variable:
        """Set (or add) ``name``; returns the variable."""
        var = self.get(name)
        if var is None:
            var = Variable(name, value, secret)
            self.variables.append(var)
        else:
            var.value, var.secret, var.loaded = value, secret, True
        return var

    def known_values(self) -> dict[str, str]:
        """Values known in memory (secrets only once loaded or typed)."""
        return {v.name: v.value for v in self.variables if v.loaded}

    def secret_names(self) -> frozenset[str]:
        """Names of the secret variables."""
        return frozenset(v.name for v in self.variables if v.secret)


def find(environments: Iterable[Environment], name: str) -> Environment | None:
    """The environment called ``name``, if any."""
    return next((e for e in environments if e.name == name), None)


_KEPT = "kept in the file as written, not used"


def read(data: Mapping[str, Any]) -> tuple[list[Environment], list[str]]:
    """The environments of a document's data, and problems (each naming its place) for
    entries that are not ``{name: {variable: scalar}}``. Those entries are not used, and
    :func:`write` keeps them in the file as they are. A ``null`` value is the empty text."""
    found, problems = _read(data)
    return found, [f"{place}: {message}" for place, message in problems]


def problems_of(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(JSON path, message)`` of each environment entry :func:`read` cannot use."""
    return _read(data)[1]


def _read(data: Mapping[str, Any]) -> tuple[list[Environment], list[tuple[str, str]]]:
    raw = data.get(X_ENVIRONMENTS)
    if raw is None:
        return [], []
    if not isinstance(raw, dict):
        return [], [(X_ENVIRONMENTS, f"not an object of environments; {_KEPT}")]
    found: list[Environment] = []
    problems: list[tuple[str, str]] = []
    for env_name, variables in raw.items():
        place = f"{X_ENVIRONMENTS}.{env_name}"
        if not _usable_environment(env_name, variables):
            what = "an object of variables" if isinstance(env_name, str) else "a name"
            if isinstance(env_name, str) and not valid_environment_name(env_name):
                what = "a usable environment name"
            problems.append((place, f"not {what}; {_KEPT}"))
            continue
        env = Environment(env_name)
        for var_name, value in variables.items():
            if not _usable_variable(var_name, value):
                what = "a variable name" if not _is_name(var_name) else "a text value"
                problems.append((f"{place}.{var_name}", f"not {what} ({_kind(value)}); {_KEPT}"))
                continue
            text = _text(value)
            if text == SECRET_MARKER:
                env.variables.append(Variable(var_name, "", True, loaded=False))
            else:
                env.variables.append(Variable(var_name, text))
        found.append(env)
    return found, problems


def _is_name(name: object) -> bool:
    return isinstance(name, str) and bool(NAME.fullmatch(name))


def _usable_environment(name: object, variables: object) -> bool:
    return isinstance(name, str) and valid_environment_name(name) and isinstance(variables, dict)


def _usable_variable(name: object, value: object) -> bool:
    return _is_name(name) and not isinstance(value, dict | list)


def _text(value: Any) -> str:
    """A scalar as the variable's text: strings as they are, ``null`` empty, numbers and
    booleans as JSON writes them."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    return "a list" if isinstance(value, list) else "a scalar"


def to_file(environments: Iterable[Environment]) -> dict[str, dict[str, str]]:
    """The ``x-a2a-environments`` object: plain values, :data:`SECRET_MARKER` for secrets."""
    return {
        env.name: {v.name: SECRET_MARKER if v.secret else v.value for v in env.variables}
        for env in environments
    }


def write(data: dict[str, Any], environments: list[Environment], *, replace: bool) -> None:
    """Put ``environments`` into a document's data (never a secret value).

    ``replace``: the document is the one they were read from, so they replace its
    environments (removed ones go). What the file holds is kept as written where nothing
    changed — the file's order, a number or ``null`` whose text is unchanged, and every
    entry :func:`read` could not use (a nested value, an unusable name) — so saving an
    unchanged document changes none of its bytes. Otherwise (saving into another file)
    they are added to that file's, whose own environments of the same names win. A
    document without environments gets no ``x-a2a-environments`` key.
    """
    current = data.get(X_ENVIRONMENTS)
    written: Any = to_file(environments)
    if not replace and isinstance(current, dict):
        written = {**written, **current}
    elif replace and current is not None:
        written = _merged(current, environments)
    if written or (replace and current is not None and not isinstance(current, dict)):
        data[X_ENVIRONMENTS] = written
    elif X_ENVIRONMENTS in data and replace:
        del data[X_ENVIRONMENTS]


def _merged(current: Any, environments: list[Environment]) -> Any:
    """``environments`` written over the file's ``current`` object, which they came from."""
    if not isinstance(current, dict):
        return current  # nothing was read from it: it stays as it is
    by_name = {env.name: env for env in environments}
    out: dict[Any, Any] = {}
    for name, variables in current.items():
        if name in by_name:
            out[name] = _merged_variables(variables, by_name[name])
        elif not _usable_environment(name, variables):
            out[name] = variables  # never shown, so never removed
    for env in environments:
        if env.name not in out:
            out[env.name] = _merged_variables({}, env)
    return out


def _merged_variables(current: dict[Any, Any], env: Environment) -> dict[Any, Any]:
    given = {v.name: v for v in env.variables}
    out: dict[Any, Any] = {}
    for name, value in current.items():
        var = given.get(name) if isinstance(name, str) else None
        if not _usable_variable(name, value):
            out[name] = value
        elif var is not None:
            shown = SECRET_MARKER if var.secret else var.value
            out[name] = value if _text(value) == shown else shown
    for name, var in given.items():
        if name not in out:
            out[name] = SECRET_MARKER if var.secret else var.value
    return out


def without_session_values(
    environments: Iterable[Environment],
    name: str,
    session: Mapping[str, str],
    saved: Mapping[str, str],
) -> list[Environment]:
    """A copy of ``environments`` for writing to a file: in environment ``name``, a
    variable holding its value of this session only (``session``: the bundled demo agent's
    ports, new at every start) gets back the value the file had (``saved``), or is left
    out when the file had none, so a save does not rewrite them every session."""
    copies = snapshot(environments)
    env = find(copies, name)
    if env is None:
        return copies
    kept: list[Variable] = []
    for var in env.variables:
        if not var.secret and var.name in session and var.value == session[var.name]:
            if var.name not in saved:
                continue
            var.value = saved[var.name]
        kept.append(var)
    env.variables = kept
    return copies


def load_secrets(
    environments: Iterable[Environment], store: SecretStore | None, *, use_keyring: bool = True
) -> str:
    """Read the values of secrets not loaded yet (keyring, then the fallback file); a
    secret found nowhere stays unloaded. Returns the keyring's problem, if any."""
    problem = ""
    for env in environments:
        for var in env.variables:
            if not var.secret or var.loaded:
                continue
            key = environment_secret_key(env.name, var.name)
            value: str | None = None
            if use_keyring:
                try:
                    value = keyring_get(key)
                except NoKeyring as exc:
                    problem = str(exc)
            if value is None and store is not None:
                value = store.get(key)
            if value is not None:
                var.value, var.loaded = value, True
    return problem


def store_secrets(environments: Iterable[Environment], store: SecretStore) -> list[str]:
    """Put every secret value known in memory into the keyring (or the fallback file);
    one note per value stored."""
    notes = []
    for env in environments:
        for var in env.variables:
            if var.secret and var.loaded and var.value:
                key = environment_secret_key(env.name, var.name)
                label = f"{{{{{var.name}}}}} of environment {env.name}"
                notes.append(store.put(key, var.value, label))
    return notes


def snapshot(environments: Iterable[Environment]) -> list[Environment]:
    """A deep copy (handed to the thread that saves while the GUI keeps editing)."""
    return copy.deepcopy(list(environments))


def resolver_for(
    environments: Iterable[Environment],
    active: str,
    *,
    values: Mapping[str, str] | None = None,
    defaults: Mapping[str, str] | None = None,
    store: SecretStore | None = None,
    gui_hint: str = "",
) -> Resolver:
    """A :class:`Resolver` with ``active`` (when it names one of ``environments``) between
    the explicit ``values`` and the app's ``defaults``."""
    env = find(environments, active)
    return Resolver(
        dict(values or {}),
        store=store,
        environment=env.name if env else "",
        environment_values=env.known_values() if env else {},
        environment_secrets=env.secret_names() if env else frozenset(),
        defaults=dict(defaults or {}),
        gui_hint=gui_hint,
    )


def defining(environments: Iterable[Environment]) -> dict[str, tuple[str, ...]]:
    """Variable name → the environments that set it, in file order (a secret counts: its
    value is in the keyring)."""
    found: dict[str, tuple[str, ...]] = {}
    for env in environments:
        for var in env.variables:
            if var.value or var.secret:
                found[var.name] = (*found.get(var.name, ()), env.name)
    return found


def origin_of(endpoint: str) -> str:
    """``scheme://host:port`` of an absolute URL without user info (``http://127.0.0.1:8000``
    for ``http://127.0.0.1:8000/rest``), or the whole of a gRPC ``host:port``; else ""."""
    prefix, userinfo, hostport, rest = split_endpoint(endpoint.strip())
    if "{{" in prefix + hostport or userinfo or not hostport:
        return ""
    if not prefix:
        return hostport if not rest else ""
    return prefix + hostport if prefix.endswith("://") else ""


def variable_for_origin(
    environments: Iterable[Environment], active: str, endpoint: str
) -> str | None:
    """The name of a plain variable whose value is the origin of ``endpoint`` (with or
    without a trailing ``/``), looked for in the ``active`` environment first, then the
    others in file order; None when no value matches."""
    origin = origin_of(endpoint)
    if not origin:
        return None
    envs = list(environments)
    ordered = [e for e in envs if e.name == active] + [e for e in envs if e.name != active]
    for env in ordered:
        for var in env.variables:
            if not var.secret and var.value.rstrip("/") == origin:
                return var.name
    return None


def with_variable(url: str, name: str) -> str:
    """``url`` with its origin replaced by ``{{name}}`` (unchanged when it has none)."""
    stripped = url.strip()
    origin = origin_of(stripped)
    if not origin or not stripped.startswith(origin):
        return url
    return f"{{{{{name}}}}}{stripped[len(origin) :]}"
