"""Per-case assertions: which list grades a case, how its verdict combines them, how they are checked."""

from __future__ import annotations

import pytest

from assay.domain import Assertion, Assertions, SuiteAssertions
from assay.graders.composite.assertions import (
    AssertionsGrader,
    InvalidAssertionsError,
    assertion_verdicts,
    read_assertions,
    read_suite_assertions,
)

NUMERIC = read_assertions([{"grader_id": "numeric"}])
SUITE = read_suite_assertions(
    [{"grader_id": "string-match"}],
    None,
    [
        {"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]},
        {"when": {"kind": "bool", "strict": True}, "assert": [{"grader_id": "true-false"}], "threshold": 0.5},
    ],
)


def ids(assertions: Assertions | None) -> list[str] | None:
    return None if assertions is None else [item.grader_id for item in assertions.items]


def test_a_case_gets_its_own_then_a_rule_then_the_suite_defaults_then_nothing() -> None:
    own = read_assertions([{"grader_id": "contains"}])
    assert ids(SUITE.for_case(own, {"kind": "number"})) == ["contains"]
    assert ids(SUITE.for_case(None, {"kind": "number"})) == ["numeric"]
    assert ids(SUITE.for_case(None, {"kind": "bool", "strict": True})) == ["true-false"]
    assert ids(SUITE.for_case(None, {"kind": "bool"})) == ["string-match"]  # a rule needs every key
    assert ids(SUITE.for_case(None, {"kind": "bool", "strict": 1})) == ["string-match"]  # 1 is not true
    assert SuiteAssertions(None, ()).for_case(None, {"kind": "number"}) is None  # the evaluation's grader


def test_a_case_threshold_applies_to_the_list_a_rule_gives_it() -> None:
    threshold_only = read_assertions(None, 0.25)
    picked = SUITE.for_case(threshold_only, {"kind": "number"})
    assert picked is not None
    assert (ids(picked), picked.threshold) == (["numeric"], 0.25)
    assert SUITE.for_case(None, {"kind": "bool", "strict": True}).threshold == 0.5  # type: ignore[union-attr]


def test_every_assertion_must_pass_without_a_threshold() -> None:
    grader = AssertionsGrader(read_assertions([{"grader_id": "numeric"}, {"grader_id": "contains"}]))
    passed = grader.grade("It costs 42", "42")
    assert (passed["passed"], passed["details"]["match_status"]) == (True, "match")
    failed = grader.grade("It costs 43 or 42", "42")
    assert failed["passed"] is False  # contains passes, numeric reads 43 (or refuses two numbers)
    verdicts = assertion_verdicts(failed["details"])
    assert verdicts is not None
    assert [(v.name, v.passed) for v in verdicts][1] == ("contains", True)


def test_an_unjudged_assertion_leaves_the_case_unjudged_never_passed() -> None:
    here = {"grader_id": "contains", "expected_output": "here"}
    grader = AssertionsGrader(read_assertions([here, {"grader_id": "numeric"}]))
    result = grader.grade("no figure here", "5")  # contains passes, numeric finds no number
    assert (result["passed"], result["details"]["match_status"]) == (False, "invalid_response")
    assert result["details"]["reason"].startswith("assert[1] (numeric) could not judge")
    assert result["details"]["decided_by"] == "assert[1]"
    weighted = AssertionsGrader(read_assertions([here, {"grader_id": "numeric", "weight": 3}], 0.5))
    unjudged = weighted.grade("no figure here", "5")  # 0.25 scored, the unjudged 0.75 could reach 0.5
    assert (unjudged["passed"], unjudged["details"]["match_status"]) == (False, "invalid_response")


def test_a_threshold_passes_on_the_weighted_mean_of_scores() -> None:
    specs = [
        {"grader_id": "contains", "expected_output": "id", "weight": 3},
        {"grader_id": "string-match", "name": "exact"},
    ]
    grader = AssertionsGrader(read_assertions(specs, 0.7))
    reaches = grader.grade("the id is 7", "id 7")  # contains (own expected "id") passes, exact fails
    assert (reaches["passed"], reaches["score"]) == (True, 0.75)
    below = grader.grade("the number is 7", "the number is 7")
    assert (below["passed"], below["score"]) == (False, 0.25)
    names = [entry["name"] for entry in below["details"]["children"]]
    assert names == ["contains", "exact"]


def test_names_default_to_the_grader_id_made_unique() -> None:
    listed = Assertions.of(
        [Assertion("numeric", {}), Assertion("numeric", {}), Assertion("choice", {}, name="numeric#2")], None
    )
    assert listed.names == ("numeric", "numeric#3", "numeric#2")


def test_an_assertion_refusing_its_expected_output_is_named_by_the_preflight() -> None:
    grader = AssertionsGrader(read_assertions([{"grader_id": "contains"}, {"grader_id": "true-false"}]))
    assert grader.check_expected("yes") is None
    reason = grader.check_expected("perhaps")
    assert reason is not None
    assert reason.startswith("Expected output refused by assert[1] (true-false)")


@pytest.mark.parametrize(
    ("raw", "threshold", "where"),
    [
        ([{"grader_id": "nope"}], None, "assert[0].grader_id"),
        ([{"grader_id": "numeric", "config": {"bogus": 1}}], None, "assert[0].config"),
        ([{"grader_id": "llm-judge"}] * 9, None, "assert"),
        ([{"grader_id": "numeric", "expected_output": "many"}], None, "assert[0].expected_output"),
        ([{"grader_id": "numeric", "weight": 0}], 0.5, "assert[0].weight"),
        ([{"grader_id": "numeric"}] * 21, None, "assert"),
        ([{"grader_id": "numeric", "config": {"x": "y" * 70_000}}], None, "assert"),
        ([{"grader_id": "numeric"}], 1.5, "threshold"),
        ("numeric", None, "assert"),
    ],
)
def test_bad_assertions_are_refused_with_their_path(raw: object, threshold: object, where: str) -> None:
    with pytest.raises(InvalidAssertionsError) as refused:
        read_assertions(raw, threshold)
    assert refused.value.problems[0].path == where


def test_stored_assertions_read_back_to_the_same_list() -> None:
    listed = read_assertions(
        [
            {"grader_id": "numeric", "config": {"abs_tol": 0.1}, "weight": 2, "name": "n"},
            {"grader_id": "json"},
        ],
        0.6,
    )
    assert Assertions.from_json(listed.as_json()) == listed
    assert SuiteAssertions.from_json(SUITE.as_json()) == SUITE
