"""Hypothesis properties of the trajectory readers and graders: never raise on any document, never pass
without a readable trajectory, one JSON form that round-trips, and the sequence modes' logic."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from assay.graders import catalog
from assay.graders.builtin.tool_sequence import ToolSequenceGrader
from assay.graders.contract.reply import AgentReply
from assay.graders.reading.trajectories import trajectory_of
from assay.graders.trajectory.readers import DIALECTS, read_trajectory
from assay.graders.trajectory.record import Step, ToolCall, Trajectory, TrajectoryProblem, from_json, to_json
from tests.support import trajectories as run
from tests.support.inputs import anything, json_documents, picks

KEYS = [
    "messages",
    "role",
    "content",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "id",
    "tool_call_id",
    "type",
    "output",
    "call_id",
    "text",
    "input",
    "tool_use_id",
    "is_error",
    "usage",
    "schema_version",
    "steps",
    "source",
    "message",
    "observation",
    "results",
    "resourceSpans",
    "scopeSpans",
    "spans",
    "attributes",
    "key",
    "value",
    "stringValue",
    "intValue",
    "startTimeUnixNano",
    "format",
    "kind",
    "tool_call",
    "choices",
]
VALUES = [
    *("assistant", "user", "tool", "function_call", "message", "tool_use", "tool_result", "text"),
    *("ATIF-v1.4", "execute_tool", "gen_ai.operation.name", "assay.trajectory/1", "{}", "{bad", "refund"),
    *(None, True, False, 0, 1, -1, 2**63, 1.5, -0.0, 1e300, "", "a", "x y", "\x00", "🙂"),
]
json_values: st.SearchStrategy[Any] = json_documents(VALUES, KEYS, max_size=32)
"""JSON documents built of the dialects' own keys and values: they reach into every reader (and, through
``mutated_documents``, deep into a dialect's real document)."""


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    """A dialect's document with one value somewhere replaced by any JSON value."""
    document = copy.deepcopy(draw(st.sampled_from(list(run.DIALECT_DOCUMENTS.values()))))
    node = document
    for _ in range(draw(st.integers(0, 6))):
        children = (
            list(node.items())
            if isinstance(node, dict)
            else list(enumerate(node))
            if isinstance(node, list)
            else []
        )
        containers = [(key, value) for key, value in children if isinstance(value, dict | list) and value]
        if not containers:
            break
        node = draw(st.sampled_from(containers))[1]
    if isinstance(node, dict) and node:
        node[draw(st.sampled_from(sorted(node)))] = draw(json_values)
    elif isinstance(node, list) and node:
        node[draw(st.integers(0, len(node) - 1))] = draw(json_values)
    return document


documents = st.one_of(json_values, mutated_documents())


@given(documents, st.sampled_from([None, *DIALECTS]))
@example([{"type": []}], None)  # a list where a type name stands: found by CI's 1,000 examples
@example({"messages": [{"role": "user", "content": [{"type": ["tool_use"]}]}]}, None)
@example({"output": [{"type": {"a": 1}}]}, "openai-responses")
def test_reading_never_raises_and_a_refusal_says_why(document: Any, dialect: str | None) -> None:
    read = read_trajectory(document, dialect)
    assert isinstance(read, Trajectory | TrajectoryProblem)
    if isinstance(read, TrajectoryProblem):
        assert read.reason
    else:
        assert from_json(json.loads(json.dumps(to_json(read)))) == read  # every trajectory read round-trips


def _configured() -> list[Any]:
    built = []
    for grader_id in ("tool-called", "tool-sequence", "tool-args", "trajectory-budget"):
        grader_class = catalog.lookup(grader_id)
        assert grader_class is not None
        configs = [{}] + [dict(preset.config) for preset in grader_class.presets.values()]
        if grader_id == "trajectory-budget":
            configs = [{**config, "max_steps": 10_000} for config in configs]
        built += [grader_class(grader_id, config) for config in configs]
    return built


CONFIGURED = _configured()


@given(st.sampled_from(CONFIGURED), st.one_of(anything, documents, documents.map(json.dumps)), anything)
def test_no_trajectory_grader_passes_without_a_readable_trajectory(
    grader: Any, response: Any, expected: Any
) -> None:
    for answer in (response, AgentReply(text=str(response)), AgentReply(text="ok", raw=str(response))):
        result = grader.grade(answer, expected)
        assert result["details"]["reason"]
        if not isinstance(trajectory_of(answer), Trajectory):
            assert result["passed"] is False
            assert result["details"]["match_status"] in ("invalid_response", "invalid_expected")


names = picks(["lookup", "refund", "search", "notify"], max_size=8)


@given(names, names)
def test_the_sequence_modes_agree_with_one_another(made: list[str], expected: list[str]) -> None:
    trajectory = Trajectory(
        steps=tuple(Step(kind="tool_call", tool_call=ToolCall(name=name)) for name in made), dialect="test"
    )
    passes = {
        mode: ToolSequenceGrader(config={"mode": mode, "tools": expected}).grade(trajectory, None)["passed"]
        for mode in ("exact", "in_order", "any_order", "subset", "superset")
    }
    assert passes["exact"] is (made == expected)
    assert passes["any_order"] is (sorted(made) == sorted(expected))
    assert passes["any_order"] is (passes["subset"] and passes["superset"])
    if passes["in_order"]:
        assert passes["superset"]
    if passes["exact"]:
        assert all(passes.values())
