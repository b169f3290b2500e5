"""Benchmark: the llm-judge grader, its own cost and a whole run against a loopback judge.

Run: ``.venv/bin/python bench/judge.py [--cases 2000] [--repeats 3]``.

* ``plan+read``: µs per answer of building the request and reading a well-formed reply (no HTTP): the
  grader's own work, beside a bare ``json.dumps`` + ``json.loads`` of the same documents.
* ``run-instant`` / ``run-100ms``: ``assay run`` (a whole process) over N recorded answers graded by
  ``llm-judge``, concurrency 64, against a judge in another process that answers at once or after 100 ms;
  judged answers per second, and for the slow judge the ratio to the ideal N x 0.1 s / 64.
* ``agent-instant``: for scale, the same process asking a loopback agent (one HTTP call per case too, in
  another process) and grading with string-match: what one call per case costs on this machine, now.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assay.graders import CallReply, LLMJudgeGrader, OutboundCall  # noqa: E402

ASSAY = [sys.executable, "-m", "assay.cli"]
CONCURRENCY = 64


def plan_and_read(count: int) -> dict[str, Any]:
    """The grader's own work per answer, and a bare JSON round trip of the same size for scale."""
    grader = LLMJudgeGrader()
    reply = CallReply(
        status=200,
        body=json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "content": '{"explanation": "Both say Paris.", "pass": true, "score": 0.9}'
                        },
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
            }
        ).encode(),
    )
    answers = [f"The capital of France is Paris ({n})." for n in range(count)]
    started = time.perf_counter()
    for answer in answers:
        call = grader.plan(answer, "Paris")
        assert isinstance(call, OutboundCall)
        grader.read(answer, "Paris", call, reply)
    ours = (time.perf_counter() - started) / count * 1e6
    started = time.perf_counter()
    for answer in answers:
        json.loads(json.dumps({"rubric": "r" * 200, "expected_output": "Paris", "agent_response": answer}))
        json.loads(json.loads(reply.body)["choices"][0]["message"]["content"])
    bare = (time.perf_counter() - started) / count * 1e6
    return {"answers": count, "us_per_answer": round(ours, 2), "bare_json_us": round(bare, 2)}


@contextmanager
def judge_process(delay: float) -> Iterator[str]:
    """A loopback judge in a process of its own (it must not share the runner's GIL); its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.judge_server", "--delay", str(delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("JUDGE_URL="):
            raise RuntimeError(f"judge server did not start: {line!r}")
        yield line.removeprefix("JUDGE_URL=")
    finally:
        process.terminate()
        process.wait(timeout=10)


def run(directory: Path, count: int, repeats: int, delay: float) -> dict[str, Any]:
    """``assay run`` over N recorded answers judged by a loopback judge answering after ``delay``."""
    suite = directory / "suite.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "Paris"}) + "\n" for n in range(count))
    )
    responses = directory / "responses.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": f"Paris {n}"}) + "\n" for n in range(count)))
    output = directory / "out.jsonl"
    times = []
    with judge_process(delay) as base_url:
        config = json.dumps({"base_url": base_url, "api_key_env": None, "model": "bench"})
        command = [
            *ASSAY, "run", str(suite), "-g", "llm-judge", "-c", config, "--responses", str(responses),
            "-o", str(output), "-j", str(CONCURRENCY),
        ]  # fmt: skip
        for _ in range(repeats):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
            rows = [row for row in map(json.loads, output.open()) if "assay_run" not in row]  # not the header
            assert len(rows) == count
            assert all(row["passed"] for row in rows), "every answer is judged and passes"
    median = statistics.median(times)
    figures: dict[str, Any] = {
        "cases": count,
        "median_s": round(median, 3),
        "cases_per_s": round(count / median),
    }
    if delay:
        ideal = count * delay / CONCURRENCY
        figures["ideal_s"] = round(ideal, 3)
        figures["ratio_to_ideal"] = round(median / ideal, 2)
    return figures


def agent_run(directory: Path, count: int, repeats: int) -> dict[str, Any]:
    """``assay run --target-url`` against an instant loopback agent: one HTTP call per case, no judge."""
    suite = directory / "suite.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": f"q{n}", "expected_output": "Paris"}) + "\n" for n in range(count))
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.agent_server", "--behaviour", '{"default": "Paris"}'],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    times = []
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip().removeprefix("AGENT_URL=")
        command = [*ASSAY, "run", str(suite), "-g", "string-match", "--target-url", f"{url}/answer"]
        command += ["-j", str(CONCURRENCY), "-o", str(directory / "agent.jsonl")]
        for _ in range(repeats):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    finally:
        process.terminate()
        process.wait(timeout=10)
    median = statistics.median(times)
    return {"cases": count, "median_s": round(median, 3), "cases_per_s": round(count / median)}


def main() -> None:
    """Print every figure as one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    figures = {"plan+read": plan_and_read(20_000)}
    with tempfile.TemporaryDirectory(prefix="assay-bench-judge-") as tmp:
        figures["run-instant"] = run(Path(tmp), args.cases, args.repeats, 0.0)
        figures["run-100ms"] = run(Path(tmp), args.cases, args.repeats, 0.1)
        figures["agent-instant"] = agent_run(Path(tmp), args.cases, args.repeats)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
