"""StringMatchGrader and its options (docs/decisions.md#string-match-options)."""

from __future__ import annotations

import pytest

from assay.graders import StringMatchGrader


@pytest.mark.parametrize(
    ("config", "expected", "response", "passed"),
    [
        ({"case_sensitive": False, "normalize_whitespace": True}, "Paris", "paris", True),
        ({"case_sensitive": False, "normalize_whitespace": True}, "Paris", "  paris  \n", True),
        ({"case_sensitive": True, "normalize_whitespace": False}, "Paris", "paris", False),
        (None, "New  York", "new york", True),
        ({"normalize_whitespace": False}, "New  York", "new york", False),
        ({"normalize_whitespace": False}, "Paris", "Paris\n", False),
        ({"case_sensitive": True}, "Paris", " Paris ", True),
        (None, "Paris", "", False),
        (None, "true", True, True),
        (None, "42", 42, True),
    ],
)
def test_spec_examples_and_options(
    config: dict[str, bool] | None, expected: str, response: object, passed: bool
) -> None:
    result = StringMatchGrader(config=config).grade(response, expected)
    assert result["passed"] is passed
    assert result["score"] == (1.0 if passed else 0.0)
    empty = response in ("", None)
    assert result["details"]["match_status"] == (
        "match" if passed else "invalid_response" if empty else "mismatch"
    )


def test_defaults() -> None:
    grader = StringMatchGrader()
    assert grader.grader_id == "string-match"
    assert grader.config == {"case_sensitive": False, "normalize_whitespace": True}


def test_details_explain_a_failure() -> None:
    details = StringMatchGrader().grade("  The  answer is 41 ", "the answer is 42")["details"]
    assert details["normalized_expected"] == "the answer is 42"
    assert details["normalized_actual"] == "the answer is 41"
    assert details["first_difference"] == 15
    assert "position 15" in details["reason"]
    assert "'2'" in details["reason"]
    assert "'1'" in details["reason"]
    assert details["expected_original"] == "the answer is 42"
    assert details["actual_original"] == "  The  answer is 41 "


def test_details_for_prefix_and_extra_text() -> None:
    short = StringMatchGrader().grade("Par", "Paris")["details"]
    assert short["first_difference"] == 3
    assert "ends at position 3" in short["reason"]
    extra = StringMatchGrader().grade("Paris, France", "Paris")["details"]
    assert extra["first_difference"] == 5
    assert "extra text" in extra["reason"]
    empty = StringMatchGrader().grade(None, "Paris")["details"]
    assert empty["reason"] == "Empty or null response"
    assert empty["match_status"] == "invalid_response"


def test_match_has_no_difference() -> None:
    details = StringMatchGrader().grade("PARIS", "paris")["details"]
    assert details["first_difference"] is None
    assert details["reason"] == "Response matches expected output"


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"case_sensitve": True}, ValueError),
        ({"case_sensitive": "no"}, TypeError),
        ({"normalize_whitespace": 1}, TypeError),
        ("x", TypeError),
    ],
)
def test_config_errors(config: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        StringMatchGrader(config=config)  # type: ignore[arg-type]


@pytest.mark.parametrize("expected", ["", "  \n", None])
@pytest.mark.parametrize("response", ["", None, "  ", "Paris"])
def test_empty_expected_output_never_passes(expected: object, response: object) -> None:
    result = StringMatchGrader().grade(response, expected)
    assert (result["passed"], result["score"]) == (False, 0.0)
    assert result["details"]["match_status"] == "invalid_expected"
    assert result["details"]["reason"] == StringMatchGrader().check_expected(expected)


def test_check_expected_refuses_blank_text_whatever_the_options() -> None:
    # a blank answer is invalid_response in every grader, so a blank expected output could never pass
    assert StringMatchGrader().check_expected("Paris") is None
    assert StringMatchGrader().check_expected(" ") is not None
    assert StringMatchGrader(config={"normalize_whitespace": False}).check_expected(" ") is not None
    assert StringMatchGrader(config={"normalize_whitespace": False}).check_expected(" a") is None
