"""A version switch keeps the method's job: ``SendStreamingMessage`` ↔ ``message/stream``.

The picker is refilled with the new version's methods and the method doing the same job is
selected (:func:`app.protocol.methods.catalog.counterpart`); an untouched draft follows
(:mod:`app.ui.request.body_follow`). A method with no counterpart (``ListTasks`` has none
in 0.3) keeps the tab on its version and says so in a bar under the endpoint
(``versionSwitchBar``, ``versionSwitchLabel``): the user picks the method to switch with
(``counterpartCombo``, ``switchVersionButton``) or stays (``stayOnVersionButton``). Picking
another method in the tab drops the bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton

from app.protocol.methods.catalog import counterpart, find_method, methods_for
from app.protocol.types import ProtocolVersion
from app.ui.shell import theme
from app.ui.shell.widgets import select_data

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.protocol.methods.catalog import MethodSpec


class VersionSwitchTab(Protocol):
    """What the switch uses of its request tab (``RequestTab``, which creates it: typed
    here, not imported)."""

    @property
    def version_combo(self) -> QComboBox: ...
    @property
    def method_combo(self) -> QComboBox: ...
    @property
    def version(self) -> ProtocolVersion: ...
    @property
    def method(self) -> str: ...
    @property
    def loading(self) -> bool:
        """True while a saved request is shown: its own method follows the version."""
        ...

    def fill_methods(self, select: str | None) -> None:
        """List the tab's version's methods in the picker and select ``select`` (None:
        the previous one if listed, else the first)."""
        ...


class VersionSwitch(QObject):
    """The method mapping of one tab and its bar; ``parent`` is the tab's widget, whose
    layout gets the bar under the endpoint row."""

    def __init__(self, tab: VersionSwitchTab, *, parent: QWidget) -> None:
        super().__init__(parent)
        self._tab = tab
        self._shown = tab.version  # the version whose methods the picker lists
        self._wanted: ProtocolVersion | None = None
        self._chosen: str | None = None
        self.bar = QFrame()
        self.bar.setObjectName("versionSwitchBar")
        shape = "QFrame#versionSwitchBar { border-radius: 4px; }"
        theme.style(self.bar, "frame-warn:versionSwitchBar", shape)
        self.label = QLabel()
        self.label.setObjectName("versionSwitchLabel")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.combo = QComboBox()
        self.combo.setObjectName("counterpartCombo")
        self.combo.setToolTip("The method the tab sends after the switch")
        # The longest push config name would widen the whole tab: the list pops up wider.
        self.combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.combo.setMinimumContentsLength(18)
        self.switch_button = QPushButton("Switch")
        self.switch_button.setObjectName("switchVersionButton")
        self.stay_button = QPushButton("Stay")
        self.stay_button.setObjectName("stayOnVersionButton")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.combo)
        row.addWidget(self.switch_button)
        row.addWidget(self.stay_button)
        self.bar.hide()
        layout = parent.layout()
        assert isinstance(layout, QBoxLayout)
        layout.insertWidget(1, self.bar)  # right under the endpoint row

        self.switch_button.clicked.connect(self.switch)
        self.stay_button.clicked.connect(self.bar.hide)
        tab.version_combo.currentIndexChanged.connect(self._on_version_changed)
        tab.method_combo.currentIndexChanged.connect(self._on_method_changed)

    def switch(self) -> None:
        """*Switch*: to the version asked for, with the method picked in the bar."""
        wanted = self._wanted
        if wanted is None:
            return
        self._chosen = str(self.combo.currentData())
        self.bar.hide()
        select_data(self._tab.version_combo, wanted)

    def _on_version_changed(self) -> None:
        tab = self._tab
        new, old = tab.version, self._shown
        if new is old:
            return
        spec = find_method(old, tab.method)
        chosen, self._chosen = self._chosen, None
        target = counterpart(spec, new) if spec is not None else None
        if chosen is None and target is None and spec is not None and not tab.loading:
            self._hold(spec, old, new)
            return
        self._shown = new
        self.bar.hide()
        tab.fill_methods(chosen or (target.name if target is not None else None))

    def _hold(self, spec: MethodSpec, old: ProtocolVersion, new: ProtocolVersion) -> None:
        # Back to the version the method belongs to, without a second round of listeners:
        # those after this one read the tab's version and see it unchanged.
        combo = self._tab.version_combo
        combo.blockSignals(True)
        try:
            select_data(combo, old)
        finally:
            combo.blockSignals(False)
        self._wanted = new
        self.combo.clear()
        for method in methods_for(new):
            if not method.legacy:
                self.combo.addItem(method.name, method.name)
        self.label.setText(
            f"A2A {new.value} has no {spec.name}, so this tab stays on {old.value}."
            f" Pick the {new.value} method to switch with:"
        )
        self.switch_button.setText(f"Switch to {new.value}")
        self.stay_button.setText(f"Stay on {old.value}")
        self.bar.show()

    def _on_method_changed(self) -> None:
        self.bar.hide()  # another method picked: the bar spoke of the one before
