"""The JUnit XML writer: counts, statuses and text a CI reporter can read."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from app.commands.junit import CaseStatus, JUnitCase, JUnitSuite, junit_xml, write_junit


def test_counts_statuses_and_control_characters(tmp_path: Path) -> None:
    suite = JUnitSuite(
        "errors",
        (
            JUnitCase("errors", "ok", CaseStatus.PASSED, 0.5),
            JUnitCase("errors", "bad", CaseStatus.FAILED, 0.25, "wrong code", "got -32000\x07"),
            JUnitCase("errors", "skip", CaseStatus.SKIPPED, message="not advertised"),
        ),
    )
    path = tmp_path / "report.xml"
    write_junit(path, [suite])
    root = ET.fromstring(path.read_bytes())
    assert root.get("tests") == "3" and root.get("failures") == "1"
    assert root.get("skipped") == "1" and root.get("time") == "0.750"
    failure = root.find("testsuite/testcase[@name='bad']/failure")
    assert failure is not None and failure.get("message") == "wrong code"
    assert failure.text == "got -32000\ufffd"
    assert root.find("testsuite/testcase[@name='skip']/skipped") is not None
    assert junit_xml([]).startswith(b"<?xml")
