"""The venv the real iac-code server runs from: ``.venv-iac`` in the repository root, built once.

iac-code needs an older ``a2a-sdk`` than the app (tests/peers/iac/requirements.txt says why),
so it cannot share the app's venv. The venv is built from ``requirements.txt`` with every
version pinned by ``requirements.lock`` (``pip -c``) and stamped with a hash of both files;
a venv whose stamp differs is built anew. ``make test`` builds it before pytest (the
``.venv-iac/.installed`` target); a bare ``pytest`` builds it on first use, under a file lock.

    python -m tests.peers.iac_venv                # build if missing or out of date
    python -m tests.peers.iac_venv --refresh-lock # resolve afresh, rewrite requirements.lock
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
IAC_DIR = Path(__file__).resolve().parent / "iac"
REQUIREMENTS = IAC_DIR / "requirements.txt"
LOCK = IAC_DIR / "requirements.lock"
VENV = REPO_ROOT / ".venv-iac"
STAMP = VENV / ".installed"  # the Makefile's target too
_LOCK_HEADER = """\
# Every version installed in .venv-iac, from `pip freeze` of a venv built from requirements.txt
# alone; tests/peers/iac_venv.py installs requirements.txt with `-c` this file.
# Refresh deliberately: python -m tests.peers.iac_venv --refresh-lock, then make test.
"""
_BUILD_TIMEOUT_S = 900


class VenvBuildError(RuntimeError):
    """pip failed; the message holds its output's tail."""


def venv_bin(name: str) -> Path:
    """A program in the venv's scripts folder (``iac-code``, ``python``)."""
    scripts = VENV / ("Scripts" if os.name == "nt" else "bin")
    return scripts / (f"{name}.exe" if os.name == "nt" else name)


def wanted_stamp() -> str:
    """The hash of the two files the venv is built from."""
    digest = hashlib.sha256()
    for path in (REQUIREMENTS, LOCK):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_current() -> bool:
    """Does ``.venv-iac`` exist, built from today's requirement files?"""
    try:
        return STAMP.read_text(encoding="utf-8").strip() == wanted_stamp()
    except OSError:
        return False


def ensure_venv() -> float:
    """Builds ``.venv-iac`` unless it is current; returns the seconds spent (0 when cached).

    Raises:
        VenvBuildError: pip failed.
    """
    if is_current():
        return 0.0
    with _interprocess_lock():
        if is_current():
            return 0.0
        started = time.monotonic()
        build(locked=True, quiet=True)
        return time.monotonic() - started


def build(*, locked: bool, quiet: bool) -> None:
    """Creates ``.venv-iac`` afresh and installs the requirements into it.

    Args:
        locked: install with ``-c requirements.lock``; False resolves the newest versions
            the requirements allow (``--refresh-lock``).
        quiet: capture pip's output (shown only on failure) instead of streaming it.
    """
    shutil.rmtree(VENV, ignore_errors=True)
    # No pip inside: the running interpreter's pip installs into it (``pip --python``).
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(VENV)
    cmd = [sys.executable, "-m", "pip", "--python", str(venv_bin("python")), "install"]
    cmd += ["--no-input", "--disable-pip-version-check", "-r", str(REQUIREMENTS)]
    if locked:
        cmd += ["-c", str(LOCK)]
    # The app's PYTHONPATH (a checkout on the path) must not leak into the other venv's pip.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        cmd, env=env, timeout=_BUILD_TIMEOUT_S, check=False, text=True,
        capture_output=quiet,
    )  # fmt: skip
    if proc.returncode != 0:
        shutil.rmtree(VENV, ignore_errors=True)
        tail = f"\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}" if quiet else ""
        raise VenvBuildError(f"pip install into {VENV} failed (exit {proc.returncode}){tail}")
    STAMP.write_text(wanted_stamp() + "\n", encoding="utf-8")


def refresh_lock() -> None:
    """Builds the venv from ``requirements.txt`` alone and writes its freeze to the lock."""
    build(locked=False, quiet=False)
    freeze = subprocess.run(
        # --all: setuptools too (grpcio-tools needs it), which a plain freeze leaves out.
        [sys.executable, "-m", "pip", "--python", str(venv_bin("python")), "freeze", "--all"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    LOCK.write_text(_LOCK_HEADER + freeze.stdout, encoding="utf-8")
    STAMP.write_text(wanted_stamp() + "\n", encoding="utf-8")


@contextlib.contextmanager
def _interprocess_lock() -> Iterator[None]:
    """Serialises builds across processes (pytest-xdist workers, two checkouts' sessions)."""
    key = hashlib.sha256(str(VENV).encode()).hexdigest()[:12]
    lock_path = Path(tempfile.gettempdir()) / f"a2a-workbench-iac-venv-{key}.lock"
    try:
        import fcntl
    except ImportError:  # Windows: one session at a time is the user's job
        yield
        return
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    """Command line: build the venv when out of date (streaming pip), or refresh the lock."""
    parser = argparse.ArgumentParser(prog="python -m tests.peers.iac_venv", description=__doc__)
    parser.add_argument("--refresh-lock", action="store_true", help="rewrite requirements.lock")
    args = parser.parse_args(argv)
    if args.refresh_lock:
        refresh_lock()
        print(f"wrote {LOCK.relative_to(REPO_ROOT)}")
        return 0
    if is_current():
        print(f"{VENV.name} is up to date")
        return 0
    with _interprocess_lock():
        if not is_current():
            started = time.monotonic()
            build(locked=True, quiet=False)
            print(f"built {VENV.name} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
