"""A long stream in the timeline: bounded memory, every row reachable.

The timeline keeps the frames of a window of recent rows; older ones are read back from the
exchange's history entry, or with history off from a spill file the tab owns. Row 1 stays
readable after the window moved on, filter and find reach every row (off the GUI thread),
and the spill file goes with the tab. (The million-event soak is in bench/stream.py.)
"""

from __future__ import annotations

import json
import os
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, Qt

from app.history.item_reader import ItemReader
from app.history.recorder import Recorder
from app.history.store import HistoryStore
from app.protocol.events import StreamItem
from app.protocol.request import A2ARequest
from app.protocol.stream.stream_items import ItemInfo, ItemKind, TaskState, classify_frame
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.item_json import json_of_raw
from app.protocol.wire.jsonparse import parse_event_data
from app.ui.shell.main_window import MainWindow
from app.ui.timeline.timeline_model import COL_SUMMARY
from app.ui.timeline.timeline_panel import TimelinePanel
from app.ui.timeline.timeline_row import frame_json
from tests.ui.test_timeline import click, new_tab, panel_of

pytestmark = pytest.mark.gui


def _body(n: int) -> str:
    message = {"messageId": f"m{n}", "role": "ROLE_AGENT", "parts": [{"text": f"progress {n}"}]}
    status = {"state": "TASK_STATE_WORKING", "message": message}
    update = {"taskId": "task-1", "contextId": "c", "status": status}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": update}})


def frame(n: int) -> bytes:
    return b"data: " + _body(n).encode() + b"\r\n\r\n"


def item(n: int) -> StreamItem:
    """Stream item ``n`` as the SSE transport makes it (parsed, classified)."""
    raw = frame(n)
    value, error = parse_event_data(_body(n))
    return StreamItem(n / 1000, n, raw, value, error, "", classify_frame(value, error, "", raw))


def feed(
    panel: TimelinePanel, count: int, recorder: Recorder | None = None, batch: int = 500
) -> None:
    """``count`` items into ``panel`` in batches, as the presenter and history get them."""
    for start in range(1, count + 1, batch):
        items = [item(n) for n in range(start, min(start + batch, count + 1))]
        for one in items:
            panel.add_item(one)
        if recorder is not None:
            recorder.feed_all(items)
            assert recorder.close(10)  # stored before the window moves past it
        panel.model.flush()


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[HistoryStore, Recorder]]:
    store = HistoryStore.open(tmp_path / "history.sqlite3")
    request = A2ARequest(
        "http://127.0.0.1:1/", "SendStreamingMessage", "{}", ProtocolVersion.V1_0, Binding.JSONRPC
    )
    yield store, store.recorder(request)
    store.close()


@pytest.fixture
def backed(qtbot: Any, recorded: tuple[HistoryStore, Recorder]) -> TimelinePanel:
    """A shown panel with 6 000 rows, a window of 1 000, frames beyond it in history."""
    store, recorder = recorded
    panel = TimelinePanel()
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    panel.model.store.window = 1000
    panel.begin_connection("SendStreamingMessage")
    panel.model.back_with(ItemReader(store.path, lambda: recorder.id))
    feed(panel, 6000, recorder)
    return panel


@pytest.mark.parametrize(
    "raw",
    [
        frame(7),
        b'data:{"a":1}\n\n',
        b'data: {"a":\r\ndata: 1}\r\n\r\n',
        b"data: {oops\n\n",
        b'{"statusUpdate": {}}',
        b"data: \n\n",
        b'data:  {"x": "\xc3\xa9"}\r\n\r\n',
        b'event: error\ndata: {"e":1}\n\n',
        b'data: {"a":1}\r\r',
        b": ping\r\n\r\n",
        b"data: 123456789012345678901234567890\n\n",
        b"data: NaN\n\n",
    ],
)
def test_a_summary_parses_its_frame_as_the_stream_did(raw: bytes) -> None:
    assert repr(frame_json(raw)) == repr(json_of_raw(raw))


def test_two_hundred_thousand_events_in_bounded_python_memory(qapp: Any) -> None:
    panel = TimelinePanel()
    panel.begin_connection("SendStreamingMessage")
    info = ItemInfo(ItemKind.STATUS_UPDATE, "task-1", "c", TaskState.WORKING, summary="s")
    value = {"result": {}}
    tracemalloc.start()
    try:
        marks = []
        for start in range(1, 200_001, 1000):
            for n in range(start, start + 1000):
                # A new frame per event (as read off the socket); history off: it spills.
                panel.add_item(StreamItem(n / 1000, n, frame(n), value, "", "", info))
            panel.model.flush()
            if start in (100_001, 199_001):
                marks.append(tracemalloc.get_traced_memory()[0])
        traced = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    per_event = (marks[1] - marks[0]) / 99_000
    # ~32 bytes a row (four numbers and a spill offset); the window's frames are fixed.
    assert per_event < 48, f"{per_event:.1f} bytes per event"
    assert traced < 16_000_000, f"{traced / 1e6:.1f} MB traced"
    store = panel.model.store
    assert len(store) == 200_000 and store.spilled >= 190_000
    assert panel.model.row_at(0).summary == "working · progress 1"
    panel.model.clear()


def test_a_fast_batch_leaves_no_more_than_the_window(qapp: Any) -> None:
    # A flush brings whatever arrived in 100 ms: more than the window, at 60 000 events/s.
    panel = TimelinePanel()
    panel.model.store.window = 100
    panel.begin_connection("SendStreamingMessage")
    for n in range(1, 1001):
        panel.add_item(item(n))
    panel.model.flush()
    store = panel.model.store
    assert store.window_start == 900 and store.spilled == 900
    assert panel.model.row_at(0).raw == frame(1) and panel.model.row_at(999).raw == frame(1000)
    panel.model.clear()


def test_frames_wait_for_a_history_writer_that_is_behind(
    qapp: Any, recorded: tuple[HistoryStore, Recorder]
) -> None:
    store, recorder = recorded
    panel = TimelinePanel()
    rows = panel.model.store
    rows.window = 100
    panel.begin_connection("SendStreamingMessage")
    panel.model.back_with(ItemReader(store.path, lambda: recorder.id))
    items = [item(n) for n in range(1, 301)]
    for one in items:
        panel.add_item(one)
    recorder.feed_all(items[:150])
    assert recorder.close(10)
    panel.model.flush()  # the entry holds 150 of the 200 rows leaving the window: 150 go
    assert rows.window_start == 150 and rows.spilled == 0
    recorder.feed_all(items[150:])
    assert recorder.close(10)
    for n in range(301, 401):
        panel.add_item(item(n))
    panel.model.flush()
    assert rows.window_start == 300 and rows.spilled == 0 and rows.spill_path is None
    assert panel.model.row_at(149).raw == frame(150)
    # A writer that stays behind: past eight windows the frames are spilled after all.
    for n in range(401, 1301):
        panel.add_item(item(n))
    panel.model.flush()
    assert rows.window_start == 1200 and rows.spilled == 900
    assert panel.model.row_at(1000).raw == frame(1001)
    panel.model.clear()


def test_row_one_is_read_back_from_history(
    backed: TimelinePanel, qtmodeltester: Any, recorded: tuple[HistoryStore, Recorder]
) -> None:
    model = backed.model
    store = model.store
    assert store.window_start >= 4000 and store.spilled == 0 and store.spill_path is None
    first = model.row_at(0)
    assert first.raw == frame(1) and first.summary == "working · progress 1"
    assert first.data["result"]["statusUpdate"]["status"]["message"]["parts"][0]["text"] == (
        "progress 1"
    )
    assert first.kind is ItemKind.STATUS_UPDATE and first.state is TaskState.WORKING
    # The lint finding on the first event (not a Task) stays with it.
    assert model.data(model.index(0, COL_SUMMARY)) == "⚠ first-not-task · working · progress 1"
    backed.view.scrollToTop()
    backed.view.selectRow(0)
    assert "progress 1" in backed.json_view.toPlainText()
    assert backed.raw_view.toPlainText().startswith("data: ")
    qtmodeltester.check(model)  # every row, read back page by page

    # An error judged on an old item, and a finding: kept with the row.
    history, _recorder = recorded
    row = model.get(10)
    row.kind, row.summary = ItemKind.ERROR, "judged bad"
    model.refresh(row)
    assert model.data(model.index(10, COL_SUMMARY)) == "judged bad"
    assert model.row_at(10).raw == frame(11)
    assert history.entries(limit=1)[0].items == 6000


def test_filter_and_find_reach_every_row_off_the_gui_thread(
    qtbot: Any, backed: TimelinePanel
) -> None:
    # Both words, each in any column (#, +ms, kind, task, state, summary).
    texts = [(str(n), f"{n:,.1f}", f"working · progress {n}") for n in range(1, 6001)]
    expected = [
        row
        for row, cells in enumerate(texts)
        if any("12" in cell for cell in cells) and any("progress" in cell for cell in cells)
    ]
    bar, proxy = backed.filter_bar, backed.filter_proxy
    backed.filter_edit.setText("progress 12")
    # Most frames are in history: matched on a worker thread, the count saying how far.
    assert proxy.scanning is not None
    assert backed.view.model() is proxy
    qtbot.waitUntil(lambda: proxy.scanning is None, timeout=20_000)
    assert [proxy.source_row(r) for r in range(proxy.rowCount())] == expected
    assert bar.count_label.text() == f"{len(expected)} of 6,000 rows"

    # Enter steps through the matches (Shift+Enter back), each row's detail read back.
    qtbot.keyClick(backed.filter_edit, Qt.Key.Key_Return)
    assert bar.selected_row() == expected[0]
    assert f"progress {expected[0] + 1}" in backed.json_view.toPlainText()
    qtbot.keyClick(backed.filter_edit, Qt.Key.Key_Return)
    qtbot.keyClick(backed.filter_edit, Qt.Key.Key_Return)
    assert bar.selected_row() == expected[2]
    qtbot.keyClick(backed.filter_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.selected_row() == expected[1]
    assert f'"progress {expected[1] + 1}"' in backed.json_view.toPlainText()

    # Cleared, the table shows every row again, the one found still selected and in view.
    backed.filter_edit.clear()
    assert backed.view.model() is backed.model and bar.selected_row() == expected[1]
    rect = backed.view.visualRect(backed.model.index(expected[1], COL_SUMMARY))
    assert backed.view.viewport().rect().intersects(rect)

    # Rows arriving while a filter is typed are matched as they come.
    backed.filter_edit.setText("marker")
    qtbot.waitUntil(lambda: proxy.scanning is None, timeout=20_000)
    assert proxy.rowCount() == 0
    backed.add_marker("a marker row")
    backed.model.flush()
    assert proxy.rowCount() == 1 and bar.count_label.text() == "1 of 6,001 rows"


def test_history_off_spills_to_a_file_that_goes_with_the_tab(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    wait_until(lambda: window.history.store is not None)
    store, window.history.store = window.history.store, None  # history off
    try:
        tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 1200 0")
        panel = panel_of(tab)
        panel.model.store.window = 200
        click(qtbot, tab, "sendButton")
        wait_until(lambda: not tab.busy and panel.ending is not None, timeout=60)
    finally:
        window.history.store = store
    spill = panel.model.store.spill_path
    assert spill is not None and os.path.getsize(spill) > 0
    assert panel.model.store.window_start > 0
    first = panel.model.row_at(0)
    assert first.kind is ItemKind.TASK and first.raw.startswith(b"data: ")
    assert panel.model.rowCount() == panel.event_count + 1  # and the end row

    window.tabs.tabCloseRequested.emit(window.tabs.indexOf(tab))
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    wait_until(lambda: not os.path.exists(spill))


def test_a_recorded_stream_reads_old_rows_from_history(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    wait_until(lambda: window.history.store is not None)
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 1200 0")
    panel = panel_of(tab)
    panel.model.store.window = 200
    click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=60)
    store = panel.model.store
    assert store.window_start > 0
    # Frames the entry held by then were let go, not spilled (the writer commits every
    # 20 ms; a busy machine may leave a few to the spill file).
    assert store.spilled < store.window_start
    rows = panel.model.rows()
    assert rows[0].kind is ItemKind.TASK and rows[0].raw.startswith(b"data: ")
    assert sum(1 for row in rows if row.item_seq is not None) == panel.event_count
    assert all(row.raw for row in rows if row.item_seq is not None)
