"""Caps on what is stored and returned: an answer is stored once (not again inside details) and comes
back with every details field; a results page is bounded in bytes as well as rows. Both databases."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from assay.api.app import create_app
from assay.config import Settings
from assay.graders import TrueFalseGrader
from assay.storage.database import normalize_url
from tests.factories import case_ids, make_suite, start, wait_until_finished

LONG = "yes " + "padding " * 2000


def test_an_answer_is_stored_once_and_read_back_whole(client: TestClient, database_url: str) -> None:
    suite = make_suite(client, [("q", "true")])
    target = {"type": "recorded", "responses": {"1": LONG}}
    evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
    [result] = client.get(f"/api/evaluations/{evaluation['id']}/results").json()["data"]["results"]
    assert result["agent_response"] == LONG
    details = result["details"]
    # every details field (docs/decisions.md#the-grading-result), as graded
    assert details["actual_original"] == LONG
    assert details["normalized_actual"] == LONG.strip()
    assert list(details) == list(TrueFalseGrader().grade(LONG, "true")["details"])  # in the grader's order
    assert {"expected_bool", "actual_bool", "match_status", "reason"} <= set(details)
    exported = client.get(f"/api/evaluations/{evaluation['id']}/export", params={"format": "jsonl"}).text
    assert exported.count("padding padding") >= 2  # the export, too, has the details whole
    engine = create_engine(normalize_url(database_url))
    with engine.connect() as connection:
        stored_answer, stored_details = connection.execute(
            text("SELECT agent_response, details FROM results")
        ).one()
    engine.dispose()
    assert len(stored_answer) > len(LONG)  # the answer itself (as JSON text)
    assert "padding" not in stored_details.replace(LONG.strip(), "")  # only the normalised copy differs
    assert '"__same_as__":"agent_response"' in stored_details


def test_a_results_page_is_bounded_in_bytes(settings: Settings) -> None:
    changes: dict[str, Any] = {"max_results_page_bytes": 60_000}
    with TestClient(create_app(Settings.model_validate({**settings.model_dump(), **changes}))) as client:
        suite = make_suite(client, [(f"q{n}", "true") for n in range(20)])
        ids = case_ids(client, suite["id"])
        target = {"type": "recorded", "responses": {str(number): LONG for number in range(1, 21)}}
        evaluation = wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"])
        path = f"/api/evaluations/{evaluation['id']}/results"
        seen: list[int] = []
        skip: int | None = 0
        while skip is not None:
            response = client.get(path, params={"skip": skip, "limit": 20})
            page = response.json()["data"]
            assert 1 <= page["count"] < 20
            # past the budget by one result at most (a page holds at least one, however large)
            largest = max(len(json.dumps(result)) for result in page["results"])
            assert len(response.content) < 60_000 + largest + 1_000
            seen.extend(result["case_id"] for result in page["results"])
            assert len(seen) <= len(ids), "the pages go on past the results"  # and the loop ends
            skip = page["next_skip"]
        assert seen == ids


def test_a_compare_page_keeps_to_the_same_budget(settings: Settings) -> None:
    changes: dict[str, Any] = {"max_results_page_bytes": 60_000}
    with TestClient(create_app(Settings.model_validate({**settings.model_dump(), **changes}))) as client:
        suite = make_suite(client, [(f"q{n} {LONG}", "true") for n in range(20)])  # long inputs
        runs = []
        for answer in ("no", "yes"):  # every case flips from failed to passed
            target = {"type": "recorded", "responses": {str(number): answer for number in range(1, 21)}}
            runs.append(wait_until_finished(client, start(client, suite_id=suite["id"], target=target)["id"]))
        path = f"/api/evaluations/{runs[0]['id']}/compare/{runs[1]['id']}"
        seen: list[int] = []
        skip: int | None = 0
        while skip is not None:
            response = client.get(path, params={"skip": skip, "limit": 20})
            page = response.json()["data"]
            assert 1 <= len(page["flips"]) < 20
            largest = max(len(json.dumps(flip)) for flip in page["flips"])
            assert len(response.content) < 60_000 + largest + 2_000
            seen.extend(flip["number"] for flip in page["flips"])
            assert len(seen) <= 20, "the pages go on past the flips"
            skip = page["next_skip"]
        assert seen == list(range(1, 21))
