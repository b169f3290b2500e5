"""Composite graders (not, all, any, at-least, weighted): truth tables, the tree, its checks and caps."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.graders import (
    AllGrader,
    AnyGrader,
    AtLeastGrader,
    CompositeGrader,
    GraderInterface,
    MatchStatus,
    NotGrader,
    StringMatchGrader,
    Verdict,
    WeightedGrader,
    catalog,
)
from assay.graders.composite.children import MAX_DEPTH, MAX_NODES
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON
from assay.services.grader_service import GraderService

# With the answer ANSWER and the composite's expected output EXPECTED, each child spec below gives one
# verdict kind, using real graders: string-match and true-false with their own expected outputs.
ANSWER = "maybe"
EXPECTED = "not a boolean"
CHILD = {
    "match": {"grader_id": "string-match", "expected_output": "maybe"},
    "mismatch": {"grader_id": "string-match", "expected_output": "something else"},
    "invalid_response": {"grader_id": "true-false", "expected_output": "true"},
    "invalid_expected": {"grader_id": "true-false"},  # inherits EXPECTED, which names no boolean
}
STATUSES = list(CHILD)
KLEENE: dict[str, bool | None] = {"match": True, "mismatch": False, "invalid_response": None}
RANK = {False: 0, None: 1, True: 2}  # Kleene order: false < unknown < true


def status(result: dict[str, Any]) -> str:
    value: str = result["details"]["match_status"]
    return value


def from_kleene(value: bool | None) -> str:
    return {True: "match", False: "mismatch", None: "invalid_response"}[value]


def build(grader_id: str, config: dict[str, Any] | None = None) -> GraderInterface:
    grader_class = catalog.lookup(grader_id)
    assert grader_class is not None
    return grader_class(grader_id, config)


# --- test-only children: a grader that raises, one that returns garbage, one with a graded score ----------


class _TestGrader(GraderInterface):
    name: ClassVar[str] = "Test"
    description: ClassVar[str] = "Test-only child"
    version: ClassVar[str] = "1"
    config_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {},
    }
    scoring_guide: ClassVar[dict[str, str]] = {"1.0": "yes", "0.0": "no"}
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        raise NotImplementedError


class RaisingGrader(_TestGrader):
    default_id = type = "test-raises"
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        raise RuntimeError("boom")

    def check_expected(self, expected_output: Any) -> str | None:
        raise RuntimeError("boom")


class GarbageGrader(_TestGrader):
    default_id = type = "test-garbage"
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        return {"passed": "yes"}


class OddStatusGrader(_TestGrader):
    """A plugin with its own status word and an out-of-range score: read by ``passed``, score clamped."""

    default_id = type = "test-odd-status"
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        passed = agent_response == expected_output
        return {"passed": passed, "score": 7.0, "details": {"match_status": "great", "reason": "odd"}}


SHARED_RESULT: dict[str, Any] = {
    "passed": True,
    "score": 1.0,
    "details": {"match_status": "match", "reason": "always"},
}


class SharedResultGrader(_TestGrader):
    """A plugin returning one dict every time: it does not say ``fresh_results``, so it is never extended."""

    default_id = type = "test-shared-result"
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        return SHARED_RESULT


class FreshOddStatusGrader(OddStatusGrader):
    """The odd plugin saying its results are fresh: its entry is its result, extended in place."""

    default_id = type = "test-fresh-odd-status"
    fresh_results: ClassVar[bool] = True
    __slots__ = ()


class FreshReasonlessGrader(_TestGrader):
    """A plugin saying its results are fresh but giving no reason: malformed, so never a pass."""

    default_id = type = "test-fresh-reasonless"
    fresh_results: ClassVar[bool] = True
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> Any:
        return {"passed": True, "score": 1.0, "details": {"match_status": "match"}}


for _test_class in (
    RaisingGrader,
    GarbageGrader,
    OddStatusGrader,
    SharedResultGrader,
    FreshOddStatusGrader,
    FreshReasonlessGrader,
):
    catalog.add(_test_class)


# --- truth tables -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("child", "expected"),
    [
        ("match", "mismatch"),
        ("mismatch", "match"),
        ("invalid_response", "invalid_response"),
        ("invalid_expected", "invalid_expected"),
    ],
)
def test_not_truth_table(child: str, expected: str) -> None:
    result = NotGrader(config={"grader": CHILD[child]}).grade(ANSWER, EXPECTED)
    assert status(result) == expected
    assert result["passed"] is (expected == "match")
    assert status(result["details"]["children"][0]) == child


def combos(max_children: int = 3) -> list[tuple[str, ...]]:
    return [c for n in range(1, max_children + 1) for c in itertools.product(STATUSES, repeat=n)]


def reference(kind: str, children: tuple[str, ...], k: int = 1) -> str:
    """Kleene logic written as min/max over false < unknown < true; a refused expected output wins first."""
    if "invalid_expected" in children:
        return "invalid_expected"
    values = [KLEENE[c] for c in children]
    if kind == "all":
        return from_kleene(min(values, key=RANK.__getitem__))
    if kind == "any":
        return from_kleene(max(values, key=RANK.__getitem__))
    matches, unknown = values.count(True), values.count(None)
    return from_kleene(True if matches >= k else False if matches + unknown < k else None)


@pytest.mark.parametrize("children", combos(), ids="-".join)
@pytest.mark.parametrize("kind", ["all", "any"])
def test_all_and_any_truth_tables(kind: str, children: tuple[str, ...]) -> None:
    grader = build(kind, {"graders": [CHILD[c] for c in children]})
    result = grader.grade(ANSWER, EXPECTED)
    assert status(result) == reference(kind, children)
    assert result["passed"] is (status(result) == "match")
    assert result["score"] == (1.0 if result["passed"] else 0.0)
    assert [status(child) for child in result["details"]["children"]] == list(children)


@pytest.mark.parametrize("children", list(itertools.product(STATUSES, repeat=3)), ids="-".join)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_at_least_truth_table(k: int, children: tuple[str, ...]) -> None:
    grader = AtLeastGrader(config={"graders": [CHILD[c] for c in children], "k": k})
    assert status(grader.grade(ANSWER, EXPECTED)) == reference("at-least", children, k)


def test_at_least_one_is_any_and_at_least_n_is_all() -> None:
    for children in combos():
        specs = [CHILD[c] for c in children]
        one = AtLeastGrader(config={"graders": specs, "k": 1}).grade(ANSWER, EXPECTED)
        every = AtLeastGrader(config={"graders": specs, "k": len(specs)}).grade(ANSWER, EXPECTED)
        assert status(one) == status(AnyGrader(config={"graders": specs}).grade(ANSWER, EXPECTED))
        assert status(every) == status(AllGrader(config={"graders": specs}).grade(ANSWER, EXPECTED))


def weighted_reference(
    weights: list[float], children: tuple[str, ...], threshold: float
) -> tuple[str, float]:
    if "invalid_expected" in children:
        return "invalid_expected", 0.0
    total = sum(weights)
    low = sum(w for w, c in zip(weights, children, strict=True) if c == "match") / total
    high = sum(w for w, c in zip(weights, children, strict=True) if c != "mismatch") / total
    if low >= threshold:
        return "match", low
    return ("mismatch" if high < threshold else "invalid_response"), low


@pytest.mark.parametrize("children", list(itertools.product(STATUSES, repeat=3)), ids="-".join)
@pytest.mark.parametrize("threshold", [0.25, 0.5, 0.75, 1.0])
def test_weighted_truth_table(threshold: float, children: tuple[str, ...]) -> None:
    weights = [3.0, 2.0, 1.0]
    specs = [{**CHILD[c], "weight": w} for c, w in zip(children, weights, strict=True)]
    result = WeightedGrader(config={"graders": specs, "threshold": threshold}).grade(ANSWER, EXPECTED)
    expected_status, expected_score = weighted_reference(weights, children, threshold)
    assert status(result) == expected_status
    assert result["score"] == pytest.approx(expected_score)
    assert result["passed"] is (expected_status == "match")


def test_weighted_examples() -> None:
    grader = WeightedGrader(
        config={
            "graders": [{"grader_id": "true-false", "weight": 2}, {"grader_id": "string-match", "weight": 1}],
            "threshold": 0.6,
        }
    )
    assert grader.grade("TRUE", "true")["score"] == 1.0
    both = grader.grade("true", "true")
    assert (status(both), both["score"]) == ("match", 1.0)
    assert both["details"]["reason"] == "Weighted score 1.000 reaches the threshold 0.6"
    boolean_only = grader.grade("yes", "true")  # true-false matches, string-match does not
    assert (status(boolean_only), boolean_only["score"]) == ("match", pytest.approx(2 / 3))
    text_only = WeightedGrader(
        config={
            "graders": [{"grader_id": "true-false", "weight": 1}, {"grader_id": "string-match", "weight": 2}],
            "threshold": 0.7,
        }
    ).grade("yes", "true")
    assert (status(text_only), text_only["score"]) == ("mismatch", pytest.approx(1 / 3))
    unknown = grader.grade("Yes indeed", "true")  # true-false cannot read it; it could have carried 2/3
    assert status(unknown) == "invalid_response"
    assert "graders[0] (true-false) could not judge the response" in unknown["details"]["reason"]
    assert unknown["details"]["decided_by"] == "graders[0]"


def test_weighted_perfect_answer_reaches_threshold_one_despite_float_sums() -> None:
    specs = [{"grader_id": "string-match", "weight": w} for w in (0.1, 0.2, 0.7)]
    result = WeightedGrader(config={"graders": specs, "threshold": 1.0}).grade("x", "x")
    assert result["passed"] is True
    assert result["score"] == 1.0


def test_weighted_uses_a_graded_child_score() -> None:
    inner = {
        "graders": [{"grader_id": "string-match", "expected_output": "a"}, {"grader_id": "string-match"}]
    }
    outer = WeightedGrader(config={"graders": [{"grader_id": "weighted", "config": inner}], "threshold": 0.5})
    result = outer.grade("a", "b")  # inner: one of two matches, score 0.5, passes its threshold 0.5
    assert result["score"] == 0.5
    assert result["details"]["children"][0]["score"] == 0.5
    assert WeightedGrader.report.value == "score"
    assert NotGrader.report.value == "pass_fail"


# --- the empty answer and the expected output -------------------------------------------------------------


@pytest.mark.parametrize("answer", [None, "", " ", "\n\t", "\u3000"])
@pytest.mark.parametrize("kind", ["not", "all", "any", "at-least", "weighted"])
def test_blank_answer_is_invalid_response_before_any_child_runs(kind: str, answer: object) -> None:
    config = {"grader": CHILD["mismatch"]} if kind == "not" else {"graders": [CHILD["mismatch"]]}
    result = build(kind, config).grade(answer, "Paris")
    assert status(result) == "invalid_response"
    assert result["details"]["reason"] == EMPTY_RESPONSE_REASON
    assert result["details"]["children"] == []  # not(mismatch) would have been a pass
    assert result["passed"] is False


def test_blank_answer_with_a_refused_expected_output_is_invalid_expected_first() -> None:
    grader = NotGrader(config={"grader": {"grader_id": "true-false"}})
    result = grader.grade("", "perhaps")
    assert status(result) == "invalid_expected"
    assert result["details"]["reason"] == grader.check_expected("perhaps")


def test_invalid_expected_names_the_first_refusing_child_and_matches_the_preflight() -> None:
    grader = AnyGrader(
        config={"graders": [CHILD["match"], {"grader_id": "string-match"}, {"grader_id": "true-false"}]}
    )
    result = grader.grade("maybe", "Paris")  # string-match reads "Paris"; true-false refuses it
    reason = (
        "Expected output refused by graders[2] (true-false): Expected value 'Paris' is not a valid boolean"
    )
    assert status(result) == "invalid_expected"  # even though a child matched: a suite bug wins
    assert result["details"]["reason"] == reason
    assert grader.check_expected("Paris") == reason
    assert grader.check_expected("true") is None
    assert grader.check_expected("") == (
        "Expected output refused by graders[1] (string-match): "
        "Expected output is empty: there is nothing to match"
    )


def test_nested_refusal_gives_the_full_path() -> None:
    grader = NotGrader(
        config={"grader": {"grader_id": "all", "config": {"graders": [{"grader_id": "true-false"}]}}}
    )
    reason = (
        "Expected output refused by grader.config.graders[0] (true-false): "
        "Expected value 'x' is not a valid boolean"
    )
    assert grader.check_expected("x") == reason
    assert grader.grade("yes", "x")["details"]["reason"] == reason


def test_children_with_their_own_expected_outputs() -> None:
    capital = AnyGrader(
        config={
            "graders": [
                {"grader_id": "string-match", "expected_output": "Paris"},
                {"grader_id": "string-match", "expected_output": "Paris, France"},
            ]
        }
    )
    assert capital.grade("paris, france", None)["passed"] is True  # the composite's expected is unused
    assert capital.grade("Lyon", None)["details"]["reason"] == "None of the 2 graders matched"
    assert capital.check_expected(None) is None
    mixed = AllGrader(
        config={
            "graders": [{"grader_id": "true-false"}, {"grader_id": "string-match", "expected_output": "yes"}]
        }
    )
    assert mixed.grade("Yes", "true")["passed"] is True  # true-false gets "true", string-match gets "yes"
    assert mixed.grade("1", "true")["passed"] is False
    details = mixed.grade("1", "true")["details"]
    assert details["decided_by"] == "graders[1]"
    assert details["children"][1]["details"]["expected_original"] == "yes"


# --- the details tree and the reasons ---------------------------------------------------------------------


def test_details_tree_nests_and_keeps_the_verdict_keys() -> None:
    grader = NotGrader(
        config={"grader": {"grader_id": "any", "config": {"graders": [{"grader_id": "true-false"}]}}}
    )
    result = grader.grade("no", "true")
    assert (result["passed"], status(result)) == (True, "match")
    details = result["details"]
    plain = Verdict(MatchStatus.MATCH, "r", "e", "a").result()["details"]
    assert set(plain) <= set(details)  # the keys every grader's details hold
    assert details["expected_original"] == "true"
    assert details["actual_original"] == "no"
    (child,) = details["children"]
    assert list(child) == ["passed", "score", "details", "grader_id"]  # the child's result and its id
    assert (child["grader_id"], status(child), child["passed"]) == ("any", "mismatch", False)
    (leaf,) = child["details"]["children"]
    assert leaf["grader_id"] == "true-false"
    assert leaf["details"]["actual_bool"] == "false"
    assert leaf["details"]["reason"] == "Expected true but got false"


@pytest.mark.parametrize(
    ("grader", "answer", "reason"),
    [
        (
            NotGrader(),
            "Paris",
            "grader (string-match) matched, so the negation fails: Response matches expected output",
        ),
        (
            AllGrader(config={"graders": [{"grader_id": "string-match"}, {"grader_id": "true-false"}]}),
            "TRUE",
            "All 2 graders matched",
        ),
        (
            AllGrader(config={"graders": [{"grader_id": "true-false"}, {"grader_id": "string-match"}]}),
            "yes",
            "graders[1] (string-match) did not match: Response differs from expected output at position 0: "
            "expected 'true', got 'yes'",
        ),
        (
            AnyGrader(config={"graders": [{"grader_id": "string-match"}, {"grader_id": "true-false"}]}),
            "yes",
            "graders[1] (true-false) matched: Expected and actual values match",
        ),
        (
            AnyGrader(config={"graders": [{"grader_id": "string-match"}, {"grader_id": "true-false"}]}),
            "yes sir",
            "No grader matched and graders[1] (true-false) could not judge the response: "
            "Response 'yes sir' does not represent a boolean value",
        ),
        (
            AtLeastGrader(
                config={"graders": [{"grader_id": "string-match"}, {"grader_id": "true-false"}], "k": 2}
            ),
            "yes",
            "Only 1 of 2 graders matched, at least 2 needed",
        ),
    ],
)
def test_reasons_say_which_child_decided(grader: GraderInterface, answer: str, reason: str) -> None:
    assert (
        grader.grade(answer, "true" if grader.grader_id != "not" else "paris")["details"]["reason"] == reason
    )


# --- configuration ----------------------------------------------------------------------------------------


def test_defaults_are_valid_and_stored_filled_in() -> None:
    filled = {"grader_id": "string-match", "config": StringMatchGrader().config, "expected_output": None}
    assert NotGrader().config == {"grader": filled}
    assert AllGrader().config == {"graders": [filled]}
    assert AnyGrader().config == {"graders": [filled]}
    assert AtLeastGrader().config == {"graders": [filled], "k": 1}
    assert WeightedGrader().config == {"graders": [{**filled, "weight": 1}], "threshold": 0.5}
    for grader_class in (NotGrader, AllGrader, AnyGrader, AtLeastGrader, WeightedGrader):
        grader = grader_class()
        assert type(grader)(grader.grader_id, grader.config).config == grader.config
        assert grader.grade("Paris", " paris ")["passed"] is (grader_class is not NotGrader)


def test_config_of_a_child_is_checked_by_the_child_with_its_path() -> None:
    problems = AllGrader.config_problems(
        {
            "graders": [
                {"grader_id": "string-match"},
                {"grader_id": "true-false", "config": {"aliases": {"true": "yes", "false": ["no"]}}},
                {
                    "grader_id": "not",
                    "config": {"grader": {"grader_id": "true-false", "config": {"case_sensitve": True}}},
                },
            ]
        }
    )
    by_path = {problem.path: problem.message for problem in problems}
    assert by_path == {
        "graders[1].config.aliases.true": "graders[1].config: 'aliases.true' must be a list, got str",
        "graders[2].config.grader.config": (
            "graders[2].config.grader.config: unknown config key 'case_sensitve'; "
            "accepted keys: aliases, case_sensitive, extra_aliases"
        ),
    }
    with pytest.raises(TypeError, match=r"graders\[0\]\.config: 'aliases.true' must be a list"):
        AllGrader(
            config={
                "graders": [
                    {"grader_id": "true-false", "config": {"aliases": {"true": "yes", "false": ["no"]}}}
                ]
                * 2
            }
        )


def test_semantic_problem_of_a_child_has_its_path() -> None:
    (problem,) = NotGrader.config_problems(
        {"grader": {"grader_id": "true-false", "config": {"aliases": {"true": ["ok"], "false": ["OK"]}}}}
    )
    assert problem.path == "grader.config.aliases"
    assert problem.message == "grader.config: aliases listed as both true and false: 'ok'"


def test_unknown_child_id_lists_the_known_ones() -> None:
    (problem,) = AnyGrader.config_problems(
        {"graders": [{"grader_id": "string-match"}, {"grader_id": "strng-match"}]}
    )
    assert problem.path == "graders[1].grader_id"
    assert problem.message.startswith(
        "'graders[1].grader_id': no grader has the id 'strng-match' (known ids: "
    )
    for known in ("string-match", "true-false", "not", "all", "any", "at-least", "weighted"):
        assert known in problem.message


def test_a_refused_own_expected_output_is_a_config_problem() -> None:
    (problem,) = AllGrader.config_problems(
        {"graders": [{"grader_id": "true-false", "expected_output": "perhaps"}]}
    )
    assert problem.path == "graders[0].expected_output"
    assert (
        problem.message
        == "'graders[0].expected_output' is refused: Expected value 'perhaps' is not a valid boolean"
    )


@pytest.mark.parametrize(
    ("grader_class", "config", "path", "fragment"),
    [
        (AllGrader, {"graders": []}, "graders", "non-empty"),
        (AllGrader, {"graders": [{"grader_id": "string-match"}] * 21}, "graders", "too long"),
        (AllGrader, {"graders": [{"config": {}}]}, "graders[0]", "'grader_id'"),
        (AllGrader, {"graders": [{"grader_id": " "}]}, "graders[0].grader_id", "blank"),
        (AllGrader, {"graders": [{"grader_id": "string-match", "weight": 1}]}, "graders[0]", "weight"),
        (NotGrader, {"graders": [{"grader_id": "string-match"}]}, "", "unknown config key 'graders'"),
        (NotGrader, {"grader": "string-match"}, "grader", "must be an object"),
        (AtLeastGrader, {"k": 2}, "k", "'k' is 2 but there is 1 grader; k must be 1 to 1"),
        (AtLeastGrader, {"k": 0}, "k", "minimum"),
        (AtLeastGrader, {"k": True}, "k", "integer"),
        (WeightedGrader, {"threshold": 0}, "threshold", "0"),
        (WeightedGrader, {"threshold": 1.5}, "threshold", "1.5"),
        (WeightedGrader, {"threshold": math.nan}, "threshold", "'threshold' must be a number"),
        (WeightedGrader, {"graders": [{"grader_id": "string-match", "weight": 0}]}, "graders[0].weight", "0"),
        (
            WeightedGrader,
            {"graders": [{"grader_id": "string-match", "weight": math.nan}]},
            "graders[0].weight",
            "greater than 0",
        ),
        (
            NotGrader,
            {"grader": {"grader_id": "string-match", "expected_output": "x" * 10_001}},
            "grader.expected_output",
            "long",
        ),
    ],
)
def test_config_problems(
    grader_class: type[CompositeGrader], config: dict[str, Any], path: str, fragment: str
) -> None:
    problems = grader_class.config_problems(config)
    assert problems, config
    assert problems[0].path == path
    assert fragment in problems[0].message
    with pytest.raises((TypeError, ValueError)):
        grader_class(config=config)


def chain(levels: int, leaf: dict[str, Any] | None = None) -> dict[str, Any]:
    """``levels`` nested `not` composites around a string-match, as a child spec."""
    spec = leaf or {"grader_id": "string-match"}
    for _ in range(levels):
        spec = {"grader_id": "not", "config": {"grader": spec}}
    return spec


def test_depth_cap() -> None:
    deepest = chain(MAX_DEPTH)
    assert NotGrader.config_problems(deepest["config"]) == []
    grader = NotGrader(config=deepest["config"])
    assert grader.grade("Paris", "paris")["passed"] is False  # an odd number of negations
    (problem,) = NotGrader.config_problems(chain(MAX_DEPTH + 1)["config"])
    assert (problem.path, problem.message) == (
        "",
        "the composition nests composite graders more than 5 levels deep",
    )
    nested_in_a_list = {"graders": [{"grader_id": "string-match"}, chain(MAX_DEPTH)]}
    assert "more than 5 levels" in AllGrader.config_problems(nested_in_a_list)[0].message


def test_node_cap_counts_every_grader_in_the_tree() -> None:
    leaf = {"grader_id": "string-match"}
    # root + 7 composites + 42 leaves = 50
    ok = {"graders": [{"grader_id": "all", "config": {"graders": [leaf] * 6}}] * 7}
    assert AllGrader.config_problems(ok) == []
    assert len(AllGrader(config=ok).children) == 7
    over = {"graders": [{"grader_id": "all", "config": {"graders": [leaf] * 6}}] * 7 + [leaf]}
    (problem,) = AllGrader.config_problems(over)
    assert problem.message == "the composition has more than 50 graders (composites and leaves)"
    assert MAX_NODES == 50


def test_hostile_trees_are_refused_quickly_without_recursion_errors() -> None:
    deep: dict[str, Any] = {"grader_id": "string-match"}
    for _ in range(5000):
        deep = {"grader_id": "not", "config": {"grader": deep}}
    assert "levels deep" in NotGrader.config_problems(deep["config"])[0].message
    wide = {
        "graders": [{"grader_id": "any", "config": {"graders": [{"grader_id": "string-match"}] * 100_000}}]
    }
    assert "more than 50 graders" in AllGrader.config_problems(wide)[0].message
    assert NotGrader.config_problems({"grader": {"grader_id": "all", "config": {"graders": "x"}}})[
        0
    ].path == ("grader.config.graders")


# --- never raises -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("child", ["test-raises", "test-garbage", "test-fresh-reasonless"])
def test_a_broken_child_is_never_a_pass(child: str) -> None:
    for kind in ("not", "any", "weighted"):
        config = {"grader": {"grader_id": child}} if kind == "not" else {"graders": [{"grader_id": child}]}
        grader = build(kind, config)
        result = grader.grade("Paris", "paris")
        assert status(result) == "invalid_response"
        assert result["passed"] is False
        assert f"({child}) failed" in result["details"]["reason"]
        assert grader.check_expected("paris") is None


@pytest.mark.parametrize("child", ["test-odd-status", "test-fresh-odd-status"])
def test_a_child_with_an_unknown_status_word_is_read_by_passed_and_its_score_kept_in_range(
    child: str,
) -> None:
    grader = WeightedGrader(config={"graders": [{"grader_id": child}]})
    passing = grader.grade("a", "a")
    assert (status(passing), passing["score"]) == ("match", 1.0)
    (entry,) = passing["details"]["children"]
    # The plugin's word stays in its details; the entry says how the composite counted it.
    assert (entry["match_status"], entry["details"]["match_status"]) == ("match", "great")
    assert list(entry) == ["passed", "score", "details", "grader_id", "match_status"]
    failing = grader.grade("a", "b")
    assert (status(failing), failing["score"]) == ("mismatch", 0.0)
    assert NotGrader(config={"grader": {"grader_id": child}}).grade("a", "b")["passed"] is True


def test_tree_entries_have_one_shape_and_a_plugin_result_is_copied() -> None:
    grader = AllGrader(
        config={"graders": [{"grader_id": "test-shared-result"}, {"grader_id": "string-match"}] * 2}
    )
    first, second = (grader.grade("Paris", "paris")["details"]["children"] for _ in range(2))
    keys = ["passed", "score", "details", "grader_id"]
    assert [list(entry) for entry in first] == [keys] * 4
    assert list(SHARED_RESULT) == ["passed", "score", "details"]  # the plugin's own dict, untouched
    assert [entry["grader_id"] for entry in first] == ["test-shared-result", "string-match"] * 2
    assert first[1] is not first[3]  # each string-match result, a new one per call, extended in place
    assert first[1] is not second[1]
    assert first == second


class Unprintable:
    def __str__(self) -> str:
        raise ValueError("no")


@pytest.mark.parametrize(
    "answer", [Unprintable(), b"\xff", "\ud800", "\x00", 0, False, [], {"k": 1}, "x" * 1_000_000]
)
def test_odd_answers(answer: object) -> None:
    grader = AllGrader(config={"graders": [{"grader_id": "true-false"}, {"grader_id": "not"}]})
    result = grader.grade(answer, "true")
    assert status(result) in {"match", "mismatch", "invalid_response"}
    assert grader.grade(answer, "true") == result


# --- version ----------------------------------------------------------------------------------------------


def test_instance_version_covers_the_children(monkeypatch: pytest.MonkeyPatch) -> None:
    assert NotGrader.version == "1.2.0"  # the class: the combination's own rules and details' shape
    over_text = NotGrader()
    over_boolean = NotGrader(config={"grader": {"grader_id": "true-false"}})
    assert over_text.version.startswith("1.2.0+")
    assert over_text.version != over_boolean.version
    assert NotGrader().version == over_text.version  # deterministic
    assert over_text.metadata()["version"] == over_text.version
    assert GraderService.spec(over_text).version == over_text.version
    nested = NotGrader(config={"grader": {"grader_id": "not"}})
    monkeypatch.setattr(StringMatchGrader, "version", "9.9.9")  # a new string-match...
    assert NotGrader().version != over_text.version  # ...changes the stored version of every tree using it
    assert NotGrader(config={"grader": {"grader_id": "not"}}).version != nested.version
    assert len(nested.version) <= 100  # stored in a String(100) column


def test_service_lists_and_builds_composites() -> None:
    service = GraderService(load_plugins=False)
    for grader_id in ("not", "all", "any", "at-least", "weighted"):
        assert isinstance(service.get(grader_id), CompositeGrader)
    built = service.build("any", {"graders": [{"grader_id": "true-false"}, {"grader_id": "string-match"}]})
    assert built.grade("yes", "true")["passed"] is True
    assert service.build("not", NotGrader().config) is service.get("not")


# --- properties -------------------------------------------------------------------------------------------

WORDS = ["true", "false", "yes", "no", "maybe", "Paris", "paris", "", " ", "1", "0"]
answers: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.sampled_from(WORDS), st.text(max_size=8), st.booleans()
)


LEAF_EXPECTED = {"true-false": [None, "true", "no"], "string-match": [None, "true", "Paris"]}


def _leaf(grader_id: str, own: str | None) -> dict[str, Any]:
    return {"grader_id": grader_id, **({"expected_output": own} if own else {})}


LEAVES = [_leaf(grader_id, own) for grader_id, owns in LEAF_EXPECTED.items() for own in owns]
KINDS = ["not", "all", "any", "at-least", "weighted"]


def _composite(children: list[dict[str, Any]], kind: str, k: int) -> dict[str, Any]:
    if kind == "not":
        return {"grader_id": "not", "config": {"grader": children[0]}}
    config: dict[str, Any] = {"graders": children}
    if kind == "at-least":
        config["k"] = min(k, len(children))
    if kind == "weighted":
        config["threshold"] = k / 4
    return {"grader_id": kind, "config": config}


def composite_tree(raw: bytes) -> dict[str, Any]:
    """A composite spec read from ``raw`` (drawn as one byte string: one choice for Hypothesis, where
    ``st.recursive`` costs several per node and a filter for the caps threw draws away)."""
    return _node(iter(raw), depth=0)


def _node(tokens: Iterator[int], depth: int) -> dict[str, Any]:
    """Below the root, a byte under 100 (or none left) is a leaf; any other byte is a composite of one to
    three children (the next byte says how many), nested at most ``MAX_DEPTH`` deep. With at most 12 bytes,
    a tree has at most 12 composites and 36 leaves: within ``MAX_NODES``."""
    byte = next(tokens, None)
    if depth == MAX_DEPTH or (depth > 0 and (byte is None or byte < 100)):
        return LEAVES[(byte or 0) % len(LEAVES)]
    byte = byte or 0
    kind = KINDS[byte % len(KINDS)]
    width = 1 if kind == "not" else 1 + next(tokens, 0) % 3
    return _composite([_node(tokens, depth + 1) for _ in range(width)], kind, k=1 + byte // 5 % 4)


def grader_of(spec: dict[str, Any]) -> GraderInterface:
    return build(spec["grader_id"], spec.get("config"))


def is_valid_tree(spec: dict[str, Any]) -> bool:
    """What a composition refuses besides the caps: a child beside its own negation, for one."""
    grader_class = catalog.lookup(spec["grader_id"])
    return grader_class is not None and not grader_class.config_problems(spec["config"])


composite_trees = st.binary(max_size=12).map(composite_tree).filter(is_valid_tree)


@given(st.sampled_from(["true-false", "string-match"]), answers, answers)
def test_not_not_is_the_child(grader_id: str, answer: Any, expected: Any) -> None:
    child = build(grader_id)
    twice = NotGrader(config={"grader": {"grader_id": "not", "config": {"grader": {"grader_id": grader_id}}}})
    plain = child.grade(answer, expected)
    assert status(twice.grade(answer, expected)) == status(plain)
    assert twice.check_expected(expected) is None or twice.grade(answer, expected)["passed"] is False


@given(st.sampled_from(["true-false", "string-match"]), answers, answers)
def test_all_of_one_child_is_the_child(grader_id: str, answer: Any, expected: Any) -> None:
    child = build(grader_id).grade(answer, expected)
    for kind in ("all", "any", "at-least"):
        one = build(kind, {"graders": [{"grader_id": grader_id}]}).grade(answer, expected)
        assert (status(one), one["passed"], one["score"]) == (status(child), child["passed"], child["score"])


@given(composite_trees, st.sampled_from([None, "", " ", "\n", "\t \u00a0"]), answers)
def test_an_empty_answer_never_passes_any_composition(
    spec: dict[str, Any], answer: Any, expected: Any
) -> None:
    grader = grader_of(spec)
    result = grader.grade(answer, expected)
    assert result["passed"] is False
    assert status(result) in {"invalid_response", "invalid_expected"}


@given(composite_trees, answers, answers)
def test_random_compositions_are_deterministic_bounded_and_agree_with_their_preflight(
    spec: dict[str, Any], answer: Any, expected: Any
) -> None:
    grader = grader_of(spec)
    result = grader.grade(answer, expected)
    assert 0.0 <= result["score"] <= 1.0
    assert result["passed"] is (status(result) == "match")
    assert grader.grade(answer, expected) == result
    refusal = grader.check_expected(expected)
    assert (status(result) == "invalid_expected") is (refusal is not None)
    if refusal is not None:
        assert result["details"]["reason"] == refusal
