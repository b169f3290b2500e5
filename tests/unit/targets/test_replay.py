"""The ``evaluation`` target: stored replies as they were (errors stay errors); nothing without them."""

from __future__ import annotations

import pytest

from assay.errors import ValidationError
from assay.targets import TargetCase, TargetReply, build_target, parse_target_spec


async def test_replays_answers_and_errors_and_reports_missing_cases() -> None:
    spec = parse_target_spec({"type": "evaluation", "evaluation_id": 7})
    stored = {
        1: TargetReply("yes", latency_ms=12.0),
        2: TargetReply(None, error="timeout", error_detail="30 s"),
    }
    async with build_target(spec, stored_replies=stored) as target:
        assert await target.respond(TargetCase(1, "q")) == stored[1]
        assert await target.respond(TargetCase(2, "q")) == stored[2]
        missing = await target.respond(TargetCase(3, "q"))
    assert (missing.output, missing.error) == (None, "no_recorded_response")


def test_cannot_be_built_without_the_stored_replies() -> None:
    with pytest.raises(ValidationError):
        build_target(parse_target_spec({"type": "evaluation", "evaluation_id": 7}))
    with pytest.raises(ValidationError):
        parse_target_spec({"type": "evaluation", "evaluation_id": 0})


async def test_replays_the_trajectory_each_stored_reply_carried_and_leaves_the_stored_reply_alone() -> None:
    spec = parse_target_spec({"type": "evaluation", "evaluation_id": 7})
    stored = {1: TargetReply("yes"), 2: TargetReply("no"), 3: TargetReply(None, error="timeout")}
    asked: list[int] = []

    async def trajectories(case_id: int) -> str | None:
        asked.append(case_id)
        return "the trajectory of case 1" if case_id == 1 else None

    async with build_target(spec, stored_replies=stored, stored_trajectories=trajectories) as target:
        first = await target.respond(TargetCase(1, "q"))
        second = await target.respond(TargetCase(2, "q"))
        failed = await target.respond(TargetCase(3, "q"))
    assert (first.output, first.trajectory) == ("yes", "the trajectory of case 1")
    assert stored[1].trajectory is None  # a copy carries it, not the stored reply
    assert second is stored[2]
    assert failed.error == "timeout"
    assert asked == [1, 2]  # a stored error carries no trajectory to read
