"""Send and Save ask the gate first: a body that does not fit the tab is held back.

A draft the user edited may no longer fit the tab's version and binding (a 0.3 body in a
1.0 gRPC tab, an envelope naming another method). Send checks the shape and the method's
schema (:func:`app.spec.request_validation.check_request_body`), Save the shape
(:func:`app.protocol.methods.body_shape.check_body`); either way the banner
(:mod:`app.ui.request.shape_banner`) says why and offers one click that fixes the draft and
goes on — the envelope's ``method`` set to the picked one when that is all, the draft
converted to the tab's version when the SDK's mapping can
(:func:`app.protocol.methods.convert.convert_request`), else the method's template — or the
action with the draft as it is. A draft that follows its template fits by construction and
is never held back. While the banner shows, every edit re-evaluates it: it changes with
the draft and goes once the draft fits.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from app.errors import UsageError
from app.protocol.methods.body_shape import ShapeIssue, ShapeProblem, check_body, expected_shape
from app.protocol.methods.convert import convert_request, counterpart, other
from app.spec.request_validation import check_request_body
from app.ui.request.body_follow import COMPARE_CHARS, replace_text

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QTabWidget

    from app.protocol.types import Binding, ProtocolVersion
    from app.ui.request.body_editor import BodyEditor
    from app.ui.request.body_follow import BodyFollow
    from app.ui.request.shape_banner import ShapeBanner

RECHECK_CHARS = 16 * COMPARE_CHARS
"""A bigger draft is not re-checked on every keystroke (parsing it would stall typing)."""


class Action(StrEnum):
    """What the gate holds back."""

    SEND = "send"
    SAVE = "save"


class ShapeGateTab(Protocol):
    """What the gate uses of its request tab (``RequestTab``, which creates it: typed here,
    not imported)."""

    @property
    def shape_banner(self) -> ShapeBanner: ...
    @property
    def body_editor(self) -> BodyEditor: ...
    @property
    def body_follow(self) -> BodyFollow: ...
    @property
    def editor_tabs(self) -> QTabWidget: ...
    @property
    def method_combo(self) -> QComboBox: ...
    @property
    def version_combo(self) -> QComboBox: ...
    @property
    def binding_combo(self) -> QComboBox: ...
    @property
    def version(self) -> ProtocolVersion: ...
    @property
    def binding(self) -> Binding: ...
    @property
    def method(self) -> str: ...


class ShapeGate(QObject):
    """Holds Send or Save back while the draft does not fit (module docstring)."""

    def __init__(self, tab: ShapeGateTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._action = Action.SEND
        self._then: Callable[[], None] | None = None
        self._fixed: tuple[tuple[object, ...], tuple[str, str] | None] | None = None
        banner = tab.shape_banner
        banner.generate_requested.connect(self._fix_and_go)
        banner.send_anyway_requested.connect(self._go)
        tab.body_editor.textChanged.connect(self.recheck)
        for combo in (tab.method_combo, tab.version_combo, tab.binding_combo):
            combo.currentIndexChanged.connect(self.recheck)

    def ask(self, action: Action, then: Callable[[], None]) -> bool:
        """Call ``then`` at once when the draft fits (True); else show why and hold it for
        the banner's buttons (False)."""
        tab = self._tab
        problems = [] if tab.body_follow.following else self.problems(action)
        if not problems:
            then()
            return True
        self._action, self._then = action, then
        tab.editor_tabs.setCurrentIndex(0)  # the Body page, where the banner is
        self._show(problems)
        return False

    def problems(self, action: Action) -> list[ShapeProblem]:
        """Why the draft should not be sent (shape, then schema) or saved (shape); text
        that is not JSON is left to the exchange and the spec validator to report."""
        tab = self._tab
        check = check_request_body if action is Action.SEND else check_body
        found = check(tab.version, tab.binding, tab.method, tab.body_editor.toPlainText())
        return [p for p in found if p.issue is not ShapeIssue.NOT_JSON]

    def recheck(self, *_args: object) -> None:
        """Re-evaluate the banner after an edit: new reasons, or gone once the draft fits."""
        banner = self._tab.shape_banner
        if banner.isHidden() or self._then is None:
            return
        if self._tab.body_editor.text_units() > RECHECK_CHARS:
            return
        problems = self.problems(self._action)
        if problems:
            self._show(problems)
        else:
            self._then = None
            banner.dismiss()

    def _show(self, problems: list[ShapeProblem]) -> None:
        tab = self._tab
        verb = "sent" if self._action is Action.SEND else "saved"
        way = "send" if self._action is Action.SEND else "save"
        fixed = self._fix(problems)
        fix = f"{fixed[0]} and {way}" if fixed is not None else f"Use the template and {way}"
        tab.shape_banner.show_problems(
            problems,
            expected_shape(tab.version, tab.binding),
            verb=verb,
            fix=fix,
            anyway=f"{way.capitalize()} anyway",
        )

    def _fix(self, problems: list[ShapeProblem]) -> tuple[str, str] | None:
        """``(what, body)``: the draft made to fit while keeping what the user typed — the
        envelope's method set when that is all that is wrong, else the draft as the tab's
        version's request when it is the other version's; None: only the template fits."""
        tab = self._tab
        text = tab.body_editor.toPlainText()
        key: tuple[object, ...] = (tab.version, tab.binding, tab.method, text)
        if self._fixed is not None and self._fixed[0] == key:
            return self._fixed[1]
        found: tuple[str, str] | None = None
        if len(text) <= RECHECK_CHARS:
            if all(p.issue is ShapeIssue.METHOD_MISMATCH for p in problems):
                found = self._with_method(text)
            if found is None:
                found = self._converted(text)
        self._fixed = (key, found)
        return found

    def _with_method(self, text: str) -> tuple[str, str] | None:
        tab = self._tab
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            return None
        if not isinstance(body, dict):
            return None
        body["method"] = tab.method
        fixed = json.dumps(body, indent=2, ensure_ascii=False)
        if check_body(tab.version, tab.binding, tab.method, fixed):
            return None
        return "Set the method", fixed

    def _converted(self, text: str) -> tuple[str, str] | None:
        tab = self._tab
        name = counterpart(tab.version, tab.method)
        if not name:
            return None
        try:
            converted = convert_request(other(tab.version), tab.binding, name, text)
        except (UsageError, ValueError, TypeError, AttributeError):
            return None  # not the other version's request either
        if check_body(tab.version, tab.binding, tab.method, converted.body):
            return None
        return f"Convert to {tab.version.value}", converted.body

    def _fix_and_go(self) -> None:
        fixed = self._fix(self.problems(self._action))  # the cached one unless edited since
        if fixed is not None:
            replace_text(self._tab.body_editor, fixed[1])
        else:
            self._tab.body_follow.replace()
        self._go()

    def _go(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            then()
