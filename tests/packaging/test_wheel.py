"""The wheel carries everything: built from the tree, installed into a fresh venv, started
from outside the checkout (``--selftest``, then ``run`` on the shipped example spec).

Only the wheel itself is installed (``--no-deps``); its dependencies come from this test's
environment through ``PYTHONPATH`` (no ``.pth`` files of that environment are read, so the
editable checkout is not on the path), which keeps the test offline apart from the build
backend. ``app`` must be imported from the new venv.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.home import temporary_home
from tests.peers.launch import start_peer

pytestmark = [pytest.mark.packaging, pytest.mark.peer, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "resources"
DOCS = REPO / "docs"


def _run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def home_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This environment in a temporary home: module-scoped fixtures are set up before the
    per-test one of tests/conftest.py, and must not run the app in the developer's."""
    return {**os.environ, **temporary_home(tmp_path_factory.mktemp("home"))}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory, home_env: dict[str, str]) -> Path:
    """The project's wheel, built from a copy of the tracked inputs (a stale ``build/`` of
    the checkout must not leak deleted files into it)."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    for folder in ("app", "resources", "docs"):
        shutil.copytree(
            REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    out = base / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(src)]
    proc = _run(cmd, env=home_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = out.glob("a2a_workbench-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(
    wheel: Path, tmp_path_factory: pytest.TempPathFactory, home_env: dict[str, str]
) -> Iterator[dict[str, Any]]:
    """A fresh venv with only the wheel installed; ``env`` runs it outside the checkout, in
    a temporary home."""
    base = tmp_path_factory.mktemp("venv")
    root = base / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    python = root / "bin" / "python"
    # Without our PYTHONPATH: a checkout on it would count as "already installed".
    clean = {k: v for k, v in home_env.items() if k != "PYTHONPATH"}
    cmd = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    proc = _run([*cmd, "--no-deps", "--no-index", str(wheel)], env=clean)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    env = clean | {"PYTHONPATH": os.pathsep.join(deps), "QT_QPA_PLATFORM": "offscreen"}
    cwd = base / "elsewhere"
    cwd.mkdir()
    yield {"root": root, "python": python, "env": env, "cwd": cwd}


def test_the_wheel_ships_every_resource_file(wheel: Path) -> None:
    tree = {
        "app/resources/" + p.relative_to(RESOURCES).as_posix()
        for p in RESOURCES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n for n in archive.namelist() if n.startswith("app/resources/")}
    assert "app/resources/examples/demo-agent.a2a.yaml" in tree
    assert tree == shipped


def test_the_wheel_ships_the_manual_and_its_screenshots(wheel: Path) -> None:
    tree = {"app/docs/__init__.py"} | {
        "app/docs/" + p.relative_to(DOCS).as_posix()
        for p in (*DOCS.glob("*.md"), *DOCS.glob("screenshots/*.png"))
    }
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n for n in archive.namelist() if n.startswith("app/docs/")}
    assert "app/docs/GUI.md" in tree
    assert tree == shipped


def test_the_installed_app_reads_its_manual(installed: dict[str, Any]) -> None:
    code = "import app.shipped as r; print(r.doc_page('GUI.md'))"
    proc = _run([str(installed["python"]), "-c", code], env=installed["env"], cwd=installed["cwd"])
    assert proc.returncode == 0, proc.stderr
    page = Path(proc.stdout.strip()).resolve()
    assert page.is_relative_to(installed["root"].resolve()) and page.is_file()


def test_the_installed_app_comes_from_the_venv_with_its_example(installed: dict[str, Any]) -> None:
    code = (
        "import json, app, app.shipped as r;"
        "print(json.dumps([app.__file__, str(r.example_spec()), r.example_spec().is_file()]))"
    )
    proc = _run([str(installed["python"]), "-c", code], env=installed["env"], cwd=installed["cwd"])
    assert proc.returncode == 0, proc.stderr
    module, example, exists = json.loads(proc.stdout)
    root = installed["root"].resolve()
    assert Path(module).resolve().is_relative_to(root)
    assert Path(example).resolve().is_relative_to(root) and exists


def test_the_installed_app_passes_its_selftest(installed: dict[str, Any]) -> None:
    exe = installed["root"] / "bin" / "a2a-workbench"
    proc = _run([str(exe), "--selftest"], env=installed["env"], cwd=installed["cwd"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "selftest: ok: 200 OK" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_the_installed_app_runs_the_shipped_example(installed: dict[str, Any]) -> None:
    exe = str(installed["root"] / "bin" / "a2a-workbench")
    env, cwd = installed["env"], installed["cwd"]
    find = "import app.shipped as r; print(r.example_spec())"
    example = _run([str(installed["python"]), "-c", find], env=env, cwd=cwd).stdout.strip()
    agent = [exe, "demo-agent", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "0"]
    peer = start_peer(agent, env=env, cwd=str(cwd))
    try:
        variables = ["--var", f"baseUrl={peer.info['base_url']}"]
        variables += ["--var", f"grpcTarget={peer.info['grpc_target']}"]
        proc = _run([exe, "run", example, *variables], env=env, cwd=cwd)
    finally:
        peer.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    ends = [r for r in records if r["event"] == "end"]
    assert ends and all(e["outcome"] == "ok" for e in ends)
    assert len(ends) == len({r["operation"] for r in records})
