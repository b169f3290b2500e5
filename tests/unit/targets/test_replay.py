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
