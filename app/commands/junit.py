"""JUnit XML reports, the format CI systems read (``check --junit``, ``run --junit``).

The schema CI servers accept in practice (Jenkins, GitLab, GitHub reporters): one
``<testsuites>`` with ``<testsuite>`` s of ``<testcase>`` s, each with at most one
``<failure>``, ``<error>`` or ``<skipped>`` (and ``<properties>`` first, the per-case
extension pytest and the CI reporters read). Written with the standard library's
ElementTree and the one atomic writer, so a report is either whole or absent.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from app.fileio import atomic_write_bytes


class CaseStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class JUnitCase:
    """One test case: ``classname`` groups cases in a CI report (an area, an operation)."""

    classname: str
    name: str
    status: CaseStatus
    time_s: float = 0.0
    message: str = ""
    """One line, the ``message`` attribute of a failure, error or skip."""
    detail: str = ""
    """The element's text: what a reader needs to see why (may be several lines)."""
    properties: tuple[tuple[str, str], ...] = ()
    """``(name, value)`` pairs, written as the case's ``<properties>``."""


@dataclass(frozen=True)
class JUnitSuite:
    name: str
    cases: Sequence[JUnitCase] = field(default_factory=tuple)


_CHILD = {
    CaseStatus.FAILED: "failure",
    CaseStatus.ERROR: "error",
    CaseStatus.SKIPPED: "skipped",
}


def _clean(text: str) -> str:
    # XML 1.0 cannot carry most control characters, even escaped; a peer's error text may.
    return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 else "\ufffd" for c in text)


def junit_xml(suites: Sequence[JUnitSuite], name: str = "a2a-workbench") -> bytes:
    """The report as UTF-8 bytes with an XML declaration."""
    root = ET.Element("testsuites", name=_clean(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for suite in suites:
        counts = {
            "tests": len(suite.cases),
            "failures": sum(c.status is CaseStatus.FAILED for c in suite.cases),
            "errors": sum(c.status is CaseStatus.ERROR for c in suite.cases),
            "skipped": sum(c.status is CaseStatus.SKIPPED for c in suite.cases),
        }
        time_s = sum(c.time_s for c in suite.cases)
        attrs = {k: str(v) for k, v in counts.items()}
        attrs.update(name=_clean(suite.name), time=f"{time_s:.3f}")
        element = ET.SubElement(root, "testsuite", attrs)
        for key, value in counts.items():
            totals[key] += value
        total_time += time_s
        for case in suite.cases:
            case_element = ET.SubElement(
                element,
                "testcase",
                classname=_clean(case.classname),
                name=_clean(case.name),
                time=f"{case.time_s:.3f}",
            )
            if case.properties:
                holder = ET.SubElement(case_element, "properties")
                for prop, text in case.properties:
                    ET.SubElement(holder, "property", name=_clean(prop), value=_clean(text))
            child = _CHILD.get(case.status)
            if child is not None:
                sub = ET.SubElement(case_element, child, message=_clean(case.message))
                if case.detail:
                    sub.text = _clean(case.detail)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_junit(path: Path, suites: Sequence[JUnitSuite], name: str = "a2a-workbench") -> None:
    """Write the report to ``path`` atomically."""
    atomic_write_bytes(path, junit_xml(suites, name))
