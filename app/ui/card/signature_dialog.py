"""*Verify signature*: check an Agent Card's JWS signatures against a JWKS the user pastes.

Non-modal (``exec()`` would nest an event loop inside qasync's). Nothing is fetched: the
pasted JWKS is the only trust root; ``jku``/``x5u`` are shown as text. Verification itself
is :func:`app.protocol.card.jws_verify.verify_card`; this dialog only collects input and shows
the verdicts and diagnostics (canonical payload bytes per profile, members the signature
does not cover, headers, notes).

Verifying runs in a worker thread (a card with thousands of signatures takes seconds):
the dialog stays responsive, shows "Verifying…" with a busy bar, and *Cancel* or closing
the dialog abandons the run (the result is dropped; the daemon thread finishes on its own).

Widgets (objectNames): ``jwksEdit``, ``loadJwksButton``, ``loadDemoJwksButton``,
``strictCheck``, ``verifyButton``, ``verifyProgress``, ``verifyStatusLabel``,
``signatureResultsTable``, ``diagnosticsButton``, ``diagnosticsTabs``,
``payloadProfileCombo``, ``payloadView``, ``uncoveredView``, ``headersDiagView``, ``notesView``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.protocol.card.canonical import Profile
from app.protocol.card.jwks import Jwks, JwksError, parse_jwks
from app.protocol.card.jws_verify import CardStatus, CardVerification, ProfileMode, verify_card
from app.protocol.wire.json_duplicates import DuplicateMember
from app.ui.card.card_models import VerdictModel
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel, shown
from app.ui.shell.tasks import OwnedTask
from app.ui.shell.widgets import CodeView

log = logging.getLogger(__name__)
_T = TypeVar("_T")

MAX_JWKS_BYTES = 1_048_576

# Theme roles of the verdict badge (colours: app/ui/shell/theme.py).
_BADGE_SHAPE = "border-radius: 4px; padding: 3px 10px; font-weight: bold;"
_ROLES = {
    CardStatus.VALID: "badge-ok",
    CardStatus.INVALID: "badge-error",
    CardStatus.NO_TRUSTED_KEY: "badge-warn",
    CardStatus.UNSIGNED: "badge-neutral",
    CardStatus.NOT_A_CARD: "badge-neutral",
}


def signature_count(card: Any) -> int:
    """Entries of the card's ``signatures`` (0 when absent or not an array)."""
    sigs = card.get("signatures") if isinstance(card, dict) else None
    return len(sigs) if isinstance(sigs, list) else 0


class SignatureDialog(QDialog):
    """Verify one card's signatures (``objectName`` ``signatureDialog``).

    Args:
        card: the parsed card JSON, exactly as served.
        source: where the card came from (URL or file), shown in the title line.
        demo_jwks_path: the demo agent's public JWKS file, offered with one click when the
            card came from the demo agent; ``None`` hides that button.
        duplicates: member names the card's text writes twice: no signature is then valid
            (:func:`~app.protocol.card.jws_verify.verify_card`).
        parent: parent widget (the dialog stays non-modal).
    """

    def __init__(
        self,
        card: Any,
        source: str,
        *,
        demo_jwks_path: str | None = None,
        duplicates: Sequence[DuplicateMember] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("signatureDialog")
        self.setWindowTitle("Verify Agent Card signature")
        self.setModal(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        # Two thirds of a 1280×800 window: the card page beside it stays in sight (the
        # verdict table holds a row per signature; Diagnostics grow the dialog's lower half).
        self.resize(860, 540)
        self.card = card
        self.source = source
        self.demo_jwks_path = demo_jwks_path
        self.duplicates = tuple(duplicates)
        self.verification: CardVerification | None = None
        self._file_dialog: QFileDialog | None = None
        self._task = OwnedTask()
        self._current: asyncio.Task[None] | None = None

        count = signature_count(card)
        title = QLabel(
            f"<b>Card:</b> {_esc(source)} — "
            + (f"{count} signature{'s' if count != 1 else ''}" if count else "no signatures")
        )
        title.setObjectName("verifyCardLabel")
        title.setTextFormat(Qt.TextFormat.RichText)  # the source is _esc()aped
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        title.setWordWrap(True)
        trust = QLabel(
            "Paste a JWKS you trust, or load it from a file. Nothing is fetched: "
            "<code>jku</code>, <code>x5u</code> and other URLs are shown, never followed."
        )
        trust.setWordWrap(True)

        self.jwks_edit = CodeView("jwksEdit", read_only=False)
        self.jwks_edit.setPlaceholderText('{"keys": [ … ]}  — a JWKS, or one JWK')
        self.jwks_edit.setMinimumHeight(90)
        self.load_button = QPushButton("Load file…")
        self.load_button.setObjectName("loadJwksButton")
        self.demo_button = QPushButton("Load the demo agent's JWKS")
        self.demo_button.setObjectName("loadDemoJwksButton")
        self.demo_button.setToolTip(f"Read {demo_jwks_path}" if demo_jwks_path else "")
        self.demo_button.setVisible(demo_jwks_path is not None)
        self.strict_check = QCheckBox("Strict (spec-literal §8.4.1 canonicalisation only)")
        self.strict_check.setObjectName("strictCheck")
        self.strict_check.setToolTip(
            "Accept only the spec's canonical form, which keeps empty REQUIRED fields. "
            "Official SDK signers drop them, so their signatures fail in strict mode."
        )
        self.verify_button = QPushButton("Verify")
        self.verify_button.setObjectName("verifyButton")
        self.verify_button.setDefault(True)
        self.progress = QProgressBar()
        self.progress.setObjectName("verifyProgress")
        self.progress.setRange(0, 0)  # busy: verify_card reports no progress of its own
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()

        self.status_label = PlainLabel(multiline=False)
        self.status_label.setObjectName("verifyStatusLabel")
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary_label = PlainLabel()  # quotes files and errors
        self.summary_label.setObjectName("verifySummaryLabel")
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.model = VerdictModel(self)
        self.table = QTableView()
        self.table.setObjectName("signatureResultsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Size columns from the first rows only: measuring thousands of verdicts freezes.
        self.table.horizontalHeader().setResizeContentsPrecision(50)
        self.table.setMinimumHeight(80)

        self.diagnostics_button = QToolButton()
        self.diagnostics_button.setObjectName("diagnosticsButton")
        self.diagnostics_button.setText("Diagnostics")
        self.diagnostics_button.setCheckable(True)
        self.diagnostics_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.diagnostics_button.setArrowType(Qt.ArrowType.RightArrow)
        self.diagnostics_button.setToolTip(
            "Canonical payload bytes, members not covered, headers and notes"
        )

        self.profile_combo = QComboBox()
        self.profile_combo.setObjectName("payloadProfileCombo")
        for profile in Profile:
            self.profile_combo.addItem(profile.title, profile)
        self.payload_info = PlainLabel()
        self.payload_info.setObjectName("payloadInfoLabel")
        self.payload_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.payload_view = CodeView("payloadView", read_only=True)
        self.payload_view.setLineWrapMode(CodeView.LineWrapMode.WidgetWidth)
        payload_page = QWidget()
        pl = QVBoxLayout(payload_page)
        pl.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        row.addWidget(QLabel("Signer profile"))
        row.addWidget(self.profile_combo, 1)
        pl.addLayout(row)
        pl.addWidget(self.payload_info)
        pl.addWidget(self.payload_view, 1)
        self.uncovered_view = CodeView("uncoveredView", read_only=True, json=False)
        self.headers_view = CodeView("headersDiagView", read_only=True, json=False)
        self.headers_view.setLineWrapMode(CodeView.LineWrapMode.WidgetWidth)
        self.notes_view = CodeView("notesView", read_only=True, json=False)
        self.notes_view.setLineWrapMode(CodeView.LineWrapMode.WidgetWidth)
        self.diagnostics = QTabWidget()
        self.diagnostics.setObjectName("diagnosticsTabs")
        self.diagnostics.addTab(payload_page, "Canonical payloads")
        self.diagnostics.addTab(self.uncovered_view, "Not covered")
        self.diagnostics.addTab(self.headers_view, "Headers && URLs")
        self.diagnostics.addTab(self.notes_view, "Notes")
        self.diagnostics.setVisible(False)

        buttons = QHBoxLayout()
        buttons.addWidget(self.load_button)
        buttons.addWidget(self.demo_button)
        buttons.addStretch(1)
        buttons.addWidget(self.strict_check)
        buttons.addWidget(self.verify_button)
        result_row = QHBoxLayout()
        result_row.addWidget(self.status_label)
        result_row.addWidget(self.progress)
        result_row.addWidget(self.summary_label, 1)

        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(title)
        tl.addWidget(trust)
        tl.addWidget(self.jwks_edit, 1)
        tl.addLayout(buttons)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(result_row)
        bl.addWidget(self.table, 1)
        bl.addWidget(self.diagnostics_button, 0, Qt.AlignmentFlag.AlignLeft)
        bl.addWidget(self.diagnostics, 2)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([200, 340])
        split.setChildrenCollapsible(False)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(close)

        self.load_button.clicked.connect(self._choose_file)
        self.demo_button.clicked.connect(self.load_demo_jwks)
        self.verify_button.clicked.connect(self._on_verify_button_clicked)
        self.diagnostics_button.toggled.connect(self.show_diagnostics)
        self.profile_combo.currentIndexChanged.connect(self._show_payload)
        self._show_initial_status()

    # --- input ----------------------------------------------------------------------

    def _choose_file(self) -> None:
        # Non-modal file dialog: open(), never exec() (a nested loop under qasync).
        dialog = QFileDialog(self, "Load JWKS", "", "JSON (*.json *.jwks);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.load_jwks_file)
        self._file_dialog = dialog
        dialog.open()

    def load_jwks_file(self, path: str) -> bool:
        """Put the JWKS in ``path`` into the editor; False (and a message) when unreadable."""
        try:
            data = Path(path).read_bytes()[: MAX_JWKS_BYTES + 1]
        except OSError as exc:
            self._set_status(None, f"Cannot read {path}: {exc.strerror or exc}")
            return False
        if len(data) > MAX_JWKS_BYTES:
            self._set_status(None, f"{path} is larger than 1 MiB; not a JWKS")
            return False
        self.jwks_edit.set_text(data.decode("utf-8", errors="replace"))
        self.summary_label.setText(f"JWKS loaded from {path}. Press Verify.")
        return True

    def load_demo_jwks(self) -> None:
        """Load the demo agent's public JWKS file (the button is shown only for its card)."""
        if self.demo_jwks_path is not None:
            self.load_jwks_file(self.demo_jwks_path)

    # --- verification ----------------------------------------------------------------

    @property
    def verifying(self) -> bool:
        """True while a verification runs in the worker thread."""
        return self._task.running

    def _on_verify_button_clicked(self) -> None:
        if self.verifying:
            self.cancel_verification()
        else:
            self.verify()

    def cancel_verification(self) -> None:
        """Stop waiting for the running verification (its result is dropped)."""
        self._task.cancel()

    def verify(self) -> CardVerification | None:
        """Verify the card with the pasted JWKS.

        An unsigned card (or a non-object) is answered at once and the result returned;
        signatures are checked in a worker thread (:attr:`verifying`), and the result is
        shown when it arrives. Returns None then, and when the input is unusable.
        """
        if self.verifying:
            return None
        text = self.jwks_edit.toPlainText().strip()
        unsigned = signature_count(self.card) == 0
        if not text and not unsigned:
            self._set_status(None, "Paste a JWKS (or load one) first.")
            return None
        try:
            jwks = parse_jwks(text) if text else Jwks(keys=())
        except JwksError as exc:
            self._set_status(None, f"Not a JWKS: {exc}")
            return None
        mode = ProfileMode.SPEC if self.strict_check.isChecked() else ProfileMode.ANY
        if unsigned:  # nothing to check: verify_card returns at once
            try:
                result = verify_card(self.card, jwks, mode=mode, duplicates=self.duplicates)
            except Exception as exc:  # verify_card promises not to raise; keep the dialog
                log.exception("verify_card raised")
                self._set_status(None, f"Verification failed unexpectedly: {exc}")
                return None
            self.show_result(result)
            return result
        count = signature_count(self.card)
        plural = "s" if count != 1 else ""
        self._set_busy(True)
        self._set_status(
            None, f"Verifying {count} signature{plural}… (Cancel, or close the dialog, to stop)"
        )
        self.status_label.setText("verifying…")
        task = self._task.start(self._verify_in_worker(jwks, mode))
        task.add_done_callback(self._on_task_done)
        self._current = task
        return None

    def _on_task_done(self, task: asyncio.Task[None]) -> None:
        # Also reached when the task is cancelled before it ever ran.
        if task.cancelled() and task is self._current and self.isVisible():
            self._set_busy(False)
            self._set_status(None, "Verification cancelled.")

    async def _verify_in_worker(self, jwks: Jwks, mode: ProfileMode) -> None:
        started = time.perf_counter()
        try:
            result = await run_in_daemon_thread(
                verify_card, self.card, jwks, mode=mode, duplicates=self.duplicates
            )
        except Exception as exc:  # verify_card promises not to raise; keep the dialog
            log.exception("verify_card raised")
            self._set_busy(False)
            self._set_status(None, f"Verification failed unexpectedly: {exc}")
            return
        self._set_busy(False)
        self.show_result(result)
        elapsed = time.perf_counter() - started
        if elapsed >= 1.0:
            self.summary_label.setText(f"{self.summary_label.text()} ({elapsed:.1f} s)")

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.verify_button.setText("Cancel" if busy else "Verify")
        self.verify_button.setToolTip("Stop verifying" if busy else "")
        for widget in (self.load_button, self.demo_button, self.strict_check):
            widget.setEnabled(not busy)

    def done(self, result: int) -> None:
        """Closing by Esc or the button box: stop a running verification first."""
        self.cancel_verification()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel_verification()
        super().closeEvent(event)

    def show_result(self, result: CardVerification) -> None:
        """Fill the verdict rows and the diagnostics from ``result``."""
        self.verification = result
        self.model.set_rows(result.signatures)
        self.table.resizeColumnsToContents()
        valid = sum(1 for r in result.signatures if r.label.startswith("valid"))
        text = {
            CardStatus.UNSIGNED: "unsigned",
            CardStatus.VALID: "valid",
            CardStatus.INVALID: "invalid",
            CardStatus.NO_TRUSTED_KEY: "no trusted key",
            CardStatus.NOT_A_CARD: "not a card",
        }[result.status]
        if result.status is CardStatus.UNSIGNED:
            summary = "The card has no signatures: there is nothing to verify (not invalid)."
        elif result.status is CardStatus.NOT_A_CARD:
            summary = "The document is not a JSON object."
        elif result.status is CardStatus.NO_TRUSTED_KEY:
            summary = (
                "No signature names a key of this JWKS (by kid): none could be checked, "
                "which says nothing against the card (not invalid). Paste the signer's JWKS."
            )
        else:
            n = len(result.signatures)
            summary = f"{valid} of {n} signature{'s' if n != 1 else ''} valid"
            strict = result.mode is ProfileMode.SPEC
            summary += " (strict: spec-literal form only)." if strict else "."
            if self.duplicates:
                summary += (
                    f" The card writes {self.duplicates[0].path} twice: another parser reads "
                    "another card, so no signature over it is valid."
                )
            if any(r.sdk_canonicalisation_only for r in result.signatures):
                summary += (
                    " A signature valid only under SDK canonicalisation does not match the "
                    "spec-literal form: strict clients reject it."
                )
        self._set_status(result.status, summary, text)
        self._show_payload()
        self._show_uncovered()
        self._show_headers()
        self._show_notes()

    # --- diagnostics -----------------------------------------------------------------

    def show_diagnostics(self, on: bool) -> None:
        """Open or close the diagnostics section."""
        self.diagnostics_button.setChecked(on)
        self.diagnostics_button.setArrowType(
            Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow
        )
        self.diagnostics.setVisible(on)

    def _show_payload(self) -> None:
        if self.verification is None:
            return
        profile = self.profile_combo.currentData()
        payload = self.verification.payload(profile) if isinstance(profile, Profile) else None
        if payload is None or payload.payload is None:
            why = payload.error if payload is not None else "not computed"
            self.payload_info.setText(f"No payload for this profile: {why}")
            self.payload_view.set_text("")
            return
        data = payload.payload
        matched = [r.index for r in self.verification.signatures if profile in r.matched_profiles]
        self.payload_info.setText(
            f"{len(data)} bytes · SHA-256 {hashlib.sha256(data).hexdigest()}"
            + (f" · matches signature {', '.join(map(str, matched))}" if matched else "")
        )
        # The exact bytes, decoded as UTF-8 (JCS output always is).
        self.payload_view.set_text(data.decode("utf-8", errors="backslashreplace"))

    def _show_uncovered(self) -> None:
        result = self.verification
        if result is None:
            return
        if not result.uncovered:
            self.uncovered_view.set_text("Every served member is covered by the signed payload.")
            return
        basis = result.uncovered_profile.value if result.uncovered_profile else "?"
        lines = [f"Members of the served card NOT covered by the signature (profile {basis}):", ""]
        lines += [f"{m.path}\t{m.reason}" for m in result.uncovered]
        self.uncovered_view.set_text("\n".join(lines))

    def _show_headers(self) -> None:
        result = self.verification
        if result is None:
            return
        blocks = []
        for r in result.signatures:
            lines = [f"signatures[{r.index}]: {r.label} — {r.message}"]
            lines.append(f"  protected header: {r.protected_header or '(undecodable)'}")
            if r.unprotected_header:
                lines.append(f"  unprotected header (NOT signed): {r.unprotected_header}")
            if r.jku:
                lines.append(f"  jku: {r.jku}  (shown, never followed)")
            if r.x5u:
                lines.append(f"  x5u: {r.x5u}  (shown, never followed)")
            if r.key_index is not None:
                lines.append(f"  JWKS key used: keys[{r.key_index}]")
            lines += [f"  note: {n}" for n in r.notes]
            blocks.append("\n".join(lines))
        self.headers_view.set_text("\n\n".join(blocks) or "No signatures.")

    def _show_notes(self) -> None:
        result = self.verification
        if result is None:
            return
        self.notes_view.set_text("\n\n".join(result.notes) or "No notes.")

    # --- helpers --------------------------------------------------------------------

    def _show_initial_status(self) -> None:
        if signature_count(self.card) == 0:
            sigs = self.card.get("signatures") if isinstance(self.card, dict) else None
            if sigs is None or sigs == []:
                self.verify()  # an unsigned card needs no JWKS: say so at once
                return
        self._set_status(None, "Paste or load a JWKS, then press Verify.")

    def _set_status(self, status: CardStatus | None, summary: str, text: str = "") -> None:
        if status is None:
            self.status_label.setText("not verified")
            theme.style(self.status_label, "badge-idle", "border-radius: 4px; padding: 3px 10px;")
        else:
            self.status_label.setText(text)
            theme.style(self.status_label, _ROLES[status], _BADGE_SHAPE)
        self.summary_label.setText(summary)


def _esc(text: str) -> str:
    """``text`` for a rich-text label: shown as written, control characters too."""
    return html.escape(shown(text, multiline=False), quote=False)


async def run_in_daemon_thread(func: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``asyncio.to_thread`` on a daemon thread.

    ``verify_card`` cannot be interrupted; cancelling the awaiting task drops the result
    at once, and a daemon thread does not hold up the app's exit the way the loop's default
    executor does (its threads are joined at interpreter shutdown).
    """
    loop = asyncio.get_event_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def deliver(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = func(*args, **kwargs)
        except BaseException as exc:  # handed to the awaiting task
            error = exc
        if loop.is_closed():  # the app quit meanwhile: nobody waits for this
            return
        with contextlib.suppress(RuntimeError):  # it closed just now
            loop.call_soon_threadsafe(deliver, value, error)

    threading.Thread(target=work, name=f"worker-{func.__name__}", daemon=True).start()
    return await future
