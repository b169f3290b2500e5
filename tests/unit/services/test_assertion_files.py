"""Per-case assertions in suite files (JSONL, CSV, JSON) and in a local run: read, checked, written back,
each case preflighted and graded with its own list, each distinct list built once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.domain import Case
from assay.errors import ValidationError
from assay.services.grader_service import GraderService
from assay.services.grading.assertions import CaseGraders
from assay.services.grading.preflight import check_cases
from assay.services.local_run.suite_stream import SuiteFile
from assay.services.suites.files import SuiteFormat, csv_lines, jsonl_lines, read_suite_file
from assay.targets import TargetReply

NUMERIC = [{"grader_id": "numeric", "name": "amount"}]
STRING_MATCH = GraderService(load_plugins=False).get("string-match")


def lines(*records: object) -> bytes:
    return "".join(json.dumps(record) + "\n" for record in records).encode()


def test_jsonl_rows_carry_their_assertions_outside_the_metadata() -> None:
    parsed = read_suite_file(
        lines(
            {"input": "a", "expected_output": "4", "assert": NUMERIC, "threshold": 0.5, "topic": "x"},
            {"input": "b", "expected_output": "no"},
        ),
        SuiteFormat.JSONL,
    )
    first, second = parsed.cases
    assert first.metadata == {"topic": "x"}
    assert first.assertions is not None
    assert (first.assertions.names, first.assertions.threshold) == (("amount",), 0.5)
    assert second.assertions is None


def test_a_bad_assertion_is_reported_by_line() -> None:
    content = lines(
        {"input": "a", "expected_output": "4"}, {"input": "b", "expected_output": "4", "assert": [{}]}
    )
    with pytest.raises(ValidationError) as refused:
        read_suite_file(content, SuiteFormat.JSONL)
    assert refused.value.problems[0].loc == ("line", 2)
    assert "grader_id" in refused.value.problems[0].message


def test_csv_assert_and_threshold_cells_hold_json_and_empty_is_none() -> None:
    text = (
        "input,expected_output,assert,threshold\r\n"
        'a,4,"[{""grader_id"": ""numeric""}]",0.5\r\n'
        "b,no,,\r\n"
        'c,4,"[{""grader_id"": ",\r\n'
    )
    with pytest.raises(ValidationError) as refused:
        read_suite_file(text.encode(), SuiteFormat.CSV)
    assert [problem.loc for problem in refused.value.problems] == [("line", 4)]
    parsed = read_suite_file(text.rsplit("c,4", 1)[0].encode(), SuiteFormat.CSV)
    assert [case.assertions is not None for case in parsed.cases] == [True, False]
    assert parsed.cases[0].assertions.threshold == 0.5  # type: ignore[union-attr]


def test_exports_write_assertions_back_as_they_are_read() -> None:
    parsed = read_suite_file(
        lines({"key": "k1", "input": "a", "expected_output": "4", "assert": NUMERIC, "threshold": 0.5}),
        SuiteFormat.JSONL,
    )
    new = parsed.cases[0]
    case = Case(1, 1, 0, new.input, new.expected_output, new.metadata, new.key, new.assertions)
    again = read_suite_file(b"".join(jsonl_lines([case])), SuiteFormat.JSONL).cases[0]
    assert again.assertions == new.assertions
    from_csv = read_suite_file(b"".join(csv_lines([case])), SuiteFormat.CSV).cases[0]
    assert from_csv.assertions == new.assertions


def mixed_json(tmp_path: Path) -> Path:
    document = {
        "name": "mixed",
        "rules": [{"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]}],
        "cases": [
            {"input": "how many?", "expected_output": "3", "metadata": {"kind": "number"}},
            {"input": "how many more?", "expected_output": "three", "metadata": {"kind": "number"}},
            {"input": "capital?", "expected_output": "Paris"},
            {"input": "yes?", "expected_output": "yes", "assert": [{"grader_id": "true-false"}]},
        ],
    }
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(document))
    return path


def test_a_json_file_rules_pick_each_case_list_in_a_local_run(tmp_path: Path) -> None:
    suite = SuiteFile(mixed_json(tmp_path))
    _facts, report = suite.scan(preflight=STRING_MATCH)
    assert report is not None
    assert (report.checked, report.invalid) == (4, 1)
    assert report.problems[0].number == 2
    cases = list(suite.cases())
    assert [case.checks is None for case in cases] == [False, False, True, False]
    assert cases[0].checks is not None
    assert cases[0].checks.names == ("numeric",)

    from assay.services.execution.case_results import grade_reply

    replies = ["3 of them", "3", "paris", "Yes"]
    graded = [
        grade_reply(case, TargetReply(answer), STRING_MATCH)
        for case, answer in zip(cases, replies, strict=True)
    ]
    assert [result.match_status for result in graded] == ["match", "invalid_expected", "match", "match"]
    assert graded[0].details is not None
    assert graded[0].details["children"][0]["name"] == "numeric"


def test_each_distinct_list_is_built_once_and_preflight_checks_each_case_with_its_own() -> None:
    suite = read_suite_file(
        json.dumps(
            {
                "rules": [{"when": {"kind": "bool"}, "assert": [{"grader_id": "true-false"}]}],
                "cases": [{"input": "x", "expected_output": "y"}],
            }
        ).encode(),
        SuiteFormat.JSON,
    ).assertions
    graders = CaseGraders(suite)
    first = graders.for_case(None, {"kind": "bool"})
    assert first is not None
    assert graders.for_case(None, {"kind": "bool"}) is first
    assert graders.for_case(None, {"kind": "text"}) is None
    cases = [
        (1, 1, None, "maybe", graders.for_case(None, {"kind": "bool"})),
        (2, 2, None, "maybe", None),  # string-match takes any non-empty text
        (3, 3, None, "yes", first),
    ]
    report = check_cases(STRING_MATCH, cases)
    assert (report.checked, report.invalid, [p.number for p in report.problems]) == (3, 1, [1])
