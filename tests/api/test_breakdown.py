"""Breakdowns of an evaluation: pass rate per metadata value (worst first, capped) and failure groups."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from assay.services.figures.statistics import wilson_interval
from tests.factories import results, start, wait_until_finished


def suite_with(client: TestClient, metadata: list[dict[str, Any]]) -> int:
    """A suite of true cases with these metadata, posted as raw JSON (so odd escapes reach the server)."""
    cases = [{"input": f"case {n}", "expected_output": "true", "metadata": m} for n, m in enumerate(metadata)]
    body = json.dumps({"name": f"meta {len(metadata)}", "cases": cases})
    response = client.post("/api/suites", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 201, response.text
    return int(response.json()["data"]["id"])


def evaluate(client: TestClient, suite_id: int, answers: list[str | None]) -> int:
    """A completed recorded evaluation; a ``None`` answer leaves the case without one (a target error)."""
    responses = {str(number): a for number, a in enumerate(answers, 1) if a is not None}
    target = {"type": "recorded", "responses": responses}
    created = start(client, suite_id=suite_id, target=target)
    assert wait_until_finished(client, created["id"])["status"] == "completed"
    return int(created["id"])


def breakdown(client: TestClient, evaluation_id: int, key: str) -> dict[str, Any]:
    response = client.get(f"/api/evaluations/{evaluation_id}/breakdown", params={"key": key})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_pass_rate_per_value_worst_first_with_intervals(client: TestClient) -> None:
    metadata = [{"lang": "en", "tier": 1}] * 4 + [{"lang": "fr", "tier": 2}] * 4 + [{"tier": 1}] * 2
    suite_id = suite_with(client, metadata)
    # en: 3 of 4 pass; fr: 1 of 4 (one of them an error); no lang: 2 of 2.
    answers: list[str | None] = ["yes", "yes", "yes", "no", "yes", "no", "maybe", None, "yes", "yes"]
    evaluation_id = evaluate(client, suite_id, answers)

    data = breakdown(client, evaluation_id, "lang")
    assert [(g["label"], g["value"], g["missing"]) for g in data["groups"]] == [
        ("fr", "fr", False),
        ("en", "en", False),
        ("(missing)", None, True),
    ]
    fr = data["groups"][0]["pass_rate"]
    assert (fr["passed"], fr["total"], fr["rate"]) == (1, 4, 0.25)
    assert fr["ci95"] == list(wilson_interval(1, 4))  # type: ignore[arg-type]
    assert data["other"] is None
    assert data["distinct_values"] == 3
    assert (data["overall"]["passed"], data["overall"]["total"]) == (6, 10)

    tiers = breakdown(client, evaluation_id, "tier")
    assert [(g["value"], g["pass_rate"]["passed"], g["pass_rate"]["total"]) for g in tiers["groups"]] == [
        (2, 1, 4),
        (1, 5, 6),
    ]
    keys = client.get(f"/api/evaluations/{evaluation_id}/breakdown/keys").json()["data"]
    keys_listed = [{"key": "tier", "cases": 10}, {"key": "lang", "cases": 8}]
    assert keys == {"keys": keys_listed, "count": 2, "default_key": "tier"}


def test_the_default_key_splits_the_cases_into_a_few_groups(client: TestClient) -> None:
    """Not the most common key when it has one value (``kind``), nor one with a value per case (``id``)."""
    metadata = [{"kind": "single", "id": f"case-{n}", "lang": ("en", "fr")[n % 2]} for n in range(60)]
    evaluation_id = evaluate(client, suite_with(client, metadata), ["yes"] * 60)
    keys = client.get(f"/api/evaluations/{evaluation_id}/breakdown/keys").json()["data"]
    assert keys["default_key"] == "lang"

    no_split = suite_with(client, [{"kind": "single", "id": f"c{n}"} for n in range(59)])  # a name of its own
    alone = evaluate(client, no_split, ["yes"] * 59)
    assert client.get(f"/api/evaluations/{alone}/breakdown/keys").json()["data"]["default_key"] is None


def test_values_beyond_the_cap_are_one_other_group(client: TestClient) -> None:
    suite_id = suite_with(client, [{"id": f"v{n:03d}"} for n in range(203)] + [{"id": "v000"}])
    evaluation_id = evaluate(client, suite_id, ["yes"] * 204)
    data = breakdown(client, evaluation_id, "id")
    assert len(data["groups"]) == 200
    assert data["groups"][0]["value"] == "v000"  # the most frequent is always listed
    assert data["other"]["total"] == 204 - sum(group["pass_rate"]["total"] for group in data["groups"]) == 3
    assert data["distinct_values"] == 203


def test_odd_text_and_values_are_grouped_faithfully(client: TestClient) -> None:
    # NUL and lone surrogates (stored escaped) and one value spelled two ways in storage: a document with a
    # lone surrogate is stored all-ASCII, so its "café" is "caf\u00e9" there.
    metadata: list[dict[str, Any]] = [
        {"k": "x\u0000y"},
        {"k": "\ud800"},
        {"k": "café"},
        {"k": "café", "z\udc00": 1},
        {"k": [1, {"a": None}]},
        {"k": True},
        {"k": 1},
        {"k": 1.5},
        {"k": None},
        {'a.b"c': "quoted key"},
    ]
    suite_id = suite_with(client, metadata)
    evaluation_id = evaluate(client, suite_id, ["yes"] * len(metadata))
    groups = {
        json.dumps(g["value"]) if not g["missing"] else "missing": g["pass_rate"]["total"]
        for g in breakdown(client, evaluation_id, "k")["groups"]
    }
    assert groups == {
        json.dumps("x\u0000y"): 1,
        json.dumps("\ud800"): 1,
        json.dumps("café"): 2,
        json.dumps([1, {"a": None}]): 1,
        "true": 1,
        "1": 1,
        "1.5": 1,
        "null": 1,
        "missing": 1,
    }
    quoted = breakdown(client, evaluation_id, 'a.b"c')["groups"]
    assert [(g["value"], g["pass_rate"]["total"]) for g in quoted] == [(None, 9), ("quoted key", 1)]
    keys = client.get(f"/api/evaluations/{evaluation_id}/breakdown/keys").json()["data"]["keys"]
    assert {key["key"]: key["cases"] for key in keys} == {"k": 9, "z\udc00": 1, 'a.b"c': 1}


def test_breakdown_errors(client: TestClient) -> None:
    assert client.get("/api/evaluations/999/breakdown", params={"key": "k"}).status_code == 404
    assert client.get("/api/evaluations/999/breakdown/keys").status_code == 404
    assert client.get("/api/evaluations/999/failures").status_code == 404
    suite_id = suite_with(client, [{}])
    evaluation_id = evaluate(client, suite_id, ["yes"])
    missing_key = client.get(f"/api/evaluations/{evaluation_id}/breakdown")
    assert missing_key.status_code == 422
    assert missing_key.json()["error"]["code"] == "VALIDATION_ERROR"
    assert (
        client.get(f"/api/evaluations/{evaluation_id}/breakdown", params={"key": "k" * 201}).status_code
        == 422
    )


def test_failure_groups_link_to_the_results_that_make_them(client: TestClient) -> None:
    suite_id = suite_with(client, [{}] * 7)
    evaluation_id = evaluate(client, suite_id, ["yes", "no", "no", "maybe", None, None, "yes"])
    data = client.get(f"/api/evaluations/{evaluation_id}/failures").json()["data"]
    assert data["failed"] == 5
    groups = [(g["match_status"], g["error"], g["count"]) for g in data["groups"]]
    assert groups == [
        ("mismatch", None, 2),
        (None, "no_recorded_response", 2),
        ("invalid_response", None, 1),
    ]
    for group in data["groups"]:
        params = {name: value for name, value in group["filter"].items() if value is not None}
        listed = results(client, evaluation_id, **params)
        assert len(listed) == group["count"]
        assert all(not row["passed"] for row in listed)
    assert data["groups"][0]["filter"] == {"outcome": "failed", "match_status": "mismatch", "error": None}
    assert data["groups"][1]["filter"] == {
        "outcome": None,
        "match_status": None,
        "error": "no_recorded_response",
    }
