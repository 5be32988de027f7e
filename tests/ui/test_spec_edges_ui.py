"""Spec files at the edges in the window (issue 29, kind 5): *Open spec* refuses a YAML tag
that builds a program object naming it, and a file over the size limit with both figures,
keeping the open document; a path written twice is listed with both its lines in the spec
dock's problems, and nothing is saved over that file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction

from app.shipped import example_spec
from app.spec import spec_text
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui

EXAMPLE = example_spec()


def test_open_spec_refuses_a_program_object_tag_and_an_oversized_file(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    window.spec.open_spec(EXAMPLE)
    tagged = tmp_path / "tagged.yaml"
    text = EXAMPLE.read_text()
    tagged.write_text(
        text.replace("info:\n", "info:\n  x: !!python/object/apply:os.system [id]\n", 1)
    )
    assert window.spec.open_spec(tagged) is None
    message = window.statusBar().currentMessage()
    assert "the YAML tag !!python/object/apply:os.system asks a loader" in message
    assert window.spec.dock.operation_count() == 12  # the open spec is untouched

    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as fh:
        fh.truncate(100 * 2**20)
    assert window.spec.open_spec(huge) is None
    limit = spec_text.MAX_SPEC_BYTES // 2**20
    assert f"the file is 100.0 MiB; specs larger than {limit} MiB are not opened" in (
        window.statusBar().currentMessage()
    )


def test_a_path_written_twice_is_listed_with_both_lines_and_never_saved_over(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    paths = [i for i, line in enumerate(lines) if line.startswith("  /a2a/")]
    first, second = paths[0], paths[1]
    lines[second] = lines[first]  # the second path written as the first one
    path = tmp_path / "twice.a2a.yaml"
    path.write_text("".join(lines))
    before = path.read_bytes()
    doc = window.spec.open_spec(path)
    assert doc is not None
    label = window.spec.dock.problems_label.text()
    assert f"(line {second + 1}): key written twice in one object (also at line {first + 1})" in (
        label
    )
    window.spec.open_operation(doc.operations()[0])
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None
    save.trigger()
    wait_until(lambda: "Not saved over" in window.statusBar().currentMessage())
    assert path.read_bytes() == before
