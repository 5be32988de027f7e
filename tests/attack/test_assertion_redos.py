"""`matches` runs a user pattern over agent-controlled text: it must stay linear."""

from __future__ import annotations

import subprocess
import sys
import time

from app.spec.assertions import (
    MAX_PATTERN,
    MAX_SUBJECT,
    Assertion,
    AssertionOp,
    Observed,
    evaluate,
    problem,
)

_EVIL = r"(a+)+$"

_CHILD = """
from app.spec.assertions import Assertion, AssertionOp, Observed, evaluate
observed = Observed(document={"text": "a" * 40 + "b"})
[result] = evaluate([Assertion("/text", AssertionOp.MATCHES, r"(a+)+$")], observed)
print(result.passed)
"""


def test_a_catastrophic_pattern_over_hostile_text_ends_at_once() -> None:
    # In a child: under Python's re this takes hours and could not be stopped in-process.
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.strip() == "False"
    assert time.monotonic() - began < 20


def test_a_huge_subject_is_searched_in_bounded_time() -> None:
    observed = Observed(
        document={
            "text": "a" * 5_000_000 + "b",
            "huge": "a" * (MAX_SUBJECT + 1),
            "list": ["x"] * 100_000,
        }
    )
    began = time.monotonic()
    results = evaluate(
        [
            Assertion("/text", AssertionOp.MATCHES, _EVIL),
            Assertion("/huge", AssertionOp.MATCHES, "a"),
            Assertion("/list", AssertionOp.MATCHES, "y"),
        ],
        observed,
    )
    assert [r.passed for r in results] == [False, False, False]
    assert "not searched" in results[1].message
    assert time.monotonic() - began < 5


def test_patterns_re2_cannot_run_are_a_problem_not_a_crash() -> None:
    assert "RE2" in problem(Assertion("/x", AssertionOp.MATCHES, r"(a)\1"))
    assert "RE2" in problem(Assertion("/x", AssertionOp.MATCHES, r"(?=a)"))
    assert "longer than" in problem(Assertion("/x", AssertionOp.MATCHES, "a" * (MAX_PATTERN + 1)))
    [result] = evaluate([Assertion("/x", AssertionOp.MATCHES, r"(a)\1")], Observed({"x": "aa"}))
    assert not result.passed and "RE2" in result.message
    assert problem(Assertion("/x", AssertionOp.MATCHES, r"^t-\d+(?i:OK)$")) == ""
