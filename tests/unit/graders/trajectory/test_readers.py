"""Each dialect's reader, the detection between them, and the refusals: a problem with its reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from assay.graders.trajectory.building import MAX_STEPS
from assay.graders.trajectory.readers import DIALECTS, detect, read_trajectory
from assay.graders.trajectory.record import Trajectory, TrajectoryProblem, from_json, to_json
from tests.support import trajectories as run


def _read(document: Any, dialect: str | None = None) -> Trajectory:
    read = read_trajectory(document, dialect)
    assert isinstance(read, Trajectory), read
    return read


@pytest.mark.parametrize("dialect", sorted(run.DIALECT_DOCUMENTS))
def test_every_dialect_reads_the_same_tool_calls(dialect: str) -> None:
    document = run.DIALECT_DOCUMENTS[dialect]
    assert detect(document) == dialect
    trajectory = _read(document)
    assert trajectory.dialect == dialect
    assert trajectory.raw is document
    calls = trajectory.tool_calls()
    assert [call.name for call in calls] == ["lookup_order", "refund"]
    assert [call.arguments for call in calls] == [
        run.LOOKUP_ARGS,
        run.REFUND_ARGS,
    ]  # parsed from text where given
    assert all(call.call_id for call in calls)
    results = [step for step in trajectory.steps if step.kind == "tool_result"]
    assert [step.call_id for step in results] == [call.call_id for call in calls]
    assert [step.text for step in results] == [run.LOOKUP_RESULT, run.REFUND_RESULT]
    assert trajectory.final_text == run.FINAL
    assert (trajectory.input_tokens, trajectory.output_tokens) == (120, 30)
    # each call comes before its result
    kinds = [step.kind for step in trajectory.steps if step.kind != "message"]
    assert kinds == ["tool_call", "tool_result", "tool_call", "tool_result"]
    assert _read(document, dialect) == trajectory  # the hint reads it alike


def test_the_normalised_form_is_a_dialect_too() -> None:
    trajectory = _read(run.ATIF)
    written = json.loads(json.dumps(to_json(trajectory)))
    assert detect(written) == "assay"
    assert _read(written) == trajectory == from_json(written)


def test_openai_chat_keeps_text_beside_tool_calls_and_unparsable_arguments_raw() -> None:
    document = copy.deepcopy(run.OPENAI_CHAT)
    document["messages"][4]["tool_calls"][0]["function"]["arguments"] = "{not json"
    trajectory = _read(document)
    assert [(step.kind, step.role) for step in trajectory.steps[:4]] == [
        ("message", "system"),
        ("message", "user"),
        ("message", "assistant"),
        ("tool_call", "assistant"),
    ]
    assert trajectory.steps[2].text == "Let me look that up."
    assert trajectory.tool_calls()[1].arguments == "{not json"


def test_an_openai_chat_completion_is_one_assistant_message() -> None:
    completion = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "search", "arguments": "{}"}}
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    trajectory = _read(completion)
    assert trajectory.tool_names() == ("search",)
    assert trajectory.final_text is None


def test_anthropic_reads_one_response_message_and_error_results() -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "order 7"}},
        ],
        "usage": {"input_tokens": 9, "output_tokens": 4},
    }
    assert detect(response) == "anthropic"
    trajectory = _read(response)
    assert [step.kind for step in trajectory.steps] == ["message", "tool_call"]
    assert (trajectory.input_tokens, trajectory.output_tokens) == (9, 4)
    failing = [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "boom"}],
        }
    ]
    step = _read(failing).steps[0]
    assert (step.kind, step.is_error, step.text) == ("tool_result", True, "boom")


def test_atif_times_and_usage() -> None:
    trajectory = _read(run.ATIF)
    assert trajectory.seconds == pytest.approx(3.5)
    assert trajectory.steps[0].started_ms == 0.0
    timed = [step for step in trajectory.steps if step.started_ms is not None]
    assert [step.started_ms for step in timed] == [0.0, 1000.0, 2000.0, 3500.0]
    assert trajectory.steps[1].role == "assistant"  # the source agent
    assert trajectory.steps[1].input_tokens == 50


def test_otlp_orders_spans_by_start_and_counts_model_usage_once() -> None:
    trajectory = _read(run.OTLP)
    assert [step.kind for step in trajectory.steps] == [
        "message",
        "tool_call",
        "tool_result",
        "message",
        "tool_call",
        "tool_result",
        "message",
    ]
    assert trajectory.seconds == pytest.approx(3.5)
    assert trajectory.steps[1].started_ms == pytest.approx(1000.0)
    assert trajectory.steps[1].duration_ms == pytest.approx(300.0)
    assert trajectory.steps[3].text is None  # a model turn that only called a tool


def test_an_otlp_tool_span_that_failed_is_an_error_result() -> None:
    document = copy.deepcopy(run.OTLP)
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    refund = spans[1]
    refund["attributes"] = [a for a in refund["attributes"] if a["key"] != "gen_ai.tool.call.result"]
    refund["status"] = {"code": 2, "message": "refused"}
    step = next(
        step for step in _read(document).steps if step.kind == "tool_result" and step.call_id == "call_2"
    )
    assert step.is_error
    assert step.text is None


@pytest.mark.parametrize(
    ("document", "dialect", "says"),
    [
        ("just text", None, "no known dialect"),
        (42, None, "no known dialect"),
        ({"answer": "hi"}, None, "no known dialect"),
        ([], None, "no known dialect"),
        ({"messages": []}, None, "no chat messages"),
        ({"messages": [{"content": "no role"}]}, "openai-chat", "$.messages[0].role"),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]},
            None,
            "name",
        ),
        ({"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": ""}}]}]}, None, "name"),
        ({"output": [{"type": "function_call", "arguments": "{}"}]}, None, "name"),
        ({"output": [{"type": "reasoning"}]}, None, "no message or function call"),
        ([{"role": "user", "content": [{"type": "tool_use", "input": {}}]}], None, "anthropic"),
        ({"schema_version": "ATIF-v1.4", "steps": "many"}, None, "$.steps"),
        ({"schema_version": "ATIF-v1.4", "steps": []}, None, "no steps"),
        ({"resourceSpans": "x"}, None, "$.resourceSpans"),
        ({"resourceSpans": []}, None, "no spans"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "GET /"}]}]}]}, None, "no GenAI span"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "klingon", "unknown dialect"),
        ({"format": "assay.trajectory/1", "dialect": "x", "steps": [{"kind": "?"}]}, None, "normalised"),
    ],
)
def test_a_document_that_is_no_trajectory_is_a_problem_with_its_reason(
    document: Any, dialect: str | None, says: str
) -> None:
    read = read_trajectory(document, dialect)
    assert isinstance(read, TrajectoryProblem)
    assert says in read.reason


def test_the_step_cap_is_checked_before_reading() -> None:
    messages = [{"role": "user", "content": "x"}] * (MAX_STEPS + 1)
    read = read_trajectory({"messages": messages})
    assert isinstance(read, TrajectoryProblem)
    assert "more than 100,000 messages" in read.reason


def test_every_dialect_is_listed_and_reads_its_own_document() -> None:
    assert set(DIALECTS) == {*run.DIALECT_DOCUMENTS, "assay"}
    for dialect, document in run.DIALECT_DOCUMENTS.items():
        others = [other for other in DIALECTS if other not in (dialect, "assay")]
        for other in others:  # a document read as another dialect is refused or reads to another shape
            read = read_trajectory(document, other)
            assert isinstance(read, TrajectoryProblem) or read.tool_names() != ("lookup_order", "refund"), (
                dialect,
                other,
            )


def test_an_otlp_span_naming_a_tool_without_an_operation_is_a_tool_call() -> None:
    document = copy.deepcopy(run.OTLP)
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in spans:
        span["attributes"] = [
            a for a in span["attributes"] if a["value"].get("stringValue") != "execute_tool"
        ]
    assert _read(document).tool_names() == ("lookup_order", "refund")
