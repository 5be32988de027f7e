"""Request → Show in the other version, as a person uses it: the side-by-side view of the
tab's request (and its recorded answer from the real peer), the annotated differences, and
*Open as a new request* opening a new tab while the first stays as it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QPushButton, QTableView

from app.protocol.events import Outcome
from app.protocol.types import ProtocolVersion
from app.ui.request.explainer_view import ExplainerView
from app.ui.request.request_tab import RequestTab
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS

pytestmark = pytest.mark.gui


def find(parent: Any, kind: type, name: str) -> Any:
    widget = parent.findChild(kind, name)
    assert widget is not None, name
    return widget


def new_03_tab(qtbot: Any, window: MainWindow, endpoint: str) -> RequestTab:
    find(window, QAction, "newA2ARequestAction").trigger()
    tab = window.current_tab()
    assert tab is not None
    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    edit = find(tab, QLineEdit, "endpointEdit")
    edit.clear()
    qtbot.keyClicks(edit, endpoint)
    text = find(tab, QLineEdit, "messageTextEdit")
    text.clear()
    qtbot.keyClicks(text, "12 30")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    return tab


def show_other_version(window: MainWindow) -> ExplainerView:
    window.menus.refresh()
    action = find(window, QAction, "showOtherVersionAction")
    assert action.isEnabled()
    action.trigger()
    view = window.findChildren(ExplainerView, "explainerView")[-1]
    assert view.isVisible()
    return view


def rows(view: ExplainerView, name: str) -> list[tuple[str, ...]]:
    model = find(view, QTableView, name).model()
    return [
        tuple(str(model.data(model.index(r, c))) for c in range(model.columnCount()))
        for r in range(model.rowCount())
    ]


def test_side_by_side_and_open_in_the_other_version(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_03_tab(qtbot, window, sdk_peer["jsonrpc_url"])
    body_before = find(tab, QPlainTextEdit, "bodyEditor").toPlainText()
    view_03 = find(tab, ResponseView, "responseView")
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: view_03.outcome is not None and not tab.busy, timeout=20)
    assert view_03.outcome is Outcome.OK

    view = show_other_version(window)
    left = find(view, QPlainTextEdit, "explainerRequest03Text")
    right = find(view, QPlainTextEdit, "explainerRequest10Text")
    assert left.isReadOnly() and right.isReadOnly()
    assert '"method": "message/send"' in left.toPlainText()
    assert '"method": "SendMessage"' in right.toPlainText()
    assert '"role": "ROLE_USER"' in right.toPlainText()
    table = rows(view, "explainerRequestDifferences")
    assert ("method", "method name", "message/send", "SendMessage", "§2.3.1") in table
    assert ("role", "params.message.role", "user", "ROLE_USER", "§5.3") in table
    # The recorded answer, the same way.
    assert view.pages.count() == 2 and view.pages.tabText(1) == "Recorded answer"
    answer = rows(view, "explainerResponseDifferences")
    assert any(r[0] == "result" and r[4] == "§5.2" for r in answer)
    assert (
        '"kind": "message"' in find(view, QPlainTextEdit, "explainerResponse03Text").toPlainText()
    )
    view.resize(1100, 720)
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "imports-explainer-request.png"))
    view.pages.setCurrentIndex(1)
    view.grab().save(str(SHOTS / "imports-explainer-response.png"))

    own = find(view, QPushButton, "explainerOpenV03Button")
    assert not own.isEnabled()  # the tab already is 0.3
    count = window.tabs.count()
    qtbot.mouseClick(find(view, QPushButton, "explainerOpenV10Button"), Qt.MouseButton.LeftButton)
    assert window.tabs.count() == count + 1 and not view.isVisible()
    new = window.current_tab()
    assert new is not None and new is not tab
    form = new.form()
    assert (form.version, form.method) == (ProtocolVersion.V1_0, "SendMessage")
    assert json.loads(form.body)["params"]["message"]["parts"] == [{"text": "12 30"}]
    # The first tab was not touched.
    assert tab.form().version is ProtocolVersion.V0_3
    assert find(tab, QPlainTextEdit, "bodyEditor").toPlainText() == body_before
    # And the new tab is a request the 1.0 peer accepts.
    view_10 = find(new, ResponseView, "responseView")
    qtbot.mouseClick(find(new, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: view_10.outcome is not None and not new.busy, timeout=20)
    assert view_10.outcome is Outcome.OK and "Sum: 42" in view_10.pretty_view.toPlainText()


def test_a_body_that_cannot_be_read_says_so(qtbot: Any, window: MainWindow) -> None:
    tab = new_03_tab(qtbot, window, "http://127.0.0.1:9/")
    find(tab, QPlainTextEdit, "bodyEditor").setPlainText("{not json")
    view = show_other_version(window)
    assert "not JSON" in view.error_label.text() and view.pages.count() == 0
    assert not find(view, QPushButton, "explainerOpenV10Button").isEnabled()
    view.reject()
