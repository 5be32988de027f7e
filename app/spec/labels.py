"""A saved request's name and tags follow its method, version and binding.

Names such as ``Sum numbers (1.0 JSON-RPC)`` and tags such as ``A2A 1.0`` or
``SendMessage`` (the default tag) describe the request. When the request's binding,
version or method changes, the parts of its name and tags that named the old value are
rewritten to the new one, so a saved HTTP+JSON request never keeps a stale
``(1.0 JSON-RPC)``. Words the user wrote stay as they are.
"""

from __future__ import annotations

import re

from app.protocol.bindings import traits
from app.protocol.types import Binding, ProtocolVersion
from app.spec.xa2a import SavedRequest


def _label(version: ProtocolVersion, binding: Binding) -> str:
    return f"({version.value} {traits(binding).label})"


def _replace_word(text: str, old: str, new: str) -> str:
    # Whole words only: `SendMessage` in `SendMessageStream` stays.
    return re.sub(rf"(?<![\w/]){re.escape(old)}(?![\w/])", new.replace("\\", r"\\"), text)


def follow(
    base: SavedRequest, version: ProtocolVersion, binding: Binding, method: str
) -> tuple[str, tuple[str, ...]]:
    """``base``'s name and tags, rewritten for a request that is now ``method`` over
    ``binding`` in ``version`` (unchanged when none of the three changed)."""
    name, tags = base.name, base.tags
    if version is not base.version or binding is not base.binding:
        name = name.replace(_label(base.version, base.binding), _label(version, binding))
    if version is not base.version:
        old_tag, new_tag = f"A2A {base.version.value}", f"A2A {version.value}"
        tags = tuple(new_tag if t == old_tag else t for t in tags)
    if method != base.method and base.method:
        name = _replace_word(name, base.method, method)
        tags = tuple(method if t == base.method else t for t in tags)
    return name, tags
