"""Where two runs' tool calls first differ, from the bounded call order a result row keeps."""

from __future__ import annotations

import pytest

from assay.graders.trajectory.record import Step, ToolCall, Trajectory
from assay.services.execution.trajectories import KEPT_SEQUENCE, TrajectoryFacts
from assay.services.views.tool_usage import CallOrder, first_difference


def _order(*names: str, calls: int | None = None) -> CallOrder:
    return CallOrder(names, len(names) if calls is None else calls)


@pytest.mark.parametrize(
    ("a", "b", "differs_at"),
    [
        (_order("search", "lookup", "refund"), _order("search", "lookup", "refund"), None),
        (_order("search", "refund"), _order("search", "lookup", "refund"), 2),
        (_order("search", "refund", "lookup"), _order("search", "lookup", "refund"), 2),
        (_order("search", "lookup", "refund", "refund"), _order("search", "lookup", "refund"), 4),
        (_order(), _order("search"), 1),
        (_order(), _order(), None),
        # Both kept only their first calls, alike: where they part is past what the rows keep.
        (_order("a", "b", calls=150), _order("a", "b", calls=120), None),
        # One kept all its calls and ends where the other goes on, past what it keeps.
        (_order("a", "b"), _order("a", "b", calls=9), 3),
        (_order("a", "b", calls=9), _order("a", "c", calls=9), 2),
    ],
)
def test_first_difference(a: CallOrder, b: CallOrder, differs_at: int | None) -> None:
    assert first_difference(a, b) == differs_at
    assert first_difference(b, a) == differs_at


def _calls(*names: str) -> Trajectory:
    steps = tuple(
        Step(kind="tool_call", role="assistant", tool_call=ToolCall(name=name, arguments={}, call_id=str(n)))
        for n, name in enumerate(names)
    )
    return Trajectory(steps=steps, dialect="assay")


def test_a_row_keeps_the_first_calls_in_order_and_reads_rows_stored_before() -> None:
    facts = TrajectoryFacts.of(_calls("search", "refund", "search"))
    assert facts.tool_sequence == ["search", "refund", "search"]
    many = TrajectoryFacts.of(_calls(*(f"tool_{n}" for n in range(KEPT_SEQUENCE + 50))))
    assert many.tool_calls == KEPT_SEQUENCE + 50
    assert many.tool_sequence == [f"tool_{n}" for n in range(KEPT_SEQUENCE)]
    stored = {
        "dialect": "assay",
        "steps": 3,
        "tool_calls": 3,
        "tool_names": {"search": 2, "refund": 1},
        "input_tokens": None,
        "output_tokens": None,
        "seconds": None,
    }
    read = TrajectoryFacts.stored(stored)
    assert read is not None
    assert read.tool_sequence is None
