"""FuzzyGrader: edit-based similarity against a threshold, the score kept on a mismatch."""

from __future__ import annotations

from string import ascii_lowercase
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import FuzzyGrader
from assay.graders.builtin.fuzzy import MAX_CHARS, METHODS
from assay.graders.reading.text import is_blank
from tests.support.inputs import FLAGS, THRESHOLDS, anything, configured, whitespace
from tests.support.scored import assert_scored

SYMMETRIC = ("ratio", "token_sort", "levenshtein")


@pytest.mark.parametrize(
    ("config", "expected", "response", "score", "passed"),
    [
        # ratio = 2 * longest common subsequence / (sum of lengths), after case folding
        (None, "Paris", "paris", 1.0, True),
        (None, "Paris", "Pari", 8 / 9, True),  # one letter missing
        (None, "colour", "color", 10 / 11, True),
        (None, "Eiffel Tower", "Eifel tower", 22 / 23, True),
        (None, "1889", "1898", 6 / 8, False),  # a transposed year is a different answer
        (None, "Paris", "not Paris", 10 / 14, False),
        (None, "New York City", "city new york", 16 / 26, False),  # word order counts for ratio
        ({"case_sensitive": True}, "PARIS", "paris", 0.0, False),
        ({"case_sensitive": True}, "Paris", "paris", 0.8, True),  # exactly at the default threshold
        ({"normalize_whitespace": False}, "New  York", "new york", 16 / 17, True),
        ({"normalize_whitespace": False, "threshold": 1}, "New  York", "new york", 16 / 17, False),
        ({"threshold": 1}, "New  York", "new york\n", 1.0, True),
        # levenshtein = 1 - edits / longer length
        ({"method": "levenshtein"}, "Paris", "Pari", 0.8, True),
        ({"method": "levenshtein"}, "kitten", "sitting", 4 / 7, False),
        ({"method": "levenshtein", "threshold": 0.5}, "kitten", "sitting", 4 / 7, True),
        # token_sort: word order ignored
        ({"method": "token_sort"}, "New York City", "city new york", 1.0, True),
        ({"method": "token_sort"}, "Barack Obama", "Obama, Barack", 24 / 25, True),
        # token_set: every expected word in the answer scores 1 (the documented risk) ...
        ({"method": "token_set"}, "Paris", "not Paris", 1.0, True),
        ({"method": "token_set"}, "Paris", "The answer is Paris", 1.0, True),
        # ... but an answer made of a few expected words does not (rapidfuzz's token_set_ratio gives 1)
        ({"method": "token_set"}, "the capital of France", "the", 6 / 24, False),
        ({"method": "token_set"}, "the capital of France", "capital of france", 34 / 38, True),
        # partial: the expected text found inside a longer answer scores 1 ...
        ({"method": "partial"}, "Paris", "The capital of France is Paris.", 1.0, True),
        ({"method": "partial"}, "Paris", "not Paris", 1.0, True),
        # ... a shorter answer is compared whole (rapidfuzz's partial_ratio gives 'a' 1 for 'banana')
        ({"method": "partial"}, "banana", "a", 2 / 7, False),
        ({"method": "partial"}, "Paris, France", "France", 12 / 19, False),
    ],
)
def test_real_answers(
    config: dict[str, Any] | None, expected: str, response: str, score: float, passed: bool
) -> None:
    assert_scored(FuzzyGrader(config=config).grade(response, expected), passed=passed, score=score)


def test_defaults_and_details() -> None:
    grader = FuzzyGrader()
    assert grader.grader_id == "fuzzy"
    assert grader.config == {
        "method": "ratio",
        "threshold": 0.8,
        "case_sensitive": False,
        "normalize_whitespace": True,
    }
    assert grader.report.value == "score"
    details = grader.grade("  The  Eiffel Tower ", "the eiffel tower")["details"]
    assert details["normalized_actual"] == "the eiffel tower"
    assert details["method"] == "ratio"
    assert details["threshold"] == 0.8
    assert details["truncated"] is False
    assert details["reason"] == "Similarity (ratio) 1.00 meets the threshold 0.8"


def test_a_mismatch_keeps_its_score_and_says_it() -> None:
    result = FuzzyGrader().grade("Lyon", "London")
    assert result["passed"] is False
    assert result["score"] == pytest.approx(6 / 10)  # 'l', 'o', 'n' in common, 10 letters
    assert result["details"]["reason"] == "Similarity (ratio) 0.60 is below the threshold 0.8"


def test_a_score_just_under_the_threshold_never_reads_as_equal() -> None:
    # 8/9 = 0.888..., threshold 0.889: rounded to 2 or 3 decimals it would read 0.89 / 0.889
    result = FuzzyGrader(config={"threshold": 0.889}).grade("Pari", "Paris")
    assert result["passed"] is False
    assert result["details"]["reason"] == "Similarity (ratio) 0.8889 is below the threshold 0.889"


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize(
    ("response", "expected", "status"),
    [
        ("", "Paris", "invalid_response"),
        (None, "Paris", "invalid_response"),
        (" \n\t", "Paris", "invalid_response"),
        ("Paris", "", "invalid_expected"),
        ("Paris", None, "invalid_expected"),
        ("", "", "invalid_expected"),  # rapidfuzz's ratio gives two empty texts 100
        ("  ", "\u3000", "invalid_expected"),
    ],
)
def test_blank_texts_are_invalid_never_measured(
    method: str, response: object, expected: object, status: str
) -> None:
    grader = FuzzyGrader(config={"method": method})
    result = grader.grade(response, expected)
    assert (result["passed"], result["score"], result["details"]["match_status"]) == (False, 0.0, status)
    if status == "invalid_expected":
        assert result["details"]["reason"] == grader.check_expected(expected)
    else:
        assert result["details"]["reason"] == "Empty or null response"
        assert grader.check_expected(expected) is None


def test_blank_depends_on_whitespace_only_not_options() -> None:
    grader = FuzzyGrader(config={"normalize_whitespace": False, "case_sensitive": True})
    assert grader.check_expected(" ") is not None
    assert grader.check_expected(" a") is None
    assert grader.grade(" ", "a")["details"]["match_status"] == "invalid_response"


@pytest.mark.parametrize("method", list(METHODS))
def test_long_texts_are_cut_and_say_so(method: str) -> None:
    grader = FuzzyGrader(config={"method": method})
    long_answer = "lorem ipsum dolor sit amet " * 40_000  # ~1 MB
    result = grader.grade(long_answer, long_answer[::-1])
    assert result["details"]["truncated"] is True
    assert "start only" in result["details"]["reason"]
    assert 0.0 <= result["score"] <= 1.0
    start = "a" * MAX_CHARS  # only the start is measured: uncut, these two would score about 0.5
    assert grader.grade(start + "b" * MAX_CHARS, start + "c" * MAX_CHARS)["score"] == 1.0
    short = grader.grade("x" * (MAX_CHARS - 1), "x" * (MAX_CHARS - 1))
    assert (short["score"], short["details"]["truncated"]) == (1.0, method == "partial")


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"method": "jaro"}, ValueError),
        ({"method": "Ratio"}, ValueError),
        ({"threshold": 0}, ValueError),  # would pass every answer
        ({"threshold": 1.01}, ValueError),
        ({"threshold": -0.5}, ValueError),
        ({"threshold": "0.8"}, TypeError),
        ({"threshold": True}, TypeError),
        ({"case_sensitive": "no"}, TypeError),
        ({"normalize_whitespace": 1}, TypeError),
        ({"thresold": 0.8}, ValueError),
        ("ratio", TypeError),
    ],
)
def test_config_errors(config: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        FuzzyGrader(config=config)  # type: ignore[arg-type]


def test_the_schema_documents_the_subset_risk() -> None:
    description = FuzzyGrader.config_schema["properties"]["method"]["description"]
    assert "'not Paris'" in description
    assert "not Paris" in FuzzyGrader.scoring_guide["1.0"]


# ---- properties -----------------------------------------------------------------------------------------

graders = configured(
    lambda config: FuzzyGrader(config=config),
    {
        "method": list(METHODS),
        "threshold": THRESHOLDS,
        "case_sensitive": FLAGS,
        "normalize_whitespace": FLAGS,
    },
)
methods = st.sampled_from(list(METHODS))
# Graders the properties share, built once: constructing one validates its config (CI runs 1,000 examples).
BY_METHOD = {method: FuzzyGrader(config={"method": method}) for method in METHODS}
EXACT_BY_METHOD = {method: FuzzyGrader(config={"method": method, "threshold": 1.0}) for method in METHODS}
STRICT_BY_METHOD = {
    method: FuzzyGrader(config={"method": method, "threshold": 1.0, "case_sensitive": True})
    for method in METHODS
}
LENIENT_BY_METHOD = {method: FuzzyGrader(config={"method": method, "threshold": 0.01}) for method in METHODS}
visible = st.text(min_size=1).filter(lambda text: not is_blank(text))
ascii_text = st.text(alphabet="abcdefgh ijkXYZ.,'-0123", min_size=1).filter(lambda text: text.strip() != "")


@given(graders, anything, anything)
def test_never_raises_score_is_the_similarity_and_deterministic(
    grader: FuzzyGrader, response: Any, expected: Any
) -> None:
    result = grader.grade(response, expected)
    status = result["details"]["match_status"]
    assert 0.0 <= result["score"] <= 1.0
    assert result["passed"] is (status == "match")
    if status in ("match", "mismatch"):
        assert (result["score"] >= grader.threshold) is result["passed"]
    else:
        assert result["score"] == 0.0
    assert grader.grade(response, expected) == result


@given(methods, visible)
def test_identical_texts_score_one_and_pass(method: str, text: str) -> None:
    for grader in (BY_METHOD[method], STRICT_BY_METHOD[method]):
        result = grader.grade(text, text)
        assert (result["score"], result["passed"]) == (1.0, True)


@given(st.sampled_from(SYMMETRIC), visible, visible)
def test_symmetric_measures_are_symmetric(method: str, first: str, second: str) -> None:
    grader = BY_METHOD[method]
    assert grader.grade(first, second)["score"] == grader.grade(second, first)["score"]


@given(methods, ascii_text, ascii_text, whitespace, whitespace)
def test_case_and_whitespace_do_not_count_by_default(
    method: str, response: str, expected: str, left: str, right: str
) -> None:
    grader = BY_METHOD[method]
    plain = grader.grade(response, expected)
    varied = grader.grade(left + response.swapcase().replace(" ", "  \n") + right, expected.upper())
    assert varied["score"] == plain["score"]
    assert varied["passed"] is plain["passed"]


@given(
    methods,
    st.text(alphabet="abcdefghijklm ", min_size=1).filter(str.strip),
    st.text(alphabet="nopqrstuvwxyz", min_size=1),
)
def test_nothing_in_common_scores_zero(method: str, expected: str, response: str) -> None:
    result = LENIENT_BY_METHOD[method].grade(response, expected)
    assert (result["score"], result["passed"]) == (0.0, False)


@given(
    methods, st.lists(st.text(ascii_lowercase, min_size=1, max_size=8), min_size=2, max_size=8, unique=True)
)
def test_an_answer_with_only_part_of_the_expected_words_never_scores_one(
    method: str, words: list[str]
) -> None:
    expected = " ".join(words)
    for answer in (" ".join(words[:-1]), " ".join(words[1:]), words[0]):
        result = EXACT_BY_METHOD[method].grade(answer, expected)
        assert result["score"] < 1.0
        assert result["passed"] is False
