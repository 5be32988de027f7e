"""An exception nobody caught — in a slot, a thread or an asyncio callback — is logged at ERROR
with its traceback and shown in the status bar with *Copy details*; the window keeps working.

pytest-qt fails a test whose slot raises (it swaps ``sys.excepthook`` while the test runs):
``qt_no_exception_capture`` leaves the hook to the app, which is what is under test here.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPushButton

from app import __version__
from app.ui.shell import unexpected
from app.ui.shell.main_window import MainWindow

pytestmark = [
    pytest.mark.qt_no_exception_capture,
    pytest.mark.logs_error("raises where nobody catches to see the app's hooks report it"),
]


class Boom(Exception):
    pass


def _boom() -> None:
    raise Boom("kaboom in a slot")


@pytest.fixture
def hooked(window: MainWindow, qloop: asyncio.AbstractEventLoop) -> Iterator[MainWindow]:
    uninstall = unexpected.install(window.messages, qloop)
    try:
        yield window
    finally:
        uninstall()


def _copy_button(window: MainWindow) -> QPushButton:
    button = window.statusBar().findChild(QPushButton, "copyDetailsButton")
    assert button is not None
    return button


def _shown(window: MainWindow) -> bool:
    button = window.statusBar().findChild(QPushButton, "copyDetailsButton")
    return button is not None and button.isVisible()


def test_an_error_in_a_slot_is_logged_and_shown_with_copy_details(
    hooked: MainWindow, qtbot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    QTimer.singleShot(0, _boom)
    qtbot.waitUntil(lambda: _shown(hooked), timeout=5000)

    message = hooked.statusBar().currentMessage()
    assert message == "Internal error: Unexpected Boom (Boom: kaboom in a slot)"
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.name == "app.unexpected" and record.exc_info is not None

    qtbot.mouseClick(_copy_button(hooked), qtbot_button())
    copied = QGuiApplication.clipboard().text()
    assert "Traceback (most recent call last)" in copied and "_boom" in copied
    assert 'raise Boom("kaboom in a slot")' in copied
    assert f"A2A Workbench: {__version__}" in copied and "PySide6: " in copied

    # The window goes on: the next message replaces the error and its button.
    hooked.messages.show("something else")
    assert not _copy_button(hooked).isVisible()
    assert hooked.new_a2a_tab().isVisible()


def test_a_button_click_that_raises_is_reported_too(hooked: MainWindow, qtbot: Any) -> None:
    button = QPushButton("Raise", hooked)
    button.clicked.connect(_boom)
    button.show()
    qtbot.mouseClick(button, qtbot_button())
    qtbot.waitUntil(lambda: _shown(hooked), timeout=5000)
    assert "kaboom in a slot" in hooked.statusBar().currentMessage()


def test_an_error_in_a_thread_is_reported_on_the_gui_thread(
    hooked: MainWindow, qtbot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    worker = threading.Thread(target=_boom, name="worker-under-test")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: _shown(hooked), timeout=5000)
    assert "Unexpected Boom in thread worker-under-test" in hooked.statusBar().currentMessage()
    assert any(r.name == "app.unexpected" for r in caplog.records)


def test_an_error_in_an_asyncio_callback_is_reported(
    hooked: MainWindow, qtbot: Any, qloop: asyncio.AbstractEventLoop, wait_until: Any
) -> None:
    qloop.call_soon(_boom)
    wait_until(lambda: _shown(hooked), timeout=5)
    assert hooked.statusBar().currentMessage().startswith("Internal error: Exception in callback")
    QGuiApplication.clipboard().clear()
    _copy_button(hooked).click()
    assert "kaboom in a slot" in QGuiApplication.clipboard().text()


def test_an_error_logged_without_a_traceback_is_only_logged(hooked: MainWindow, qtbot: Any) -> None:
    hooked.messages.show("before")
    logging.getLogger("app.test").error("no traceback here")
    qtbot.wait(50)
    assert hooked.statusBar().currentMessage() == "before"
    assert not _shown(hooked)


def qtbot_button() -> Any:
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton
