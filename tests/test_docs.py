"""The docs name the code as it is: docs/ARCHITECTURE.md names every module of `app/`, and
no page names a module or folder of `app/` that is not there.

A module added, moved or deleted fails here until its line in docs/ARCHITECTURE.md §3 says
where it is and what it does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

# `app/protocol/wire/sse.py`, `app/ui/request/`: a path relative to the repo, not the tail of
# another path (`tests/app/...`) nor a dotted module name.
_MODULE = re.compile(r"(?<![\w./-])app/(?:[\w]+/)*[\w]+\.py\b")
_FOLDER = re.compile(r"(?<![\w./-])app/(?:[\w]+/)+(?![\w.])")


def _modules() -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "app").rglob("*.py")
        if path.name != "__init__.py"
    }


def test_architecture_names_every_module() -> None:
    named = set(_MODULE.findall(ARCHITECTURE.read_text(encoding="utf-8")))
    missing = sorted(_modules() - named)
    assert not missing, (
        f"{len(missing)} module(s) of app/ not named in docs/ARCHITECTURE.md §3 "
        f"(add a line: path and job): {missing}"
    )


def test_docs_name_only_modules_and_folders_that_exist() -> None:
    stale = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for path in sorted(set(_MODULE.findall(text)) | set(_FOLDER.findall(text))):
            if not (ROOT / path).exists():
                stale.append(f"{page.relative_to(ROOT).as_posix()}: {path}")
    assert not stale, f"the docs name paths that do not exist: {stale}"


def test_the_path_patterns_find_what_they_should() -> None:
    text = (
        "`app/protocol/wire/sse.py`, app/ui/request/ and (app/fileio.py); "
        "not tests/app/x.py, not app.protocol.exchange"
    )
    assert _MODULE.findall(text) == ["app/protocol/wire/sse.py", "app/fileio.py"]
    assert _FOLDER.findall(text) == ["app/ui/request/"]


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a `# comment` in code is no heading
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def test_links_between_the_pages_resolve() -> None:
    broken = []
    for page in PAGES:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:: not ours to check
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, f"links that lead nowhere: {broken}"


# `--junit report.xml`, `--out session.yaml`: a file a README command writes where it runs.
_WRITES = re.compile(r"--(?:junit|out)\s+([\w.-]+)")


def test_the_readme_commands_leave_no_untracked_file_in_the_checkout() -> None:
    """A newcomer runs README's commands in the checkout: `git status` stays clean."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    written = sorted(set(_WRITES.findall((ROOT / "README.md").read_text(encoding="utf-8"))))
    assert {"report.xml", "check.xml", "session.yaml"} <= set(written)
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *written],
        cwd=ROOT, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert sorted(ignored.stdout.split()) == written


def test_the_readme_stays_short() -> None:
    """The front door: under 300 lines; the rest is in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) < 300
