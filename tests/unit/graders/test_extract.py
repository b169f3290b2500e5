"""The ``extract`` grader: the span it hands on, the refusals it names, its tree, config, report, presets."""

from __future__ import annotations

import re
from itertools import product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import ExtractGrader, MatchStatus, VerdictReport
from assay.graders.contract import catalog
from assay.graders.contract.verdict import reason_code_of
from assay.graders.extract.extraction import PICKING_RULES, REFUSALS
from assay.services.figures.summary import ReportShape
from assay.services.grader_service import GraderService

TRUE_FALSE = ExtractGrader()
CHOICE = ExtractGrader("extract", {"grader": {"grader_id": "choice"}})
STRING = ExtractGrader("extract", {"grader": {"grader_id": "string-match"}})
CHILD_KEYS = ["passed", "score", "details", "grader_id"]


def status(result: dict[str, Any]) -> str:
    value: str = result["details"]["match_status"]
    return value


@pytest.mark.parametrize(
    ("grader", "reply", "span", "rule"),
    [
        (TRUE_FALSE, "The answer is: yes", "yes", "labelled"),
        (TRUE_FALSE, "**Answer:** True", "True", "labelled"),
        (CHOICE, "Let me think about each option.\n\nFinal answer: B", "B", "labelled"),
        (TRUE_FALSE, "Reasoning first.\n<answer>true</answer>", "true", "tagged"),
        (TRUE_FALSE, 'Here you go: {"answer": true, "confidence": "high"}', "true", "json_field"),
        (TRUE_FALSE, "Yes, that's correct.", "Yes", "leading_word"),
        (TRUE_FALSE, "The capital is Canberra. So, yes.", "yes", "lone_word"),
        (TRUE_FALSE, "That's correct.", "correct", "verdict"),
        (STRING, "Paris", "Paris", "whole_reply"),
        (STRING, "I looked it up in the atlas and the encyclopedia.\nParis", "Paris", "last_short_line"),
    ],
)
def test_the_span_is_handed_to_the_wrapped_grader_with_its_trace(
    grader: ExtractGrader, reply: str, span: str, rule: str
) -> None:
    expected = {"B": "B", "Paris": "Paris"}.get(span, "true")
    result = grader.grade(reply, expected)
    details = result["details"]
    assert result["passed"] is True, details["reason"]
    assert details["extraction"]["span"] == span
    assert details["extraction"]["rule"] == rule
    assert details["normalized_actual"] == span
    [child] = details["children"]
    assert child["details"]["actual_original"] == span  # the child saw the span, not the reply
    assert details["decided_by"] == "grader"
    assert f"the {rule} rule" in details["reason"]
    assert reason_code_of(details) is None


def test_the_wrapped_graders_verdict_is_the_verdict() -> None:
    result = TRUE_FALSE.grade("Final answer: no", "true")
    assert (result["passed"], status(result)) == (False, "mismatch")
    assert status(result["details"]["children"][0]) == "mismatch"
    unread = STRING.grade("Answer: Lyon", "Paris")
    assert status(unread) == "mismatch"
    assert "Lyon" in unread["details"]["reason"]


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("not true", "negated"),
        ("no, not yes", "mixed"),
        ("It's not true.", "negated"),
        ("The answer is not yes", "negated"),
        ("yes and no", "mixed"),
        ("Answer: true or false", "mixed"),
        ("I think maybe", "hedged"),
        ("Probably true.", "hedged"),
        ("Yes, usually.", "hedged"),
        ("true?", "question"),
        ("Is it yes?", "question"),
        ("<answer>yes</answer> Final answer: no", "conflicting_candidates"),
        ("Yes. Wait, no.", "conflicting_candidates"),
        ("The sky is blue and the grass is green, as everyone can see from here.", "no_answer"),
        ("<answer></answer>", "no_answer"),
    ],
)
@pytest.mark.parametrize("expected", ["true", "false"])
def test_a_reply_without_one_clear_answer_is_invalid_naming_the_rule(
    reply: str, rule: str, expected: str
) -> None:
    result = TRUE_FALSE.grade(reply, expected)
    details = result["details"]
    assert (result["passed"], result["score"], status(result)) == (False, 0.0, "invalid_response")
    assert details["extraction"] == {"span": None, "rule": rule, "reason": details["extraction"]["reason"]}
    assert f"({rule})" in details["reason"]
    assert details["children"] == []  # the wrapped grader never saw it
    assert details["decided_by"] is None
    assert reason_code_of(details) == rule  # what the platform counts and filters results by


def test_negation_of_a_refused_reply_stays_invalid() -> None:
    negation = catalog.lookup("not")
    assert negation is not None
    grader = negation("not", {"grader": {"grader_id": "extract"}})
    result = grader.grade("not true", "true")
    assert (result["passed"], status(result)) == (False, "invalid_response")
    inner = result["details"]["children"][0]["details"]
    assert inner["extraction"]["rule"] == "negated"


def test_a_blank_reply_is_invalid_before_extraction() -> None:
    for blank in (None, "", "  \n"):
        result = TRUE_FALSE.grade(blank, "true")
        assert (status(result), result["details"]["reason"]) == ("invalid_response", "Empty or null response")


def test_an_expected_output_the_child_refuses_is_invalid_expected_first_and_in_the_preflight() -> None:
    reason = TRUE_FALSE.check_expected("maybe")
    assert reason is not None
    assert "not a valid boolean" in reason
    for reply in ("Answer: yes", "maybe yes", ""):
        result = TRUE_FALSE.grade(reply, "maybe")
        assert (status(result), result["details"]["reason"]) == ("invalid_expected", reason)
    assert TRUE_FALSE.check_expected("true") is None


def test_the_child_may_carry_its_own_expected_output() -> None:
    grader = ExtractGrader("extract", {"grader": {"grader_id": "string-match", "expected_output": "Paris"}})
    assert grader.grade("The answer is: Paris", "ignored")["passed"] is True
    assert grader.grade("The answer is: Lyon", "Paris")["passed"] is False


def test_rules_and_languages_are_options() -> None:
    tagged_only = ExtractGrader("extract", {"rules": ["tagged"]})
    assert tagged_only.grade("<answer>yes</answer>", "true")["passed"] is True
    refused = tagged_only.grade("Yes.", "true")
    assert refused["details"]["extraction"]["rule"] == "no_answer"
    german = ExtractGrader("extract", dict(ExtractGrader.presets["german"].config))
    assert german.grade("Antwort: Ja, das stimmt.", "true")["passed"] is True
    assert german.grade("Das stimmt nicht.", "true")["details"]["extraction"]["rule"] == "negated"
    # by default extraction reads every language, but true-false knows only English words
    default = ExtractGrader().grade("Antwort: Ja", "true")["details"]
    assert (default["extraction"]["span"], default["match_status"]) == ("Ja", "invalid_response")
    english_only = ExtractGrader("extract", {"languages": ["english"]})
    unread = english_only.grade("Antwort: Ja", "true")["details"]  # the whole short reply is the span
    assert (unread["extraction"]["span"], unread["match_status"]) == ("Antwort: Ja", "invalid_response")
    not_hedged = ExtractGrader("extract", {"refuse_hedged": False})
    assert not_hedged.grade("I think the answer is: yes", "true")["passed"] is True


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"grader": {"grader_id": "no-such-grader"}}, "grader.grader_id"),
        ({"grader": {"grader_id": "true-false", "config": {"aliases": 1}}}, "grader.config.aliases"),
        ({"rules": ["guess"]}, "rules[0]"),
        ({"rules": []}, "rules"),
        ({"languages": ["klingon"]}, "languages[0]"),
        ({"max_reply_chars": 0}, "max_reply_chars"),
        ({"surprise": True}, ""),
    ],
)
def test_config_problems_have_paths(config: dict[str, Any], path: str) -> None:
    problems = ExtractGrader.config_problems(config)
    assert problems, config
    assert problems[0].path == path
    with pytest.raises((TypeError, ValueError), match=re.escape(problems[0].message)):
        ExtractGrader("extract", config)


def test_config_is_stored_filled_in_and_the_version_names_the_child() -> None:
    config = TRUE_FALSE.config
    assert config["grader"]["grader_id"] == "true-false"
    assert "correct" in config["grader"]["config"]["aliases"]["true"]
    assert config["rules"] == list(PICKING_RULES)
    assert ExtractGrader("extract", config).config == config
    assert ExtractGrader.version == "1.2.0"
    assert TRUE_FALSE.version.startswith("1.2.0+")
    assert CHOICE.version != TRUE_FALSE.version


def test_the_report_is_the_wrapped_graders() -> None:
    assert ExtractGrader.report is VerdictReport.PASS_FAIL
    assert TRUE_FALSE.report is VerdictReport.BINARY
    assert TRUE_FALSE.verdict_labels == ("true", "false")
    assert STRING.report is catalog.lookup("string-match").report  # type: ignore[union-attr]
    shape = ReportShape.of(TRUE_FALSE)
    read = TRUE_FALSE.grade("Answer: no", "true")["details"]
    assert (shape.facts(False, 0.0, None, None, "mismatch", None, read).expected_label, "false") == (
        "true",
        "false",
    )
    assert TRUE_FALSE.report_labels(read) == ("true", "false")
    # a refused reply still has its expected label, so the matrix counts it in the invalid column
    refused = TRUE_FALSE.grade("maybe", "false")["details"]
    assert TRUE_FALSE.report_labels(refused) == ("false", None)
    assert TRUE_FALSE.report_labels({}) == (None, None)


def test_every_preset_reads_its_language() -> None:
    replies = {
        "english": "The answer is: no",
        "french": "Réponse : non",
        "german": "Antwort: nein",
        "spanish": "Respuesta: no",
        "italian": "Risposta: no",
        "portuguese": "Resposta: não",
        "japanese": "答え：いいえ",
        "chinese": "答案是：否",
        "russian": "Ответ: нет",
        "multilingual": "Antwort: nein",
    }
    assert set(ExtractGrader.presets) == set(replies)
    for language, reply in replies.items():
        grader = ExtractGrader("extract", dict(ExtractGrader.presets[language].config))
        result = grader.grade(reply, "false")
        assert result["passed"] is True, (language, result["details"]["reason"])


def test_the_service_lists_and_builds_it() -> None:
    service = GraderService()
    assert "extract" in [grader.grader_id for grader in service.list()]
    all_class = catalog.lookup("all")
    assert all_class is not None
    both = all_class(
        "all", {"graders": [{"grader_id": "extract"}, {"grader_id": "contains", "expected_output": "sky"}]}
    )
    result = both.grade("The sky is blue. So, yes.", "true")
    assert result["passed"] is True
    assert result["details"]["children"][0]["details"]["extraction"]["rule"] == "lone_word"


def test_the_tree_has_the_composites_shape() -> None:
    child = TRUE_FALSE.grade("Answer: yes", "true")["details"]["children"][0]
    assert list(child) == CHILD_KEYS
    assert child["grader_id"] == "true-false"


NEGATIONS = ["not", "It is not", "That's not", "Definitely not", "I don't think it's", "Never", "It isn't"]
HEDGES = ["Maybe", "Probably", "I think", "Perhaps", "I guess", "Possibly"]
WORDS = ["yes", "true", "correct", "no", "false", "wrong"]


# the four parts as one choice, not four (780 answers: Hypothesis tries each once, then stops)
refused_answers = st.sampled_from(
    list(product([*NEGATIONS, *HEDGES], WORDS, ["", ".", "!", " here.", "\n"], ["true", "false"]))
)


@given(refused_answers)
def test_a_negated_or_hedged_answer_never_passes(answer: tuple[str, str, str, str]) -> None:
    lead, word, end, expected = answer
    result = TRUE_FALSE.grade(f"{lead} {word}{end}", expected)
    assert result["passed"] is False
    assert status(result) == "invalid_response"
    assert result["details"]["extraction"]["rule"] in REFUSALS


@given(st.text(max_size=300), st.sampled_from(["true", "false"]))
def test_a_pass_always_has_a_span_the_child_matched(reply: str, expected: str) -> None:
    result = TRUE_FALSE.grade(reply, expected)
    if result["passed"]:
        assert result["details"]["extraction"]["span"]
        assert status(result["details"]["children"][0]) == MatchStatus.MATCH


@pytest.mark.parametrize(
    ("details", "code"),
    [
        ({"reason_code": "hedged"}, "hedged"),
        ({"reason_code": "invalid_judgement"}, "invalid_judgement"),
        ({"reason_code": "Hedged"}, None),
        ({"reason_code": "x" * 41}, None),
        ({"reason_code": 3}, None),
        ({"reason_code": "a b"}, None),
        ({}, None),
        (None, None),
        ("reason_code", None),
    ],
)
def test_a_reason_code_is_read_only_when_it_is_one(details: object, code: str | None) -> None:
    assert reason_code_of(details) == code
