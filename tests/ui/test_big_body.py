"""Big bodies: the response view shows them in views that paint only the visible lines
(prettyBigView / rawBigView), built off the GUI thread, without freezing the window."""

from __future__ import annotations

import gc
import json
import random
import threading
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter

from app import heap
from app.protocol.events import KEEP_VALUE_BYTES, BigResponseBody
from app.spec.assertions import AssertionOp, Observed
from app.ui.response.artifacts_view import MAX_SHOWN
from app.ui.response.big_text_view import BigTextView
from app.ui.response.formatting import pretty_json
from app.ui.response.pretty_buffer import WRITE_ERRORS, build, pretty_bytes, pretty_bytes_taking
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server
from tests.ui.test_response_tools import child, click, new_tab
from tests.ui.test_responsiveness import MAX_STALL_S, StallMeter

pytestmark = pytest.mark.gui


def test_pretty_bytes_are_the_pretty_json_text_and_long_lines_fold() -> None:
    value = {
        "a": [1, {"b": [], "c": {}}, "ü€", [[[[[[1, 2]]]]]]],
        "deep": {"x": {"y": {"z": {"w": {"v": [1, {"u": 2}]}}}}},
        "big": 2**70,  # beyond orjson: the standard library writes it
    }
    text = pretty_json(value)
    buffer = build(pretty_bytes(value))
    assert bytes(buffer.data).decode() == text
    assert [buffer.line(i) for i in range(buffer.line_count)] == text.split("\n")
    assert buffer.chars == len(text)
    line = ("é" * 1500).encode()  # 3000 bytes: folded at a character boundary
    folded = build(line, fold=1001)
    assert "".join(folded.line(i) for i in range(folded.line_count)) == "é" * 1500
    assert folded.line_count == 3 and folded.longest <= 1001


def test_a_big_json_body_opens_in_the_big_views_without_freezing(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    items = [
        {"artifactId": f"a{i}", "parts": [{"text": "lorem ipsum " * 8}]} for i in range(30_000)
    ]
    value = {"jsonrpc": "2.0", "id": 1, "result": {"items": items}}
    body = json.dumps(value).encode()
    assert len(body) > 3 * 1024 * 1024
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        with StallMeter() as meter:
            click(qtbot, tab, "sendButton")
            wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
            qtbot.wait(50)
        pretty: BigTextView = child(view, BigTextView, "prettyBigView")
        assert view.tabs.widget(0) is pretty and view.tabs.currentWidget() is pretty
        text = pretty_json(value)
        assert view.pretty_char_count() == len(text)
        shown = pretty.visible_lines()
        assert shown and shown == text.split("\n")[: len(shown)]
        pretty.setFocus()
        qtbot.keyClick(pretty, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        assert pretty.visible_lines()[-1] == "}"
        view.tabs.setCurrentIndex(2)
        raw: BigTextView = child(view, BigTextView, "rawBigView")
        assert view.tabs.currentWidget() is raw
        assert raw.visible_lines()[0] == body[:2000].decode()  # one long line, folded
        assert meter.longest < MAX_STALL_S, f"the window froze for {meter.longest:.2f} s"

    # The next answer is small: the usual views are back.
    with bad_server(Canned(body=b'{"jsonrpc": "2.0", "id": 1, "result": {"n": 1}}')) as url:
        tab.endpoint_edit.setText(url)
        click(qtbot, tab, "sendButton")
        wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
        assert view.tabs.widget(0) is view.pretty_view
        assert view.tabs.widget(2) is view.raw_view
        assert '"n": 1' in view.pretty_view.toPlainText()


def test_pretty_bytes_written_in_groups_read_as_one_orjson_call() -> None:
    rng = random.Random(3)

    def value(depth: int, budget: list[int]) -> Any:
        budget[0] -= 1
        if depth > 4 or budget[0] < 0 or rng.random() < 0.2:
            return rng.choice([1, "a\nb", None, [], {}, 2.5, "é"])
        count = rng.choice([0, 1, 3, 63, 64, 65, 130, 300])  # around the group limit
        if rng.random() < 0.5:
            return [value(depth + 1, budget) for _ in range(count)]
        return {f"k{i}": value(depth + 1, budget) for i in range(count)}

    for _ in range(100):
        sample = value(0, [3000])
        assert bytes(pretty_bytes(sample)).decode() == pretty_json(sample)


@pytest.mark.parametrize("line", ["\tkey\t" + "0123456789" * 150, "a\tb\t\tc" * 80])  # unfolded
def test_a_tab_shows_as_spaces_to_the_next_stop_wherever_the_view_is_scrolled(
    qtbot: Any, line: str
) -> None:
    views = []
    for text in (line, line.expandtabs(8)):
        view = BigTextView("rawBigView")
        qtbot.addWidget(view)
        view.resize(600, 120)
        view.show()
        view.set_buffer(build(text.encode()))
        views.append(view)
    step = views[0].fontMetrics().horizontalAdvance("x")
    for scrolled in (0, 3, 10, 37, 200):
        pictures = []
        for view in views:
            view.horizontalScrollBar().setValue(scrolled * step)
            pictures.append(view.viewport().grab().toImage())
        assert pictures[0] == pictures[1], f"scrolled {scrolled} columns"


@pytest.mark.parametrize("length", [300, 1999])
def test_scrolled_to_the_right_end_a_long_line_shows_its_last_characters(
    qtbot: Any, length: int
) -> None:
    view = BigTextView("rawBigView")
    qtbot.addWidget(view)
    view.resize(600, 80)
    view.show()
    line = "-" * (length - 3) + "END"
    view.set_buffer(build(line.encode()))
    bar = view.horizontalScrollBar()
    qtbot.keyClick(view, Qt.Key.Key_End)  # as far right as it goes
    bar.setValue(bar.maximum())
    shown = view.viewport().grab().toImage()
    # The line drawn whole where the view puts it (x: the margin less the scrolled width).
    whole = QImage(shown.size(), shown.format())
    whole.fill(view.palette().base().color())
    painter = QPainter(whole)
    painter.setFont(view.font())
    painter.setPen(view.palette().text().color())
    painter.drawText(QPointF(4 - bar.value(), 4 + view.fontMetrics().ascent()), line)
    painter.end()
    ends = [_rightmost_ink(image) for image in (shown, whole)]
    assert ends[1] < shown.width() - 4, "the line's end is past the scroll range"  # its margin
    assert abs(ends[0] - ends[1]) <= 1, f"drawn to x={ends[0]}, the whole line to x={ends[1]}"


def _rightmost_ink(image: QImage) -> int:
    return max(
        x for x in range(image.width()) for y in range(image.height())
        if image.pixelColor(x, y).lightness() < 128
    )  # fmt: skip


def _live_artifacts() -> int:
    """Artifact objects of a parsed body still alive (dicts holding a list are tracked)."""
    return sum(
        1
        for o in gc.get_objects()
        if type(o) is dict and str(o.get("artifactId", "")).startswith("big-")
    )


def test_a_big_body_is_not_kept_parsed_and_its_tree_and_assertions_still_work(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed_on: list[str] = []  # the threads the big body is parsed again on for assertions
    resolved = Observed.resolved

    def resolve(self: Observed) -> Observed:
        if self.big_body is not None:  # otherwise there is nothing to parse
            parsed_on.append(threading.current_thread().name)
        return resolved(self)

    monkeypatch.setattr(Observed, "resolved", resolve)
    text = "lorem ipsum " * 8
    # Written as text: the test holds no parsed artifact itself.
    artifacts = ", ".join(
        f'{{"artifactId": "big-{i}", "parts": [{{"text": "{text}"}}]}}' for i in range(20_000)
    )
    body = (
        '{"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t-big", "contextId": "c-big",'
        ' "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": [' + artifacts + "]}}}"
    ).encode()
    assert len(body) > 2 * KEEP_VALUE_BYTES
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        panel = tab.assertions_panel
        last = "/result/task/artifacts/19999/artifactId"
        panel.model.add_row(last, AssertionOp.EQUALS, "big-19999")
        panel.model.add_row("/result/task/status/state", AssertionOp.EQUALS, "TASK_STATE_COMPLETED")
        panel.model.add_row("finalState", AssertionOp.EQUALS, "completed")
        panel.captures_model.add_row("taskId", "/result/task/id")
        captured: list[dict[str, str]] = []
        tab.captured.connect(captured.append)
        click(qtbot, tab, "sendButton")
        wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
        wait_until(lambda: not tab.artifacts_view.rows_pending, timeout=10)

        shown = view.recorded_body()
        assert shown == body
        event = view._body
        assert isinstance(event, BigResponseBody) and event.released and event.is_json
        gc.collect()
        assert _live_artifacts() == 0, "the parsed value of the big body is still alive"
        # What needed the value had it before it went: the pretty text, the id fields, the
        # Artifacts tab (its first 500), assertions and captures (parsed again at the end).
        assert view.pretty_char_count() == len(pretty_json(json.loads(body)))
        assert tab.body_flow.context_id_edit.text() == "c-big"
        assert len(tab.artifacts_view.artifacts) == MAX_SHOWN
        assert tab.artifacts_view.model.rowCount() == MAX_SHOWN
        assert [r.passed for r in panel.model.results()] == [True, True, True]
        assert captured == [{"taskId": "t-big"}]
        assert parsed_on and threading.main_thread().name not in parsed_on
        assert _live_artifacts() == 0

        # The tree parses the body when first shown, off the GUI thread.
        assert view.tree_page.pending
        view.tabs.setCurrentWidget(view.tree_page)
        wait_until(lambda: not view.tree_page.pending, timeout=30)
        model = view.tree_page.model
        rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
        assert set(rows) == {"jsonrpc", "id", "result"}
        result = model.index(rows["result"], 0)
        task = model.index(0, 0, result)
        assert task.data() == "task"
        model.fetch_all(task)
        keys = {model.index(r, 0, task).data(): r for r in range(model.rowCount(task))}
        artifacts_row = model.index(keys["artifacts"], 1, task)
        assert artifacts_row.data() == "[20000 items]"
        assert model.path_at(model.index(keys["artifacts"], 0, task)) == "$.result.task.artifacts"


class _Items(list[Any]):
    """A list a test can watch through a weak reference (which holds nothing)."""


def test_pretty_bytes_taking_takes_apart_only_what_no_one_else_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sample() -> dict[str, Any]:
        items = _Items({"id": i, "parts": [{"text": "é" * (i % 7)}]} for i in range(300))
        table = {f"k{i}": [i] for i in range(100)}
        return {"jsonrpc": "2.0", "result": {"items": items, "table": table, "few": [1, 2]}}

    expected = pretty_json(sample())
    # Owned: the items are freed group by group while the text is written.
    value = sample()
    watched = weakref.ref(value["result"]["items"])
    left: list[int] = []
    monkeypatch.setattr(heap, "trim", lambda: left.append(len(watched() or ())))
    box = [value]
    del value
    assert bytes(pretty_bytes_taking(box)).decode() == expected
    assert left and left[0] < 300 and left == sorted(left, reverse=True)
    assert watched() is None

    # Held elsewhere (a view still showing it): that part stays whole, the rest goes.
    value = sample()
    held, row = value["result"]["items"], value["result"]["table"]["k3"]
    box = [value]
    del value
    assert bytes(pretty_bytes_taking(box)).decode() == expected
    assert len(held) == 300 and held[299]["parts"][0]["text"] == "é" * 5 and row == [3]

    # The whole value held twice: nothing is taken apart.
    value = sample()
    assert bytes(pretty_bytes_taking([value])).decode() == expected
    assert value == sample()

    box = [sample()]
    box[0]["result"]["items"].append(2**70)  # beyond orjson
    with pytest.raises(WRITE_ERRORS):
        pretty_bytes_taking(box)


def test_a_big_body_beyond_orjson_is_shown_whole(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    items = [{"n": i, "text": "lorem ipsum " * 8} for i in range(20_000)]
    value = {"jsonrpc": "2.0", "id": 1, "result": {"items": items, "big": 2**70}}
    body = json.dumps(value).encode()
    assert len(body) > KEEP_VALUE_BYTES
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        click(qtbot, tab, "sendButton")
        wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
        assert view.pretty_char_count() == len(pretty_json(value))
        assert view.pretty_big.buffer is not None
        assert bytes(view.pretty_big.buffer.data).decode() == pretty_json(value)


def test_a_big_body_with_a_lone_surrogate_escape_is_shown(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    # "\ud800" is JSON's grammar but no UTF-8 text: the pretty text keeps it as the escape
    # (it raised in the worker and the exchange ended with nothing shown and no outcome).
    items = [{"n": i, "text": "lorem ipsum " * 8} for i in range(20_000)]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"s": "\ud800", "items": items}})
    assert len(body) > KEEP_VALUE_BYTES
    with bad_server(Canned(body=body.encode())) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        click(qtbot, tab, "sendButton")
        wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
        assert view.pretty_big.buffer is not None
        text = bytes(view.pretty_big.buffer.data).decode()
        assert '"s": "\\ud800"' in text
        assert json.loads(text) == json.loads(body)


@pytest.mark.logs_error("the pretty writer is broken on purpose: the presenter logs its traceback")
def test_a_big_body_the_pretty_writer_fails_on_still_shows_and_the_exchange_ends(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Any failure formatting a big body (a writer bug, a value it cannot handle) showed
    # nothing and ended the exchange without an outcome; now the body shows as received.
    from app.ui.response import exchange_presenter

    def broken(event: object) -> object:
        raise RuntimeError("writer broke")

    monkeypatch.setattr(exchange_presenter, "big_buffers", broken)
    items = [{"n": i, "text": "lorem ipsum " * 8} for i in range(20_000)]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"items": items}}).encode()
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        click(qtbot, tab, "sendButton")
        wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
        assert view.pretty_big.buffer is not None
        assert bytes(view.pretty_big.buffer.data) == body
        assert view.recorded_body() == body
        note = view.findings_label.text()
        assert "formatting failed" in note and "writer broke" in note
        assert view.findings_label.isVisible()


def test_a_big_body_reopened_from_history_shows_in_the_big_views(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    # Its pretty text and buffers are built off the GUI thread, as for a live exchange (the
    # plain text view laid out a 25 MiB body on the GUI thread for seconds).
    from tests.ui.test_history_dock import click as dock_click
    from tests.ui.test_history_dock import open_dock, select_rows, wait_rows

    panel = open_dock(window)
    wait_until(lambda: panel.model.store is not None)
    items = [{"n": i, "text": "lorem ipsum " * 8} for i in range(20_000)]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"items": items}}).encode()
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        click(qtbot, tab, "sendButton")
        wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=30)
    rows = wait_rows(wait_until, panel, 1)
    select_rows(qtbot, rows, 0)
    dock_click(qtbot, panel, "historyOpenButton")
    shown = panel.viewer.response_view
    wait_until(lambda: shown.outcome is not None, timeout=30)
    assert shown.pretty_big.buffer is not None
    assert bytes(shown.pretty_big.buffer.data) == pretty_bytes(json.loads(body))
    assert shown.raw_big.buffer is not None and bytes(shown.raw_big.buffer.data) == body
    assert shown.pretty_view.toPlainText() == ""
