"""Hypothesis properties of every grader (the CI profile runs 1,000 examples each)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from assay.graders import GraderInterface, StringMatchGrader, TrueFalseGrader, VerdictReport
from assay.services.grading.registry import GraderService

ALIASES = ["true", "false", "yes", "no", "1", "0", "TRUE", "No", "maybe", ""]
whitespace = st.text(alphabet=" \t\n\r\u00a0\u2003\u3000", max_size=4)
anything: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(),  # includes lone surrogates and NUL
    st.sampled_from(ALIASES),
    st.builds(lambda a, w1, w2: w1 + a + w2, st.sampled_from(ALIASES), whitespace, whitespace),
    st.lists(st.integers(), max_size=3),
    st.binary(max_size=8),
)
graders = st.sampled_from(GraderService().list())


@given(graders, anything, anything)
def test_never_raises_score_in_unit_range_and_deterministic(
    grader: GraderInterface, response: Any, expected: Any
) -> None:
    result = grader.grade(response, expected)
    score = result["score"]
    assert type(score) is float
    assert 0.0 <= score <= 1.0  # NaN fails this too
    assert result["passed"] is (result["details"]["match_status"] == "match")
    if grader.report is not VerdictReport.SCORE:  # a pass/fail grader's score is its verdict
        assert score == (1.0 if result["passed"] else 0.0)
    assert grader.grade(response, expected) == result


@given(st.sampled_from(ALIASES), st.sampled_from(ALIASES), whitespace, whitespace)
def test_true_false_whitespace_and_case_invariance(
    response: str, expected: str, left: str, right: str
) -> None:
    grader = TrueFalseGrader()
    plain = grader.grade(response, expected)
    padded = grader.grade(left + response.swapcase() + right, expected.upper())
    assert padded["passed"] is plain["passed"]
    assert padded["details"]["match_status"] == plain["details"]["match_status"]


@given(anything)
def test_true_false_normalisation_is_idempotent(value: Any) -> None:
    grader = TrueFalseGrader()
    once = grader.grade(value, "true")["details"]["normalized_actual"]
    twice = grader.grade(once, "true")["details"]["normalized_actual"]
    assert twice == once


@given(st.text(), st.text(), whitespace, whitespace)
def test_string_match_whitespace_and_case_invariance(
    response: str, expected: str, left: str, right: str
) -> None:
    grader = StringMatchGrader()
    assert (
        grader.grade(left + response + right, expected)["passed"]
        is grader.grade(response, expected)["passed"]
    )
    # case-insensitive means case-folded: an upper and a lower form that fold apart ('ı' is lower case
    # of nothing but upper-cases to 'I', which folds to 'i') are different texts
    if response.upper().casefold() == response.lower().casefold():
        assert (
            grader.grade(response.upper(), expected)["passed"]
            is grader.grade(response.lower(), expected)["passed"]
        )


@given(st.text())
def test_string_match_normalisation_is_idempotent(value: str) -> None:
    grader = StringMatchGrader()
    once = grader.normalize(value)
    assert grader.normalize(once) == once
    assert grader.grade(value, value)["passed"] is bool(once)  # an empty expected output never passes


@given(st.text(max_size=20), st.text(max_size=20))
def test_case_sensitive_string_match_is_plain_equality_without_normalisation(
    response: str, expected: str
) -> None:
    grader = StringMatchGrader(config={"case_sensitive": True, "normalize_whitespace": False})
    assert grader.grade(response, expected)["passed"] is (response == expected and expected.strip() != "")
