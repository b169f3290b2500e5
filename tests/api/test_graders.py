"""Grader routes: the API contract's own tests, pagination, grading, batches and config checks.

The rules: docs/decisions.md#listing-graders and docs/decisions.md#grading-one-answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from assay.graders import BUILTIN_GRADERS
from assay.graders.semantic.embedding import INSTALL_COMMAND
from tests.support import trajectories
from tests.support.semantic import hidden_semantic_extra, require_semantic_extra

__all__ = ["hidden_semantic_extra"]  # a fixture, used by name
pytestmark = pytest.mark.no_database  # the grader routes read no table: once, on SQLite


@pytest.fixture(scope="module")
def client(module_sqlite_url: str) -> Iterator[TestClient]:
    """One app for the module: the grader routes keep nothing between requests, so its tests share it."""
    with TestClient(create_app(Settings(database_url=module_sqlite_url, api_key=None))) as shared:
        yield shared


GRADER_IDS = [grader.default_id for grader in BUILTIN_GRADERS]
"""The built-ins in registration order: string-match and true-false first, then the catalogue."""


# ---- the API contract's own tests, verbatim ------------------------------------------------------------


def test_list_graders(client: TestClient) -> None:
    response = client.get("/api/graders")
    assert response.status_code == 200
    data = response.json()
    assert data["success"] is True
    assert "graders" in data["data"]
    assert len(data["data"]["graders"]) > 0
    # Verify string-match grader exists
    grader_ids = [g["id"] for g in data["data"]["graders"]]
    assert "string-match" in grader_ids


def test_get_grader_details(client: TestClient) -> None:
    response = client.get("/api/graders/string-match")
    assert response.status_code == 200
    data = response.json()
    assert data["success"] is True
    assert data["data"]["id"] == "string-match"
    assert "config_schema" in data["data"]
    assert "scoring_guide" in data["data"]


def test_details_say_the_report_and_offer_presets(client: TestClient) -> None:
    true_false = client.get("/api/graders/true-false").json()["data"]
    assert true_false["report"] == "binary"
    french = true_false["presets"]["french"]
    assert "oui" in french["config"]["aliases"]["true"]
    assert set(french["config"]) == {"aliases", "case_sensitive"}  # a preset fills only the two options
    graded = client.post(
        "/api/graders/true-false/grade",
        json={"agent_response": "Non", "expected_output": "false", "config": french["config"]},
    ).json()["data"]
    assert graded["passed"] is True
    assert client.get("/api/graders/string-match").json()["data"]["presets"] == {}


def test_get_nonexistent_grader(client: TestClient) -> None:
    response = client.get("/api/graders/nonexistent")
    assert response.status_code == 404
    data = response.json()
    assert data["success"] is False
    assert data["error"]["code"] == "NOT_FOUND"


# ---- the same contract for every grader --------------------------------------------------------------


@pytest.mark.parametrize("grader_id", GRADER_IDS)
def test_every_grader_is_listed_and_described(client: TestClient, grader_id: str) -> None:
    listed = {g["id"]: g for g in client.get("/api/graders").json()["data"]["graders"]}
    assert set(listed[grader_id]) == {
        "id",
        "name",
        "description",
        "type",
        "version",
        "config_schema",
        "available",
        "unavailable_reason",
    }
    assert listed[grader_id]["config_schema"]["additionalProperties"] is False

    body = client.get(f"/api/graders/{grader_id}").json()
    assert body == {"success": True, "data": body["data"], "error": None}
    assert body["data"]["id"] == grader_id
    assert {"1.0", "0.0"} <= set(body["data"]["scoring_guide"])


def test_true_false_is_registered_as_in_004(client: TestClient) -> None:
    data = client.get("/api/graders/true-false").json()["data"]
    assert data["config_schema"]["properties"]["case_sensitive"]["default"] is False
    assert data["config_schema"]["properties"]["aliases"]["default"]["true"][:3] == ["true", "True", "TRUE"]


# ---- pagination (docs/decisions.md#listing-graders) ---------------------------------------------------


def test_list_has_count_and_total(client: TestClient) -> None:
    data = client.get("/api/graders").json()["data"]
    assert data["count"] == len(data["graders"]) == data["total"] == len(GRADER_IDS)


@pytest.mark.parametrize(
    ("query", "ids", "total"),
    [
        ("limit=1", ["string-match"], len(GRADER_IDS)),
        ("limit=1&skip=1", ["true-false"], len(GRADER_IDS)),
        ("skip=2", GRADER_IDS[2:], len(GRADER_IDS)),
        (f"skip={len(GRADER_IDS)}", [], len(GRADER_IDS)),
        ("skip=1000000000", [], len(GRADER_IDS)),
        ("limit=500", GRADER_IDS, len(GRADER_IDS)),
    ],
)
def test_pages(client: TestClient, query: str, ids: list[str], total: int) -> None:
    data = client.get(f"/api/graders?{query}").json()["data"]
    assert [g["id"] for g in data["graders"]] == ids
    assert (data["count"], data["total"]) == (len(ids), total)


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=501",
        "limit=-1",
        "skip=-1",
        "skip=1000000001",
        "skip=99999999999999999999999",
        "limit=x",
    ],
)
def test_out_of_range_pages_are_validation_errors(client: TestClient, query: str) -> None:
    response = client.get(f"/api/graders?{query}")
    assert response.status_code == 422
    body = response.json()
    assert body["success"] is False
    assert body["data"] is None
    assert body["error"]["code"] == "VALIDATION_ERROR"
    assert body["error"]["problems"]


# ---- grading (docs/decisions.md#grading-one-answer) ---------------------------------------------------


def test_grade_true_false(client: TestClient) -> None:
    response = client.post(
        "/api/graders/true-false/grade", json={"agent_response": "Yes", "expected_output": "true"}
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["passed"] is True
    assert data["score"] == 1.0
    assert data["details"]["match_status"] == "match"
    assert data["grader"]["grader_id"] == "true-false"
    assert data["grader"]["config"]["case_sensitive"] is False


def test_grade_string_match_with_config(client: TestClient) -> None:
    body = {"agent_response": "paris", "expected_output": "Paris", "config": {"case_sensitive": True}}
    data = client.post("/api/graders/string-match/grade", json=body).json()["data"]
    assert (data["passed"], data["score"]) == (False, 0.0)
    assert data["grader"]["config"] == {"case_sensitive": True, "normalize_whitespace": True}


def test_a_bad_config_lists_each_problem(client: TestClient) -> None:
    body = {
        "agent_response": "yes",
        "expected_output": "true",
        "config": {"case_sensitve": True, "aliases": {"true": ["y"]}},
    }
    response = client.post("/api/graders/true-false/grade", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert any("case_sensitve" in problem["message"] for problem in error["problems"])
    assert {tuple(problem["loc"]) for problem in error["problems"]} == {("config",), ("config", "aliases")}
    assert len(error["problems"]) >= 1


@pytest.mark.parametrize(
    "body",
    [
        {"agent_response": False, "expected_output": "true"},
        {"agent_response": "yes", "expected_output": 1},
        {"agent_response": "yes"},
        {"agent_response": "yes", "expected_output": "true", "extra": 1},
        {"agent_response": "yes", "expected_output": "true", "config": []},
    ],
)
def test_grade_bodies_are_strict(client: TestClient, body: dict[str, object]) -> None:
    response = client.post("/api/graders/true-false/grade", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_null_answer_is_graded_as_empty_not_refused(client: TestClient) -> None:
    response = client.post(
        "/api/graders/true-false/grade", json={"agent_response": None, "expected_output": "true"}
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["passed"] is False
    assert data["details"]["match_status"] == "invalid_response"
    assert data["details"]["reason"] == "Empty or null response"
    assert data["details"]["actual_original"] is None


def test_grade_unknown_grader(client: TestClient) -> None:
    response = client.post("/api/graders/nope/grade", json={"agent_response": "a", "expected_output": "a"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "NOT_FOUND"
    assert error["message"].startswith("Grader not found: no grader has the id 'nope'")
    [problem] = error["problems"]
    assert problem["loc"] == ["grader_id"]
    assert problem["message"].startswith("no grader has the id 'nope' (registered: ")
    registered = problem["message"].split("registered: ")[1].rstrip(")").split(", ")
    assert {"string-match", "true-false"} <= set(registered)


def test_grade_batch(client: TestClient) -> None:
    items = [
        {"agent_response": "yes", "expected_output": "true"},
        {"agent_response": "no", "expected_output": "true"},
        {"agent_response": "maybe", "expected_output": "false"},
    ]
    response = client.post("/api/graders/true-false/grade-batch", json={"items": items})
    assert response.status_code == 200
    data = response.json()["data"]
    assert [r["passed"] for r in data["results"]] == [True, False, False]
    assert [r["details"]["match_status"] for r in data["results"]] == [
        "match",
        "mismatch",
        "invalid_response",
    ]
    assert (data["count"], data["passed"]) == (3, 1)
    assert data["pass_rate"] == pytest.approx(1 / 3)


def test_grade_batch_takes_ten_thousand_items_and_no_more(client: TestClient) -> None:
    item = {"agent_response": "a", "expected_output": "a"}
    full = client.post("/api/graders/string-match/grade-batch", json={"items": [item] * 10_000})
    assert full.status_code == 200
    assert full.json()["data"]["passed"] == 10_000
    over = client.post("/api/graders/string-match/grade-batch", json={"items": [item] * 10_001})
    assert over.status_code == 422
    empty = client.post("/api/graders/string-match/grade-batch", json={"items": []})
    assert empty.status_code == 422


def test_grade_batch_bad_config(client: TestClient) -> None:
    body = {"items": [{"agent_response": "a", "expected_output": "a"}], "config": {"case_sensitive": "yes"}}
    response = client.post("/api/graders/string-match/grade-batch", json=body)
    assert response.status_code == 422
    [problem] = response.json()["error"]["problems"]
    assert problem["loc"] == ["config", "case_sensitive"]
    assert "must be a boolean" in problem["message"]


# ---- config validation -------------------------------------------------------------------------------


def test_validate_a_good_config(client: TestClient) -> None:
    response = client.post("/api/graders/string-match/validate", json={"config": {"case_sensitive": True}})
    assert response.status_code == 200
    assert response.json()["data"] == {"valid": True, "problems": []}


def test_validate_lists_every_problem_with_its_path(client: TestClient) -> None:
    config = {"case_sensitive": 1, "aliases": {"true": [], "false": ["no"]}}
    data = client.post("/api/graders/true-false/validate", json={"config": config}).json()["data"]
    assert data["valid"] is False
    locs = {tuple(problem["loc"]) for problem in data["problems"]}
    assert ("config", "case_sensitive") in locs
    assert ("config", "aliases", "true") in locs
    assert all(problem["message"] for problem in data["problems"])


@pytest.mark.parametrize("config", [None, 5, "x", [1]])
def test_validate_takes_any_json(client: TestClient, config: object) -> None:
    data = client.post("/api/graders/string-match/validate", json={"config": config}).json()["data"]
    assert data["valid"] is (config is None)


def test_validate_unknown_grader(client: TestClient) -> None:
    assert client.post("/api/graders/nope/validate", json={"config": {}}).status_code == 404


# ---- a grader this server cannot use (an optional extra missing) --------------------------------------


def test_semantic_grades_through_the_api(client: TestClient) -> None:
    require_semantic_extra()
    listed = {g["id"]: g for g in client.get("/api/graders").json()["data"]["graders"]}
    assert (listed["semantic"]["available"], listed["semantic"]["unavailable_reason"]) == (True, None)
    body = {
        "agent_response": "Paris is France's capital city.",
        "expected_output": "The capital of France is Paris.",
    }
    data = client.post("/api/graders/semantic/grade", json=body).json()["data"]
    assert data["passed"] is True
    assert 0.8 <= data["score"] <= 1.0
    assert data["grader"] == {"grader_id": "semantic", "config": {"threshold": 0.8}, "version": "1.1.0"}


@pytest.fixture
def without_semantic(hidden_semantic_extra: None, settings: Settings) -> Iterator[TestClient]:
    """A client of an app started while the semantic model cannot be found."""
    with TestClient(create_app(settings)) as fresh:
        yield fresh


def test_an_unavailable_grader_is_listed_with_its_install_command(without_semantic: TestClient) -> None:
    listed = {g["id"]: g for g in without_semantic.get("/api/graders").json()["data"]["graders"]}
    assert listed["semantic"]["available"] is False
    assert listed["semantic"]["unavailable_reason"].endswith(INSTALL_COMMAND)
    assert (listed["string-match"]["available"], listed["string-match"]["unavailable_reason"]) == (True, None)
    detail = without_semantic.get("/api/graders/semantic").json()["data"]
    assert detail["available"] is False
    assert detail["presets"]  # still described in full: its options can be read and checked
    checked = without_semantic.post("/api/graders/semantic/validate", json={"config": {"threshold": 0.7}})
    assert checked.json()["data"] == {"valid": True, "problems": []}


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/graders/semantic/grade", {"agent_response": "Paris", "expected_output": "Paris"}),
        (
            "/api/graders/semantic/grade-batch",
            {
                "items": [{"agent_response": "Paris", "expected_output": "Paris"}],
                "config": {"threshold": 0.7},
            },
        ),
        (
            "/api/graders/all/grade",
            {
                "agent_response": "Paris",
                "expected_output": "Paris",
                "config": {"graders": [{"grader_id": "semantic"}]},
            },
        ),
    ],
)
def test_using_an_unavailable_grader_is_refused_naming_the_install_command(
    without_semantic: TestClient, path: str, body: dict[str, object]
) -> None:
    response = without_semantic.post(path, json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "GRADER_UNAVAILABLE"
    assert "is not available here" in error["message"]
    assert error["problems"][0]["message"].endswith(INSTALL_COMMAND)


def test_a_trajectory_grader_reads_the_answer_s_json_and_fails_closed_without_it(client: TestClient) -> None:
    recorded = json.dumps(trajectories.OPENAI_RESPONSES)
    body = {
        "agent_response": recorded,
        "expected_output": "lookup_order, refund",
        "config": {"mode": "exact"},
    }
    data = client.post("/api/graders/tool-sequence/grade", json=body).json()["data"]
    assert data["passed"] is True
    assert data["details"]["dialect"] == "openai-responses"
    data = client.post(
        "/api/graders/tool-sequence/grade", json={**body, "agent_response": "Refunded."}
    ).json()["data"]
    assert (data["passed"], data["details"]["match_status"]) == (False, "invalid_response")
    assert data["details"]["reason"].startswith("Response has no readable trajectory: it is not JSON")
