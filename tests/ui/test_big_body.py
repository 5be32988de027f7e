"""Big bodies: the response view shows them in views that paint only the visible lines
(prettyBigView / rawBigView), built off the GUI thread, without freezing the window."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter

from app.ui.big_text_view import BigTextView
from app.ui.formatting import pretty_json
from app.ui.main_window import MainWindow
from app.ui.pretty_buffer import build, pretty_bytes
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
