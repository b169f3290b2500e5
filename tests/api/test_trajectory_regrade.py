"""A re-grade of an evaluation whose results stored trajectories grades them again: each stored trajectory is
read back from the chunk store a page at a time and handed to the trajectory checks, which then decide as
they did on the run (not failing closed); on SQLite and PostgreSQL, against the real tool agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.services.evaluations import regrade
from tests.factories import results, start, wait_until_finished
from tests.support.tool_agent import VERDICTS, ToolAgent, support_suite, target


@pytest.fixture(scope="module")
def agent() -> Iterator[ToolAgent]:
    with ToolAgent() as served:
        yield served


def _run(client: TestClient, suite_id: int, spec: dict[str, Any], grader_id: str = "true-false") -> int:
    created = start(client, suite_id=suite_id, target=spec, grader_id=grader_id)
    finished = wait_until_finished(client, created["id"])
    assert finished["status"] == "completed", finished
    evaluation_id: int = created["id"]
    return evaluation_id


def _verdicts(client: TestClient, evaluation_id: int) -> list[dict[str, bool]]:
    return [
        {check["name"]: check["passed"] for check in row["assertions"]}
        for row in results(client, evaluation_id)
    ]


def _steps(client: TestClient, evaluation_id: int, case_id: int) -> list[dict[str, Any]]:
    response = client.get(
        f"/api/evaluations/{evaluation_id}/results/{case_id}/trajectory", params={"limit": 500}
    )
    assert response.status_code == 200, response.text
    steps: list[dict[str, Any]] = response.json()["data"]["steps"]
    return steps


def test_a_regrade_grades_the_stored_trajectories_as_the_run_did(
    client: TestClient, agent: ToolAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    response = client.post("/api/suites", json=support_suite("support regraded"))
    assert response.status_code == 201, response.text
    suite_id = response.json()["data"]["id"]
    source = _run(client, suite_id, target(agent.url, "anthropic"))
    assert _verdicts(client, source) == list(VERDICTS.values())
    asked = len(agent.requests)

    monkeypatch.setattr(regrade, "PAGE_STEPS", 3)  # a trajectory read back over several pages
    again = _run(client, suite_id, {"type": "evaluation", "evaluation_id": source}, grader_id="string-match")
    assert len(agent.requests) == asked  # the agent was not asked again
    assert _verdicts(client, again) == list(VERDICTS.values())
    for old, new in zip(results(client, source), results(client, again), strict=True):
        assert new["trajectory"] == old["trajectory"]
        # The re-grade stores what it graded: the same steps, served as the run's are.
        assert _steps(client, again, new["case_id"]) == _steps(client, source, old["case_id"])


def test_a_stored_trajectory_too_long_to_read_back_fails_every_trajectory_check_saying_why(
    client: TestClient, agent: ToolAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    response = client.post("/api/suites", json=support_suite("support too long"))
    suite_id = response.json()["data"]["id"]
    source = _run(client, suite_id, target(agent.url, "openai-chat"))
    monkeypatch.setattr(regrade, "MAX_STEPS", 5)  # every stored trajectory of the support agent is longer
    again = _run(client, suite_id, {"type": "evaluation", "evaluation_id": source})
    for row in results(client, again):
        checks = {check["name"]: check for check in row["assertions"]}
        assert checks["answer"]["passed"], row  # the text is graded as before
        for name in ("sequence", "one refund", "full amount", "budget"):
            assert checks[name]["passed"] is False
            assert checks[name]["match_status"] == "invalid_response"
            assert "more than the 5 a re-grade reads back" in checks[name]["reason"], checks[name]
        assert row["trajectory"] is None
