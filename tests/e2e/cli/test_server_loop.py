"""The team's loop against a real ``assay serve``: ``assay run --server`` and ``assay push`` store runs as
evaluations of the server's suite (matched by content, named by where they ran), and ``assay compare
--server`` gates on two of them. The CLI runs in process; the server is a process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.assay_process import AssayProcess
from tests.support.cli import invoke

KEY = "loop-test-key"
CI = {
    "ASSAY_API_KEY": KEY,
    "GITHUB_REF_NAME": "feature-x",
    "GITHUB_SHA": "0123456789abcdef",
    "GITHUB_SERVER_URL": "https://github.example",
    "GITHUB_REPOSITORY": "team/agent",
    "GITHUB_RUN_ID": "77",
}
CASES = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayProcess]:
    with AssayProcess(tmp_path_factory.mktemp("server"), env={"ASSAY_API_KEY": KEY}) as process:
        yield process


def _files(tmp_path: Path, answers: list[str]) -> tuple[Path, Path]:
    suite = tmp_path / "bools.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "true"}) + "\n" for n in range(1, CASES + 1))
    )
    responses = tmp_path / f"answers-{answers.count('no')}.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": a}) + "\n" for a in answers))
    return suite, responses


def test_runs_reach_the_server_and_compare_gates_on_them(server: AssayProcess, tmp_path: Path) -> None:
    suite, good = _files(tmp_path, ["yes"] * CASES)
    ran = invoke(
        "run", str(suite), "-g", "true-false", "--responses", str(good), "--server", server.url, env=CI
    )
    assert ran.code == 0, ran.stderr
    assert f"pushed to {server.url}: evaluation " in ran.stderr
    base = int(ran.message.split("pushed to ", 1)[1].split("evaluation ", 1)[1].split()[0])

    _, worse = _files(tmp_path, ["no"] * 8 + ["yes"] * 4)
    output = tmp_path / "worse.jsonl"
    assert (
        invoke("run", str(suite), "-g", "true-false", "--responses", str(worse), "-o", str(output)).code == 1
    )
    pushed = invoke("push", str(output), "--server", server.url, env=CI)
    assert pushed.code == 0, pushed.stderr
    head = int(pushed.stdout)

    headers = {"authorization": f"Bearer {KEY}"}
    a = server.client.get(f"/api/evaluations/{base}", headers=headers).json()["data"]
    b = server.client.get(f"/api/evaluations/{head}", headers=headers).json()["data"]
    assert a["suite_id"] == b["suite_id"]  # the same cases: the same suite, matched by content
    assert (a["status"], b["status"]) == ("completed", "completed")
    assert a["name"] == "assay run feature-x@0123456789ab https://github.example/team/agent/actions/runs/77"
    history = server.client.get(f"/api/suites/{a['suite_id']}/history", headers=headers).json()["data"]
    assert {point["evaluation_id"] for point in history["points"]} >= {base, head}

    compared = invoke("compare", str(base), str(head), "--server", server.url, env=CI)
    assert compared.code == 1, compared.stderr  # 8 regressions, no improvement
    assert "pass -> fail 8, fail -> pass 0" in compared.stdout
    assert "B is significantly worse than A" in compared.stderr
    same = invoke("compare", str(base), str(base), "--server", server.url, "--json", env=CI)
    assert same.code == 0
    assert json.loads(same.stdout)["verdict"] == "no_significant_difference"


def test_a_refused_key_or_an_unfinished_file_is_one_line_and_exit_2(
    server: AssayProcess, tmp_path: Path
) -> None:
    suite, good = _files(tmp_path, ["yes"] * CASES)
    output = tmp_path / "out.jsonl"
    assert (
        invoke("run", str(suite), "-g", "true-false", "--responses", str(good), "-o", str(output)).code == 0
    )
    refused = invoke("push", str(output), "--server", server.url, env={"ASSAY_API_KEY": "wrong"})
    assert refused.code == 2
    assert "the server refused the key (HTTP 401)" in refused.message
    lines = output.read_bytes().splitlines(keepends=True)
    output.write_bytes(b"".join(lines[:-1]))  # a run killed before its last case
    unfinished = invoke("push", str(output), "--server", server.url, env={"ASSAY_API_KEY": KEY})
    assert unfinished.code == 2
    assert "does not hold one result per case of its suite" in unfinished.message
    unreachable = invoke("push", str(output), "--server", "http://127.0.0.1:9")
    assert unreachable.code == 2


def test_run_checks_the_server_before_any_case_runs(server: AssayProcess, tmp_path: Path) -> None:
    suite, good = _files(tmp_path, ["yes"] * CASES)
    output = tmp_path / "out.jsonl"
    refused = invoke("run", str(suite), "-g", "true-false", "--responses", str(good), "-o", str(output),
                     "--server", server.url, env={"ASSAY_API_KEY": "wrong"})  # fmt: skip
    assert refused.code == 2
    assert "the server refused the key (HTTP 401)" in refused.message
    assert not output.exists()  # nothing ran


MIXED = {
    "name": "mixed",
    "rules": [{"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]}],
    "cases": [
        {"key": "b1", "input": "Open on Sunday?", "expected_output": "no", "metadata": {"kind": "bool"}},
        {"key": "n1", "input": "Shipping?", "expected_output": "4.99", "metadata": {"kind": "number"}},
        {
            "key": "c1",
            "input": "Order id?",
            "expected_output": "order 7",
            "metadata": {"kind": "text"},
            "assert": [{"grader_id": "contains", "expected_output": "7", "name": "mentions 7"}],
            "threshold": 1,
        },
    ],
}
MIXED_ANSWERS = {"b1": "no", "n1": "$4.99", "c1": "it is order number 7"}


def _mixed(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "mixed.json"
    suite.write_text(json.dumps(MIXED))
    responses = tmp_path / "mixed-answers.jsonl"
    responses.write_text(
        "".join(json.dumps({"key": k, "agent_response": a}) + "\n" for k, a in MIXED_ANSWERS.items())
    )
    return suite, responses


def test_a_pushed_run_keeps_its_suite_metadata_assertions_and_rules(
    server: AssayProcess, tmp_path: Path
) -> None:
    suite, answers = _mixed(tmp_path)
    output = tmp_path / "mixed-out.jsonl"
    ran = invoke("run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output))
    assert ran.code == 0, ran.stderr  # the rule grades n1, c1's own assertion grades c1: all pass
    pushed = invoke("push", str(output), "--server", server.url, env=CI)
    assert pushed.code == 0, pushed.stderr
    assert "warning" not in pushed.stderr
    headers = {"authorization": f"Bearer {KEY}"}
    evaluation = server.client.get(f"/api/evaluations/{int(pushed.stdout)}", headers=headers).json()["data"]
    # The server grades each case as the run did (true-false alone would fail "$4.99" and "order number 7").
    assert (evaluation["status"], evaluation["summary"]["passed"]) == ("completed", 3)
    suite_id = evaluation["suite_id"]
    stored = server.client.get(f"/api/suites/{suite_id}", headers=headers).json()["data"]
    assert [(rule["when"], rule["assert"][0]["grader_id"]) for rule in stored["rules"]] == [
        ({"kind": "number"}, "numeric")
    ]
    cases = server.client.get(f"/api/suites/{suite_id}/cases", headers=headers).json()["data"]["cases"]
    by_key = {case["key"]: case for case in cases}
    (own,) = by_key["c1"]["assert"]
    assert (own["grader_id"], own["expected_output"], own["name"]) == ("contains", "7", "mentions 7")
    assert by_key["c1"]["threshold"] == 1
    assert by_key["n1"]["metadata"] == {"kind": "number"}
    breakdown = server.client.get(
        f"/api/evaluations/{evaluation['id']}/breakdown?key=kind", headers=headers
    ).json()["data"]
    assert sorted(group["value"] for group in breakdown["groups"]) == ["bool", "number", "text"]

    again = invoke("push", str(output), "--server", server.url, env=CI)
    assert again.code == 0, again.stderr
    second = server.client.get(f"/api/evaluations/{int(again.stdout)}", headers=headers).json()["data"]
    assert second["suite_id"] == suite_id  # the same whole cases: the same suite

    other = tmp_path / "other.json"
    other.write_text(json.dumps({**MIXED, "rules": []}))
    refused = invoke("push", str(output), "--server", server.url, "--suite", str(other), env=CI)
    assert refused.code == 2
    assert "is not the suite file the run read" in refused.message

    suite.rename(tmp_path / "moved.json")  # the run's suite file is gone: pushed with a warning, bare
    bare = invoke("push", str(output), "--server", server.url, env=CI)
    assert bare.code == 0, bare.stderr
    assert "pushed without its cases' metadata and assertions" in bare.message
    moved = invoke(
        "push", str(output), "--server", server.url, "--suite", str(tmp_path / "moved.json"), env=CI
    )
    assert moved.code == 0, moved.stderr
    found = server.client.get(f"/api/evaluations/{int(moved.stdout)}", headers=headers).json()["data"]
    assert found["suite_id"] == suite_id


def test_a_killed_run_is_pushed_as_it_is_with_partial(server: AssayProcess, tmp_path: Path) -> None:
    suite, good = _files(tmp_path, ["yes"] * CASES)
    output = tmp_path / "killed.jsonl"
    assert (
        invoke("run", str(suite), "-g", "true-false", "--responses", str(good), "-o", str(output)).code == 0
    )
    lines = output.read_bytes().splitlines(keepends=True)
    output.write_bytes(b"".join(lines[:-3]) + lines[-3][:10])  # killed: two results lost, one cut mid-line
    refused = invoke("push", str(output), "--server", server.url, env=CI)
    assert refused.code == 2
    assert "or push it as it is with --partial" in refused.message
    pushed = invoke("push", str(output), "--server", server.url, "--partial", env=CI)
    assert pushed.code == 0, pushed.stderr
    headers = {"authorization": f"Bearer {KEY}"}
    evaluation = server.client.get(f"/api/evaluations/{int(pushed.stdout)}", headers=headers).json()["data"]
    assert evaluation["name"].endswith("(partial: 9 of 12 cases)")
    summary = evaluation["summary"]
    assert (summary["total_cases"], summary["passed"]) == (12, 9)
    assert summary["errors_by_reason"] == {"no_recorded_response": 3}  # never run: no answer, not a pass

    whole = invoke("push", str(tmp_path / "out-none.jsonl"), "--server", server.url, env=CI)
    assert whole.code == 2  # no such file


def test_a_partial_run_without_its_suite_file_is_refused(server: AssayProcess, tmp_path: Path) -> None:
    suite, good = _files(tmp_path, ["yes"] * CASES)
    output = tmp_path / "cut.jsonl"
    assert (
        invoke("run", str(suite), "-g", "true-false", "--responses", str(good), "-o", str(output)).code == 0
    )
    output.write_bytes(b"".join(output.read_bytes().splitlines(keepends=True)[:-1]))
    suite.unlink()
    refused = invoke("push", str(output), "--server", server.url, "--partial", env=CI)
    assert refused.code == 2
    assert "an unfinished run is pushed over its whole suite, read from its file" in refused.message
