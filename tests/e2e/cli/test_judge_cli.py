"""The llm-judge grader from the CLI (``grade``, ``grade-file``, ``run``), as a real process against a
loopback judge speaking the OpenAI protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.judge_server import JudgeReply, JudgeServer, verdict
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]
KEY = "sk-cli-test-SECRET-42"
SCRIPT: dict[str, JudgeReply | list[JudgeReply]] = {
    "Paris": verdict(True, 1.0, "Correct."),
    "Lyon": verdict(False, 0.0, "Wrong city."),
    "Paris?": JudgeReply('{"explanation": "unsure", "pass": true}'),
}


@pytest.fixture(scope="module")
def judge() -> Iterator[JudgeServer]:
    with JudgeServer(SCRIPT) as server:
        yield server


def config(judge: JudgeServer, **extra: Any) -> str:
    return json.dumps(
        {"base_url": judge.base_url, "model": "judge-1", "api_key_env": "MY_JUDGE_KEY", **extra}
    )


def assay(*args: str, key: str | None = KEY) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name != "MY_JUDGE_KEY"}
    if key is not None:
        env["MY_JUDGE_KEY"] = key  # the CLI runs as its user: any variable it is told to read
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False, env=env)


def test_grade_asks_the_judge(judge: JudgeServer) -> None:
    proc = assay("grade", "-g", "llm-judge", "-c", config(judge), "-e", "Paris", "-r", "Paris")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["details"]["explanation"] == "Correct."
    assert judge.judged[-1].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in proc.stdout + proc.stderr


def test_grade_with_an_invalid_judgement_fails(judge: JudgeServer) -> None:
    proc = assay("grade", "-g", "llm-judge", "-c", config(judge), "-e", "Paris", "-r", "Paris?")
    assert proc.returncode == 1
    details = json.loads(proc.stdout)["details"]
    assert details["error"] == "invalid_judgement"
    assert "lacks 'score'" in details["reason"]


def test_grade_without_the_key_is_a_usage_error(judge: JudgeServer) -> None:
    proc = assay("grade", "-g", "llm-judge", "-c", config(judge), "-e", "Paris", "-r", "Paris", key=None)
    assert proc.returncode == 2
    assert "grader.config.api_key_env: environment variable MY_JUDGE_KEY is not set" in proc.stderr


def test_grade_file_judges_every_row(judge: JudgeServer, tmp_path: Path) -> None:
    rows = tmp_path / "answers.jsonl"
    answers = ["Paris", "Lyon", "Paris?"] * 30
    rows.write_text(
        "".join(json.dumps({"agent_response": a, "expected_output": "Paris"}) + "\n" for a in answers)
    )
    out = tmp_path / "graded.jsonl"
    proc = assay(
        "grade-file",
        str(rows),
        "-g",
        "llm-judge",
        "-c",
        config(judge),
        "-o",
        str(out),
        "--min-pass-rate",
        "0.3",
    )
    assert proc.returncode == 0, proc.stderr
    graded = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["agent_response"] for g in graded] == answers  # in file order
    assert [g["passed"] for g in graded[:3]] == [True, False, False]
    assert graded[2]["details"]["error"] == "invalid_judgement"
    assert "invalid_judgement" in proc.stderr  # the summary, on stderr
    assert KEY not in out.read_text()


def test_run_stores_judge_errors_by_reason(judge: JudgeServer, tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "input": "Capital?", "expected_output": "Paris"}) + "\n"
            for n in range(3)
        )
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"case_id": f"c{n}", "agent_response": a}) + "\n"
            for n, a in enumerate(["Paris", "Lyon", "Paris?"])
        )
    )
    out = tmp_path / "results.jsonl"
    proc = assay(
        "run",
        str(suite),
        "-g",
        "llm-judge",
        "-c",
        config(judge),
        "--responses",
        str(responses),
        "-o",
        str(out),
    )
    assert proc.returncode == 1  # not every case passed
    rows = read_results(out)
    assert [(r["passed"], r["error"]) for r in rows] == [
        (True, None),
        (False, None),
        (False, "invalid_judgement"),
    ]
    assert "invalid_judgement" in proc.stderr  # the summary's errors by reason
    assert KEY not in out.read_text() + proc.stderr


def test_a_judge_refusing_the_key_stops_the_run_as_a_configuration_error(tmp_path: Path) -> None:
    suite = tmp_path / "capitals.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "Paris"}) + "\n" for n in range(8))
    )
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"agent_response": "Paris"}\n' * 8)
    with JudgeServer({}, default=JudgeReply('{"error": "invalid key"}', status=401)) as refusing:
        proc = assay("run", str(suite), "-g", "llm-judge", "-c", config(refusing),
                     "--responses", str(answers), "-j", "1")  # fmt: skip
    assert proc.returncode == 2, proc.stderr  # not 1: the agent's answers were never judged
    message = " ".join(proc.stderr.split())
    assert (
        "error: the judge refused the key (HTTP 401) for the first 5 cases, so the run was stopped" in message
    )
    assert "(check the judge's API key)" in message


def assertion_suite(tmp_path: Path, judge_config: str, answers: list[str]) -> tuple[Path, Path]:
    checks = [
        {"grader_id": "contains", "expected_output": "Paris", "name": "mentions"},
        {"grader_id": "llm-judge", "config": json.loads(judge_config), "name": "rubric"},
    ]
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "input": "Capital?", "expected_output": "Paris", "assert": checks})
            + "\n"
            for n in range(len(answers))
        )
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(json.dumps({"case_id": f"c{n}", "agent_response": a}) + "\n" for n, a in enumerate(answers))
    )
    return suite, responses


def test_run_asks_the_judge_of_each_cases_assertions(judge: JudgeServer, tmp_path: Path) -> None:
    suite, responses = assertion_suite(tmp_path, config(judge), ["Paris", "Lyon", "Paris?"])
    asked = len(judge.judged)
    out = tmp_path / "results.jsonl"
    proc = assay("run", str(suite), "-g", "string-match", "--responses", str(responses), "-o", str(out))
    assert proc.returncode == 1, proc.stderr  # not every case passed
    rows = sorted(read_results(out), key=lambda row: row["number"])  # written as they finish
    assert [(r["passed"], r["match_status"]) for r in rows] == [
        (True, "match"),
        (False, "mismatch"),  # no "Paris" in it: decided without the judge
        (False, "invalid_response"),  # the judge's reply was no judgement: unjudged, never a pass
    ]
    rubric = rows[0]["details"]["children"][1]
    assert (rubric["name"], rubric["details"]["explanation"]) == ("rubric", "Correct.")
    assert sorted(request.agent_response or "" for request in judge.judged[asked:]) == ["Paris", "Paris?"]
    assert KEY not in out.read_text() + proc.stderr


def test_run_refuses_a_cases_judge_whose_key_is_missing_before_anything_runs(
    judge: JudgeServer, tmp_path: Path
) -> None:
    suite, responses = assertion_suite(tmp_path, config(judge), ["Paris"])
    asked = len(judge.judged)
    proc = assay("run", str(suite), "-g", "string-match", "--responses", str(responses), key=None)
    assert proc.returncode == 2, proc.stderr
    assert "assert[1].config.api_key_env" in proc.stderr
    assert len(judge.judged) == asked


def test_a_promptfoo_config_with_llm_rubric_imports_and_runs_against_its_judge(
    judge: JudgeServer, tmp_path: Path
) -> None:
    data = Path(__file__).resolve().parents[2] / "data" / "imports"
    suite = tmp_path / "suite.jsonl"
    imported = assay(
        "import", str(data / "promptfoo_judged.yaml"), "--from", "promptfoo", "-o", str(suite),
        "--judge-url", judge.base_url, "--judge-model", "judge-1", "--judge-key-env", "MY_JUDGE_KEY",
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    keys = [json.loads(line).get("key") for line in suite.read_text().splitlines()]
    answers = ["Paris", "Lyon"]  # France: both checks pass; Italy: no "rome", so the judge is not asked
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"case_id": key, "agent_response": answer} if key else {"agent_response": answer})
            + "\n"
            for key, answer in zip(keys, answers, strict=True)
        )
    )
    asked = len(judge.judged)
    out = tmp_path / "results.jsonl"
    proc = assay("run", str(suite), "-g", "string-match", "--responses", str(responses), "-o", str(out))
    assert proc.returncode == 1, proc.stderr
    rows = sorted(read_results(out), key=lambda row: row["number"])
    assert [row["passed"] for row in rows] == [True, False]
    rubric = rows[0]["details"]["children"][1]["details"]
    assert rubric["explanation"] == "Correct."
    assert [request.agent_response for request in judge.judged[asked:]] == ["Paris"]
    assert "The answer names Paris as the capital" in judge.judged[-1].body["messages"][1]["content"]


def test_grade_with_a_composite_asks_its_judge(judge: JudgeServer) -> None:
    composite = json.dumps(
        {
            "graders": [
                {"grader_id": "contains"},
                {"grader_id": "llm-judge", "config": json.loads(config(judge))},
            ]
        }
    )
    proc = assay("grade", "-g", "all", "-c", composite, "-e", "Paris", "-r", "Paris")
    assert proc.returncode == 0, proc.stderr
    children = json.loads(proc.stdout)["details"]["children"]
    assert children[1]["details"]["explanation"] == "Correct."
