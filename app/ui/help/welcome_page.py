"""The Welcome tab (``welcomeTab``): shown on the first start (no saved session) and from
*Help → Getting started* (``gettingStartedAction``).

The five core flows (``app/ui/help/welcome_steps.py``) as numbered cards, each with what it
does, what to look at afterwards and a button that does it; a step that needs the demo agent
waits for it (the button says why while it is off). Beside them: where to read more, opening
*Help → Documentation* on the page that covers it. Colours come from the palette, so light
and dark themes need nothing of their own.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.ui.help.welcome_steps import STEPS, Step, WelcomeHost
from app.ui.shell.theme import colours, manager

OBJECT_NAME = "welcomeTab"
TITLE = "Welcome"

READING = (
    ("The window, tab by tab", "GUI.md"),
    ("Saved requests and specs", "SAVED_REQUESTS.md"),
    ("What Check this agent checks", "CHECKS.md"),
    ("History, record and replay", "HISTORY.md"),
    ("The same from the command line", "CLI.md"),
    ("Credentials, TLS and proxies", "SECURITY.md"),
)
"""*Read more*: (link text, manual page)."""

KEYS = (
    ("Ctrl+Enter", "send"),
    ("Ctrl+N", "new request"),
    ("Ctrl+Shift+P", "command palette"),
    ("Ctrl+/", "every shortcut"),
    ("F1", "documentation"),
)

STYLE = """
#welcomeContent { background: palette(base); }
QFrame[welcomeCard="true"] {
    background: palette(window); border: 1px solid palette(mid); border-radius: 8px;
}
QLabel[welcomeBadge="true"] {
    background: palette(highlight); color: palette(highlighted-text);
    border-radius: 14px; font-weight: 600;
}
QPushButton[welcomeAction="true"] {
    background: palette(highlight); color: palette(highlighted-text); border: none;
    border-radius: 6px; padding: 7px 16px; font-weight: 600;
}
QPushButton[welcomeAction="true"]:disabled { background: palette(mid); color: palette(window); }
"""
"""Palette roles only (no colour of its own): follows the theme."""


class WelcomePage(QScrollArea):
    """The Welcome tab's page; ``host`` is the main window, seen as the holder of the tabs
    (``window``: the same window as a QMainWindow, where the steps find actions and docks).

    Attributes:
        buttons: each step's button by its key (``send``, ``stream``, ``card``, ``save``,
            ``check``).
    """

    def __init__(self, host: WelcomeHost, window: QMainWindow) -> None:
        super().__init__()
        self.setObjectName(OBJECT_NAME)
        # Closing its tab ends it: Help → Getting started makes a new one.
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.host = host
        self.window_ = window
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.buttons: dict[str, QPushButton] = {}
        self.badges: dict[str, QLabel] = {}
        self.done: set[str] = set()

        content = self.content = QWidget()
        content.setObjectName("welcomeContent")
        content.setStyleSheet(STYLE)
        outer = QHBoxLayout(content)
        outer.setContentsMargins(32, 20, 32, 20)
        # Centred, and no wider than reads well on a big screen.
        column = QWidget()
        column.setMaximumWidth(1120)
        page = QVBoxLayout(column)
        page.setContentsMargins(0, 0, 0, 0)
        page.setSpacing(10)
        outer.addStretch(1)
        outer.addWidget(column, 100)
        outer.addStretch(1)

        title = QLabel("Welcome to A2A Workbench")
        title.setObjectName("welcomeTitleLabel")
        title.setFont(_scaled(title.font(), 1.6, bold=True))
        intro = _muted(
            "A request debugger for the A2A protocol. Five things to try with the demo agent "
            "the app started for you: each button does it, and the card says where to look."
        )
        self.demo_label = QLabel()
        self.demo_label.setObjectName("welcomeDemoLabel")
        self.demo_label.setTextFormat(Qt.TextFormat.PlainText)
        page.addWidget(title)
        page.addWidget(intro)
        page.addWidget(self.demo_label)
        page.addSpacing(6)

        columns = QHBoxLayout()
        columns.setSpacing(24)
        steps = QVBoxLayout()
        steps.setSpacing(8)
        heading = QLabel("Get started")
        heading.setFont(_scaled(heading.font(), 1.15, bold=True))
        steps.addWidget(heading)
        for number, step in enumerate(STEPS, 1):
            steps.addWidget(self._card(number, step))
        widest = max(b.sizeHint().width() for b in self.buttons.values())
        for button in self.buttons.values():
            button.setMinimumWidth(widest)
        columns.addLayout(steps, 3)
        columns.addLayout(self._reading(), 1)
        page.addLayout(columns)
        page.addWidget(_muted("This page comes back from Help → Getting started."))
        page.addStretch(1)
        self.setWidget(content)

        self.update_demo()
        host.demo_changed.connect(self.update_demo)
        manager().changed.connect(self._on_theme_changed)

    # --- building ------------------------------------------------------------------

    def _card(self, number: int, step: Step) -> QFrame:
        card = QFrame()
        card.setObjectName(f"welcomeStep{step.key.title()}")
        card.setProperty("welcomeCard", True)
        grid = QGridLayout(card)
        grid.setContentsMargins(14, 10, 14, 10)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(2)
        badge = QLabel(str(number))
        badge.setProperty("welcomeBadge", True)
        badge.setFixedSize(28, 28)
        badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badges[step.key] = badge
        title = QLabel(step.title)
        title.setFont(_scaled(title.font(), 1.08, bold=True))
        text = QLabel(step.text)
        text.setWordWrap(True)
        look = _muted(f"Look at {step.look}")
        button = QPushButton(step.button)
        button.setObjectName(f"welcome{step.key.title()}Button")
        button.setProperty("welcomeAction", True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda _checked=False, s=step: self.run(s))
        if step.keys:  # a hidden tab's button does not take it: no clash with the tabs'
            button.setShortcut(QKeySequence(step.keys))
        self.buttons[step.key] = button
        grid.addWidget(badge, 0, 0, 3, 1, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(title, 0, 1)
        grid.addWidget(text, 1, 1)
        grid.addWidget(look, 2, 1)
        grid.addWidget(button, 0, 2, 3, 1, Qt.AlignmentFlag.AlignVCenter)
        grid.setColumnStretch(1, 1)
        return card

    def _reading(self) -> QVBoxLayout:
        column = QVBoxLayout()
        column.setSpacing(8)
        heading = QLabel("Read more")
        heading.setFont(_scaled(heading.font(), 1.15, bold=True))
        column.addWidget(heading)
        for text, page in READING:
            link = QPushButton(text)
            link.setObjectName(f"welcomeDoc{page.split('.')[0].title().replace('_', '')}Button")
            link.setFlat(True)
            link.setCursor(Qt.CursorShape.PointingHandCursor)
            link.setStyleSheet("text-align: left; color: palette(link); padding: 2px 0;")
            link.setToolTip(f"Help → Documentation: {page}")
            link.clicked.connect(lambda _checked=False, p=page: self.open_doc(p))
            column.addWidget(link)
        column.addSpacing(12)
        keys = QLabel("Keys")
        keys.setFont(_scaled(keys.font(), 1.15, bold=True))
        column.addWidget(keys)
        table = QGridLayout()
        table.setHorizontalSpacing(12)
        for row, (key, what) in enumerate(KEYS):
            table.addWidget(QLabel(key), row, 0)
            table.addWidget(_muted(what), row, 1)
        table.setColumnStretch(1, 1)
        column.addLayout(table)
        column.addStretch(1)
        return column

    # --- acting --------------------------------------------------------------------

    def update_demo(self) -> None:
        """Say whether the demo agent runs; a step that needs it is enabled only then."""
        info = self.host.demo_info
        url = str(info.get("base_url", "")) if info else ""
        palette = self.demo_label.palette()
        c = colours()
        if url:
            self.demo_label.setText(f"●  Demo agent ready at {url}")
            palette.setColor(QPalette.ColorRole.WindowText, QColor(c.text_ok))
        elif self.host.demo_starting:  # as the status bar says: not "not running" yet
            self.demo_label.setText(
                "◌  The demo agent is starting…: the steps that need it wait for it"
            )
            palette.setColor(QPalette.ColorRole.WindowText, QColor(c.text_muted))
        else:
            self.demo_label.setText(
                "○  The demo agent is not running (see the status bar): the steps that need "
                "it wait for it"
            )
            palette.setColor(QPalette.ColorRole.WindowText, QColor(c.text_muted))
        self.demo_label.setPalette(palette)
        waiting = "starting…" if self.host.demo_starting else "not running"
        for step in STEPS:
            button = self.buttons[step.key]
            button.setEnabled(bool(url) or not step.needs_demo)
            keys = QKeySequence(step.keys).toString().replace("Return", "Enter")  # as said
            tip = f"{step.button} ({keys})" if keys else ""
            button.setToolTip(tip if button.isEnabled() else f"Needs the demo agent, {waiting}")

    def _on_theme_changed(self, _dark: bool) -> None:
        # The style sheet's palette() roles are read when it is set: set it again (which
        # re-polishes the labels: their colours after it).
        self.content.setStyleSheet(STYLE)
        self.update_demo()

    def run(self, step: Step) -> None:
        """Do ``step`` and mark it done; the status bar says where to look."""
        if step.run(self.host, self.window_) is None:
            return
        self.done.add(step.key)
        badge = self.badges[step.key]
        badge.setText("✓")
        badge.setToolTip("Done")
        self.host.messages.show(f"{step.title}: look at {step.look}", 15000)

    def open_doc(self, page: str) -> None:
        """The manual at ``page`` (*Help → Documentation*)."""
        from app.ui.help.docs_viewer import show_documentation

        show_documentation(self.window_, page)


def show_welcome(host: WelcomeHost, window: QMainWindow) -> WelcomePage:
    """Bring the Welcome tab to the front, first of the tabs (opened if it was closed)."""
    tabs = host.tabs
    for index in range(tabs.count()):
        page = tabs.widget(index)
        if isinstance(page, WelcomePage):
            tabs.setCurrentWidget(page)
            return page
    page = WelcomePage(host, window)
    tabs.insertTab(0, page, TITLE)
    tabs.setCurrentWidget(page)
    return page


def _muted(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def _scaled(font: QFont, factor: float, *, bold: bool = False) -> QFont:
    scaled = QFont(font)
    scaled.setPointSizeF(font.pointSizeF() * factor)
    scaled.setBold(bold)
    return scaled
