"""ContainsGrader: the expected text occurs in the answer, as whole words by default."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import ContainsGrader

DEFAULT = ContainsGrader()
SUBSTRING = ContainsGrader(config={"whole_words": False})


@pytest.mark.parametrize(
    ("response", "expected", "passed"),
    [
        ("The capital of France is Paris.", "Paris", True),
        ("the capital of france is PARIS", "Paris", True),
        ("Paris", "paris", True),
        ("It is New\nYork, I believe", "new york", True),
        ("It is New  \t York", "New York", True),
        ("Das ist eine STRASSE", "straße", True),
        ("Yes, it is.", "yes", True),
        ("yes", "yes", True),
        ("(yes)", "yes", True),
        ("**Yes**", "yes", True),
        ("I said yes yesterday", "yes", True),
        # peers pass these; we do not: the expected word only occurs inside another word
        ("yesno", "yes", False),
        ("Yesterday it rained", "yes", False),
        ("I know the answer", "no", False),
        ("There is nothing to add", "no", False),
        ("It was denied", "no", False),
        ("unknown", "no", False),
        ("Cats are mammals", "cat", False),
        # numbers are words too: a digit does not hide inside a longer number
        ("The answer is 3.14", "3", False),
        ("The answer is 3.14", "3.14", True),
        ("Roughly 3.14159", "3.14", False),
        ("The population is 1,000", "1", False),
        ("The answer is 42.", "42", True),
        ("It is 142", "42", False),
        ("0.5 litres", "5", False),
        ("It costs $5 now", "$5", True),
        ("It is -3 degrees", "3", True),  # a sign is not part of the number here: numeric does that
        # punctuation in the expected text sets no boundary on its side
        ("the U.S. army", "U.S.", True),
        ("He is a C++ developer", "c++", True),
        ("call f(x) now", "f(x)", True),
        # Unicode-aware boundaries; scripts without spaces match inside sentences
        ("Das ist schön", "schön", True),
        ("Das ist schönste", "schön", False),
        ("Café au lait", "café", True),
        ("Cafe\u0301s", "cafe", False),
        ("首都是北京。", "北京", True),
        ("答案是「はい」です", "はい", True),
        ("Столица — Москва.", "москва", True),
        ("Москвабад", "москва", False),
        ("", "Paris", False),
        (None, "Paris", False),
        ("Lyon", "Paris", False),
    ],
)
def test_answers_with_defaults(response: object, expected: str, passed: bool) -> None:
    result = DEFAULT.grade(response, expected)
    assert result["passed"] is passed, result["details"]["reason"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [("yesno", "yes"), ("I know", "no"), ("Yesterday", "yes"), ("3.14", "3"), ("Cats", "cat")],
)
def test_substring_preset_finds_inside_words(response: str, expected: str) -> None:
    preset = ContainsGrader(config=dict(ContainsGrader.presets["substring"].config))
    assert preset.grade(response, expected)["passed"] is True
    assert SUBSTRING.grade(response, expected)["passed"] is True


@pytest.mark.parametrize(
    ("config", "response", "expected", "passed"),
    [
        ({"case_sensitive": True}, "paris", "Paris", False),
        ({"case_sensitive": True}, "in Paris", "Paris", True),
        ({"normalize_whitespace": False}, "New\nYork", "New York", False),
        ({"normalize_whitespace": False}, "New York", "New York", True),
        ({"normalize_whitespace": False}, "in New York", " York", True),
        ({"normalize_whitespace": False}, "in New York", "New  York", False),
    ],
)
def test_options(config: dict[str, Any], response: str, expected: str, passed: bool) -> None:
    assert ContainsGrader(config=config).grade(response, expected)["passed"] is passed


def test_details_of_a_match_give_the_offset_in_the_normalised_answer() -> None:
    details = DEFAULT.grade("Well,\n\nthe answer is  PARIS!", "paris")["details"]
    assert details["match_status"] == "match"
    assert details["normalized_actual"] == "well, the answer is paris!"
    assert details["found_at"] == 20
    assert details["normalized_actual"][20:25] == "paris"
    assert details["reason"] == "Response contains 'paris' at position 20"


def test_a_word_found_only_inside_another_is_named() -> None:
    details = DEFAULT.grade("Yesterday", "yes")["details"]
    assert details["match_status"] == "mismatch"
    assert details["found_at"] is None
    assert details["reason"] == "Response contains 'yes' only inside a longer word or number ('yesterday')"
    assert DEFAULT.grade("No idea", "Paris")["details"]["reason"] == "Response does not contain 'paris'"


def test_a_whole_occurrence_after_one_inside_a_word_is_found() -> None:
    details = DEFAULT.grade("yesterday, and then yes", "yes")["details"]
    assert details["found_at"] == 20
    long_words = "aaaa " * 200_000 + "aa"
    assert DEFAULT.grade(long_words, "aa")["details"]["found_at"] == len(long_words) - 2


@pytest.mark.parametrize("expected", ["", "   ", "\n\t", None])
def test_empty_expected_is_invalid_and_preflighted(expected: object) -> None:
    result = DEFAULT.grade("anything at all", expected)
    assert result["details"]["match_status"] == "invalid_expected"
    assert result["details"]["reason"] == DEFAULT.check_expected(expected)
    assert result["passed"] is False


def test_blank_answer_is_invalid_response() -> None:
    for response in ("", "  \n", None):
        details = DEFAULT.grade(response, "Paris")["details"]
        assert details["match_status"] == "invalid_response"
        assert details["reason"] == "Empty or null response"
    assert DEFAULT.check_expected("Paris") is None


def test_defaults_and_presets_are_valid() -> None:
    assert DEFAULT.config == {"case_sensitive": False, "normalize_whitespace": True, "whole_words": True}
    for preset in ContainsGrader.presets.values():
        assert ContainsGrader.config_problems(dict(preset.config)) == []


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"whole_word": True}, ValueError),
        ({"whole_words": "yes"}, TypeError),
        ({"case_sensitive": 1}, TypeError),
        ([], TypeError),
    ],
)
def test_config_errors(config: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        ContainsGrader(config=config)  # type: ignore[arg-type]


words = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N"]), min_size=1, max_size=8)
separators = st.text(alphabet=" \t\n\r\u00a0\u3000;!?()", min_size=1, max_size=3)
spaced_letters = st.text(alphabet="abcxyzABCXYZ0123456789éøßжωЖΩ_", min_size=1, max_size=6)


@given(st.text(max_size=40), st.text(min_size=1, max_size=10))
def test_a_pass_means_the_normalised_expected_text_is_in_the_answer(response: str, expected: str) -> None:
    for grader in (DEFAULT, SUBSTRING):
        result = grader.grade(response, expected)
        details = result["details"]
        if result["passed"]:
            found = details["found_at"]
            needle = details["normalized_expected"]
            assert details["normalized_actual"][found : found + len(needle)] == needle
        if details["normalized_expected"] not in details["normalized_actual"]:
            assert result["passed"] is False


@given(words, st.lists(words, max_size=4), st.lists(words, max_size=4), separators, separators)
def test_a_word_between_separators_is_found(
    word: str, before: list[str], after: list[str], left: str, right: str
) -> None:
    response = left.join([*before, word]) + right + " ".join(after)
    assert DEFAULT.grade(response, word)["passed"] is True


@given(spaced_letters, spaced_letters, st.booleans())
def test_whole_words_never_pass_a_word_glued_to_letters(word: str, glue: str, glue_after: bool) -> None:
    glued = word + glue if glue_after else glue + word
    assert DEFAULT.grade(f"It is {glued}.", word)["passed"] is False
    assert SUBSTRING.grade(f"It is {glued}.", word)["passed"] is True


@given(st.text(max_size=30), st.text(min_size=1, max_size=8), st.text(alphabet=" \t\n", max_size=3))
def test_case_and_whitespace_invariance(response: str, expected: str, padding: str) -> None:
    plain = DEFAULT.grade(response, expected)
    assert (
        DEFAULT.grade(padding + response.upper() + padding, expected)["passed"]
        is DEFAULT.grade(response.upper(), expected)["passed"]
    )
    assert DEFAULT.grade(response.replace(" ", "\n"), expected)["passed"] is plain["passed"]
    assert DEFAULT.grade(response, expected) == plain


@given(st.text(max_size=30), st.text(min_size=1, max_size=8))
def test_whole_words_pass_only_what_substring_passes(response: str, expected: str) -> None:
    if DEFAULT.grade(response, expected)["passed"]:
        assert SUBSTRING.grade(response, expected)["passed"] is True
