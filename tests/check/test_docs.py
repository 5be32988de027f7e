"""docs/CHECKS.md lists every check with the a2a-tck category the code gives it."""

from __future__ import annotations

from pathlib import Path

from app.check.registry import CHECKS, check_ids

DOC = Path(__file__).resolve().parents[2] / "docs" / "CHECKS.md"


def _rows() -> dict[str, list[str]]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`") and "." in cells[0]:
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_check_is_documented_with_its_tck_category() -> None:
    rows = _rows()
    assert list(rows) == list(check_ids())
    for spec in CHECKS:
        assert rows[spec.check_id][5] == spec.tck, spec.check_id
        assert rows[spec.check_id][1] == spec.area.value, spec.check_id
