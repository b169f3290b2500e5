"""What a push sends: the suite read whole from the run's suite file (metadata, assertions, rules), matched
by a digest that stays what it was for cases with nothing but their texts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import orjson
import pytest

from assay.errors import ValidationError
from assay.python_api import evaluate
from assay.services.local_run.push_plan import push_plan
from assay.services.local_run.result_file import read_header

CASES = [
    {"key": "a", "input": "Is it on?", "expected_output": "true"},
    {"key": "b", "input": "Is it off?", "expected_output": "false"},
]


def _run(tmp_path: Path, cases: list[dict[str, object]]) -> Path:
    suite = tmp_path / "s.jsonl"
    suite.write_text("".join(json.dumps(case) + "\n" for case in cases))
    output = tmp_path / "out.jsonl"
    evaluate(suite, lambda question: "yes" if "on" in question else "no", grader="true-false", output=output)
    return output


def test_plain_cases_keep_the_digest_pushes_had_before(tmp_path: Path) -> None:
    plan = push_plan(_run(tmp_path, CASES), {})
    texts = [[case["key"], case["input"], case["expected_output"]] for case in CASES]
    assert plan.suite_name == f"s-{hashlib.sha256(orjson.dumps(texts)).hexdigest()[:12]}"
    assert plan.warning is None
    assert plan.responses == {"a": "yes", "b": "no"}


def test_metadata_and_assertions_are_sent_and_make_another_suite(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    plain = push_plan(_run(tmp_path / "plain", CASES), {})
    rich = [{**CASES[0], "metadata": {"lang": "en"}}, {**CASES[1], "assert": [{"grader_id": "contains"}]}]
    (tmp_path / "rich").mkdir()
    plan = push_plan(_run(tmp_path / "rich", rich), {})
    assert [case.as_json() for case in plan.cases] == [
        {**CASES[0], "metadata": {"lang": "en"}},
        {**CASES[1], "assert": [{"grader_id": "contains"}]},
    ]
    assert plan.suite_name != plain.suite_name


def test_the_results_header_names_its_suite_file_and_a_changed_one_is_pushed_bare(tmp_path: Path) -> None:
    output = _run(tmp_path, [{**case, "metadata": {"n": 1}} for case in CASES])
    header = read_header(output)
    assert header is not None
    assert header.suite_path == str((tmp_path / "s.jsonl").resolve())
    (tmp_path / "s.jsonl").write_text("")  # changed since the run
    plan = push_plan(output, {})
    assert plan.warning is not None
    assert "has changed since" in plan.warning
    assert all(case.metadata is None for case in plan.cases)
    with pytest.raises(ValidationError, match="is not the suite file the run read"):
        push_plan(output, {}, tmp_path / "s.jsonl")


def test_evaluate_refuses_an_output_holding_results(tmp_path: Path) -> None:
    output = _run(tmp_path, CASES)
    with pytest.raises(ValidationError, match="already holds results"):
        evaluate(CASES, lambda question: "yes", grader="true-false", output=output)


def test_assertions_given_beside_the_suite_are_pushed_with_it(tmp_path: Path) -> None:
    """assay eval's default assertions and rules, recorded in the header, reach the pushed suite (another
    suite than the same cases pushed bare: they grade otherwise)."""
    (tmp_path / "bare").mkdir()
    bare = push_plan(_run(tmp_path / "bare", CASES), {})
    output = _run(tmp_path, CASES)
    header, *records = output.read_text().splitlines()
    fields = json.loads(header)
    (key,) = fields
    given = {
        "assert": [{"grader_id": "contains"}],
        "rules": [{"when": {"kind": "n"}, "assert": [{"grader_id": "numeric"}]}],
    }
    fields[key]["assertions"] = given
    output.write_text("\n".join([json.dumps(fields), *records]) + "\n")
    plan = push_plan(output, {})
    assert plan.suite_assertions == given
    assert plan.suite_name != bare.suite_name


def test_a_conversation_case_is_pushed_with_its_messages_and_turns() -> None:
    from assay.services.local_run.push_plan import PushedCase
    from assay.services.suites.files import SuiteFormat, read_suite_file

    line = (
        b'{"key": "c", "input": [{"role": "user", "content": "hi"}], "turns": ["and?"],'
        b' "stop_at_first_failure": true}\n'
    )
    (case,) = read_suite_file(line, SuiteFormat.JSONL).cases
    pushed = PushedCase.of(case)
    assert pushed.as_json() == {
        "input": [{"role": "user", "content": "hi"}],
        "expected_output": "",
        "turns": [{"content": "and?"}],
        "stop_at_first_failure": True,
        "key": "c",
    }
    assert pushed.digest_item()[-1] == pushed.as_json()  # a conversation changes the suite's digest
