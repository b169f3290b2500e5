"""The ``assay.yaml`` loader: every problem named by file, line and (for an unknown key) the nearest valid
key, all of them checked before anything runs (docs/eval-file.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import AssayError, ValidationError
from assay.services.eval_file.gates import MetadataTally, judge_gates
from assay.services.eval_file.loading import EvalFileError, parse_eval_file, read_eval_file
from assay.services.eval_file.model import Gates, ResponsesFileTarget
from assay.services.eval_file.plan import plan_eval
from assay.services.local_run.suite_stream import SuiteFile

VALID = """\
suites:
  - suite.jsonl
target:
  type: responses
  path: answers.jsonl
"""


RATE = "assay.yaml line 6: gates.min_pass_rate"


def problems_of(text: str, tmp_path: Path | None = None) -> list[str]:
    """The messages of the error loading (and, with a folder, planning) ``text`` gives."""

    def load() -> None:
        file, root = parse_eval_file(text, "assay.yaml")
        if tmp_path is not None:
            plan_eval(file, tmp_path, source="assay.yaml", root=root)

    with pytest.raises(ValidationError) as caught:
        load()
    error = caught.value
    assert isinstance(error, EvalFileError)
    return [problem.message for problem in error.problems]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "suite.jsonl").write_text('{"input": "Is it?", "expected_output": "true"}\n')
    (tmp_path / "answers.jsonl").write_text('{"agent_response": "true"}\n')
    return tmp_path


def test_a_valid_file_plans_its_paths_grader_and_defaults(folder: Path) -> None:
    text = VALID + "grader: {id: true-false, preset: german}\nassert: [{grader_id: true-false}]\n"
    file, root = parse_eval_file(text, "assay.yaml")
    plan = plan_eval(file, folder, source="assay.yaml", root=root)
    assert plan.suites == (folder / "suite.jsonl",)
    assert plan.responses == folder / "answers.jsonl"
    assert plan.spec is None
    assert plan.grader.grader_id == "true-false"
    assert "ja" in plan.grader.config["aliases"]["true"]
    assert plan.defaults is not None
    assert plan.defaults.defaults is not None
    assert [item.grader_id for item in plan.defaults.defaults.items] == ["true-false"]
    assert isinstance(file.target, ResponsesFileTarget)


def test_an_unknown_key_names_the_file_its_line_and_the_nearest_key() -> None:
    assert problems_of(VALID + "concurency: 4\n") == [
        "assay.yaml line 6: unknown key 'concurency' (did you mean 'concurrency'?)"
    ]


def test_an_unknown_key_inside_a_target_and_a_gate_is_placed_there() -> None:
    text = """\
suites: [s.jsonl]
target:
  type: http
  url: http://127.0.0.1:9/agent
  hedaers: {}
gates:
  by_metadata:
    - {key: lang, valeu: de, min_pass_rate: 0.8}
"""
    assert problems_of(text) == [
        "assay.yaml line 5: unknown key 'hedaers' in target (did you mean 'headers'?)",
        "assay.yaml line 8: unknown key 'valeu' in gates.by_metadata[0] (did you mean 'value'?)",
    ]


def test_a_key_with_nothing_near_lists_the_valid_keys() -> None:
    (message,) = problems_of(VALID + "outputs: {zzz: a}\n")
    assert message == "assay.yaml line 6: unknown key 'zzz' in outputs (valid keys: results, junit)"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("concurrency: 0\n", "assay.yaml line 6: concurrency: Input should be greater than or equal to 1"),
        ('gates: {min_pass_rate: "0.9"}\n', f"{RATE}: Input should be a valid number"),
        ("gates: {min_pass_rate: 1.5}\n", f"{RATE}: Input should be less than or equal to 1"),
        ("threshold: 0.5\n", "assay.yaml line 1: threshold needs the default 'assert' list"),
    ],
)
def test_bad_values_are_each_placed_on_their_line(extra: str, expected: str) -> None:
    assert problems_of(VALID + extra) == [expected]


def test_a_missing_target_and_a_bad_suite_entry_are_both_listed() -> None:
    assert problems_of("suites:\n  - {server_suit: 3}\n") == [
        "assay.yaml line 1: target: Field required",
        "assay.yaml line 2: suites[0].server_suite: Field required",
        "assay.yaml line 2: unknown key 'server_suit' in suites[0] (did you mean 'server_suite'?)",
    ]


def test_a_key_given_twice_is_an_error_not_the_last_one_silently() -> None:
    assert problems_of(VALID + "concurrency: 2\nconcurrency: 3\n") == [
        "assay.yaml line 1: line 7: the key 'concurrency' is given twice (first on line 6)"
    ]


def test_not_yaml_and_not_a_mapping_are_one_line_each() -> None:
    with pytest.raises(ValidationError, match=r"^assay.yaml line 2: not valid YAML"):
        parse_eval_file("suites: [a\ntarget: {", "assay.yaml")
    assert problems_of("- a\n- b\n") == ["assay.yaml: must be a mapping of keys (suites, target, ...)"]


def test_missing_files_unknown_grader_and_bad_assertions_are_all_found_before_a_run(tmp_path: Path) -> None:
    text = """\
suites:
  - missing.jsonl
target: {type: responses, path: nowhere.jsonl}
grader: {id: true-flase}
rules:
  - when: {kind: number}
    assert: [{grader_id: numeric, config: {abs_tol: -1}}]
"""
    found = problems_of(text, tmp_path)
    assert found[0] == f"assay.yaml line 2: the suite file {tmp_path / 'missing.jsonl'} does not exist"
    assert found[1].startswith("assay.yaml line 4: ")
    assert "true-false" in found[1]  # the nearest grader id
    assert found[2].startswith("assay.yaml line 7: ")
    assert "abs_tol" in found[2]
    assert found[3] == f"assay.yaml line 3: the answers file {tmp_path / 'nowhere.jsonl'} does not exist"


def test_a_grader_config_is_checked_by_the_grader(folder: Path) -> None:
    (message,) = problems_of(VALID + "grader: {id: numeric, config: {abs_tol: nope}}\n", folder)
    assert message.startswith("assay.yaml line 6: ")
    assert "abs_tol" in message


def test_a_timeout_said_twice_and_a_responses_file_for_two_suites_are_refused(folder: Path) -> None:
    twice = (
        "suites: [suite.jsonl]\ntimeout_s: 5\ntarget: {type: http, url: 'http://127.0.0.1:9/a', timeout: 3}\n"
    )
    assert problems_of(twice) == ["assay.yaml line 1: give timeout_s or target.timeout, not both"]
    two = VALID.replace("  - suite.jsonl\n", "  - suite.jsonl\n  - suite.jsonl\n")
    assert problems_of(two, folder) == [
        "assay.yaml line 4: a responses file answers one suite: give one suite, or one eval file each"
    ]


def test_timeout_s_and_max_attempts_reach_the_target_spec(folder: Path) -> None:
    text = "suites: [suite.jsonl]\ntimeout_s: 5\nmax_attempts: 2\ntarget: {type: python, callable: 'a:b'}\n"
    file, root = parse_eval_file(text, "assay.yaml")
    spec = plan_eval(file, folder, source="assay.yaml", root=root).spec
    assert spec is not None
    assert (spec.timeout, spec.max_attempts) == (5, 2)


def test_a_file_that_cannot_be_read_or_is_a_folder_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(AssayError, match="cannot read") as caught:
        read_eval_file(tmp_path / "absent.yaml")
    assert caught.value.exit_code == 2
    with pytest.raises(ValidationError, match="is a folder"):
        read_eval_file(tmp_path)


def test_gates_by_metadata_value_each_value_and_assertion() -> None:
    gates = Gates.model_validate(
        {
            "min_pass_rate": 0.5,
            "by_metadata": [
                {"key": "lang", "value": "de", "min_pass_rate": 0.5},
                {"key": "n", "min_pass_rate": 1},
            ],
            "by_assertion": [
                {"assertion": "numeric", "min_pass_rate": 0.9},
                {"assertion": "typo", "min_pass_rate": 0},
            ],
        }
    )
    tally = MetadataTally(gates.by_metadata)
    tally.add({"lang": "de", "n": 1}, True)
    tally.add({"lang": "de", "n": True}, False)
    tally.add({"lang": "en"}, False)
    verdicts = judge_gates(gates, passed=1, total=3, by_assertion={"numeric": (9, 10)}, metadata=tally)
    assert [(v.name, v.passed, v.total, v.held) for v in verdicts] == [
        ("pass rate", 1, 3, False),
        ("lang=de", 1, 2, True),
        ("n=1", 1, 1, True),  # 1 and true are two values, as rules compare them
        ("n=True", 0, 1, False),
        ("assertion numeric", 9, 10, True),
        ("assertion typo", 0, 0, False),  # a gate over nothing is missed: a name no assertion has
    ]
    assert verdicts[0].line() == "gate pass rate: 1/3 passed (33.33%), needs 50.00%: MISSED"


def test_control_characters_and_lone_surrogates_are_one_line_not_a_crash() -> None:
    for text in ("a: \x1a", "a: \udc80"):
        with pytest.raises(
            ValidationError, match=r"^assay.yaml: not valid YAML \(unacceptable character #x"
        ) as caught:
            parse_eval_file(text, "assay.yaml")
        assert "\n" not in caught.value.message


def test_a_json_suites_own_rules_come_first_and_its_defaults_win(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(
        json.dumps(
            {
                "rules": [{"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]}],
                "assert": [{"grader_id": "contains"}],
                "cases": [
                    {"input": "a", "expected_output": "4", "metadata": {"kind": "number"}},
                    {"input": "b", "expected_output": "yes", "metadata": {"kind": "bool"}},
                    {"input": "c", "expected_output": "x", "metadata": {"kind": "text"}},
                ],
            }
        )
    )
    text = """\
suites: [suite.json]
target: {type: python, callable: 'a:b'}
rules:
  - {when: {kind: bool}, assert: [{grader_id: true-false}]}
  - {when: {kind: number}, assert: [{grader_id: string-match}]}
assert: [{grader_id: string-match}]
"""
    file, root = parse_eval_file(text, "assay.yaml")
    plan = plan_eval(file, tmp_path, source="assay.yaml", root=root)
    picked = []
    for case in SuiteFile(suite, defaults=plan.defaults).cases():
        assert case.checks is not None
        picked.append([item.grader_id for item in case.checks.assertions.items])
    assert picked == [["numeric"], ["true-false"], ["contains"]]


def test_rows_without_assertions_get_the_files_defaults(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"input": "a", "expected_output": "4"}\n')
    text = "suites: [suite.jsonl]\ntarget: {type: python, callable: 'a:b'}\nassert: [{grader_id: numeric}]\n"
    file, root = parse_eval_file(text, "assay.yaml")
    plan = plan_eval(file, tmp_path, source="assay.yaml", root=root)
    (case,) = SuiteFile(suite, defaults=plan.defaults).cases()
    assert case.checks is not None
    assert [item.grader_id for item in case.checks.assertions.items] == ["numeric"]
    (plain,) = SuiteFile(suite).cases()
    assert plain.checks is None  # without defaults beside it, a row takes the path it always took
