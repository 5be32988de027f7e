"""docs/CHECKS.md lists every check, in run order, with its area and the a2a-tck
requirement ids the code gives it."""

from __future__ import annotations

import re
from pathlib import Path

from app.check.registry import CHECKS, check_ids, tck_ids
from app.check.spec import tck_binding

DOC = Path(__file__).resolve().parents[2] / "docs" / "CHECKS.md"
REQUIREMENT = re.compile(r"`([A-Z_]+(?:-[A-Z]+)+-\d{3}[a-z]?)`")
"""An a2a-tck requirement id as the table writes it (`CORE-MULTI-001a`)."""


def _rows() -> dict[str, list[str]]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`") and "." in cells[0]:
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_check_is_documented_with_its_tck_requirement_ids() -> None:
    rows = _rows()
    assert list(rows) == list(check_ids())
    for check_id in check_ids():
        cell = rows[check_id][5]
        assert tuple(REQUIREMENT.findall(cell)) == tck_ids(check_id), check_id
        if not tck_ids(check_id):
            assert cell == "—", check_id
    for spec in CHECKS:
        assert rows[spec.check_id][1] == spec.area.value, spec.check_id


def test_requirement_ids_are_1_0_ids_not_the_old_category_names() -> None:
    # The 1.0 branch names requirements AREA-TOPIC-NNN; its binding ones start with a
    # binding's name, so a result on another binding does not carry them.
    for spec in CHECKS:
        for requirement in spec.tck:
            assert REQUIREMENT.fullmatch(f"`{requirement}`"), requirement
            prefix = requirement.split("-", 1)[0]
            assert prefix in {"CORE", "DM", "STREAM", "PUSH", "CARD", "AUTH", "VER", "BIND"} or (
                tck_binding(requirement) is not None
            ), requirement
