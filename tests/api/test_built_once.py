"""One evaluation builds its grader once and parses and dumps its target spec once, in the process that
creates and runs it: creation, lane plan and every recount share them."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.services.grading.registry import GraderService
from assay.targets import specs
from tests.factories import make_suite, recorded, start, wait_until_finished


class _Counted:
    """The target spec adapter, its parses counted."""

    def __init__(self, adapter: Any, counts: dict[str, int]) -> None:
        self._adapter = adapter
        self._counts = counts

    def validate_python(self, data: object) -> Any:
        self._counts["parsed"] += 1
        return self._adapter.validate_python(data)


def test_the_grader_is_built_and_the_target_spec_parsed_and_dumped_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = {"built": 0, "parsed": 0, "dumped": 0}
    build, adapter, dump = GraderService.build, specs._adapter(), specs.HttpTargetSpec.model_dump

    def counted_build(self: GraderService, grader_id: str, *args: Any, **kwargs: Any) -> Any:
        counts["built"] += grader_id == "true-false"
        return build(self, grader_id, *args, **kwargs)

    def counted_dump(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["dumped"] += 1
        return dump(self, *args, **kwargs)

    monkeypatch.setattr(GraderService, "build", counted_build)
    monkeypatch.setattr(specs, "_adapter", lambda: _Counted(adapter, counts))
    monkeypatch.setattr(specs.RecordedTargetSpec, "model_dump", counted_dump)

    suite = make_suite(client)
    evaluation = start(
        client,
        suite_id=suite["id"],
        grader_config={"case_sensitive": True},  # not the default: a grader of its own
        target=recorded(["true", "false", "true", "false"]),
    )
    client.get(f"/api/evaluations/{evaluation['id']}")  # maybe recounted now (no summary stored yet)
    finished = wait_until_finished(client, evaluation["id"])
    assert finished["status"] == "completed"
    assert finished["summary"]["passed"] == 4
    # The request's body is parsed by the route (once); nothing parses or dumps it again but the store.
    assert counts == {"built": 1, "parsed": 0, "dumped": 1}
