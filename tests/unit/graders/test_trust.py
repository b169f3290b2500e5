"""Issue 23's mechanism fixes: no grader or composition passes what does not say what was expected."""

from __future__ import annotations

import math
from typing import Any

import pytest

from assay.graders import catalog
from assay.graders.builtin.choice import ChoiceGrader
from assay.graders.builtin.numeric import NumericGrader
from assay.graders.builtin.regex import RegexGrader
from assay.graders.composite.combinators import AnyGrader, AtLeastGrader, WeightedGrader
from assay.graders.reading.text import is_blank

INVISIBLE = ["\u200b", "\x00", "\x01", "\ufeff", "\ud800", "\u2066\u2069", " \u200d\t\u2060 ", "\u00ad"]
SM: dict[str, Any] = {"grader_id": "string-match"}
TF: dict[str, Any] = {"grader_id": "true-false"}


@pytest.mark.parametrize("text", INVISIBLE)
def test_no_visible_character_is_blank(text: str) -> None:
    assert is_blank(text)
    assert not is_blank(text + "a")


@pytest.mark.parametrize(
    "child", ["string-match", "contains", "regex", "fuzzy", "overlap", "numeric", "choice"]
)
@pytest.mark.parametrize("answer", INVISIBLE)
def test_not_never_passes_an_invisible_answer(child: str, answer: str) -> None:
    expected = {"numeric": "42", "choice": "B", "regex": "Paris"}.get(child, "Paris")
    grader = catalog.lookup("not")("not", {"grader": {"grader_id": child}})  # type: ignore[misc]
    result = grader.grade(answer, expected)
    assert result["passed"] is False
    assert result["details"]["match_status"] == "invalid_response"


@pytest.mark.parametrize(
    ("grader_id", "key"),
    [
        ("fuzzy", "threshold"),
        ("overlap", "threshold"),
        ("semantic", "threshold"),
        ("llm-judge", "threshold"),
        ("llm-judge", "temperature"),
        ("weighted", "threshold"),
        ("numeric", "abs_tol"),
    ],
)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_every_numeric_option_is_finite(grader_id: str, key: str, bad: float) -> None:
    grader_class = catalog.lookup(grader_id)
    assert grader_class is not None
    problems = grader_class.config_problems({key: bad})
    assert problems
    assert problems[0].path == key
    with pytest.raises(ValueError, match=key):
        grader_class(grader_id, {key: bad})


def test_a_nan_inside_a_composition_is_refused() -> None:
    config = {"grader": {"grader_id": "fuzzy", "config": {"threshold": math.nan}}}
    assert catalog.lookup("not").config_problems(config)  # type: ignore[union-attr]


@pytest.mark.parametrize("threshold", [1e-300, 1e-10, 1e-9, 5e-10])
def test_weighted_with_a_tiny_threshold_never_passes_a_score_of_zero(threshold: float) -> None:
    grader = WeightedGrader(config={"graders": [SM], "threshold": threshold})
    assert grader.grade("Lyon", "Paris")["passed"] is False
    unjudged = WeightedGrader(config={"graders": [{"grader_id": "numeric"}], "threshold": threshold})
    assert unjudged.grade("no number here", "42")["passed"] is False


@pytest.mark.parametrize(
    ("grader_class", "config"),
    [
        (AnyGrader, {"graders": [SM, {"grader_id": "not", "config": {"grader": SM}}]}),
        (AnyGrader, {"graders": [SM, {"grader_id": "not"}]}),
        (AtLeastGrader, {"graders": [TF, {"grader_id": "not", "config": {"grader": TF}}], "k": 1}),
        (AnyGrader, {"graders": [{**TF, "expected_output": "yes"}, {**TF, "expected_output": "false"}]}),
        (AtLeastGrader, {"graders": [{**TF, "expected_output": "1"}, {**TF, "expected_output": "no"}]}),
    ],
)
def test_compositions_that_cannot_fail_are_refused(grader_class: Any, config: dict[str, Any]) -> None:
    problems = grader_class.config_problems(config)
    assert problems
    assert "passes every answer" in problems[0].message


def test_compositions_that_can_fail_are_kept() -> None:
    assert AnyGrader.config_problems({"graders": [SM, {"grader_id": "not", "config": {"grader": TF}}]}) == []
    both = {"graders": [{**TF, "expected_output": "yes"}, {**TF, "expected_output": "false"}], "k": 2}
    assert AtLeastGrader.config_problems(both) == []


@pytest.mark.parametrize("expected", [["a", "b"], {"a": 1}, ("x",), 42])
def test_regex_reads_only_a_text_pattern(expected: object) -> None:
    result = RegexGrader().grade("a", expected)
    assert result["details"]["match_status"] == "invalid_expected"


@pytest.mark.parametrize(
    "answer",
    [
        "not 42", "Not 42", "less than 42", "more than 42", "fewer than 42 people", "at least 42",
        "at most 42", "about 42", "around 42", "nearly 42", "approximately 42", "42?", "42 ?", "42+",
        "~42", "~ 42", "≈42", "≈ 42", "<42", "< 42", ">42", "≥ 42", "≤42", "It isn't 42", "42 or more",
        "42, roughly", "42-ish", "environ 42", "etwa 42", "mehr als 42", "más de 42", "plus de 42",
    ],
)  # fmt: skip
def test_numeric_refuses_bounds_approximations_negations_and_questions(answer: str) -> None:
    result = NumericGrader().grade(answer, "42")
    assert result["passed"] is False
    assert result["details"]["match_status"] == "invalid_response"


@pytest.mark.parametrize("answer", ["42", "The answer is 42.", "Answer: 42 people", "$42", "42 (final)"])
def test_numeric_still_reads_plain_numbers(answer: str) -> None:
    assert NumericGrader().grade(answer, "42")["passed"] is True


@pytest.mark.parametrize("answer", ["1e-400", "1E-400", "0.1e-400", "-1e-400"])
def test_an_underflowing_number_is_not_zero(answer: str) -> None:
    assert NumericGrader().grade(answer, "0")["passed"] is False


@pytest.mark.parametrize(
    "answer",
    [
        "B?", "(B)?", "Answer: B. No, C.", "Answer: B. Wait, actually D.", "B. Though A is defensible.",
        "B. On second thought, C.", "Réponse : B. Non, C.", "Antwort: B. Nein, C.",
    ],
)  # fmt: skip
def test_choice_refuses_an_asked_or_taken_back_label(answer: str) -> None:
    assert ChoiceGrader().grade(answer, "B")["passed"] is False
