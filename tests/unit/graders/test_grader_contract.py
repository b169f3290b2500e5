"""The contract every registered grader keeps, checked over the registry (built-ins and plugins alike).

The properties draw a grader and any answer (the CI profile runs 1,000 examples each); every grader crossed
with the fixed odd inputs of ``tests/support/inputs.py`` is an explicit ``@example`` of them, tried on every
run. A new odd input goes there, a new grader in the registry: both are then checked everywhere."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import assay.graders
from assay.graders import GraderInterface, LLMJudgeGrader, VerdictReport
from assay.graders.contract.reply import AgentReply
from assay.graders.contract.verdict import MatchStatus, status_of
from assay.graders.reading.trajectories import TrajectoryGrader
from assay.graders.trajectory.record import Step, ToolCall, Trajectory
from assay.services.grader_service import GraderService
from tests.support.inputs import ODD_EXPECTED, ODD_INPUTS, anything

REGISTERED = GraderService().list()
graders = st.sampled_from(REGISTERED)


def odd_examples(test: Callable[..., None]) -> Callable[..., None]:
    """Every registered grader crossed with every odd answer and odd expected output, as ``@example``s."""
    for grader in REGISTERED:
        for response in ODD_INPUTS:
            for expected in ODD_EXPECTED:
                test = example(grader, response, expected)(test)
    return test


def odd_expected_examples(test: Callable[..., None]) -> Callable[..., None]:
    """Every registered grader crossed with every odd expected output, as ``@example``s."""
    for grader in REGISTERED:
        for expected in ODD_INPUTS:
            test = example(grader, expected)(test)
    return test


def ids(grader: GraderInterface) -> str:
    return grader.grader_id


def test_public_api_is_curated() -> None:
    assert {"GraderInterface", "StringMatchGrader", "TrueFalseGrader"} <= set(assay.graders.__all__)
    for name in assay.graders.__all__:
        assert hasattr(assay.graders, name)


def test_both_builtins_are_registered() -> None:
    assert [grader.grader_id for grader in REGISTERED][:2] == ["string-match", "true-false"]


@pytest.mark.parametrize("grader", REGISTERED, ids=ids)
def test_metadata_present(grader: GraderInterface) -> None:
    metadata = grader.metadata()
    for field in ("id", "name", "description", "type", "version"):
        assert isinstance(metadata[field], str)
        assert metadata[field]
    assert metadata["id"] == grader.grader_id == grader.id
    assert set(metadata["scoring_guide"]) >= {"1.0", "0.0"}


@pytest.mark.parametrize("grader", REGISTERED, ids=ids)
def test_config_schema_is_valid_strict_and_accepts_its_defaults(grader: GraderInterface) -> None:
    schema = grader.config_schema
    jsonschema.validators.validator_for(schema).check_schema(schema)
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    for name, spec in schema["properties"].items():
        assert "default" in spec, name
    jsonschema.validate(grader.config, schema)
    assert grader.config_problems({"no_such_option": 1})
    assert type(grader)(grader.grader_id, grader.config).config == grader.config


@given(graders, anything, anything)
@odd_examples
def test_grade_keeps_the_result_shape_never_raises_and_is_deterministic(
    grader: GraderInterface, response: Any, expected: Any
) -> None:
    result = grader.grade(response, expected)
    assert set(result) == {"passed", "score", "details"}
    assert type(result["passed"]) is bool
    assert type(result["score"]) is float
    assert 0.0 <= result["score"] <= 1.0  # NaN fails this too
    if grader.report is not VerdictReport.SCORE:  # a pass/fail grader's score is its verdict
        assert result["score"] == (1.0 if result["passed"] else 0.0)
    details = result["details"]
    assert result["passed"] is (details["match_status"] == "match")
    # One of the shared kinds, and a reason: a composite takes a built-in's result as it is (unchecked).
    assert details["match_status"] in {status.value for status in MatchStatus}
    assert isinstance(details["reason"], str)
    assert details["reason"]
    assert grader.grade(response, expected) == result


@given(graders, anything)
@odd_expected_examples
def test_check_expected_never_raises_and_agrees_with_grade(grader: GraderInterface, expected: Any) -> None:
    reason = grader.check_expected(expected)
    assert reason is None or (isinstance(reason, str) and reason)
    if reason is not None:  # an expected output refused before the run can never pass in it
        for response in ODD_INPUTS:
            assert grader.grade(response, expected)["passed"] is False


@pytest.mark.parametrize("grader", REGISTERED, ids=ids)
def test_every_preset_is_a_valid_config(grader: GraderInterface) -> None:
    for name, preset in grader.presets.items():
        assert preset.description, name
        assert grader.config_problems(dict(preset.config)) == [], name
        built = type(grader)(grader.grader_id, dict(preset.config))
        assert built.config == {**grader.config, **preset.config}, name


@pytest.mark.parametrize("grader", REGISTERED, ids=ids)
def test_presets_are_valid_configs_and_keep_the_contract(grader: GraderInterface) -> None:
    listed = grader.metadata()["presets"]
    json.dumps(listed, allow_nan=False)  # listed by the API as they are
    assert set(listed) == set(grader.presets)
    for name, preset in grader.presets.items():
        assert re.fullmatch(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*", name), name  # a word for -p
        assert preset.description.strip(), name
        assert grader.config_problems(dict(preset.config)) == [], name
        configured = type(grader)(grader.grader_id, dict(preset.config))
        for response in ODD_INPUTS:
            result = configured.grade(response, "7")
            assert result["passed"] is (result["details"]["match_status"] == "match")
        for empty in (None, "", " \n"):  # an empty answer never passes, whatever the preset
            for expected in ("7", "true", '{"a": 1}'):
                assert status_of(configured.grade(empty, expected)).is_invalid, (name, expected)


def _as_text(value: Any) -> Any:
    """``value`` with every AgentReply in it (a composite's children hold their originals) made its text."""
    if isinstance(value, AgentReply):
        return value.text
    if isinstance(value, dict):
        return {key: _as_text(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_text(item) for item in value]
    return value


@pytest.mark.parametrize("grader", REGISTERED, ids=ids)
def test_an_agent_reply_is_graded_as_its_text(grader: GraderInterface) -> None:
    trajectory = Trajectory(
        steps=(Step(kind="tool_call", tool_call=ToolCall(name="lookup", arguments={"id": 7}, call_id="c1")),),
        dialect="openai-chat",
    )
    for text in ("yes", "4.99", '{"a": 1}', "The answer is B.", "Paris", "", " "):
        for expected in ("yes", "4.99", '{"a": 1}', "B", "Paris"):
            replies = [AgentReply(text=text)]
            # a text grader ignores what else the reply holds; the judge is shown the trajectory (by design)
            if not isinstance(grader, TrajectoryGrader | LLMJudgeGrader):
                replies.append(AgentReply(text=text, trajectory=trajectory, raw="{}"))
            for reply in replies:
                by_reply = grader.grade(reply, expected)
                assert _as_text(by_reply) == _as_text(grader.grade(text, expected))
