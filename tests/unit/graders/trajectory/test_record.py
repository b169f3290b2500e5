"""The normalised trajectory record: its summary and its one JSON form."""

from __future__ import annotations

import json

import pytest

from assay.graders.trajectory.record import (
    FORMAT,
    Step,
    ToolCall,
    Trajectory,
    from_json,
    summarize,
    to_json,
)

TRAJECTORY = Trajectory(
    steps=(
        Step(kind="message", role="user", text="Refund order 7"),
        Step(
            kind="tool_call",
            role="assistant",
            tool_call=ToolCall(name="lookup_order", arguments={"id": 7}, call_id="c1"),
            input_tokens=30,
            output_tokens=8,
        ),
        Step(kind="tool_result", role="tool", call_id="c1", text='{"status": "paid"}', duration_ms=12.5),
        Step(kind="tool_call", role="assistant", tool_call=ToolCall(name="refund", arguments="{bad")),
        Step(kind="tool_result", role="tool", call_id=None, text="denied", is_error=True),
        Step(kind="tool_call", tool_call=ToolCall(name="lookup_order", arguments={"id": 7})),
        Step(kind="message", role="assistant", text="Refunded.", started_ms=2400.0),
    ),
    dialect="openai-chat",
    final_text="Refunded.",
    input_tokens=812,
    output_tokens=95,
    seconds=2.4,
    raw={"messages": []},
)


def test_the_json_form_round_trips_through_text() -> None:
    written = to_json(TRAJECTORY)
    assert written["format"] == FORMAT
    assert "raw" not in written
    # nulls are left out
    assert written["steps"][0] == {"kind": "message", "role": "user", "text": "Refund order 7"}
    assert written["steps"][4]["is_error"] is True
    assert from_json(json.loads(json.dumps(written))) == TRAJECTORY


def test_the_summary_counts_tools_in_first_use_order() -> None:
    summary = summarize(TRAJECTORY)
    assert summary.steps == 7
    assert summary.tool_calls == 3
    assert summary.tool_names == (("lookup_order", 2), ("refund", 1))
    assert summary.to_json()["tool_names"] == {"lookup_order": 2, "refund": 1}
    assert (summary.input_tokens, summary.output_tokens, summary.seconds) == (812, 95, 2.4)
    assert TRAJECTORY.tool_names() == ("lookup_order", "refund", "lookup_order")
    assert [call.arguments for call in TRAJECTORY.tool_calls()] == [{"id": 7}, "{bad", {"id": 7}]


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ({"format": "other"}, "format"),
        ({"format": FORMAT, "dialect": "x", "steps": "no"}, "'steps'"),
        ({"format": FORMAT, "dialect": "x", "steps": [{"kind": "thought"}]}, "kind"),
        ({"format": FORMAT, "dialect": "x", "steps": [{"kind": "tool_call"}]}, "tool_call"),
        ({"format": FORMAT, "dialect": "x", "steps": [{"kind": "message", "input_tokens": -1}]}, "negative"),
        ({"format": FORMAT, "dialect": "x", "steps": [{"kind": "message", "input_tokens": True}]}, "int"),
        ({"format": FORMAT, "dialect": "x", "steps": [], "seconds": "2"}, "float"),
    ],
)
def test_a_document_that_is_no_normalised_trajectory_says_why(document: object, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        from_json(document)
