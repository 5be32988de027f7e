"""A stdio tab's agent: its command line field shown for a binding that launches its agent,
the agent's state, its stderr in a log window, and *Stop agent*.

The process itself is owned by the exchange layer (``app.protocol.exchange.agents``: one
per command line, started by the first send, kept for the sends after it); this module
only shows it and stops it. The window's shutdown stops every agent
(``MainWindow.shutdown``).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout

from app.protocol import exchange
from app.protocol.bindings import traits
from app.protocol.exchange import AgentProcess
from app.protocol.types import Binding
from app.ui.shell.tasks import OwnedTask
from app.ui.shell.widgets import CodeView


class AgentTab(Protocol):
    """What the agent controls use of a request tab."""

    command_edit: QLineEdit

    @property
    def binding(self) -> Binding: ...


class AgentControls:
    """The state label, *Agent log…* and *Stop agent* beside a tab's command field.

    Args:
        tab: the tab whose command line the controls follow.
        row: the layout row the widgets join (after the command field).
    """

    def __init__(self, tab: AgentTab, row: QHBoxLayout) -> None:
        self._tab = tab
        self.state_label = QLabel("")
        self.state_label.setObjectName("agentStateLabel")
        self.log_button = QPushButton("Agent log…")
        self.log_button.setObjectName("agentLogButton")
        self.log_button.setToolTip("The stdio agent's stderr (its log)")
        self.stop_button = QPushButton("Stop agent")
        self.stop_button.setObjectName("stopAgentButton")
        self.stop_button.setToolTip("Close the agent's stdin, then end it")
        index = row.indexOf(tab.command_edit) + 1
        for offset, widget in enumerate((self.state_label, self.log_button, self.stop_button)):
            row.insertWidget(index + offset, widget)
        self._log: QDialog | None = None
        self._log_view: CodeView | None = None
        self._stopping = OwnedTask()
        self.log_button.clicked.connect(self.show_log)
        self.stop_button.clicked.connect(self.stop)
        self._remove = exchange.add_agent_listener(self._heard)
        # A tab closed without shutdown (the window torn down) must stop listening too: the
        # agents outlive it, and would call into its deleted widgets.
        tab.command_edit.destroyed.connect(lambda *_: self._remove())
        self.follow_binding()

    def follow_binding(self) -> None:
        """Show the command field and the controls only for a binding that launches."""
        launches = traits(self._tab.binding).launches
        for widget in (self._tab.command_edit, self.state_label, self.log_button, self.stop_button):
            widget.setVisible(launches)
        self.refresh()

    def agent(self) -> AgentProcess | None:
        """The agent of the tab's command line, if one was started."""
        command = self._tab.command_edit.text().strip()
        found = [a for a in exchange.agents() if a.command == command]
        return found[-1] if found else None

    def refresh(self) -> None:
        """The state label, the buttons and the open log follow the agent."""
        agent = self.agent()
        if agent is None:
            self.state_label.setText("not started")
        elif agent.returncode is None:
            self.state_label.setText(f"running (pid {agent.pid})")
        else:
            self.state_label.setText(f"ended ({agent.returncode})")
        self.stop_button.setEnabled(agent is not None and agent.returncode is None)
        self.log_button.setEnabled(agent is not None)
        if self._log_view is not None:
            self._log_view.set_text("\n".join(agent.stderr) if agent else "")

    def show_log(self) -> None:
        """Open (or raise) the agent log window."""
        if self._log is None:
            self._log = QDialog(self._tab.command_edit.window())
            self._log.setObjectName("agentLogDialog")
            self._log.setWindowTitle("Agent log (stderr)")
            self._log_view = CodeView("agentLogView", read_only=True)
            layout = QVBoxLayout(self._log)
            layout.addWidget(self._log_view)
            self._log.resize(720, 420)
        self.refresh()
        self._log.show()
        self._log.raise_()

    def stop(self) -> None:
        """Stop the tab's agent."""
        command = self._tab.command_edit.text().strip()
        self._stopping.start(exchange.stop_agent(command), then=self.refresh)

    async def shutdown(self) -> None:
        """Stop listening; a stop under way finishes."""
        self._remove()
        await self._stopping.join()

    def _heard(self, agent: AgentProcess, line: str) -> None:
        if agent.command != self._tab.command_edit.text().strip():
            return
        if not line or (self._log is not None and self._log.isVisible()):
            self.refresh()  # it started or ended, or the open log gets the line
