"""A grading result read once into typed fields: the same values every reader used to probe by key."""

from __future__ import annotations

from typing import Any

import pytest

from assay.graders import ExtractGrader, MatchStatus, StringMatchGrader, TrueFalseGrader
from assay.graders.contract.verdict import VerdictRecord


@pytest.mark.parametrize(
    ("grader", "answer", "expected"),
    [
        (TrueFalseGrader(), "yes", "true"),
        (TrueFalseGrader(), "maybe", "true"),
        (StringMatchGrader(), "Paris", "paris"),
        (ExtractGrader(), "The answer is: no", "false"),
        (ExtractGrader(), "Maybe true, I think.", "true"),
    ],
)
def test_the_record_holds_what_the_details_say(grader: Any, answer: str, expected: str) -> None:
    result = grader.grade(answer, expected)
    details = result["details"]
    record = VerdictRecord.of(result)
    assert record.details is details  # the grader's own details, not copied
    assert (record.passed, record.score) == (result["passed"], result["score"])
    assert record.match_status == details["match_status"]
    assert record.passed is (record.match_status is MatchStatus.MATCH)
    assert record.reason == details["reason"]
    assert record.reason_code == details.get("reason_code")
    assert record.answer == (details["extraction"]["span"] if "extraction" in details else None)
    assert (record.explanation, record.error) == (None, None)


def test_an_extracted_answer_and_a_refusal_code_are_typed() -> None:
    read = VerdictRecord.of(ExtractGrader().grade("Final answer: yes", "true"))
    assert (read.answer, read.reason_code, read.match_status) == ("yes", None, MatchStatus.MATCH)
    hedged = VerdictRecord.of(ExtractGrader().grade("Maybe true, I think.", "true"))
    assert (hedged.answer, hedged.reason_code) == (None, "hedged")
    assert hedged.match_status is MatchStatus.INVALID_RESPONSE


def test_a_plugins_odd_details_read_as_nothing_rather_than_a_crash() -> None:
    record = VerdictRecord.of(
        {
            "passed": False,
            "score": 0.0,
            "details": {"reason": 3, "reason_code": "Not A Code", "extraction": "x", "explanation": ["no"]},
        }
    )
    assert (record.reason, record.reason_code, record.answer, record.explanation) == (None, None, None, None)
    assert record.match_status is MatchStatus.MISMATCH
    judged_not = VerdictRecord.of(
        {"passed": False, "score": 0.0, "details": {"error": "invalid_judgement", "reason": "no JSON"}}
    )
    assert (judged_not.error, judged_not.reason) == ("invalid_judgement", "no JSON")
