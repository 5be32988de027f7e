"""Where the app keeps its files: every user directory and file, named in one place.

The directories are platformdirs' user directories for :data:`APP_NAME` (on Linux the XDG
base directories: ``$XDG_CONFIG_HOME/a2a-workbench``, ``$XDG_DATA_HOME/a2a-workbench``, …);
the files live in them:

========================  ======  ============================================
file                      where   kept by
========================  ======  ============================================
``settings.json``         config  :mod:`app.settings` (theme, timeout, layout)
``network.json``          config  the proxy setting (``app.ui.shell.proxy_settings``)
``recent-specs.json``     config  the spec dock's *Recent specs*
``secrets.json``          config  :class:`app.spec.variables.SecretStore` without a keyring
``session.json``          data    :mod:`app.session` (open tabs, drafts)
``history.sqlite3``       data    :mod:`app.history.store`
========================  ======  ============================================

Secrets go to the OS keyring first, under the service :data:`KEYRING_SERVICE`.

Nothing here creates a directory: the writer of a file does, when it writes. The tests point
every directory at a temporary home through ``HOME`` and the ``XDG_*`` variables
(tests/conftest.py); ``--selftest`` through :func:`isolate`, which works the same on every
platform (platformdirs reads no ``XDG_*`` variable on macOS or Windows).
platformdirs is imported on first use, and the config directory, read before the first
paint, is worked out without it where that is plain (:func:`user_config_dir`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "a2a-workbench"
"""The directory name under each platform's user directories."""

KEYRING_SERVICE = APP_NAME
"""The OS keyring service the app's secrets are stored under."""

_isolated: Path | None = None


def isolate(root: Path | None) -> None:
    """Put every directory of this module under ``root`` from now on (``config``, ``data``,
    ``state``, ``cache``, ``logs``), so that a run neither reads nor writes the user's
    files; None goes back to the user's directories.

    Args:
        root: an existing directory (``--selftest`` makes a temporary one), or None.
    """
    global _isolated
    _isolated = root


# --- directories ------------------------------------------------------------------------


def user_config_dir() -> str:
    """``platformdirs.user_config_dir(APP_NAME)``; on Linux with an absolute
    ``$XDG_CONFIG_HOME`` or ``$HOME`` worked out here as every platformdirs 4 does it:
    importing platformdirs takes ~6 ms before the first paint (bench/startup.py)."""
    if _isolated is not None:
        return str(_isolated / "config")
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    home = os.environ.get("HOME", "")
    plain_linux = sys.platform == "linux" and not hasattr(sys, "getandroidapilevel")
    if plain_linux and "ANDROID_DATA" not in os.environ:
        if os.path.isabs(xdg) and xdg == xdg.strip():
            return os.path.join(xdg, APP_NAME)
        if not xdg and os.path.isabs(home) and home == home.strip():
            return os.path.join(os.path.expanduser("~/.config"), APP_NAME)
    import platformdirs

    return platformdirs.user_config_dir(APP_NAME)


def user_data_dir() -> str:
    """``platformdirs.user_data_dir(APP_NAME)``: the session and the history."""
    if _isolated is not None:
        return str(_isolated / "data")
    import platformdirs

    return platformdirs.user_data_dir(APP_NAME)


def user_state_dir() -> str:
    """``platformdirs.user_state_dir(APP_NAME)``: state worth keeping across runs that is
    neither a setting nor the user's data."""
    if _isolated is not None:
        return str(_isolated / "state")
    import platformdirs

    return platformdirs.user_state_dir(APP_NAME)


def user_cache_dir() -> str:
    """``platformdirs.user_cache_dir(APP_NAME)``: what may be deleted at any time."""
    if _isolated is not None:
        return str(_isolated / "cache")
    import platformdirs

    return platformdirs.user_cache_dir(APP_NAME)


def user_log_dir() -> str:
    """``platformdirs.user_log_dir(APP_NAME)``: log files."""
    if _isolated is not None:
        return str(_isolated / "logs")
    import platformdirs

    return platformdirs.user_log_dir(APP_NAME)


def user_documents_dir() -> Path:
    """Where a file dialog opens when the user has picked no folder yet: the documents
    folder (``platformdirs.user_documents_dir()``: XDG's ``DOCUMENTS``, ``~/Documents``)
    when it exists, else the home folder; never the directory the app was started in."""
    import platformdirs

    found = Path(platformdirs.user_documents_dir())
    return found if found.is_dir() else Path.home()


# --- files ------------------------------------------------------------------------------


def settings_path() -> Path:
    """``settings.json`` in the config directory: the desktop settings."""
    return Path(user_config_dir()) / "settings.json"


def network_settings_path() -> Path:
    """``network.json`` in the config directory: the proxy setting."""
    return Path(user_config_dir()) / "network.json"


def recent_specs_path() -> Path:
    """``recent-specs.json`` in the config directory: the recently opened specs."""
    return Path(user_config_dir()) / "recent-specs.json"


def secrets_path() -> Path:
    """``secrets.json`` in the config directory: the secrets file the GUI and ``run`` share
    when there is no OS keyring (mode 0600)."""
    return Path(user_config_dir()) / "secrets.json"


def session_path() -> Path:
    """``session.json`` in the data directory: the open tabs and drafts."""
    return Path(user_data_dir()) / "session.json"


def history_path() -> Path:
    """``history.sqlite3`` in the data directory: the recorded exchanges."""
    return Path(user_data_dir()) / "history.sqlite3"
