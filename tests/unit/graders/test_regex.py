"""RegexGrader: RE2 patterns from the expected output or the config, search or full match."""

from __future__ import annotations

import time
from typing import Any

import pytest
import re2
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import RegexGrader
from assay.graders.builtin.regex import CACHE_SIZE, MAX_MATCHED_TEXT
from assay.graders.reading.text import is_blank

SEARCH = RegexGrader()
FULL = RegexGrader(config={"mode": "fullmatch"})


@pytest.mark.parametrize(
    ("response", "pattern", "passed"),
    [
        ("The capital of France is Paris.", r"\bParis\b", True),
        ("The capital of France is paris.", r"\bParis\b", False),
        ("Answer: B", r"(?i)answer:\s*\(?[A-E]\)?", True),
        ("The meeting is on 2024-03-15.", r"\d{4}-\d{2}-\d{2}", True),
        ("The meeting is on 15/03/2024.", r"\d{4}-\d{2}-\d{2}", False),
        ("Total: $1,234.50", r"\$\d{1,3}(,\d{3})*\.\d{2}", True),
        ("Contact me at jane@example.com", r"[\w.+-]+@[\w-]+\.[\w.]+", True),
        ("Das ist schön", r"sch\pL+\b", True),
        ("Σωκράτης", r"^\p{Greek}+$", True),
        ("首都是北京。", "北京", True),
        ("yes\n", r"^yes$", True),  # the answer's surrounding whitespace is ignored
        ("I think\nyes", r"^yes$", False),  # ^ and $ are the ends of the answer unless multiline
        ("abc\ndef", "c.d", False),  # . stops at a line break unless dotall
        ("x\ud800 Paris", "Paris", True),  # an unpaired surrogate in the answer does not break matching
        ("", "Paris", False),
        (None, "Paris", False),
        (42, r"^\d+$", True),
        (True, "^true$", True),
    ],
)
def test_search_mode_answers(response: object, pattern: str, passed: bool) -> None:
    result = SEARCH.grade(response, pattern)
    assert result["passed"] is passed, result["details"]["reason"]


@pytest.mark.parametrize(
    ("response", "pattern", "passed"),
    [
        ("42", r"\d+", True),
        ("  42\n", r"\d+", True),
        ("42 apples", r"\d+", False),
        ("B", "[A-E]", True),
        ("B. Paris", "[A-E]", False),
        ("yes", "yes|no", True),
        ("yes or no", "yes|no", False),
        ("", "x?", False),  # an empty answer is invalid before any pattern
    ],
)
def test_fullmatch_mode_answers(response: str, pattern: str, passed: bool) -> None:
    assert FULL.grade(response, pattern)["passed"] is passed


@pytest.mark.parametrize(
    ("config", "response", "pattern", "passed"),
    [
        ({"case_insensitive": True}, "PARIS", "paris", True),
        ({"case_insensitive": False}, "PARIS", "paris", False),
        ({"multiline": True}, "I think\nyes", r"^yes$", True),
        ({"dotall": True}, "abc\ndef", "c.d", True),
        ({"case_insensitive": True, "mode": "fullmatch"}, "Yes", "yes|no", True),
    ],
)
def test_flags(config: dict[str, Any], response: str, pattern: str, passed: bool) -> None:
    assert RegexGrader(config=config).grade(response, pattern)["passed"] is passed


def test_details_of_a_match() -> None:
    details = SEARCH.grade("  The answer is 42, I think.\n", r"\d+")["details"]
    assert details["match_status"] == "match"
    assert details["normalized_actual"] == "The answer is 42, I think."
    assert details["match_span"] == [14, 16]
    assert details["matched_text"] == "42"
    assert details["pattern_source"] == "expected_output"
    assert details["normalized_expected"] == r"\d+"
    assert details["reason"] == "Response matches the pattern at 14-16: '42'"
    unicode = SEARCH.grade("Ça coûte 5 €", "€")["details"]
    assert unicode["match_span"] == [11, 12]  # offsets in characters, not UTF-8 bytes


def test_details_of_a_mismatch() -> None:
    details = SEARCH.grade("no digits here", r"\d+")["details"]
    assert details["match_status"] == "mismatch"
    assert details["match_span"] is None
    assert details["matched_text"] is None
    assert details["reason"] == r"No part of the response matches the pattern '\\d+'"
    whole = FULL.grade("42 apples", r"\d+")["details"]["reason"]
    assert whole == r"The response as a whole does not match the pattern '\\d+'"


def test_matched_text_is_capped() -> None:
    details = SEARCH.grade("x" * 5000, "x+")["details"]
    assert details["match_span"] == [0, 5000]
    assert details["matched_text"] == "x" * MAX_MATCHED_TEXT


def test_an_empty_match_is_not_a_pass() -> None:
    details = SEARCH.grade("abc", r"\b")["details"]
    assert details["match_status"] == "mismatch"
    assert details["reason"] == "The pattern matches only empty text, first at position 0"


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("", "Expected output is empty: there is no pattern to match"),
        ("  \n", "Expected output is empty: there is no pattern to match"),
        (None, "Expected output is empty: there is no pattern to match"),
        ("(", "Pattern '(' is not a valid RE2 regular expression: missing ): ("),
        (
            "(?<=a)b",
            "Pattern '(?<=a)b' is not a valid RE2 regular expression: invalid perl operator: (?<= "
            "(RE2 has no lookaround)",
        ),
        (
            r"(a)\1",
            r"Pattern '(a)\\1' is not a valid RE2 regular expression: invalid escape sequence: \1 "
            "(RE2 has no backreferences)",
        ),
        (
            r"end\Z",
            r"Pattern 'end\\Z' is not a valid RE2 regular expression: invalid escape sequence: \Z "
            r"(RE2 writes the end of text as \z)",
        ),
        ("x*", "Pattern 'x*' matches empty text, so a search would find it in any answer"),
        ("(yes)?", "Pattern '(yes)?' matches empty text, so a search would find it in any answer"),
        ("a" * 10_001, "Pattern is 10,001 characters long; the limit is 10,000"),
        ("\ud800", "Pattern '\\ud800' holds an unpaired surrogate, which is not text"),
        (r"\pL{1000}", "Pattern '\\\\pL{1000}' is not a valid RE2 regular expression: pattern too large - "
         "compile failed"),
    ],
)  # fmt: skip
def test_unusable_patterns_are_invalid_expected_and_preflighted(pattern: object, reason: str) -> None:
    for answer in ("a", "x", "yes", "anything at all", "aab"):
        result = SEARCH.grade(answer, pattern)
        assert result["details"]["match_status"] == "invalid_expected"
        assert result["details"]["reason"] == reason
    assert SEARCH.check_expected(pattern) == reason


def test_a_pattern_matching_empty_text_is_fine_in_fullmatch_mode() -> None:
    assert FULL.check_expected(r"\d*") is None
    assert FULL.grade("123", r"\d*")["passed"] is True
    assert FULL.grade("12a", r"\d*")["passed"] is False


def test_no_pattern_runs_in_exponential_time() -> None:
    evil = "a" * 100_000 + "!"
    started = time.perf_counter()
    for pattern in (r"(a+)+$", r"(a|aa)+$", r"(a|a?)+b", r"^(\w+\s?)+$"):
        assert FULL.grade(evil, pattern)["details"]["match_status"] == "mismatch"
        assert SEARCH.grade(evil, pattern)["details"]["match_status"] == "mismatch"
    assert time.perf_counter() - started < 5  # Python's re takes longer than the universe's age here


def test_config_pattern_replaces_the_expected_output() -> None:
    grader = RegexGrader(config={"pattern": r"\bparis\b", "case_insensitive": True})
    for expected in (None, "", "ignored (", "London"):
        assert grader.check_expected(expected) is None
        details = grader.grade("It is PARIS.", expected)["details"]
        assert details["match_status"] == "match"
        assert details["pattern_source"] == "config"
        assert details["normalized_expected"] is None
    assert grader.grade("It is London.", "London")["passed"] is False
    assert RegexGrader(config={"pattern": ""}).check_expected("") is not None  # empty: the expected output


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"pattern": "("}, "'pattern' '(' is not a valid RE2 regular expression: missing ): ("),
        ({"pattern": " "}, "'pattern' must not be blank (leave it empty to use each case's expected output)"),
        ({"pattern": "a*"}, "'pattern' 'a*' matches empty text, so a search would find it in any answer"),
        ({"pattern": "a" * 10_001}, "'pattern': "),
        ({"mode": "match"}, "'mode': "),
        ({"flags": "i"}, "unknown config key 'flags'"),
    ],
)
def test_config_problems(config: dict[str, Any], message: str) -> None:
    problems = RegexGrader.config_problems(config)
    assert problems
    assert problems[0].message.startswith(message)
    with pytest.raises(ValueError, match=r"pattern|mode|flags"):
        RegexGrader(config=config)


def test_config_type_errors() -> None:
    with pytest.raises(TypeError):
        RegexGrader(config={"case_insensitive": "yes"})
    with pytest.raises(TypeError):
        RegexGrader(config={"pattern": 5})
    assert RegexGrader.config_problems({"pattern": "a*", "mode": "fullmatch"}) == []


def test_defaults() -> None:
    assert SEARCH.config == {
        "pattern": None,
        "mode": "search",
        "case_insensitive": False,
        "multiline": False,
        "dotall": False,
    }
    assert SEARCH.presets == {}


def test_compiled_patterns_are_cached_in_a_bounded_lru() -> None:
    grader = RegexGrader()
    for index in range(3 * CACHE_SIZE):
        assert grader.grade(f"case {index}", rf"case {index}\b")["passed"] is True
    info = grader._compiled.cache_info()  # type: ignore[attr-defined]
    assert info.currsize == CACHE_SIZE
    grader.grade("again", r"again")
    grader.grade("again", r"again")
    assert grader._compiled.cache_info().hits == info.hits + 1  # type: ignore[attr-defined]


def test_flags_do_not_leak_between_graders() -> None:
    insensitive = RegexGrader(config={"case_insensitive": True})
    assert insensitive.grade("PARIS", "paris")["passed"] is True
    assert SEARCH.grade("PARIS", "paris")["passed"] is False
    assert insensitive.grade("PARIS", "paris")["passed"] is True


no_surrogates = st.text(alphabet=st.characters(codec="utf-8"), max_size=30)


@given(st.text(max_size=40), st.text(max_size=20))
def test_any_pattern_and_answer_never_raise_and_agree_with_the_preflight(response: str, pattern: str) -> None:
    for grader in (SEARCH, FULL):
        result = grader.grade(response, pattern)
        details = result["details"]
        assert (details["match_status"] == "invalid_expected") is (grader.check_expected(pattern) is not None)
        if result["passed"]:
            start, end = details["match_span"]
            assert end > start
            assert details["normalized_actual"][start:end][:MAX_MATCHED_TEXT] == details["matched_text"]
        assert grader.grade(response, pattern) == result


@given(no_surrogates, no_surrogates.filter(lambda text: text.strip() != ""))
def test_an_escaped_literal_passes_exactly_when_it_occurs(response: str, literal: str) -> None:
    pattern = re2.escape(literal)
    answer = response.strip()
    if is_blank(answer):  # no visible character: an empty answer, never passed
        return
    assert SEARCH.grade(response, pattern)["passed"] is (literal in answer)
    assert FULL.grade(response, pattern)["passed"] is (literal == answer)
