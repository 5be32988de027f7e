"""Light and dark themes: the palettes, the colour table every view takes its colours from,
and following the operating system's colour scheme.

No view hard-codes a colour: it asks :func:`colours` (the table matching the application
palette now) or uses ``palette(...)`` in a style sheet. Style sheets that need table colours
are set with :func:`style`, which remembers the role on the widget, so that a theme change
re-applies every one of them (:meth:`ThemeManager.apply`); highlighters and item models read
:func:`colours` when they paint and are refreshed by the same change.

Contrast: every foreground of the tables reaches WCAG 2.x AA (4.5:1, :func:`contrast_ratio`)
against the background it is drawn on (tests/ui/test_theme.py checks both tables).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from app.settings import ThemeChoice

ROLE_PROPERTY = "themeRole"
EXTRA_PROPERTY = "themeExtra"


class Status(StrEnum):
    """How something went or goes, with one colour per theme wherever it shows: the
    response's badge, the timeline's state badge and states, History's outcome column."""

    OK = "ok"
    ERROR = "error"
    WARNING = "warning"
    STREAMING = "streaming"
    """In progress: sending, a stream open, a task submitted or working."""
    CANCELLED = "cancelled"
    NEUTRAL = "neutral"


# Keyed by ``app.protocol.events.Outcome`` values (not imported: the theme is applied before
# the first paint, the protocol modules after it); tests/ui/test_theme.py checks every one.
OUTCOME_STATUS = {
    "ok": Status.OK,
    "rpc_error": Status.ERROR,
    "protocol_error": Status.ERROR,
    "transport_error": Status.ERROR,
    "usage_error": Status.WARNING,  # "Not sent": nothing went wrong on the wire
    "cancelled": Status.CANCELLED,
}

# Keyed by task state value (``app.protocol.stream.stream_items.TaskState``).
STATE_STATUS = {
    "submitted": Status.STREAMING,
    "working": Status.STREAMING,
    "input-required": Status.WARNING,
    "auth-required": Status.WARNING,
    "completed": Status.OK,
    "failed": Status.ERROR,
    "rejected": Status.ERROR,
    "canceled": Status.CANCELLED,
    "unknown": Status.NEUTRAL,
}


def outcome_status(outcome: str) -> Status:
    """The status of an exchange's outcome (neutral for one not known, e.g. incomplete)."""
    return OUTCOME_STATUS.get(outcome, Status.NEUTRAL)


@dataclass(frozen=True, slots=True)
class Colours:
    """One theme's colours (``#rrggbb``). ``status_text`` colours are drawn on the
    palette's Base/Window; badges are ``badge_text`` on their ``status_badge`` background;
    banners and rows carry their own (foreground, background[, border]). Task states and
    the older ``badge_*`` / ``text_*`` names are views of the status table, so a colour is
    defined once."""

    dark: bool
    json_key: str
    json_string: str
    json_number: str
    json_literal: str
    badge_text: str
    text_muted: str
    error_banner: tuple[str, str, str]
    warn_banner: tuple[str, str, str]
    finding_row: tuple[str, str]
    marker_row: tuple[str, str]
    status_badge: dict[Status, str] = field(default_factory=dict)
    status_text: dict[Status, str] = field(default_factory=dict)

    @property
    def badge_ok(self) -> str:
        return self.status_badge[Status.OK]

    @property
    def badge_warn(self) -> str:
        return self.status_badge[Status.WARNING]

    @property
    def badge_error(self) -> str:
        return self.status_badge[Status.ERROR]

    @property
    def badge_neutral(self) -> str:
        return self.status_badge[Status.NEUTRAL]

    @property
    def text_ok(self) -> str:
        return self.status_text[Status.OK]

    @property
    def text_warn(self) -> str:
        return self.status_text[Status.WARNING]

    @property
    def text_error(self) -> str:
        return self.status_text[Status.ERROR]

    @property
    def state_badge(self) -> dict[str, str]:
        """Task state → badge background."""
        return {state: self.status_badge[status] for state, status in STATE_STATUS.items()}

    @property
    def state_text(self) -> dict[str, str]:
        """Task state → text colour on Base."""
        return {state: self.status_text[status] for state, status in STATE_STATUS.items()}

    # Keyed by method kind (``app.ui.collections.method_badge``): text on Base.
    method_text: dict[str, str] = field(default_factory=dict)

    def badge_for_state(self, state: str) -> str:
        """The state badge's background (neutral for a state without one)."""
        return self.status_badge[STATE_STATUS.get(state, Status.NEUTRAL)]

    def text_for_state(self, state: str) -> str | None:
        """The state's text colour on Base, None for an unknown state."""
        status = STATE_STATUS.get(state)
        return None if status is None else self.status_text[status]


LIGHT = Colours(
    dark=False,
    json_key="#1565c0",
    json_string="#277030",
    json_number="#9c5417",
    json_literal="#6a3de8",
    badge_text="#ffffff",
    text_muted="#666666",
    error_banner=("#b71c1c", "#ffebee", "#ef9a9a"),
    warn_banner=("#4e342e", "#fff8e1", "#ffb300"),
    finding_row=("#5d4200", "#fff3cd"),
    marker_row=("#0d3c61", "#e3f2fd"),
    status_badge={
        Status.OK: "#2e7d32",
        Status.ERROR: "#c62828",
        Status.WARNING: "#a35200",
        Status.STREAMING: "#1565c0",
        Status.CANCELLED: "#6a1b9a",
        Status.NEUTRAL: "#616161",
    },
    status_text={
        Status.OK: "#277030",
        Status.ERROR: "#c62828",
        Status.WARNING: "#8a5a00",
        Status.STREAMING: "#1565c0",
        Status.CANCELLED: "#6a1b9a",
        Status.NEUTRAL: "#616161",
    },
    method_text={
        "send": "#a35200",
        "stream": "#1565c0",
        "read": "#277030",
        "cancel": "#c62828",
        "push": "#6a1b9a",
        "other": "#616161",
    },
)

DARK = Colours(
    dark=True,
    json_key="#82b1ff",
    json_string="#a5d6a7",
    json_number="#ffb74d",
    json_literal="#ce93d8",
    badge_text="#ffffff",
    text_muted="#9e9e9e",
    error_banner=("#ffcdd2", "#4a1c1c", "#b71c1c"),
    warn_banner=("#ffe0a3", "#3d3117", "#8a6d1f"),
    finding_row=("#ffe0a3", "#3d3117"),
    marker_row=("#bbdefb", "#14314d"),
    status_badge=dict(LIGHT.status_badge),  # white text on them reads on either ground
    status_text={
        Status.OK: "#81c784",
        Status.ERROR: "#ef9a9a",
        Status.WARNING: "#ffcc80",
        Status.STREAMING: "#90caf9",
        Status.CANCELLED: "#ce93d8",
        Status.NEUTRAL: "#bdbdbd",
    },
    method_text={
        "send": "#ffb74d",
        "stream": "#90caf9",
        "read": "#81c784",
        "cancel": "#ef9a9a",
        "push": "#ce93d8",
        "other": "#bdbdbd",
    },
)


def dark_palette() -> QPalette:
    """The dark palette (Fusion-friendly; native styles get the OS's own via the scheme)."""
    p = QPalette()
    roles = QPalette.ColorRole
    table = {
        roles.Window: "#2b2b2b",
        roles.WindowText: "#e6e6e6",
        roles.Base: "#1e1e1e",
        roles.AlternateBase: "#262626",
        roles.ToolTipBase: "#3c3c3c",
        roles.ToolTipText: "#e6e6e6",
        roles.PlaceholderText: "#9e9e9e",
        roles.Text: "#e6e6e6",
        roles.Button: "#353535",
        roles.ButtonText: "#e6e6e6",
        roles.BrightText: "#ff8a80",
        roles.Light: "#505050",
        roles.Midlight: "#404040",
        roles.Mid: "#4a4a4a",
        roles.Dark: "#1a1a1a",
        roles.Shadow: "#000000",
        roles.Highlight: "#2f65ca",
        roles.HighlightedText: "#ffffff",
        roles.Link: "#82b1ff",
        roles.LinkVisited: "#ce93d8",
    }
    for role, colour in table.items():
        p.setColor(role, QColor(colour))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(disabled, role, QColor("#7a7a7a"))
    p.setColor(disabled, roles.Base, QColor("#262626"))
    return p


def is_dark(palette: QPalette) -> bool:
    """Whether ``palette`` is a dark one (its window colour is dark)."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colours() -> Colours:
    """The colour table for the application palette as it is now."""
    return DARK if is_dark(QGuiApplication.palette()) else LIGHT


def relative_luminance(colour: QColor) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast_ratio(a: QColor | str, b: QColor | str) -> float:
    """WCAG 2.x contrast ratio of two colours (1 to 21; AA body text needs 4.5)."""
    la, lb = sorted((relative_luminance(QColor(a)), relative_luminance(QColor(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@dataclass(frozen=True, slots=True)
class Brushes:
    """The table's colours as brushes, for item models (``data()`` runs per cell)."""

    error_text: QBrush
    muted_text: QBrush
    ok_text: QBrush
    warn_text: QBrush
    finding_text: QBrush
    finding_row: QBrush
    marker_text: QBrush
    marker_row: QBrush
    state_text: dict[str, QBrush]
    status_text: dict[Status, QBrush]


_brushes: tuple[Colours, Brushes] | None = None


def brushes() -> Brushes:
    """:class:`Brushes` of the current table (cached until the theme changes)."""
    global _brushes
    if _brushes is None:
        c = colours()

        def b(colour: str) -> QBrush:
            return QBrush(QColor(colour))

        _brushes = (
            c,
            Brushes(
                error_text=b(c.text_error),
                muted_text=b(c.text_muted),
                ok_text=b(c.text_ok),
                warn_text=b(c.text_warn),
                finding_text=b(c.finding_row[0]),
                finding_row=b(c.finding_row[1]),
                marker_text=b(c.marker_row[0]),
                marker_row=b(c.marker_row[1]),
                state_text={k: b(v) for k, v in c.state_text.items()},
                status_text={k: b(v) for k, v in c.status_text.items()},
            ),
        )
    return _brushes[1]


# --- style sheets by role ------------------------------------------------------------

BADGE_SHAPE = "border-radius: 4px; padding: 2px 8px;"


def css(role: str) -> str:
    """The colour part of a style sheet for ``role`` in the current theme.

    Roles: ``badge-status:<status>`` and ``text-status:<status>`` (:class:`Status`),
    ``badge-ok|warn|error|neutral``, ``badge-state:<state>``, ``badge-idle``,
    ``text-error``, ``text-warn``, ``banner-error``, ``banner-warn``, ``frame-warn:<name>``
    (a whole sheet for the QFrame named ``name`` and its labels), ``frame-info:<name>`` (the
    same in the marker rows' colours: news, not a warning), ``plain``.
    """
    c = colours()
    if role.startswith("badge-status:"):
        return f"color: {c.badge_text}; background: {c.status_badge[Status(role[13:])]};"
    if role.startswith("text-status:"):
        return f"color: {c.status_text[Status(role[12:])]};"
    if role.startswith("badge-state:"):
        return f"color: {c.badge_text}; background: {c.badge_for_state(role[12:])};"
    badges = {
        "badge-ok": c.badge_ok,
        "badge-warn": c.badge_warn,
        "badge-error": c.badge_error,
        "badge-neutral": c.badge_neutral,
    }
    if role in badges:
        return f"color: {c.badge_text}; background: {badges[role]};"
    if role == "badge-idle":
        return "color: palette(text); border: 1px solid palette(mid);"
    if role in ("banner-error", "banner-warn"):
        fg, bg, border = c.error_banner if role == "banner-error" else c.warn_banner
        return f"color: {fg}; background: {bg}; border: 1px solid {border};"
    if role.startswith(("frame-warn:", "frame-info:")):  # a QFrame with labels, by objectName
        fg, bg, border = c.warn_banner
        if role.startswith("frame-info:"):
            fg, bg = c.marker_row
            border = fg
        name = role[11:]
        return (
            f"QFrame#{name} {{ background: {bg}; border: 1px solid {border}; }}"
            f" QFrame#{name} QLabel {{ color: {fg}; }}"
        )
    return {"text-error": f"color: {c.text_error};", "text-warn": f"color: {c.text_warn};"}.get(
        role, ""
    )


def style(widget: QWidget, role: str, extra: str = "") -> None:
    """Give ``widget`` the style sheet of ``role`` (plus ``extra``, e.g. its shape), and
    again after every theme change. The role ``plain`` clears it; setting the role a
    widget already has does nothing."""
    if widget.property(ROLE_PROPERTY) == role and widget.property(EXTRA_PROPERTY) == extra:
        return  # a style sheet re-polishes the widget even when it is the same text
    widget.setProperty(ROLE_PROPERTY, role)
    widget.setProperty(EXTRA_PROPERTY, extra)
    widget.setStyleSheet(_sheet(role, extra))


def _sheet(role: str, extra: str) -> str:
    colour = css(role)
    if role.startswith("frame-"):  # selector-scoped: ``extra`` is scoped the same way
        return f"{colour} {extra}".strip()
    return f"{colour} {extra}".strip() if colour else ""


def restyle_all() -> None:
    """Re-apply every :func:`style` role and forget cached brushes (the palette changed)."""
    global _brushes
    _brushes = None
    for widget in QApplication.allWidgets():
        role = widget.property(ROLE_PROPERTY)
        if isinstance(role, str) and role:
            extra = widget.property(EXTRA_PROPERTY)
            widget.setStyleSheet(_sheet(role, extra if isinstance(extra, str) else ""))


# --- applying a theme ----------------------------------------------------------------


class ThemeManager(QObject):
    """Applies a :class:`ThemeChoice` to the application and follows the OS scheme.

    Signals:
        changed: the palette changed (arg: True when it is dark now).
    """

    changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.choice = ThemeChoice.SYSTEM
        self._applying = False
        self._os_scheme: Qt.ColorScheme | None = None  # last one the OS announced
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_scheme_changed)

    def apply(self, choice: ThemeChoice) -> None:
        """Use ``choice``: a fixed light or dark scheme, or the system's."""
        self.choice = choice
        hints = QGuiApplication.styleHints()
        # Native styles (Windows 11, macOS) follow the requested scheme themselves; the
        # change this announces is ours, not the OS's.
        self._applying = True
        try:
            if choice is ThemeChoice.SYSTEM:
                hints.unsetColorScheme()
            else:
                dark = choice is ThemeChoice.DARK
                hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
        finally:
            self._applying = False
        self._os_scheme = None
        self._apply_palette()

    def resolved_dark(self) -> bool:
        """Whether the choice means dark now (for *system*: the OS scheme)."""
        if self.choice is ThemeChoice.SYSTEM:
            scheme = self._os_scheme or QGuiApplication.styleHints().colorScheme()
            return scheme == Qt.ColorScheme.Dark
        return self.choice is ThemeChoice.DARK

    def _apply_palette(self) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        if self.resolved_dark():
            app.setPalette(dark_palette())
        else:
            app.setPalette(QPalette())  # the platform's own (light) palette
            if is_dark(app.palette()):  # a platform theme that stays dark: Fusion's light one
                app.setPalette(app.style().standardPalette())
        restyle_all()
        self.changed.emit(is_dark(app.palette()))

    def _on_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        if self._applying or self.choice is not ThemeChoice.SYSTEM:
            return
        self._os_scheme = scheme
        self._apply_palette()


_manager: ThemeManager | None = None


def manager() -> ThemeManager:
    """The application's one theme manager (created on first use, owned by the app)."""
    global _manager
    app = QApplication.instance()
    if _manager is None or _manager.parent() is not app:
        _manager = ThemeManager(app)
    return _manager
