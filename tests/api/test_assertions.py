"""Per-case assertions through the API: a mixed suite graded in one evaluation (docs/assertions.md)."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from tests.factories import recorded, results, start, wait_until_finished

RULES = [
    {"when": {"kind": "bool"}, "assert": [{"grader_id": "true-false"}]},
    {"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]},
    {"when": {"kind": "choice"}, "assert": [{"grader_id": "choice", "config": {"labels": ["A", "B", "C"]}}]},
]
JSON_CHECKS = [
    {"grader_id": "json", "weight": 3},
    {"grader_id": "contains", "expected_output": "order_id", "name": "mentions id"},
]
# (case, answer, passed, status): each kind graded by its rule, the JSON case by its own list, the text
# case by the evaluation's grader.
CASES: list[tuple[dict[str, Any], str, bool, str]] = [
    (
        {"input": "Open on Sunday?", "expected_output": "no", "metadata": {"kind": "bool"}},
        "No",
        True,
        "match",
    ),
    (
        {"input": "Open late?", "expected_output": "yes", "metadata": {"kind": "bool"}},
        "no",
        False,
        "mismatch",
    ),
    (
        {"input": "Shipping?", "expected_output": "4.99", "metadata": {"kind": "number"}},
        "$4.99",
        True,
        "match",
    ),
    (
        {"input": "Items?", "expected_output": "3", "metadata": {"kind": "number"}},
        "none",
        False,
        "invalid_response",
    ),
    ({"input": "Pick", "expected_output": "B", "metadata": {"kind": "choice"}}, "B", True, "match"),
    (
        {"input": "JSON", "expected_output": '{"order_id": 7}', "assert": JSON_CHECKS, "threshold": 0.7},
        '{"order_id": 7}',
        True,
        "match",
    ),
    (
        {"input": "JSON", "expected_output": '{"order_id": 8}', "assert": JSON_CHECKS, "threshold": 0.7},
        '{"order_id": 9}',
        False,
        "mismatch",
    ),
    ({"input": "Capital?", "expected_output": "Paris", "metadata": {"kind": "text"}}, "paris", True, "match"),
]


def test_a_mixed_suite_is_graded_case_by_case_in_one_evaluation(client: TestClient) -> None:
    body = {"name": "mixed", "rules": RULES, "cases": [case for case, *_ in CASES]}
    created = client.post("/api/suites", json=body)
    assert created.status_code == 201, created.text
    suite = created.json()["data"]
    assert [rule["when"] for rule in suite["rules"]] == [rule["when"] for rule in RULES]
    listed = client.get(f"/api/suites/{suite['id']}/cases").json()["data"]["cases"]
    assert listed[5]["assert"][1] == {
        "grader_id": "contains",
        "config": {},
        "expected_output": "order_id",
        "weight": 1.0,
        "name": "mentions id",
    }
    assert (listed[5]["threshold"], listed[0]["assert"]) == (0.7, None)

    answers = [answer for _, answer, *_ in CASES]
    evaluation = start(client, suite_id=suite["id"], grader_id="string-match", target=recorded(answers))
    finished = wait_until_finished(client, evaluation["id"])
    rows = results(client, evaluation["id"])
    assert [(row["passed"], row["match_status"]) for row in rows] == [(p, s) for _, _, p, s in CASES]
    assert rows[7]["assertions"] is None  # the evaluation's grader
    assert [(a["name"], a["passed"]) for a in rows[6]["assertions"]] == [
        ("json", False),
        ("mentions id", True),
    ]
    assert rows[6]["score"] == 0.25  # weights 3 and 1 under the threshold 0.7
    assert [a["match_status"] for a in rows[3]["assertions"]] == ["invalid_response"]

    by_assertion = finished["summary"]["by_assertion"]
    assert by_assertion["true-false"] == {
        "total": 2,
        "passed": 1,
        "by_match_status": {"match": 1, "mismatch": 1},
    }
    assert by_assertion["numeric"]["by_match_status"] == {"invalid_response": 1, "match": 1}
    assert (by_assertion["json"]["passed"], by_assertion["mentions id"]["passed"]) == (1, 2)
    assert finished["summary"]["passed"] == 5
    failures = client.get(f"/api/evaluations/{evaluation['id']}/failures").json()["data"]
    assert {(g["name"], g["match_status"], g["count"]) for g in failures["by_assertion"]} == {
        ("true-false", "mismatch", 1),
        ("numeric", "invalid_response", 1),
        ("json", "mismatch", 1),
    }


def test_preflight_checks_each_case_with_its_own_assertions(client: TestClient) -> None:
    cases = [
        {"input": "a", "expected_output": "maybe", "metadata": {"kind": "bool"}},
        {"input": "b", "expected_output": "many", "metadata": {"kind": "number"}},
        {"input": "c", "expected_output": "yes", "metadata": {"kind": "bool"}},
        {"input": "d", "expected_output": "anything"},  # the evaluation's grader takes it
    ]
    suite = client.post("/api/suites", json={"name": "pre", "rules": RULES, "cases": cases}).json()["data"]
    report = client.post(f"/api/suites/{suite['id']}/preflight", json={"grader_id": "string-match"})
    assert report.status_code == 200, report.text
    data = report.json()["data"]
    assert (data["checked"], data["invalid"]) == (4, 2)
    assert [problem["number"] for problem in data["problems"]] == [1, 2]
    refused = client.post(
        "/api/evaluations",
        json={"suite_id": suite["id"], "grader_id": "string-match", "target": recorded(["x"] * 4)},
    )
    assert refused.status_code == 422
    assert "2 of 4 cases" in refused.json()["error"]["message"]


def test_bad_assertions_are_refused_with_where_and_why(client: TestClient) -> None:
    bad_grader = {
        "name": "b1",
        "cases": [{"input": "x", "expected_output": "1", "assert": [{"grader_id": "nope"}]}],
    }
    response = client.post("/api/suites", json=bad_grader)
    assert response.status_code == 422, response.text
    assert "assert[0].grader_id" in response.json()["error"]["message"]
    judges = {"name": "b2", "assert": [{"grader_id": "llm-judge"}] * 9}
    assert "call out" in client.post("/api/suites", json=judges).json()["error"]["message"]
    too_many = {
        "name": "b3",
        "cases": [{"input": "x", "expected_output": "1", "assert": [{"grader_id": "numeric"}] * 21}],
    }
    assert client.post("/api/suites", json=too_many).status_code == 422
    twice = [{"grader_id": "numeric", "name": "n"}, {"grader_id": "contains", "name": "n"}]
    named = {"name": "b4", "cases": [{"input": "x", "expected_output": "1", "assert": twice}]}
    assert "used twice" in client.post("/api/suites", json=named).json()["error"]["message"]
    bad_rule = {"name": "b5", "rules": [{"when": {}, "assert": [{"grader_id": "numeric"}]}]}
    assert client.post("/api/suites", json=bad_rule).status_code == 422


def test_an_imported_json_file_keeps_its_rules_and_each_case_list(client: TestClient) -> None:
    document = {
        "rules": RULES[:1],
        "cases": [
            {"input": "a", "expected_output": "yes", "metadata": {"kind": "bool"}},
            {"input": "b", "expected_output": "4", "assert": [{"grader_id": "numeric"}], "threshold": 0.5},
        ],
    }
    content = json.dumps(document).encode()
    response = client.post(
        "/api/suites/import", files={"file": ("mixed.json", content)}, data={"name": "imported"}
    )
    assert response.status_code == 201, response.text
    suite = response.json()["data"]
    assert suite["rules"] == [
        {
            "when": {"kind": "bool"},
            "assert": [
                {
                    "grader_id": "true-false",
                    "config": {},
                    "expected_output": None,
                    "weight": 1.0,
                    "name": None,
                }
            ],
            "threshold": None,
        }
    ]
    exported = client.get(f"/api/suites/{suite['id']}/export?format=jsonl").text.splitlines()
    assert json.loads(exported[1])["assert"] == [{"grader_id": "numeric"}]
    assert json.loads(exported[1])["threshold"] == 0.5
