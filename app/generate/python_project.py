"""The Python project of a generated server: ``resources/server_templates/python/``
rendered with :class:`string.Template` (``${name}`` placeholders; ``$$`` is a literal ``$``).

Every value put into a template is escaped for where it lands: JSON string literals for
Python and TOML (a JSON string with ASCII escapes is valid in both), Markdown-neutral text
in the README. The card itself is written as ``agent_server/card.json``.
"""

from __future__ import annotations

import json
import string
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from app.generate.output_dir import prepare_dir, write_files
from app.generate.plan import JSONRPC_PATH, REST_PATH
from app.generate.project_model import SERVED_BINDINGS, Language, ServerPlan
from app.protocol.types import Binding

__all__ = [
    "DEPENDENCIES",
    "PACKAGE",
    "TEST_DEPENDENCIES",
    "render",
    "write_project",
]

PACKAGE = "agent_server"
DEPENDENCIES = (
    "a2a-sdk[http-server,grpc,signing]==1.3.0",
    "uvicorn==0.54.0",
    "httpx==0.28.1",
    "starlette==1.10.0",
    "sse-starlette==3.7.0",
    "grpcio==1.85.3",
    "grpcio-reflection==1.85.1",
    "grpcio-tools==1.85.1",
    "protobuf==7.36.2",
    "PyJWT==2.15.1",
    "cryptography==50.0.2",
)
"""Pinned to the versions the generated server is tested with (tests/generate)."""
TEST_DEPENDENCIES = ("pytest==9.2.0",)
_RENAMES = {"gitignore": ".gitignore", "env.example": ".env.example"}
_BINDING_LINES = {
    Binding.JSONRPC: "- JSON-RPC 2.0 at `{http}{jsonrpc}`",
    Binding.HTTP_JSON: "- HTTP+JSON (REST) under `{http}{rest}`",
    Binding.GRPC: "- gRPC (`lf.a2a.v1.A2AService`) on `{grpc}`",
}


def _templates() -> Traversable:
    return resources.files("app.resources").joinpath("server_templates", "python")


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    out: list[tuple[str, Traversable]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        # Tool caches (__pycache__, .ruff_cache) are no templates; dotfiles are renamed ones.
        if child.name == "__pycache__" or child.name.startswith("."):
            continue
        name = f"{prefix}{child.name}"
        if child.is_dir():
            out += _walk(child, name + "/")
        else:
            out.append((name, child))
    return out


def _target(name: str) -> str:
    head, _, tail = name.rpartition("/")
    tail = tail.removesuffix(".tmpl")
    tail = _RENAMES.get(tail, tail)
    return f"{head}/{tail}" if head else tail


def _plain(text: object) -> str:
    """One line of README text: no newlines, no Markdown/HTML markup from the card."""
    flat = " ".join(str(text).split())
    return "".join(c for c in flat if c not in "<>`*_[]|#\\") or "agent"


_HELLO = '{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}'


# Where the generated server takes "hello" and the body that says it, per binding curl can
# reach, in order of preference.
_HELLO_SENDS = {
    Binding.JSONRPC: (
        JSONRPC_PATH,
        f'{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{{"message":{_HELLO}}}}}',
    ),
    Binding.HTTP_JSON: (REST_PATH + "/message:send", f'{{"message":{_HELLO}}}'),
}


def _try_send(http: str, bindings: frozenset[Binding]) -> str:
    """A curl line that sends "hello" over JSON-RPC, else HTTP+JSON ("" for gRPC only)."""
    chosen = next((b for b in _HELLO_SENDS if b in bindings), None)
    if chosen is None:
        return ""
    path, body = _HELLO_SENDS[chosen]
    url = http + path
    return (
        f'curl -s {url} -H "Authorization: Bearer $A2A_TOKEN" \\\n'
        "  -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\\n"
        f"  -d '{body}'\n"
    )


def _values(plan: ServerPlan) -> dict[str, str]:
    card = plan.card
    url_host = f"[{plan.host}]" if ":" in plan.host else plan.host
    http = f"http://{url_host}:{plan.port}"
    lines = [
        _BINDING_LINES[b].format(
            http=http, jsonrpc=JSONRPC_PATH, rest=REST_PATH, grpc=f"{url_host}:{plan.grpc_port}"
        )
        for b in SERVED_BINDINGS
        if b in plan.bindings
    ]
    compat = (
        "Protocol 0.3 clients are served too, through the SDK's 0.3 compatibility layer.\n\n"
        if plan.compat_v03
        else "\n"
    )
    deps = ",\n".join(f"    {json.dumps(d)}" for d in DEPENDENCIES)
    return {
        "name": _plain(card.get("name", "agent")),
        "version": json.dumps(str(card.get("version") or "1.0.0")),
        "description": json.dumps(_plain(card.get("description", ""))),
        "dependencies": deps,
        "test_dependencies": ", ".join(json.dumps(d) for d in TEST_DEPENDENCIES),
        "interfaces": "\n".join(lines),
        "compat_line": compat,
        "try_send": _try_send(http, plan.bindings),
        "source_line": (
            "The card was generated from an existing Agent Card and rewritten for this server: "
            "its interfaces point here, its only security scheme is the bearer token this "
            "server checks, and any signatures of the original are gone (a 0.3 card is "
            "reshaped into the 1.0 card this server publishes)."
        ),
        "host": plan.host,
        "url_host": url_host,
        "port": str(plan.port),
        "grpc_port": str(plan.grpc_port),
        "bindings": repr(tuple(b.value for b in sorted(plan.bindings))),
        "compat_v03": repr(plan.compat_v03),
    }


def render(plan: ServerPlan) -> dict[str, str]:
    """The project's files, relative POSIX path → text.

    Raises:
        ValueError: ``plan`` is not for Python.
    """
    if plan.language is not Language.PYTHON:
        raise ValueError(f"not a Python plan: {plan.language}")
    values = _values(plan)
    # Python files get the host as a string literal; the others the bare host.
    python_values = {**values, "host": json.dumps(plan.host)}
    files: dict[str, str] = {}
    for name, node in _walk(_templates()):
        target = _target(name)
        chosen = python_values if target.endswith(".py") else values
        files[target] = string.Template(node.read_text(encoding="utf-8")).substitute(chosen)
    files[f"{PACKAGE}/card.json"] = json.dumps(plan.card, indent=2, ensure_ascii=False) + "\n"
    return files


def write_project(plan: ServerPlan, out: Path, *, force: bool = False) -> list[Path]:
    """Writes the project into ``out`` (created when missing).

    Args:
        plan: a Python plan.
        out: the project directory.
        force: write into a non-empty ``out`` (files of the same names are replaced).

    Returns:
        The files written, in order.

    Raises:
        OutputDirError: ``out`` is a file, or a non-empty directory without ``force``.
        ValueError: ``plan`` is not for Python.
    """
    files = render(plan)
    prepare_dir(out, force=force)
    return write_files(out, files)
