"""Hypothesis properties of the two first built-ins (the CI profile runs 1,000 examples each); the properties
every grader keeps are in test_grader_contract.py."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from assay.graders import StringMatchGrader, TrueFalseGrader
from assay.graders.reading.text import is_blank
from tests.support.inputs import ALIASES, anything, whitespace

# Graders the properties share, built once: constructing one validates its config (CI runs 1,000 examples).
TRUE_FALSE = TrueFalseGrader()
STRING_MATCH = StringMatchGrader()
PLAIN_EQUALITY = StringMatchGrader(config={"case_sensitive": True, "normalize_whitespace": False})


@given(
    st.sampled_from([(response, expected) for response in ALIASES for expected in ALIASES]),
    whitespace,
    whitespace,
)
def test_true_false_whitespace_and_case_invariance(pair: tuple[str, str], left: str, right: str) -> None:
    response, expected = pair  # one choice, not two
    grader = TRUE_FALSE
    plain = grader.grade(response, expected)
    padded = grader.grade(left + response.swapcase() + right, expected.upper())
    assert padded["passed"] is plain["passed"]
    assert padded["details"]["match_status"] == plain["details"]["match_status"]


@given(anything)
def test_true_false_normalisation_is_idempotent(value: Any) -> None:
    grader = TRUE_FALSE
    once = grader.grade(value, "true")["details"]["normalized_actual"]
    twice = grader.grade(once, "true")["details"]["normalized_actual"]
    assert twice == once


@given(st.text(), st.text(), whitespace, whitespace)
@example("Par", "Paris", " ", "")  # an answer that stops short (the draw alone covered it only by luck)
def test_string_match_whitespace_and_case_invariance(
    response: str, expected: str, left: str, right: str
) -> None:
    grader = STRING_MATCH
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
    grader = STRING_MATCH
    once = grader.normalize(value)
    assert grader.normalize(once) == once
    assert grader.grade(value, value)["passed"] is (not is_blank(once))  # an empty one never passes


@given(st.text(max_size=20), st.text(max_size=20))
def test_case_sensitive_string_match_is_plain_equality_without_normalisation(
    response: str, expected: str
) -> None:
    assert PLAIN_EQUALITY.grade(response, expected)["passed"] is (
        response == expected and not is_blank(expected)
    )
