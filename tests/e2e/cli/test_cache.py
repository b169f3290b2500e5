"""``assay run --cache`` / ``--replay`` and ``assay cache`` as real processes against a loopback agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.agent_server import AgentBehaviour, AgentServer, Fault
from tests.support.cli_batch import Command, invoke_in_one_process
from tests.support.results import read_results
from tests.support.tool_agent import CHECKS, VERDICTS, ToolAgent, target

ASSAY = [sys.executable, "-m", "assay.cli"]
QUESTIONS = {"Is water wet?": "yes", "Is fire cold?": "no", "Is 2 even?": "yes", "Is 3 even?": "no"}


def assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False)


def write_suite(path: Path, questions: list[str]) -> Path:
    expected = {"yes": "true", "no": "false"}
    path.write_text(
        "".join(
            json.dumps({"input": q, "expected_output": expected[QUESTIONS.get(q, "yes")]}) + "\n"
            for q in questions
        )
    )
    return path


def test_a_cached_rerun_calls_the_agent_only_for_what_it_has_not_answered(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite.jsonl", list(QUESTIONS))
    cache = tmp_path / "cache"
    behaviour = AgentBehaviour(answers=dict(QUESTIONS), faults={"Is 3 even?": Fault(status=500, times=1)})
    with AgentServer(behaviour) as agent:
        url = f"{agent.url}/answer"
        common = ["-g", "true-false", "--target-url", url, "--max-attempts", "1", "--cache-dir", str(cache)]
        first = assay("run", str(suite), *common, "--cache", "-o", str(tmp_path / "first.jsonl"))
        assert first.returncode == 1, first.stderr  # "Is 3 even?" failed once: 3 of 4 passed
        assert len(agent.requests) == 4
        second = assay("run", str(suite), *common, "--cache", "-o", str(tmp_path / "second.jsonl"))
        assert second.returncode == 0, second.stderr
        assert len(agent.requests) == 5  # only the case that errored (errors are never cached)
        results = read_results(tmp_path / "second.jsonl")
        assert [result.get("cached", False) for result in results] == [True, True, True, False]
        assert all(result["passed"] for result in results)

        replayed = assay("run", str(suite), *common, "--replay", "-o", str(tmp_path / "replay.jsonl"))
        assert replayed.returncode == 0, replayed.stderr
        assert len(agent.requests) == 5  # --replay calls no agent
        assert all(result["cached"] for result in read_results(tmp_path / "replay.jsonl"))

        grown = write_suite(tmp_path / "grown.jsonl", [*QUESTIONS, "Is 4 even?"])
        missing = assay("run", str(grown), *common, "--replay", "-o", str(tmp_path / "grown-out.jsonl"))
        assert missing.returncode == 1, missing.stderr  # the new case fails closed, not a call
        assert read_results(tmp_path / "grown-out.jsonl")[-1]["error"] == "cache_miss"
        assert len(agent.requests) == 5

    stats, cleared = invoke_in_one_process(  # in turn, in one process
        [
            Command(("cache", "stats", "--cache-dir", str(cache), "--json")),
            Command(("cache", "clear", "--cache-dir", str(cache))),
        ]
    )
    assert stats.code == 0, stats.stderr
    assert json.loads(stats.stdout)["replies"] == 4
    assert cleared.code == 0
    assert "dropped 4 replies" in cleared.stdout


def test_replay_without_a_cache_or_with_recorded_answers_is_a_usage_error(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite.jsonl", list(QUESTIONS))
    empty = tmp_path / "nothing"
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"agent_response": "yes"}) + "\n" for _ in QUESTIONS))
    replay, recorded, stats = invoke_in_one_process(  # three refusals, one process
        [
            Command(("run", str(suite), "-g", "true-false", "--target-url", "http://127.0.0.1:9/x",
                     "--replay", "--cache-dir", str(empty))),
            Command(("run", str(suite), "-g", "true-false", "--responses", str(answers), "--cache")),
            Command(("cache", "stats", "--cache-dir", str(empty))),
        ]
    )  # fmt: skip
    assert replay.code == 2
    assert "no reply cache" in replay.stderr
    assert not empty.exists()
    assert recorded.code == 2
    assert "--responses" in recorded.stderr
    assert stats.code == 2
    assert "no reply cache" in stats.stderr


def test_the_agents_tokens_are_summed_and_kept_per_case(tmp_path: Path) -> None:
    from tests.support.agent_server import USAGE_MODEL

    suite = write_suite(tmp_path / "suite.jsonl", list(QUESTIONS))
    with AgentServer(AgentBehaviour(answers=dict(QUESTIONS), usage=True)) as agent:
        proc = assay("run", str(suite), "-g", "true-false", "--target-url", f"{agent.url}/answer",
                     "-o", str(tmp_path / "out.jsonl"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected_in = sum(len(question) for question in QUESTIONS)
    expected_out = sum(len(answer) for answer in QUESTIONS.values())
    lines = [line for line in proc.stderr.splitlines() if line.startswith(USAGE_MODEL)]
    assert lines[0].split() == [USAGE_MODEL, "4", str(expected_in), str(expected_out)]
    first = read_results(tmp_path / "out.jsonl")[0]
    assert first["usage"] == {"input_tokens": len("Is water wet?"), "output_tokens": 3, "model": USAGE_MODEL}


def test_assay_eval_takes_the_cache_from_its_file_and_from_the_options(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.jsonl", list(QUESTIONS))
    cache = tmp_path / "cache"
    with AgentServer(AgentBehaviour(answers=dict(QUESTIONS))) as agent:
        eval_file = tmp_path / "assay.yaml"
        eval_file.write_text(
            "suites: [suite.jsonl]\n"
            f"target: {{type: http, url: '{agent.url}/answer'}}\n"
            "grader: {id: true-false}\n"
            "cache: record\n"
            "outputs: {results: results.jsonl}\n"
        )
        first = assay("eval", str(eval_file), "--cache-dir", str(cache))
        assert first.returncode == 0, first.stderr
        assert len(agent.requests) == 4
        again = assay("eval", str(eval_file), "--cache-dir", str(cache))
        assert again.returncode == 0, again.stderr
        assert len(agent.requests) == 4  # every reply from the cache the file asked for
        assert all(result["cached"] for result in read_results(tmp_path / "results.jsonl"))

        eval_file.write_text(eval_file.read_text().replace("cache: record\n", ""))
        uncached = assay("eval", str(eval_file), "--cache-dir", str(cache))
        assert uncached.returncode == 2  # no cache asked: a folder for it is a mistake to say
        assert "--cache-dir goes with" in uncached.stderr
        write_suite(tmp_path / "suite.jsonl", [*QUESTIONS, "Is 4 even?"])
        replayed = assay("eval", str(eval_file), "--replay", "--cache-dir", str(cache))
        assert replayed.returncode == 1, replayed.stderr  # the new case fails closed, no call
        assert len(agent.requests) == 4
        results = read_results(tmp_path / "results.jsonl")
        assert [result.get("error") for result in results][-1] == "cache_miss"
        assert all(result["cached"] for result in results[:4])


def test_assay_eval_refuses_a_cache_for_recorded_answers(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.jsonl", list(QUESTIONS))
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps({"agent_response": "yes"}) + "\n" for _ in QUESTIONS)
    )
    (tmp_path / "assay.yaml").write_text(
        "suites: [suite.jsonl]\ntarget: {type: responses, path: answers.jsonl}\ncache: replay\n"
    )
    proc = assay("eval", str(tmp_path / "assay.yaml"))
    assert proc.returncode == 2
    assert "the reply cache is for a target that calls an agent" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_replay_grades_trajectory_checks_with_the_trajectories_the_cache_kept(tmp_path: Path) -> None:
    cases = [
        {"key": mode, "input": f"Please refund my blue kettle ({mode})", "expected_output": "Refunded",
         "metadata": {"mode": mode}}
        for mode in VERDICTS
    ]  # fmt: skip
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(case) + "\n" for case in cases))

    def eval_run(agent_url: str, *flags: str) -> list[dict[str, Any]]:
        config = {
            "suites": ["suite.jsonl"],
            "target": target(agent_url, "anthropic"),
            "grader": {"id": "contains"},
            "assert": CHECKS,
            "outputs": {"results": "results.jsonl"},
        }
        (tmp_path / "assay.yaml").write_text(json.dumps(config))
        ran = subprocess.run(
            [*ASSAY, "eval", *flags, "--cache-dir", str(tmp_path / "cache")],
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        )  # fmt: skip
        assert ran.returncode == 1, ran.stderr  # two of three cases miss: the gate is missed
        return read_results(tmp_path / "results.jsonl")

    with ToolAgent() as agent:
        recorded = eval_run(agent.url, "--cache")
        url = agent.url
    replayed = eval_run(url, "--replay")  # the agent is gone: every reply comes from the cache
    assert all(result["cached"] for result in replayed)
    for before, after in zip(recorded, replayed, strict=True):
        assert after["trajectory"] == before["trajectory"]
        children = after["details"]["children"]
        assert {child["name"]: child["passed"] for child in children} == VERDICTS[after["key"]]
