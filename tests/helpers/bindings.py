"""The bindings tests iterate: the three standard ones (A2A 1.0 §5.5), which the SDK peers,
the demo agent and generated servers serve; the custom carriers are tested against iac-code
(tests/iac/)."""

from __future__ import annotations

from app.protocol.bindings import traits
from app.protocol.types import Binding

STANDARD_BINDINGS = tuple(b for b in Binding if traits(b).standard)
