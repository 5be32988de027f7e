"""Writes the Node.js server project of a :class:`~app.generate.project_model.ServerPlan`.

The project is the files under ``resources/server_templates/node/`` with a few
placeholders filled in (``__NAME__`` tokens replaced as plain text: the templates are
JavaScript, whose ``${...}`` would clash with :class:`string.Template`), plus the card the
server publishes (``agent-card.json``) and a ``package.json`` with the agent's name.
What the generated server does is described in its own README (the ``README.md``
template).
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from app.generate.output_dir import prepare_dir, write_files
from app.generate.project_model import ServerPlan
from app.protocol.types import Binding

__all__ = ["TEMPLATE_FILES", "rendered_files", "write_project"]

TEMPLATE_FILES: dict[str, str] = {
    "README.md": "README.md",
    "env.example": ".env.example",
    "gitignore": ".gitignore",
    "src/main.mjs": "src/main.mjs",
    "src/config.mjs": "src/config.mjs",
    "src/card.mjs": "src/card.mjs",
    "src/executor.mjs": "src/executor.mjs",
    "src/grpc.mjs": "src/grpc.mjs",
    "src/handler.mjs": "src/handler.mjs",
    "src/http.mjs": "src/http.mjs",
    "src/server.mjs": "src/server.mjs",
    "test/helpers.mjs": "test/helpers.mjs",
    "test/server.test.mjs": "test/server.test.mjs",
}
"""Template file (under the node templates folder) -> its path in the project."""

_TEMPLATES = "server_templates/node"
_BINDING_NAMES = {
    Binding.JSONRPC: "JSON-RPC",
    Binding.HTTP_JSON: "HTTP+JSON (REST)",
    Binding.GRPC: "gRPC",
}


def _template(name: str) -> str:
    return files("app.resources").joinpath(_TEMPLATES, *name.split("/")).read_text("utf-8")


def _package_name(card_name: object) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", str(card_name or "").lower()).strip("-")
    return (slug[:200] or "a2a-agent").lstrip("._") or "a2a-agent"


def _package_json(plan: ServerPlan) -> str:
    package: dict[str, Any] = json.loads(_template("package.json"))
    package["name"] = _package_name(plan.card.get("name"))
    version = str(plan.card.get("version") or "")
    package["version"] = version if re.fullmatch(r"\d+\.\d+\.\d+", version) else "0.1.0"
    package["description"] = str(plan.card.get("description") or "An A2A agent server")
    return json.dumps(package, indent=2, ensure_ascii=False) + "\n"


def _placeholders(plan: ServerPlan) -> dict[str, str]:
    names = [_BINDING_NAMES[b] for b in _BINDING_NAMES if b in plan.bindings]
    bindings = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    one_line = " ".join(str(plan.card.get("description") or "").split())
    return {
        # In JavaScript as a string literal (JSON's is one); elsewhere as plain text.
        "'__DEFAULT_HOST__'": json.dumps(plan.host),
        "__DEFAULT_HOST__": "".join(plan.host.split()),
        "__DEFAULT_PORT__": str(plan.port),
        "__DEFAULT_GRPC_PORT__": str(plan.grpc_port),
        "__AGENT_NAME__": " ".join(str(plan.card.get("name") or "A2A agent").split()),
        "__AGENT_DESCRIPTION__": one_line,
        "__BINDINGS__": bindings,
    }


def _render(text: str, values: dict[str, str]) -> str:
    for token, value in values.items():
        text = text.replace(token, value)
    return text


def rendered_files(plan: ServerPlan) -> dict[str, str]:
    """Every file of the project, by its path relative to the project folder."""
    if not plan.bindings:
        raise ValueError("the plan serves no binding")
    values = _placeholders(plan)
    rendered = {target: _render(_template(name), values) for name, target in TEMPLATE_FILES.items()}
    rendered["package.json"] = _package_json(plan)
    rendered["agent-card.json"] = json.dumps(plan.card, indent=2, ensure_ascii=False) + "\n"
    return rendered


def write_project(plan: ServerPlan, out: Path, *, force: bool = False) -> list[Path]:
    """Writes the Node.js project for ``plan`` into ``out`` (created if missing).

    Args:
        plan: what to generate; ``plan.card`` is published as is.
        out: the project folder.
        force: write into a non-empty folder, replacing the project's files there (other
            files are left alone).

    Returns:
        The files written, in a stable order.

    Raises:
        OutputDirError: ``out`` is a file, is not empty (without ``force``) or cannot be
            written.
        ValueError: the plan serves no binding.
    """
    out = Path(out)
    rendered = rendered_files(plan)
    prepare_dir(out, force=force)
    return write_files(out, dict(sorted(rendered.items())))
