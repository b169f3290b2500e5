"""A suite's history: the pass rate of each completed evaluation, its interval and the regression mark."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from assay.services.figures.statistics import wilson_interval
from tests.factories import case_ids, make_suite, recorded, start, wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer

CASES = [(f"Is {n} a number?", "true") for n in range(20)]


def run(client: TestClient, suite_id: int, yes: int, name: str, **body: Any) -> int:
    """A completed recorded evaluation answering ``yes`` to the first ``yes`` cases and ``no`` to the rest."""
    ids = case_ids(client, suite_id)
    answers = ["yes"] * yes + ["no"] * (len(ids) - yes)
    created = start(client, suite_id=suite_id, target=recorded(answers), name=name, **body)
    assert wait_until_finished(client, created["id"])["status"] == "completed"
    return int(created["id"])


def history(client: TestClient, suite_id: int, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/suites/{suite_id}/history", params=params)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_history_marks_a_drop_beyond_the_interval_as_a_regression(client: TestClient) -> None:
    suite = make_suite(client, CASES)
    first = run(client, suite["id"], 20, "all pass")
    second = run(client, suite["id"], 10, "half")
    third = run(client, suite["id"], 11, "about half")
    fourth = run(client, suite["id"], 20, "all pass again")

    data = history(client, suite["id"])
    assert data["total"] == data["count"] == 4
    points = data["points"]
    assert [point["evaluation_id"] for point in points] == [first, second, third, fourth]
    assert [point["shift"] for point in points] == [None, "regression", "steady", "improvement"]
    assert [point["previous_id"] for point in points] == [None, first, second, third]
    half = points[1]["pass_rate"]
    assert (half["passed"], half["total"], half["rate"]) == (10, 20, 0.5)
    assert half["ci95"] == list(wilson_interval(10, 20))  # type: ignore[arg-type]
    assert points[0]["grader_id"] == "true-false"
    assert points[0]["name"] == "all pass"


def test_history_pages_from_the_newest_and_marks_each_page_s_oldest(client: TestClient) -> None:
    suite = make_suite(client, CASES)
    ids = [run(client, suite["id"], yes, f"run {yes}") for yes in (20, 10, 20)]
    newest = history(client, suite["id"], limit=2)
    assert [point["evaluation_id"] for point in newest["points"]] == ids[1:]
    assert newest["points"][0]["previous_id"] == ids[0]
    assert newest["points"][0]["shift"] == "regression"  # read against the run before the page
    older = history(client, suite["id"], limit=2, skip=2)
    assert [point["evaluation_id"] for point in older["points"]] == ids[:1]
    assert older["points"][0]["shift"] is None
    assert older["total"] == 3


def test_history_holds_completed_evaluations_only_and_filters_by_grader(client: TestClient) -> None:
    suite = make_suite(client, CASES)
    done = run(client, suite["id"], 20, "done")
    with AgentServer(AgentBehaviour(default="yes", delay=0.5)) as agent:
        slow = start(
            client, suite_id=suite["id"], target={"type": "http", "url": f"{agent.url}/answer"}, concurrency=1
        )
        client.post(f"/api/evaluations/{slow['id']}/cancel")
    other = run(client, suite["id"], 20, "by string-match", grader_id="string-match")

    assert [point["evaluation_id"] for point in history(client, suite["id"])["points"]] == [done, other]
    only = history(client, suite["id"], grader_id="true-false")
    assert [point["evaluation_id"] for point in only["points"]] == [done]
    assert only["total"] == 1


def test_history_of_an_unknown_or_new_suite(client: TestClient) -> None:
    assert client.get("/api/suites/999/history").status_code == 404
    suite = make_suite(client, CASES)
    assert history(client, suite["id"]) == {"suite_id": suite["id"], "points": [], "count": 0, "total": 0}


def test_history_and_compare_agree_on_every_pair(client: TestClient) -> None:
    # 30 cases. Run 1 passes 21, run 2 passes 16 (7 cases fail that passed, 2 pass that failed): 70.0 % ->
    # 53.3 % lies past run 2's Wilson interval (the old rule's "regression") yet is within noise by the
    # paired test (McNemar p = 0.18), as the compare page says.
    suite = make_suite(client, [(f"Is {n} a number?", "true") for n in range(30)])
    ids = case_ids(client, suite["id"])
    passing = [set(range(21)), {*range(14), 21, 22}, set(range(26)), set(range(1, 26)), set(range(10))]
    runs = []
    for index, passes in enumerate(passing):
        answers = ["yes" if n in passes else "no" for n in range(len(ids))]
        created = start(client, suite_id=suite["id"], target=recorded(answers), name=f"run {index}")
        assert wait_until_finished(client, created["id"])["status"] == "completed"
        runs.append(created["id"])
    points = history(client, suite["id"])["points"]
    assert [point["evaluation_id"] for point in points] == runs
    expected = {"b_worse": "regression", "b_better": "improvement", "no_significant_difference": "steady"}
    for point in points[1:]:
        response = client.get(f"/api/evaluations/{point['previous_id']}/compare/{point['evaluation_id']}")
        assert response.status_code == 200, response.text
        comparison = response.json()["data"]
        assert point["shift"] == expected[comparison["verdict"]]
        assert point["p_value"] == comparison["p_value"]
        assert point["common_cases"] == comparison["common_cases"] == 30
    assert [point["shift"] for point in points] == [None, "steady", "improvement", "steady", "regression"]
    assert round(points[1]["p_value"], 3) == 0.18
