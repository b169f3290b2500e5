"""Issue 23's property: no grader or composition passes an answer with no visible character, nor any
answer when the expected output is unreadable (empty or invisible)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from assay.graders import BUILTIN_GRADERS, ExtractGrader, GraderInterface, catalog

INVISIBLE = (
    " \t\n\r\x0b\x0c\x00\x01\x1f\x7f\x85\xa0\xad\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202e"
    "\u2060\u2066\u2069\u3000\ufeff\ufe0f\ud800\udfff\U000e0001"
)
invisible = st.text(alphabet=st.sampled_from(INVISIBLE), max_size=12)
unreadable = st.one_of(st.none(), invisible)
answers = st.one_of(
    invisible,
    st.text(max_size=40),
    st.sampled_from(["Paris", "42", "B", "true", "yes", "Answer: yes", '{"a": 1}', "<answer>no</answer>"]),
)
expected_values = st.sampled_from(["Paris", "42", "B", "true", "false", '{"a": 1}', "^P.*s$", "yes"])
SM: dict[str, Any] = {"grader_id": "string-match"}
TF: dict[str, Any] = {"grader_id": "true-false"}


def _build(grader_id: str, config: dict[str, Any]) -> GraderInterface:
    grader_class = catalog.lookup(grader_id)
    assert grader_class is not None
    return grader_class(grader_id, config)


def _graders() -> list[GraderInterface]:
    graders: list[GraderInterface] = [grader_class() for grader_class in BUILTIN_GRADERS]
    for leaf in ("string-match", "contains", "regex", "fuzzy", "overlap", "numeric", "choice", "json"):
        graders.append(_build("not", {"grader": {"grader_id": leaf}}))
    not_tf = {"grader_id": "not", "config": {"grader": TF}}
    graders += [
        _build("any", {"graders": [SM, not_tf]}),
        _build("all", {"graders": [{"grader_id": "not"}, TF]}),
        _build("at-least", {"graders": [not_tf, SM, TF], "k": 2}),
        _build("weighted", {"graders": [{"grader_id": "not"}, SM], "threshold": 1e-9}),
        *(ExtractGrader("extract", dict(preset.config)) for preset in ExtractGrader.presets.values()),
        ExtractGrader("extract", {"grader": {"grader_id": "not"}}),
    ]
    return graders


GRADERS = _graders()


@given(invisible, expected_values)
def test_no_grader_passes_an_answer_with_no_visible_character(answer: str, expected: str) -> None:
    for grader in GRADERS:
        result = grader.grade(answer, expected)
        assert result["passed"] is False, (grader, answer, expected)
        assert result["score"] == 0.0 or result["details"]["match_status"] != "match"


@given(answers, unreadable)
def test_no_grader_passes_any_answer_when_the_expected_output_is_unreadable(
    answer: str, expected: str | None
) -> None:
    for grader in GRADERS:
        if grader.grader_id in ("json", "not") and expected is None:
            continue  # json with no expected output checks a schema (none here); not(X) of nothing is X's
        result = grader.grade(answer, expected)
        assert result["passed"] is False, (grader, answer, expected)
