"""Test-suite routes: create, list, read, update, delete, cases; strict bodies; text stored safely."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from assay.errors import ConflictError
from assay.services.suites.service import NewCase, SuiteService
from assay.storage.database import create_db_engine, session_factory
from tests.factories import case_payload, suite_payload
from tests.support.problems import problem_lines


def post_raw(client: TestClient, path: str, body: object) -> object:
    """POST a body that holds lone surrogates (which the client's own JSON encoder refuses)."""
    content = json.dumps(body, ensure_ascii=True)
    return client.post(path, content=content, headers={"content-type": "application/json"})


def create(client: TestClient, **kwargs: object) -> dict[str, object]:
    """Create a suite and return its data."""
    response = client.post("/api/suites", json=suite_payload(**kwargs))  # type: ignore[arg-type]
    assert response.status_code == 201, response.text
    data: dict[str, object] = response.json()["data"]
    return data


def test_create_and_get(client: TestClient) -> None:
    created = create(client, name="capitals", description="Capital cities", cases=3)
    assert created["name"] == "capitals"
    assert created["case_count"] == 3
    created_at = datetime.fromisoformat(str(created["created_at"]))
    assert created_at.tzinfo is not None
    assert created_at.utcoffset() == UTC.utcoffset(None)

    fetched = client.get(f"/api/suites/{created['id']}").json()
    assert fetched == {"success": True, "data": created, "error": None}


def test_create_without_cases(client: TestClient) -> None:
    response = client.post("/api/suites", json={"name": "empty"})
    assert response.status_code == 201
    assert response.json()["data"]["case_count"] == 0
    assert response.json()["data"]["description"] == ""


def test_duplicate_name_is_conflict(client: TestClient) -> None:
    create(client, name="dup")
    response = client.post("/api/suites", json=suite_payload("dup"))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert client.get("/api/suites").json()["data"]["total"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "id": 1},
        {"name": "x", "created_at": "2024-01-01T00:00:00Z"},
        {"name": "x", "case_count": 3},
        {"name": "x", "cases": [{**case_payload(), "id": 3}]},
        {"name": "x", "cases": [{**case_payload(), "position": 3}]},
        {"name": ""},
        {"name": "   "},
        {"name": "n" * 201},
        {"name": "nul\x00"},
        {"name": "new\nline"},
        {"name": 5},
        {"name": "x", "description": None},
        {"name": "x", "cases": [{"input": "a", "expected_output": False}]},
        {"name": "x", "cases": [{"input": "a", "expected_output": "b", "metadata": []}]},
        {"name": "x", "cases": "abc"},
    ],
)
def test_bodies_are_strict(client: TestClient, body: dict[str, object]) -> None:
    response = client.post("/api/suites", json=body)
    assert response.status_code == 422, body
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_list_is_paginated_newest_first(client: TestClient) -> None:
    ids = [create(client, cases=i)["id"] for i in range(5)]
    page = client.get("/api/suites?limit=2&skip=1").json()["data"]
    assert [s["id"] for s in page["suites"]] == [ids[3], ids[2]]
    assert [s["case_count"] for s in page["suites"]] == [3, 2]
    assert (page["count"], page["total"]) == (2, 5)
    assert client.get("/api/suites?skip=5").json()["data"]["suites"] == []


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "skip=-1", "skip=10000000000"])
def test_list_bounds(client: TestClient, query: str) -> None:
    assert client.get(f"/api/suites?{query}").status_code == 422
    suite = create(client)
    assert client.get(f"/api/suites/{suite['id']}/cases?{query}").status_code == 422


@pytest.mark.parametrize("suite_id", ["0", "2147483648", "99999999999999999999"])
def test_out_of_range_ids_are_validation_errors(client: TestClient, suite_id: str) -> None:
    response = client.get(f"/api/suites/{suite_id}")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("suite_id", ["-1", "abc", "1.5"])
def test_ids_that_are_not_numbers_name_no_route(client: TestClient, suite_id: str) -> None:
    response = client.get(f"/api/suites/{suite_id}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("GET", "/cases"), ("POST", "/cases"), ("GET", "/export")],
)
def test_missing_suite_is_404(client: TestClient, method: str, path: str) -> None:
    body = {"cases": [case_payload()]} if method == "POST" else ({} if method == "PATCH" else None)
    response = client.request(method, f"/api/suites/2147483647{path}", json=body)
    assert response.status_code == 404
    assert response.json()["error"] == {"code": "NOT_FOUND", "message": "Suite not found", "problems": []}


def test_patch(client: TestClient) -> None:
    suite = create(client, name="before", description="old")
    response = client.patch(f"/api/suites/{suite['id']}", json={"name": "after"})
    data = response.json()["data"]
    assert (data["name"], data["description"]) == ("after", "old")
    assert data["updated_at"] >= data["created_at"]
    data = client.patch(f"/api/suites/{suite['id']}", json={"description": "new"}).json()["data"]
    assert (data["name"], data["description"]) == ("after", "new")
    assert client.patch(f"/api/suites/{suite['id']}", json={"case_count": 1}).status_code == 422


def test_patch_to_a_taken_name_is_conflict(client: TestClient) -> None:
    create(client, name="one")
    two = create(client, name="two")
    response = client.patch(f"/api/suites/{two['id']}", json={"name": "one"})
    assert response.status_code == 409
    assert client.get(f"/api/suites/{two['id']}").json()["data"]["name"] == "two"


def test_delete_removes_the_suite_and_its_cases(client: TestClient) -> None:
    suite = create(client, cases=4)
    response = client.delete(f"/api/suites/{suite['id']}")
    assert response.json() == {"success": True, "data": {"id": suite["id"], "deleted": True}, "error": None}
    assert client.get(f"/api/suites/{suite['id']}").status_code == 404
    assert client.get(f"/api/suites/{suite['id']}/cases").status_code == 404
    again = create(client, name=str(suite["name"]), cases=1)  # the name is free again
    assert again["case_count"] == 1


def test_cases_in_order_and_paginated(client: TestClient) -> None:
    suite = create(client, cases=5)
    page = client.get(f"/api/suites/{suite['id']}/cases?limit=2&skip=2").json()["data"]
    assert [(c["number"], c["key"]) for c in page["cases"]] == [(3, None), (4, None)]
    assert page["cases"][0]["input"] == "What is 2 + 2?"
    assert page["cases"][0]["expected_output"] == "4"
    assert (page["count"], page["total"]) == (2, 5)
    assert set(page["cases"][0]) == {
        "id",
        "number",
        "key",
        "input",
        "expected_output",
        "metadata",
        "assert",
        "threshold",
        "messages",  # a conversation's (docs/conversations.md): null for a string case, as the three below
        "turns",
        "stop_at_first_failure",
        "max_seconds",
    }


def test_append_cases(client: TestClient) -> None:
    suite = create(client, cases=2)
    body = {"cases": [case_payload(10, topic="maths"), case_payload(11)]}
    response = client.post(f"/api/suites/{suite['id']}/cases", json=body)
    assert response.status_code == 201
    data = response.json()["data"]
    assert [c["number"] for c in data["cases"]] == [3, 4]
    assert data["cases"][0]["metadata"] == {"topic": "maths"}
    assert (data["count"], data["total"]) == (2, 4)
    assert client.get(f"/api/suites/{suite['id']}").json()["data"]["case_count"] == 4
    assert client.post(f"/api/suites/{suite['id']}/cases", json={"cases": []}).status_code == 422


NASTY = [
    "nul\x00byte",
    "lone \ud800 surrogate",
    "low \udfff too",
    "emoji 🙂 and ünïcödé",
    "\x00",
    "",
    '"quoted" \\ backslash \n newline',
]


def test_agent_text_round_trips_exactly(client: TestClient) -> None:
    cases = [
        {
            "input": text,
            "expected_output": text[::-1],
            "metadata": {"note": text, "list": [text, {"k": text}]},
        }
        for text in NASTY
    ]
    body = {"name": "nasty", "description": "\x00\ud800", "cases": cases}
    response = post_raw(client, "/api/suites", body)
    assert response.status_code == 201, response.text  # type: ignore[attr-defined]
    suite = response.json()["data"]  # type: ignore[attr-defined]
    assert suite["description"] == "\x00\ud800"
    stored = client.get(f"/api/suites/{suite['id']}/cases").json()["data"]["cases"]
    assert [(c["input"], c["expected_output"], c["metadata"]) for c in stored] == [
        (c["input"], c["expected_output"], c["metadata"]) for c in cases
    ]


def test_grading_echoes_odd_text(client: TestClient) -> None:
    response = post_raw(
        client, "/api/graders/string-match/grade", {"agent_response": "a\ud800\x00", "expected_output": "b"}
    )
    assert response.status_code == 200  # type: ignore[attr-defined]
    assert response.json()["data"]["passed"] is False  # type: ignore[attr-defined]


def test_concurrent_appends_never_share_a_position(database_url: str) -> None:
    engine = create_db_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        suite_id = SuiteService(session).create("race").id

    def append(worker: int) -> int:
        added = 0
        for round_ in range(10):
            with sessions() as session:
                try:
                    SuiteService(session).add_cases(suite_id, [NewCase(f"{worker}-{round_}", "x")] * 3)
                    added += 3
                except ConflictError:
                    pass  # SQLite cannot lock a row: the loser is told to retry
        return added

    with ThreadPoolExecutor(4) as pool:
        added = sum(pool.map(append, range(4)))
    with sessions() as session:
        cases = list(SuiteService(session).iter_cases(suite_id))
    engine.dispose()
    assert [case.position for case in cases] == list(range(added))
    assert added > 0


def keyed_case(key: str | None, index: int = 0) -> dict[str, object]:
    """A case with ``key`` (none when ``None``)."""
    return case_payload(index) if key is None else {**case_payload(index), "key": key}


def test_cases_may_carry_keys_all_or_none_each_once(client: TestClient) -> None:
    suite = create(client, cases=1)
    response = client.post("/api/suites", json={"name": "keyed", "cases": [keyed_case("a"), keyed_case("b")]})
    assert response.status_code == 201, response.text
    keyed = response.json()["data"]
    cases = client.get(f"/api/suites/{keyed['id']}/cases").json()["data"]["cases"]
    assert [(c["number"], c["key"]) for c in cases] == [(1, "a"), (2, "b")]
    refused = [
        ([keyed_case("a"), keyed_case(None)], 422, "cases[1]: no key, while cases[0] has one"),
        ([keyed_case("a"), keyed_case("a")], 409, "cases[1]: key 'a' is also the key of cases[0]"),
        ([{**case_payload(), "key": None}], 422, "cases[0].key: Input should be a valid string"),
        ([keyed_case(" a")], 422, "without spaces at either end"),
        ([keyed_case("x" * 201)], 422, "a key has 1 to 200 characters"),
    ]
    for cases_in, status, problem in refused:
        response = client.post("/api/suites", json={"name": "refused", "cases": cases_in})
        assert response.status_code == status, response.text
        assert problem in problem_lines(response.json()["error"])[0]
    path = f"/api/suites/{keyed['id']}/cases"
    appended = [
        ([keyed_case(None)], 409, "cases: the suite's cases have keys: give every new case one"),
        ([keyed_case("c"), keyed_case("a")], 409, "cases[1].key: 'a' is already the key of case #1"),
        ([keyed_case("c")], 201, None),
    ]
    for cases_in, status, problem in appended:
        response = client.post(path, json={"cases": cases_in})
        assert response.status_code == status, response.text
        if problem is not None:
            assert problem_lines(response.json()["error"]) == [problem]
    assert [(c["number"], c["key"]) for c in client.get(path).json()["data"]["cases"]] == [
        (1, "a"),
        (2, "b"),
        (3, "c"),
    ]
    response = client.post(f"/api/suites/{suite['id']}/cases", json={"cases": [keyed_case("a")]})
    assert (response.status_code, problem_lines(response.json()["error"])) == (
        409,
        ["cases: the suite's cases have no keys: give the new cases none"],
    )
    other = client.post("/api/suites", json={"name": "other", "cases": [keyed_case("a")]})
    assert other.status_code == 201  # a key is unique in its suite only
