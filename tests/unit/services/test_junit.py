"""The JUnit report: counts, a failure per failed case, an error per target error, always valid XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from assay.services.execution.case_results import CaseResult
from assay.services.local_run.junit import write_junit


def result(case_id: int, *, passed: bool, error: str | None = None, text: str = "q") -> CaseResult:
    details = None if error else {"reason": "Expected true but got false", "match_status": "mismatch"}
    status = None if error else ("match" if passed else "mismatch")
    return CaseResult(
        case_id=case_id + 100,
        number=case_id,
        key=f"k{case_id}" if case_id > 1 else None,
        input=text,
        expected_output="true",
        agent_response=None if error else "no",
        passed=passed,
        score=None,
        details=details,
        match_status=status,
        reason=None if error else details["reason"],  # type: ignore[index]
        reason_code=None,
        answer=None,
        explanation=None,
        error=error,
        error_detail="boom",
        latency_ms=1.5,
        attempts=1,
    )


def test_counts_and_elements_with_text_xml_cannot_hold(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    results = [
        result(1, passed=True),
        result(2, passed=False, text="nul \x00 and \ud800 and \x1b[31m"),
        result(3, passed=False, error="timeout_after_retries"),
    ]
    write_junit(path, "suite", [result.as_record() for result in results], 1.25)
    suite = ET.parse(path).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("time")) == (
        "3",
        "1",
        "1",
        "1.250",
    )
    cases = suite.findall("testcase")
    assert cases[0].get("name") == "case #1: q"  # numbered as on every surface, not by database id
    assert (cases[2].get("name") or "").startswith("case #3 (key k3): ")
    failure = cases[1].find("failure")
    assert failure is not None
    assert failure.get("message") == "Expected true but got false"
    assert "\ufffd" in (cases[1].get("name") or "")
    error = cases[2].find("error")
    assert error is not None
    assert error.get("type") == "timeout_after_retries"


def test_a_case_graded_by_assertions_names_each_verdict_and_the_failed_ones(tmp_path: Path) -> None:
    from assay.graders.composite.assertions import AssertionsGrader, read_assertions

    checks = AssertionsGrader(
        read_assertions(
            [
                {"grader_id": "contains", "expected_output": "Paris", "name": "mentions"},
                {"grader_id": "llm-judge", "name": "rubric"},  # graded without a transport: unjudged
                {"grader_id": "string-match", "name": "exact"},
            ]
        )
    )
    verdict = checks.grade("Paris, surely", "Paris")
    graded = result(1, passed=False)
    graded = CaseResult(
        **{**graded.as_record(), "details": verdict["details"], "match_status": "mismatch", "case_id": 101}
    )
    path = tmp_path / "junit.xml"
    write_junit(path, "suite", [graded.as_record()], 0.1)
    case = ET.parse(path).getroot().findall("testcase")[0]
    properties = {p.get("name"): p.get("value") for p in case.iterfind("properties/property")}
    assert properties == {
        "assertion mentions": "passed",
        "assertion rubric": "invalid_response",
        "assertion exact": "mismatch",
    }
    failure = case.find("failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert message.startswith("assertions not passed: rubric (invalid_response), exact (mismatch); ")
    assert "rubric: The judge could not be asked (call_unavailable)" in (failure.text or "")
