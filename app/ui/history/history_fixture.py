"""History → *Export as fixture…* (``exportFixtureAction``): the dialog, then the fixture
built and written off the GUI thread (:mod:`app.replay.export`, :mod:`app.replay.story`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

from app.history.store import HistoryStore
from app.replay.export import ExportOptions, write_fixture
from app.replay.fixture import Fixture
from app.replay.story import story_ids
from app.ui.history.fixture_dialog import ExportFixtureDialog
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.shell.messages import MessageBridge


def _read_card(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    card = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(card, dict):
        raise ValueError(f"{path} is not an Agent Card (a JSON object)")
    return card


def _build(store: HistoryStore, ids: list[int], whole_task: bool, card: Path | None,
           out: Path, options: ExportOptions) -> Fixture:  # fmt: skip
    chosen = story_ids(store, ids) if whole_task else sorted(ids)
    options = ExportOptions(options.fmt, options.redact, options.stable, _read_card(card))
    exchanges = ((e, store.events(e.id)) for i in chosen if (e := store.entry(i)))
    return write_fixture(out, exchanges, options)


def ask_and_export(
    parent: QWidget, store: HistoryStore, ids: list[int], messages: MessageBridge, work: OwnedTask
) -> ExportFixtureDialog:
    """Open the dialog (window-modal, not blocking); on Save, write the fixture in a thread."""
    dialog = ExportFixtureDialog(len(ids), Path.home(), parent)

    def save() -> None:
        out = dialog.out_path
        options = ExportOptions(dialog.fmt, dialog.redact_values, dialog.stable_ids.isChecked())
        whole, card = dialog.whole_task.isChecked(), dialog.card_path

        async def run() -> None:
            try:
                fixture = await asyncio.to_thread(_build, store, ids, whole, card, out, options)
            except (OSError, ValueError) as exc:
                messages.show(f"Fixture export failed: {exc}", 10000)
                return
            skipped = f" ({len(fixture.notes)} without an answer left out)" if fixture.notes else ""
            messages.show(
                f"Exported {len(fixture.exchanges)} exchanges as a fixture to {out}{skipped}", 8000
            )

        work.start(run())

    dialog.accepted.connect(save)
    dialog.open()
    return dialog
