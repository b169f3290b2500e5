"""ChoiceGrader: reads which option a multiple-choice answer chooses, and refuses to guess."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import ChoiceGrader
from assay.graders.builtin.choice import MAX_CANDIDATES
from tests.support.inputs import picks

DEFAULT = ChoiceGrader()
YES_NO = ChoiceGrader(config={"labels": ["yes", "no", "unsure"]})


def read(answer: str, grader: ChoiceGrader = DEFAULT) -> str | None:
    return grader.read(answer).label


@pytest.mark.parametrize(
    "answer",
    [
        "B",
        "b",
        " B\n",
        "(B)",
        "B.",
        "B)",
        "[B]",
        "**B**",
        "**(B)**",
        "'B'",
        "Answer: B",
        "ANSWER: B",
        "**Answer:** B",
        "Final Answer: **B**",
        "The answer is B",
        "The answer is B.",
        "The answer is (B).",
        "The answer is: B",
        "The correct answer is B because Paris is the capital of France.",
        "The correct option is (B) Paris.",
        "The answer is **B) Paris**",
        "The answer is therefore B.",
        "B. Paris",
        "b) Paris",
        "B: Paris",
        "B - Paris",
        "- B - Paris",
        "(B) Paris",
        "**B** Paris",
        "B\n\nExplanation: Paris is the capital of France.",
        "Let's think step by step.\nParis is the capital of France.\n\nB. Paris",
        "I'd pick (B) here.",
        "Option B",
        "The answer is $\\boxed{B}$",
        "答案是B。",
        "答案：B",
        "Réponse : B",
        "Antwort: B",
        # an explicit statement outranks options restated at line starts or in brackets
        "A. Rome\nB. Paris\nC. London\n\nAnswer: B",
        "Options: (A) Rome (B) Paris (C) London. The answer is (B).",
        "The answer is B.\n\nA is wrong because Rome is in Italy.",
    ],
)
def test_answers_read_as_b(answer: str) -> None:
    reading = DEFAULT.read(answer)
    assert reading.label == "B", reading
    result = DEFAULT.grade(answer, "B")
    assert result["passed"] is True
    assert result["details"]["actual_label"] == "B"
    assert DEFAULT.grade(answer, "C")["details"]["match_status"] == "mismatch"


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ("A or B", ("A", "B")),
        ("A and C", ("A", "C")),
        ("B, not A", ("B", "A")),
        ("A/B", ("A", "B")),
        ("(A) or (B)", ("A", "B")),
        ("A, B or C", ("A", "B", "C")),
        ("Answer: A or B", ("A", "B")),
        ("The answer is (A), not (B)", ("A", "B")),
        ("The answer is B. Wait, actually the answer is C.", ("B", "C")),
        ("A. Rome\nB. Paris\nC. London", ("A", "B", "C")),  # the options listed, no choice made
        ("Answer: B (not C, which is London)", ("B", "C")),
    ],
)
def test_two_different_labels_are_invalid_and_named(answer: str, named: tuple[str, ...]) -> None:
    details = DEFAULT.grade(answer, "B")["details"]
    assert details["match_status"] == "invalid_response"
    assert details["actual_label"] is None
    assert tuple(details["named_labels"]) == named
    for label in named:
        assert f"'{label}'" in details["reason"]
    assert details["reason"].startswith("Response names more than one choice: ")


@pytest.mark.parametrize(
    "answer",
    [
        "A cat is on the mat.",  # the article is not label A
        "a cat",
        "The answer is a city in France.",
        "I think B",  # mentioned in passing
        "The answer is b because",  # lower case followed by prose: read as prose, never guessed
        "Both A and B are correct",
        "Neither A nor B",
        "Either A or B could be right",
        "The answer is not A, it's B",
        "AB",
        "Answer: 2.5",
        "Which answer is correct?",
        "I",
        "Paris",
        "Bravo",
        "E.g. this one",  # an abbreviation, not label E and a full stop
        "I.e. the capital",
    ],
)
def test_unclear_answers_are_invalid_never_guessed(answer: str) -> None:
    details = DEFAULT.grade(answer, "A")["details"]
    assert details["match_status"] == "invalid_response", details["reason"]
    assert DEFAULT.grade(answer, "B")["details"]["match_status"] == "invalid_response"


def test_reasons_say_what_was_found() -> None:
    assert DEFAULT.grade("C", "B")["details"]["reason"] == "Response chooses 'C'; expected 'B'"
    assert DEFAULT.grade("(b)", "B")["details"]["reason"] == "Response chooses 'B', as expected"
    assert DEFAULT.grade("I think B", "B")["details"]["reason"] == (
        "Response mentions 'B' only in passing, not as its choice "
        "(alone, after 'answer is', at a line start, in brackets or bold)"
    )
    assert (
        DEFAULT.grade("Paris", "B")["details"]["reason"] == "Response names none of the labels A, B, C, D, E"
    )
    assert DEFAULT.grade("A or B", "B")["details"]["reason"] == (
        "Response names more than one choice: 'A' and 'B'"
    )


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("Yes", "yes"),
        ("yes.", "yes"),
        ("No, because the sky is blue.", "no"),
        ("**No**", "no"),
        ("Answer: unsure", "unsure"),
        ("Unsure - the text is ambiguous", "unsure"),
        ("The answer is no.", "no"),
        ("Yes it is", None),  # 'Yes' then prose: unclear
        ("No idea", None),
        ("The answer is no longer relevant", None),
        ("nothing", None),
        ("I know", None),
        ("yes or no", None),
    ],
)
def test_word_labels(answer: str, label: str | None) -> None:
    assert read(answer, YES_NO) == label


def test_sentiment_labels() -> None:
    grader = ChoiceGrader(config={"labels": ["positive", "negative", "neutral"]})
    assert read("The sentiment is negative.", grader) == "negative"
    assert read("Sentiment: NEGATIVE", grader) == "negative"
    assert read("Positive", grader) == "positive"
    assert read("This review is positive", grader) is None
    assert read("Positive or negative", grader) is None


def test_numbered_labels() -> None:
    grader = ChoiceGrader(config=dict(ChoiceGrader.presets["1-4"].config))
    assert read("2", grader) == "2"
    assert read("Answer: 2", grader) == "2"
    assert read("2) London", grader) == "2"
    assert read("I have 3 reasons. The answer is 2.", grader) == "2"
    assert read("1. Rome\n2. Paris\nAnswer: 2", grader) == "2"
    assert read("2.5", grader) is None  # a number is not a label inside a longer number
    assert read("There are 2 cats", grader) is None


def test_multi_word_and_longer_labels() -> None:
    grader = ChoiceGrader(config={"labels": ["not sure", "sure", "AB", "A"]})
    assert read("Answer: not   sure", grader) == "not sure"
    assert read("Answer: sure", grader) == "sure"
    assert read("AB", grader) == "AB"
    assert read("Answer: AB", grader) == "AB"
    assert read("Answer: A", grader) == "A"


def test_case_sensitive_labels() -> None:
    grader = ChoiceGrader(config={"labels": ["A", "B", "a", "b"], "case_sensitive": True})
    assert read("b", grader) == "b"
    assert read("Answer: B", grader) == "B"
    assert read("B or b", grader) is None
    assert grader.check_expected("b") is None
    assert ChoiceGrader(config={"case_sensitive": True}).check_expected("b") is not None


@pytest.mark.parametrize("expected", ["F", "(B)", "B.", "", None, "A or B", 1])
def test_expected_must_be_a_label(expected: object) -> None:
    reason = DEFAULT.check_expected(expected)
    assert reason is not None
    assert reason.endswith("is not one of the labels A, B, C, D, E")
    result = DEFAULT.grade("B", expected)
    assert result["details"]["match_status"] == "invalid_expected"
    assert result["details"]["reason"] == reason


def test_expected_label_is_read_with_the_case_option() -> None:
    assert DEFAULT.check_expected(" b ") is None
    assert DEFAULT.grade("B", " b ")["passed"] is True
    assert DEFAULT.grade("B", " b ")["details"]["expected_label"] == "B"


def test_empty_answer_is_invalid_response() -> None:
    for answer in ("", "  \n", None):
        details = DEFAULT.grade(answer, "B")["details"]
        assert details["match_status"] == "invalid_response"
        assert details["reason"] == "Empty or null response"


def test_report_labels_and_details() -> None:
    details = DEFAULT.grade("The answer is C.", "B")["details"]
    assert DEFAULT.report_labels(details) == ("B", "C")
    assert details["normalized_expected"] == "B"
    assert details["normalized_actual"] == "C"
    assert details["named_labels"] == ["C"]


def test_a_huge_list_of_labels_is_not_read() -> None:
    details = DEFAULT.grade("A " * (MAX_CANDIDATES + 1), "A")["details"]
    assert details["match_status"] == "invalid_response"
    assert "too many" in details["reason"]


def test_presets_are_valid_configs() -> None:
    assert set(ChoiceGrader.presets) >= {"A-D", "A-E", "1-4"}
    for preset in ChoiceGrader.presets.values():
        assert ChoiceGrader.config_problems(dict(preset.config)) == []
    assert ChoiceGrader(config=dict(ChoiceGrader.presets["A-D"].config)).check_expected("E") is not None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"labels": ["A", "a"]}, "'labels' must be distinct ignoring case: 'A' and 'a'"),
        ({"labels": ["(A)", "B"]}, "'labels[0]' '(A)' must start and end with a letter or digit"),
        ({"labels": ["A"]}, "'labels' must be a list of at least 2 items"),
        ({"labels": [f"L{i}" for i in range(51)]}, "'labels': "),
        ({"labels": ["A", "x" * 101]}, "'labels[1]': "),
        ({"labels": ["A", " "]}, "'labels[1]' must not be empty or blank"),
        ({"label": ["A", "B"]}, "unknown config key 'label'"),
    ],
)
def test_config_problems(config: dict[str, Any], message: str) -> None:
    problems = ChoiceGrader.config_problems(config)
    assert problems, config
    assert problems[0].message.startswith(message)
    with pytest.raises(ValueError, match="label"):
        ChoiceGrader(config=config)


def test_distinct_labels_with_case_sensitivity_are_fine() -> None:
    assert ChoiceGrader.config_problems({"labels": ["A", "a"], "case_sensitive": True}) == []
    with pytest.raises(TypeError):
        ChoiceGrader(config={"labels": "ABCD"})


labels = st.sampled_from(list("ABCDE"))
prose = st.sampled_from(
    ["", "Paris", "because it is the capital", "I am fairly confident", "see the explanation"]
)
FRAMES = ["{}", "({})", "{}.", "{})", "**{}**", "Answer: {}", "The answer is {}.", "{}. {p}", "({}) {p}",
          "Let me think.\n{p}\n\n{}. {p}", "The answer is ({}) {p}"]  # fmt: skip
frames = st.sampled_from(FRAMES)


@given(labels, frames, prose)
def test_a_framed_label_is_read(label: str, frame: str, text: str) -> None:
    answer = frame.format(label, p=text or "Paris")
    assert read(answer) == label
    assert read(answer.lower()) in (label, None)  # lower case may read as prose, never as another label


# two labels, a joiner and a frame as one choice, not four (CI runs 1,000 examples)
joined_labels = st.sampled_from(
    list(product("ABCDE", "ABCDE", [" or ", " and ", ", not ", "/", " vs "], FRAMES))
)


@given(joined_labels)
def test_two_labels_joined_are_never_a_pass(joined: tuple[str, str, str, str]) -> None:
    first, second, joiner, frame = joined
    answer = frame.format(first + joiner + second, p="Paris")
    reading = DEFAULT.read(answer)
    if first != second:
        assert reading.label is None
        for expected in (first, second):
            assert DEFAULT.grade(answer, expected)["passed"] is False


@given(st.text(max_size=60), labels)
def test_any_text_never_raises_and_a_pass_means_the_label_is_there(answer: str, expected: str) -> None:
    result = DEFAULT.grade(answer, expected)
    assert result == DEFAULT.grade(answer, expected)
    if result["passed"]:
        assert expected in answer.upper()
        assert result["details"]["named_labels"] == [expected]


@given(picks(["the", "cat", "a", "dog", "saw", "is", "on", "mat", "it", "e"], min_size=2, max_size=32))
def test_lower_case_letters_inside_prose_are_not_labels(words: list[str]) -> None:
    answer = " ".join(words)
    assert DEFAULT.read(answer).label is None
    assert DEFAULT.read(answer.capitalize() + ".").label in (None, "A", "E")  # 'A dog.' ... only in passing
