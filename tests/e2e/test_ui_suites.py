"""Suites: create, import a file (bad lines reported one by one), browse the cases, export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import AssayServer, PageWatch
from tests.support.navigation import open_in_app

pytestmark = pytest.mark.browser


def test_import_reports_each_bad_line_then_imports_a_good_file(
    page: Page, watch: PageWatch, tmp_path: Path
) -> None:
    watch.expect_console_error("status of 422")  # the refused import
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"input": "Is ice cold?", "expected_output": "true"}\n'
        '{"input": "no expected output"}\n'
        "not json at all\n",
        encoding="utf-8",
    )
    page.goto("/suites")
    page.get_by_label("File (.jsonl, .csv or .json)").set_input_files(bad)
    page.get_by_role("button", name="Import").click()
    problems = page.get_by_test_id("problem-list")
    expect(problems).to_contain_text("line 2")
    expect(problems).to_contain_text("line 3")

    good = tmp_path / "ice.jsonl"
    cases = [{"input": f"Is {n} even?", "expected_output": str(n % 2 == 0).lower()} for n in range(60)]
    good.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    page.get_by_label("File (.jsonl, .csv or .json)").set_input_files(good)
    name = f"imported {tmp_path.name}"
    page.get_by_label("Name (default: from the file)").fill(name)
    page.get_by_role("button", name="Import").click()

    expect(page).to_have_url(re.compile(r"/suites/\d+$"))
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.get_by_test_id("case-list").locator("tbody tr")).to_have_count(50)
    page.get_by_role("button", name="Next →").click()
    expect(page.get_by_test_id("case-list").locator("tbody tr")).to_have_count(10)
    expect(page.get_by_test_id("case-list")).to_contain_text("Is 59 even?")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export JSONL").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["input"] for line in lines] == [case["input"] for case in cases]


def test_create_a_suite_and_add_a_case(page: Page, tmp_path: Path) -> None:
    page.goto("/suites")
    name = f"created {tmp_path.name}"
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    page.get_by_label("input", exact=True).fill("Is ice cold?")
    page.get_by_label("expected_output", exact=True).fill("true")
    page.get_by_role("button", name="Add case").click()
    expect(page.get_by_test_id("case-list").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("case-list")).to_contain_text("Is ice cold?")
    page.get_by_role("link", name="Suites", exact=True).click()
    expect(page.get_by_test_id("suite-list")).to_contain_text(name)


def test_deleting_a_suite_with_evaluations_asks_for_the_cascade(
    page: Page, watch: PageWatch, assay: AssayServer
) -> None:
    watch.expect_console_error("status of 409")  # the first, refused delete
    watch.accept_dialogs = True
    suite_id = assay.create_suite([("Is ice cold?", "true", "")], "with an evaluation")
    body = {"suite_id": suite_id, "grader_id": "true-false", "target": {"type": "recorded"}}
    evaluation_id = assay.data(assay.client.post("/api/evaluations", json=body))["id"]
    assay.wait_for(evaluation_id)
    page.goto(f"/suites/{suite_id}")
    page.get_by_role("button", name="Delete").click()
    expect(page).to_have_url(re.compile(r"/suites$"))
    assert watch.dialogs[0].startswith("confirm: Delete the suite")
    assert "1 evaluation(s)" in watch.dialogs[1]
    assert assay.client.get(f"/api/evaluations/{evaluation_id}").status_code == 404


def test_cases_are_named_by_number_and_key_from_import_to_the_case_panel(page: Page, tmp_path: Path) -> None:
    # A file whose cases carry an "id": answers recorded by it land on their cases, whatever their order.
    keyed = tmp_path / "keyed.jsonl"
    cases = [("Is ice cold?", "true"), ("Is fire cold?", "false"), ("Is 2 even?", "true")]
    keyed.write_text(
        "".join(
            json.dumps({"id": f"q-{n}", "input": i, "expected_output": e}) + "\n"
            for n, (i, e) in enumerate(cases)
        ),
        encoding="utf-8",
    )
    page.goto("/suites")
    page.get_by_label("File (.jsonl, .csv or .json)").set_input_files(keyed)
    page.get_by_label("Name (default: from the file)").fill(f"keyed {tmp_path.name}")
    page.get_by_role("button", name="Import").click()
    expect(page).to_have_url(re.compile(r"/suites/\d+$"))
    first_row = page.get_by_test_id("case-list").locator("tbody tr").first
    expect(first_row.locator("td").first).to_have_text("1 q-0")

    suite_id = page.url.rsplit("/", 1)[1]
    open_in_app(page, f"/evaluations/new?suite={suite_id}")
    page.get_by_label("Grader", exact=True).select_option("true-false")
    page.get_by_label("Recorded responses").check()
    answers = {"q-2": "yes", "q-1": "yes", "q-0": "yes"}
    page.get_by_label("Responses (JSON object, case → agent_response)").fill(json.dumps(answers))
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")  # settled: the button stays put
    page.get_by_role("button", name="Start evaluation").click()
    expect(page).to_have_url(re.compile(r"/evaluations/\d+$"))
    expect(page.get_by_test_id("evaluation-status")).to_have_text("completed", timeout=30_000)
    expect(page.get_by_test_id("pass-rate")).to_have_text("66.7%")
    page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]').filter(
        has_text="fire"
    ).click()
    expect(page.get_by_test_id("case-panel").get_by_role("heading", level=3)).to_have_text("Case #2 key q-1")
