"""``{{variable}}`` references in saved requests and where their values come from.

A saved file never holds a secret; it holds ``{{token}}``. When a request is sent, each
reference resolves, first match wins, from:

1. explicit values (``run --var NAME=VALUE``),
2. the selected named environment (``run --env NAME``, the window's environment combo; see
   :mod:`app.spec.environments`): its plain values, then its secret values from the OS
   keyring or the fallback file, stored under :func:`environment_secret_key`,
3. the app's own values (the GUI: the bundled demo agent's ``baseUrl`` and ``grpcTarget``),
4. the environment variable ``A2A_WB_<NAME>`` (upper case, non-alphanumerics as ``_``),
5. the OS keyring (service ``a2a-workbench``, user name = the variable name),
6. the fallback secrets file (used only when no keyring backend exists).

A name with a dot is *scoped*: ``token.agent.example.com-8443`` is the ``token`` of the
agent at ``agent.example.com:8443`` (see :func:`app.spec.xa2a.secret_scope`). Scoped
variables are credentials tied to one host: :func:`app.spec.requests.to_a2a_request`
resolves them only for a request that goes to that host (:class:`ScopeError` otherwise).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import UsageError, WorkbenchError
from app.paths import KEYRING_SERVICE

VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")


class MissingVariable(UsageError):
    """A ``{{variable}}`` no source resolves; ``name`` says which."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class ScopeError(UsageError):
    """A scoped ``{{name.scope}}`` variable used for another host or outside the places a
    credential may go; nothing was sent.

    Raised by ``Resolver`` while ``app.spec.requests.to_a2a_request`` resolves a request.
    Caught as a :class:`~app.errors.UsageError` by ``app.commands.run`` (a ``usage`` error
    record for that operation) and by the request tab (message bar).
    """


def split_scope(name: str) -> tuple[str, str]:
    """``token.127.0.0.1-8000`` → ``("token", "127.0.0.1-8000")``; ``baseUrl`` →
    ``("baseUrl", "")``. Every name with a dot is scoped."""
    base, _, scope = name.partition(".")
    return base, scope


_ENV_SAFE_SCOPED = re.compile(r"[A-Za-z0-9]+\.(?P<host>[a-z0-9.]+?)(?:-[0-9]+)?")
_IPV4 = re.compile(
    r"(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])"
)


def env_allowed(name: str) -> bool:
    """Whether ``name`` may come from the environment.

    :func:`env_name` folds ``.``, ``-`` and ``_`` into ``_``, so different scoped names can
    share one environment variable: ``token.agent.example.com-8443`` and
    ``token.agent-example.com-8443`` (another host!) both read
    ``A2A_WB_TOKEN_AGENT_EXAMPLE_COM_8443``. A scoped name is read from the environment
    only when no other scope maps there: a letters-and-digits base, a host of lower-case
    letters, digits and dots (no ``-``) whose last label is not a number unless the host is
    an IPv4 address, and an optional ``-PORT``. Other scoped names need ``--var`` or the
    keyring. Unscoped names are always allowed.
    """
    if not split_scope(name)[1]:
        return True
    match = _ENV_SAFE_SCOPED.fullmatch(name)
    if match is None:
        return False
    host = match.group("host")
    if ".." in host or host.startswith(".") or host.endswith("."):
        return False
    return not host.rsplit(".", 1)[-1].isdigit() or bool(_IPV4.fullmatch(host))


def env_name(name: str) -> str:
    """``baseUrl`` → ``A2A_WB_BASEURL``; ``api-key`` → ``A2A_WB_API_KEY``."""
    return "A2A_WB_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def environment_secret_key(environment: str, name: str) -> str:
    """The keyring user name (and fallback-file key) of the secret ``name`` of the named
    environment ``environment``: ``env/staging/token``. Variable names hold no ``/``, so
    two different pairs never share a key."""
    return f"env/{environment}/{name}"


def references(text: str) -> list[str]:
    """Variable names referenced in ``text``, in order, without repeats."""
    return list(dict.fromkeys(VARIABLE.findall(text)))


class NoKeyring(WorkbenchError):
    """No usable OS keyring backend; the message says what to do instead.

    Raised by ``keyring_get`` / ``keyring_set`` when ``keyring`` has no backend or refuses.
    Caught in this module: ``SecretStore.put`` falls back to its file and ``Resolver``
    records the message in ``keyring_problem`` for the caller to show.
    """


def keyring_message(name: str) -> str:
    """The fallback advice shown when the keyring cannot hold or give ``name``."""
    return (
        f"No OS keyring is available to hold {{{{{name}}}}}. Pass --var {name}=VALUE, set "
        f"{env_name(name)} in the environment, or install a keyring backend "
        "(e.g. gnome-keyring, KWallet, or `pip install keyrings.alt`)."
    )


def _keyring() -> Any:
    try:
        import keyring
        from keyring.backends import fail
    except ImportError as exc:  # pragma: no cover - keyring is a dependency
        raise NoKeyring("the keyring package is not installed") from exc
    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring):
        raise NoKeyring(f"no keyring backend ({type(backend).__module__})")
    return keyring


def keyring_get(name: str) -> str | None:
    """The keyring value of ``name``, or None. Raises NoKeyring when there is no backend."""
    kr = _keyring()
    try:
        value = kr.get_password(KEYRING_SERVICE, name)
    except Exception as exc:  # keyring backends raise their own errors (locked, DBus, …)
        raise NoKeyring(str(exc)) from exc
    return value if isinstance(value, str) else None


def keyring_set(name: str, value: str) -> None:
    """Store ``value`` in the keyring. Raises NoKeyring when there is no usable backend."""
    kr = _keyring()
    try:
        kr.set_password(KEYRING_SERVICE, name, value)
    except Exception as exc:
        raise NoKeyring(str(exc)) from exc


@dataclass
class SecretStore:
    """Stores secrets: the OS keyring, else a private JSON file (mode 0600) in the settings
    directory. ``last_message`` says where the last :meth:`put` went."""

    fallback_path: Path | None = None
    last_message: str = ""
    damaged: str = ""
    """Set when a damaged fallback file was set aside (where it went)."""

    def put(self, name: str, value: str, label: str = "") -> str:
        """Store ``value`` under ``name``; returns a one-line note for the user, which calls
        it ``label`` (default ``{{name}}``)."""
        shown = label or f"{{{{{name}}}}}"
        try:
            keyring_set(name, value)
            self.last_message = f"{shown} stored in the OS keyring"
        except NoKeyring:
            if self.fallback_path is None:
                self.last_message = keyring_message(name) + " The value was not stored."
                return self.last_message
            data = self._read()
            data[name] = value
            from app.fileio import atomic_write

            self.fallback_path.parent.mkdir(parents=True, exist_ok=True)
            # Created 0600 before the first byte is written: never readable by others.
            atomic_write(self.fallback_path, json.dumps(data, indent=2) + "\n", mode=0o600)
            self.last_message = (
                f"No OS keyring available: {shown} stored in {self.fallback_path} "
                "(readable only by you)" + (f" {self.damaged}" if self.damaged else "")
            )
        return self.last_message

    def get(self, name: str) -> str | None:
        """The stored value of ``name`` from the fallback file, if any."""
        return self._read().get(name)

    def _read(self) -> dict[str, str]:
        if self.fallback_path is None or not self.fallback_path.exists():
            return {}
        try:
            data = json.loads(self.fallback_path.read_text(encoding="utf-8"))
        except OSError:
            return {}
        except ValueError:  # not UTF-8 or not JSON
            data = None
        if not isinstance(data, dict):
            # Damaged: set it aside so the next put() cannot overwrite the secrets in it.
            from app.fileio import set_aside

            try:
                aside = set_aside(self.fallback_path)
            except OSError:
                return {}
            self.damaged = f"The secrets file was damaged; it was kept as {aside}."
            return {}
        return {str(k): str(v) for k, v in data.items()}


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a variable's value came from (the endpoint field's hover text)."""

    value: str | None
    source: str
    """``--var``, ``environment staging``, ``the demo agent``, ``A2A_WB_TOKEN``, ``the OS
    keyring``, ``the secrets file``, or ``""`` when nothing holds it."""
    secret: bool = False


@dataclass
class Resolver:
    """Resolves ``{{variable}}`` references (see the module docstring for the order).

    Attributes:
        values: explicit values (``--var``).
        environment: the selected environment's name ("" for none).
        environment_values: its values known in memory (plain ones, and secret ones once
            read or typed).
        environment_secrets: its secret variable names; those missing from
            ``environment_values`` are read from the keyring / ``store`` on first use.
        defaults: the app's own values (the demo agent's addresses).
        gui_hint: for the GUI, how to set a missing variable (replaces the command-line
            advice in :meth:`missing_message`).
    """

    values: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    use_keyring: bool = True
    store: SecretStore | None = None
    keyring_problem: str = ""
    environment: str = ""
    environment_values: Mapping[str, str] = field(default_factory=dict)
    environment_secrets: frozenset[str] = frozenset()
    defaults: Mapping[str, str] = field(default_factory=dict)
    gui_hint: str = ""
    values_source: str = "--var"
    """Where :attr:`values` come from, as :meth:`origin` says it (the GUI: captures)."""
    defined_in: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Variable → the file's environments that set it: ``run``'s advice names them."""
    _cache: dict[str, str | None] = field(default_factory=dict)

    def lookup(self, name: str) -> str | None:
        """The value of ``name``, or None when no source has it."""
        return self.origin(name).value

    def is_secret(self, name: str) -> bool:
        """Whether ``name`` is a secret of the selected environment."""
        return name in self.environment_secrets

    def origin(self, name: str) -> Origin:
        """The value of ``name`` and where it came from."""
        if name in self.values:
            return Origin(self.values[name], self.values_source)
        where = f"environment {self.environment}"
        secret = name in self.environment_secrets
        if name in self.environment_values:
            return Origin(self.environment_values[name], where, secret)
        if secret:
            value = self._stored(environment_secret_key(self.environment, name))
            if value is not None:
                return Origin(value, where, True)
        if name in self.defaults:
            return Origin(self.defaults[name], "the demo agent")
        env = env_name(name)
        if env in self.environ and env_allowed(name):
            return Origin(self.environ[env], env)
        value = self._stored(name)
        return Origin(value, "the OS keyring or the secrets file" if value is not None else "")

    def _stored(self, key: str) -> str | None:
        if key in self._cache:
            return self._cache[key]
        value: str | None = None
        if self.use_keyring:
            try:
                value = keyring_get(key)
            except NoKeyring as exc:
                self.keyring_problem = str(exc)
        if value is None and self.store is not None:
            value = self.store.get(key)
        self._cache[key] = value
        return value

    def substitute(self, text: str, where: str = "", *, credential: bool = False) -> str:
        """``text`` with every reference replaced; ``credential``: ``text`` is where a
        credential goes (auth, a credential-named header), which the advice says.

        Raises:
            MissingVariable: a reference no source can resolve; the message names the
                variable, where it was used and how to provide it.
        """
        if "{{" not in text:
            return text

        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            value = self.lookup(name)
            if value is None:
                message = self.missing_message(name, where, credential=credential)
                raise MissingVariable(message, name)
            return value

        return VARIABLE.sub(repl, text)

    def missing_message(self, name: str, where: str = "", *, credential: bool = False) -> str:
        """Why ``name`` could not be resolved, and how to fix it: for a plain value (a
        URL, a tenant) the command line's and the file's ways; for a credential the
        keyring's too."""
        place = f" (used in {where})" if where else ""
        if self.gui_hint:
            return f"Variable {{{{{name}}}}}{place} has no value: {self.gui_hint}"
        if not (credential or split_scope(name)[1] or name in self.environment_secrets):
            return f"Variable {{{{{name}}}}}{place} has no value: {self._plain_advice(name)}"
        tail = (
            f"; {keyring_message(name)}"
            if self.keyring_problem
            else f", --var {name}=VALUE, or the OS keyring (service {KEYRING_SERVICE!r})"
        )
        if not env_allowed(name):
            return (
                f"Variable {{{{{name}}}}}{place} has no value: pass --var {name}=VALUE or "
                f"store it in the OS keyring (service {KEYRING_SERVICE!r}); {env_name(name)} "
                "is not read for it, since another host's secret could share that name"
            )
        return f"Variable {{{{{name}}}}}{place} has no value: set {env_name(name)}{tail}"

    def _plain_advice(self, name: str) -> str:
        """How to give a value that is no secret (no keyring talk: it needs none)."""
        found = [e for e in self.defined_in.get(name, ()) if e != self.environment]
        ways = f"--var {name}=VALUE, or set {env_name(name)}"
        lacks = f"environment {self.environment} does not set it; " if self.environment else ""
        if found:
            names = " or ".join(f"--env {e}" for e in found)
            return f"{lacks}pass {names} (the file's environment that sets it), {ways}"
        return (
            f"{lacks}pass {ways}, or give it a value in an environment of the file "
            "(x-a2a-environments) and pass --env NAME"
        )

    def missing(self, texts: Iterable[str]) -> list[str]:
        """Referenced names in ``texts`` that resolve to nothing."""
        names = dict.fromkeys(n for t in texts for n in references(t))
        return [n for n in names if self.lookup(n) is None]


def parse_var(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` → ``(NAME, VALUE)``.

    Raises:
        UsageError: no ``=`` or an empty name.
    """
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        # Never echo the text: it is usually a credential.
        raise UsageError("--var must look like NAME=VALUE (value not shown)")
    return name.strip(), value
