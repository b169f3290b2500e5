"""TrueFalseGrader to the letter of its design and docs/decisions.md#the-true-false-grader."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from assay.graders import GraderInterface, TrueFalseGrader

DEFAULT_TRUE = ["true", "True", "TRUE", "yes", "Yes", "YES", "1"]
DEFAULT_FALSE = ["false", "False", "FALSE", "no", "No", "NO", "0"]


@pytest.fixture
def grader() -> TrueFalseGrader:
    return TrueFalseGrader()


def details_of(grader: TrueFalseGrader, response: object, expected: object) -> dict[str, Any]:
    result = grader.grade(response, expected)
    details: dict[str, Any] = result["details"]
    return details


# --- the grade() contract: every example result dict, compared key by key --------------------------

CONTRACT_EXAMPLES: list[tuple[str, str, dict[str, Any] | None, dict[str, Any]]] = [
    (
        "true",
        "yes",
        None,
        {
            "passed": True,
            "score": 1.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": "true",
                "match_status": "match",
                "reason": "Expected and actual values match",
                "expected_original": "true",
                "actual_original": "yes",
            },
        },
    ),
    (
        "true",
        "false",
        None,
        {
            "passed": False,
            "score": 0.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": "false",
                "match_status": "mismatch",
                "reason": "Expected true but got false",
                "expected_original": "true",
                "actual_original": "false",
            },
        },
    ),
    (
        "true",
        "maybe",
        None,
        {
            "passed": False,
            "score": 0.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": None,
                "match_status": "invalid_response",
                "reason": "Response 'maybe' does not represent a boolean value",
                "expected_original": "true",
                "actual_original": "maybe",
            },
        },
    ),
    (
        "true",
        "",
        None,
        {
            "passed": False,
            "score": 0.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": None,
                "match_status": "invalid_response",
                "reason": "Empty or null response",
                "expected_original": "true",
                "actual_original": "",
            },
        },
    ),
    (
        " true ",
        "  Yes  ",
        {"case_sensitive": False},
        {
            "passed": True,
            "score": 1.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": "true",
                "match_status": "match",
                "reason": "Expected and actual values match",
                "expected_original": " true ",
                "actual_original": "  Yes  ",
            },
        },
    ),
    (
        "true",
        "yep",
        {"aliases": {"true": ["yep"], "false": ["nope"]}},
        {
            "passed": True,
            "score": 1.0,
            "details": {
                "expected_bool": "true",
                "actual_bool": "true",
                "match_status": "match",
                "reason": "Expected and actual values match",
                "expected_original": "true",
                "actual_original": "yep",
            },
        },
    ),
]


@pytest.mark.parametrize(("expected", "response", "config", "want"), CONTRACT_EXAMPLES)
def test_contract_example_results_key_by_key(
    expected: str, response: str, config: dict[str, Any] | None, want: dict[str, Any]
) -> None:
    result = TrueFalseGrader(config=config).grade(response, expected)
    assert set(result) == {"passed", "score", "details"}
    assert result["passed"] is want["passed"]
    assert type(result["score"]) is float
    assert result["score"] == want["score"]
    for key, value in want["details"].items():
        assert result["details"][key] == value, key
    # The two normalised values come on top of the contract's keys, nothing else
    # (docs/decisions.md#true-false-details).
    assert set(result["details"]) == set(want["details"]) | {"normalized_expected", "normalized_actual"}


def test_whitespace_example_normalised_values(grader: TrueFalseGrader) -> None:
    details = details_of(grader, "  Yes  ", " true ")
    assert details["normalized_expected"] == "true"
    assert details["normalized_actual"] == "yes"


# --- acceptance scenarios of the feature specification -----------------------------------------------


@pytest.mark.parametrize(
    ("expected", "response", "passed"),
    [
        ("true", "true", True),
        ("false", "false", True),
        ("true", "false", False),
        ("false", "true", False),
        ("true", "TRUE", True),
        ("true", "yes", True),
        ("false", "no", True),
        ("true", "1", True),
        ("false", "0", True),
        ("false", "1", False),
        ("true", " true ", True),
        ("false", "  false  ", True),
        ("true", "True", True),
        ("FALSE", "No", True),
    ],
)
def test_acceptance_scenarios(grader: TrueFalseGrader, expected: str, response: str, passed: bool) -> None:
    result = grader.grade(response, expected)
    assert result["passed"] is passed
    assert result["score"] == (1.0 if passed else 0.0)


def test_default_config_is_case_insensitive_with_default_aliases(grader: TrueFalseGrader) -> None:
    assert grader.grader_id == "true-false"
    assert grader.case_sensitive is False
    assert grader.true_aliases == DEFAULT_TRUE
    assert grader.false_aliases == DEFAULT_FALSE
    assert grader.config == {
        "aliases": {"true": DEFAULT_TRUE, "false": DEFAULT_FALSE},
        "extra_aliases": {"true": [], "false": []},
        "case_sensitive": False,
    }


def test_extra_aliases_add_to_the_defaults_or_to_the_given_aliases() -> None:
    extra = {"true": ["oui", "ja"], "false": ["non"]}
    added = TrueFalseGrader(config={"extra_aliases": extra})
    assert added.grade("Oui", "yes")["passed"] is True  # a default and an extra one
    assert added.grade("non", "no")["passed"] is True
    assert added.true_aliases == [*DEFAULT_TRUE, "oui", "ja"]
    replaced = TrueFalseGrader(
        config={"aliases": {"true": ["si"], "false": ["nope"]}, "extra_aliases": extra}
    )
    assert replaced.grade("ja", "si")["passed"] is True
    assert replaced.grade("yes", "true")["details"]["match_status"] == "invalid_response"
    assert TrueFalseGrader.config_problems({"extra_aliases": {"true": ["no"]}})  # both true and false


def test_inherits_grader_interface(grader: TrueFalseGrader) -> None:
    assert isinstance(grader, GraderInterface)
    assert grader.validate_config() is True


# --- edge cases of the data model --------------------------------------------------------------------


@pytest.mark.parametrize("response", ["", None, "   ", "\t\n", "\u3000"])
def test_empty_or_null_response(grader: TrueFalseGrader, response: object) -> None:
    result = grader.grade(response, "true")
    assert result["passed"] is False
    assert result["score"] == 0.0
    assert result["details"]["match_status"] == "invalid_response"
    assert result["details"]["reason"] == "Empty or null response"
    assert result["details"]["actual_bool"] is None
    assert result["details"]["actual_original"] == response


@pytest.mark.parametrize("response", ["maybe", "unknown", "42", "on", "off", "Yes.", "y", "t", "2", "yes no"])
def test_not_a_boolean(grader: TrueFalseGrader, response: str) -> None:
    details = details_of(grader, response, "true")
    assert details["match_status"] == "invalid_response"
    assert details["reason"] == f"Response '{response}' does not represent a boolean value"
    assert details["actual_bool"] is None


def test_one_when_false_expected_is_a_mismatch(grader: TrueFalseGrader) -> None:
    result = grader.grade("1", "false")
    assert result["passed"] is False
    assert result["details"]["match_status"] == "mismatch"
    assert result["details"]["reason"] == "Expected false but got true"


def test_case_sensitive_rejects_other_spellings() -> None:
    grader = TrueFalseGrader(config={"case_sensitive": True})
    # TRUE is a listed spelling (docs/decisions.md#default-aliases)
    assert grader.grade("TRUE", "true")["passed"] is True
    details = details_of(grader, "tRuE", "true")
    assert details["match_status"] == "invalid_response"
    assert details["normalized_actual"] == "tRuE"


def test_case_sensitive_custom_aliases_keep_exact_canonical_words() -> None:
    grader = TrueFalseGrader(config={"aliases": {"true": ["Yep"], "false": ["Nope"]}, "case_sensitive": True})
    assert grader.grade("Yep", "true")["passed"] is True
    assert grader.grade("true", "true")["passed"] is True
    assert details_of(grader, "yep", "true")["match_status"] == "invalid_response"
    assert details_of(grader, "TRUE", "true")["match_status"] == "invalid_response"


def test_custom_aliases_replace_defaults_but_keep_canonical_words() -> None:
    grader = TrueFalseGrader(config={"aliases": {"true": ["yep"], "false": ["nope"]}})
    assert grader.true_aliases == ["yep"]
    assert grader.false_aliases == ["nope"]
    for response, expected in [("yep", "true"), ("nope", "false"), ("true", "true"), ("FALSE", "false")]:
        assert grader.grade(response, expected)["passed"] is True
    for response in ["yes", "1", "no", "0"]:
        assert details_of(grader, response, "true")["match_status"] == "invalid_response"
    assert details_of(grader, "YEP", "nope")["reason"] == "Expected false but got true"


def test_invalid_expected_comes_first(grader: TrueFalseGrader) -> None:
    details = details_of(grader, "maybe", "perhaps")
    assert details["match_status"] == "invalid_expected"
    assert details["reason"] == "Expected value 'perhaps' is not a valid boolean"
    assert details["expected_bool"] is None
    assert details_of(grader, "", "")["match_status"] == "invalid_expected"
    none_details = details_of(grader, "true", None)
    assert none_details["match_status"] == "invalid_expected"
    assert none_details["reason"] == "Expected value '' is not a valid boolean"


@pytest.mark.parametrize(
    ("response", "expected", "status"),
    [
        (True, "true", "match"),
        (False, "true", "mismatch"),
        (1, "true", "match"),
        (0, "false", "match"),
        (1.0, "true", "invalid_response"),
        ("yes", True, "match"),
        ("no", False, "match"),
        (["true"], "true", "invalid_response"),
        ({"a": 1}, "true", "invalid_response"),
        (b"true", "true", "invalid_response"),
    ],
)
def test_non_string_inputs_never_raise(
    grader: TrueFalseGrader, response: object, expected: object, status: str
) -> None:
    details = details_of(grader, response, expected)
    assert details["match_status"] == status
    assert details["actual_original"] == response


def test_object_with_failing_str_is_graded_not_raised(grader: TrueFalseGrader) -> None:
    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert details_of(grader, Hostile(), "true")["match_status"] == "invalid_response"


def test_casefold_not_just_lower() -> None:
    grader = TrueFalseGrader(config={"aliases": {"true": ["straße"], "false": ["nein"]}})
    assert grader.grade("STRASSE", "true")["passed"] is True


# --- configuration ------------------------------------------------------------------------------------
# docs/decisions.md#unknown-config-keys, docs/decisions.md#true-false-config-types and
# docs/decisions.md#no-alias-both-true-and-false


def test_unknown_key_names_it_and_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="case_sensitve") as info:
        TrueFalseGrader(config={"case_sensitve": True})
    assert "aliases" in str(info.value)
    assert "case_sensitive" in str(info.value)


@pytest.mark.parametrize("config", [[], "x", 1, ("aliases",)])
def test_config_must_be_dict_or_none(config: object) -> None:
    with pytest.raises(TypeError):
        TrueFalseGrader(config=config)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [1, 0, "yes", "true", None, 1.0])
def test_case_sensitive_must_be_a_real_bool(value: object) -> None:
    with pytest.raises(TypeError):
        TrueFalseGrader(config={"case_sensitive": value})


@pytest.mark.parametrize(
    ("aliases", "error"),
    [
        ({"true": ["yep"]}, ValueError),
        ({"false": ["nope"]}, ValueError),
        ({}, ValueError),
        (["yep"], TypeError),
        ("yep", TypeError),
        ({"true": "yep", "false": ["nope"]}, TypeError),
        ({"true": ["yep", 1], "false": ["nope"]}, TypeError),
        ({"true": [], "false": ["nope"]}, ValueError),
        ({"true": ["yep"], "false": ["nope"], "maybe": ["?"]}, ValueError),
        ({"true": ["  "], "false": ["nope"]}, ValueError),
    ],
)
def test_aliases_rules(aliases: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        TrueFalseGrader(config={"aliases": aliases})


@pytest.mark.parametrize(
    "config",
    [
        {"aliases": {"true": ["yes", "ok"], "false": ["no", "OK"]}},
        {"aliases": {"true": ["yep"], "false": ["true"]}},
        {"aliases": {"true": ["False"], "false": ["nope"]}},
    ],
)
def test_alias_under_both_lists_is_refused(config: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="both true and false"):
        TrueFalseGrader(config=config)


def test_same_spelling_in_other_case_allowed_when_case_sensitive() -> None:
    grader = TrueFalseGrader(config={"aliases": {"true": ["Y"], "false": ["y"]}, "case_sensitive": True})
    assert grader.grade("Y", "true")["passed"] is True
    assert grader.grade("y", "false")["passed"] is True


def test_validate_config_never_raises_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    grader = TrueFalseGrader()
    with caplog.at_level(logging.WARNING):
        assert grader.validate_config({"case_sensitve": True}) is False
        assert grader.validate_config("nonsense") is False
        assert grader.validate_config({"aliases": {"true": ["a"]}}) is False
        assert grader.validate_config({"case_sensitive": True}) is True
    assert "case_sensitve" in caplog.text


# --- state: immutable after construction, thread-safe ----------------------------------------------------


def test_immutable_after_construction() -> None:
    config = {"aliases": {"true": ["yep"], "false": ["nope"]}}
    grader = TrueFalseGrader(config=config)
    config["aliases"]["true"].append("sure")  # the caller's dict is not the grader's
    grader.true_aliases.append("sure")
    grader.config["aliases"]["true"].append("sure")
    assert grader.true_aliases == ["yep"]
    assert grader.grade("sure", "true")["details"]["match_status"] == "invalid_response"
    for attribute in ("case_sensitive", "grader_id", "true_aliases", "config"):
        with pytest.raises(AttributeError):
            setattr(grader, attribute, None)
    with pytest.raises(AttributeError):
        grader.anything_new = 1  # type: ignore[attr-defined]


def test_custom_grader_id() -> None:
    assert TrueFalseGrader("tf-strict", {"case_sensitive": True}).grader_id == "tf-strict"


def test_thread_safe_under_concurrent_grading(grader: TrueFalseGrader) -> None:
    cases = [("yes", "true"), ("no", "true"), ("maybe", "false"), ("", "true"), ("0", "false")]
    want = [grader.grade(r, e) for r, e in cases]
    failures: list[str] = []

    def hammer() -> None:
        for _ in range(2000):
            for (response, expected), expected_result in zip(cases, want, strict=True):
                if grader.grade(response, expected) != expected_result:
                    failures.append(response)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_results_are_fresh_dicts(grader: TrueFalseGrader) -> None:
    first = grader.grade("yes", "true")
    first["details"]["reason"] = "changed"
    assert grader.grade("yes", "true")["details"]["reason"] == "Expected and actual values match"


def test_alias_lists_and_aliases_are_bounded() -> None:
    from assay.graders.builtin.true_false import MAX_ALIAS_LENGTH, MAX_ALIASES

    TrueFalseGrader(
        config={"aliases": {"true": [f"t{n}" for n in range(MAX_ALIASES)], "false": ["n" * MAX_ALIAS_LENGTH]}}
    )
    with pytest.raises(ValueError, match="true"):
        TrueFalseGrader(
            config={"aliases": {"true": [f"t{n}" for n in range(MAX_ALIASES + 1)], "false": ["no"]}}
        )
    with pytest.raises(ValueError, match="false"):
        TrueFalseGrader(config={"aliases": {"true": ["yes"], "false": ["n" * (MAX_ALIAS_LENGTH + 1)]}})


def test_check_expected_gives_the_invalid_expected_reason(grader: TrueFalseGrader) -> None:
    assert grader.check_expected("perhaps") == details_of(grader, "true", "perhaps")["reason"]
    assert grader.check_expected(None) == "Expected value '' is not a valid boolean"
    assert grader.check_expected(" Yes ") is None
    assert grader.check_expected(False) is None
