"""A first ``assay serve`` on an empty database offers a demo suite that evaluates at once."""

from __future__ import annotations

from pathlib import Path

from assay.services.suites.demo import DEMO_SUITE_NAME, RECORDED_KEY
from tests.factories import wait_until_finished
from tests.support.assay_process import AssayProcess


def test_first_serve_seeds_a_runnable_demo_suite(tmp_path: Path) -> None:
    with AssayProcess(tmp_path, seed_demo=None) as assay:
        suites = assay.client.get("/api/suites").json()["data"]["suites"]
        assert [suite["name"] for suite in suites] == [DEMO_SUITE_NAME]
        body = {
            "suite_id": suites[0]["id"],
            "grader_id": "true-false",
            "target": {"type": "recorded", "metadata_key": RECORDED_KEY},
        }
        evaluation_id = assay.client.post("/api/evaluations", json=body).json()["data"]["id"]
        evaluation = wait_until_finished(assay.client, evaluation_id)
        assert evaluation["status"] == "completed"
        assert evaluation["summary"]["passed"] == 9
        assert evaluation["summary"]["binary"]["invalid"] == 1
        assay.restart()
        assert (
            assay.client.get("/api/suites").json()["data"]["total"] == 1
        )  # only an empty database is seeded
