"""Benchmark: µs per grade() call for each grader, and rows/s of ``assay grade-file`` (whole process).

Run: ``.venv/bin/python bench/graders.py [--cases 1000000] [--repeats 5]``. Prints medians, side by side
with a bare Python loop doing the same work as the true-false grader, so the ratio is measured in one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from assay.services.grader_service import GraderService

TRUE_SPELLINGS = ["true", "True", "TRUE", "yes", "Yes", "YES", "1"]
FALSE_SPELLINGS = ["false", "False", "FALSE", "no", "No", "NO", "0"]
INVALID = ["maybe", "I think so", "", "   ", "unknown", "42", "The answer is yes.", "N/A"]
PADDING = ["", "", "", " ", "  ", "\n", " \t", "\r\n"]


def make_cases(count: int, seed: int = 20261122) -> list[tuple[str, str]]:
    """Response/expected pairs: 60% agree, 25% disagree, 15% invalid, in varied spellings and padding."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        expected_true = rng.random() < 0.5
        expected = rng.choice(["true", "false"] if rng.random() < 0.8 else TRUE_SPELLINGS + FALSE_SPELLINGS)
        if not expected_true and expected in TRUE_SPELLINGS:
            expected = "false"
        roll = rng.random()
        if roll < 0.15:
            response = rng.choice(INVALID)
        else:
            agrees = roll < 0.75
            is_true = (expected in TRUE_SPELLINGS) == agrees
            response = rng.choice(TRUE_SPELLINGS if is_true else FALSE_SPELLINGS)
        cases.append((rng.choice(PADDING) + response + rng.choice(PADDING), expected))
    return cases


def bare_true_false() -> Callable[[str, str], dict[str, Any]]:
    """The same work as the true-false grader written as one plain function: the floor for Python."""
    table = {a.casefold(): "true" for a in TRUE_SPELLINGS} | {a.casefold(): "false" for a in FALSE_SPELLINGS}

    def grade(response: str, expected: str) -> dict[str, Any]:
        ne = expected.strip().casefold()
        na = response.strip().casefold()
        eb = table.get(ne)
        ab = table.get(na)
        if eb is None:
            status, reason = "invalid_expected", f"Expected value '{expected}' is not a valid boolean"
        elif not na:
            status, reason = "invalid_response", "Empty or null response"
        elif ab is None:
            status, reason = "invalid_response", f"Response '{response}' does not represent a boolean value"
        elif ab != eb:
            status, reason = "mismatch", f"Expected {eb} but got {ab}"
        else:
            status, reason = "match", "Expected and actual values match"
        passed = status == "match"
        return {
            "passed": passed,
            "score": 1.0 if passed else 0.0,
            "details": {
                "expected_bool": eb,
                "actual_bool": ab,
                "match_status": status,
                "reason": reason,
                "expected_original": expected,
                "actual_original": response,
                "normalized_expected": ne,
                "normalized_actual": na,
            },
        }

    return grade


def time_calls(grade: Callable[[str, str], object], cases: Sequence[tuple[str, str]], repeats: int) -> float:
    """Median µs per call over ``repeats`` passes through all cases."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for response, expected in cases:
            grade(response, expected)
        runs.append((time.perf_counter() - start) / len(cases) * 1e6)
    return statistics.median(runs)


def time_grade_file(cases: Sequence[tuple[str, str]], repeats: int) -> tuple[float, float]:
    """Median wall seconds and rows/s of the ``assay grade-file`` process on a JSONL file of ``cases``."""
    with tempfile.TemporaryDirectory() as folder:
        source, output = Path(folder, "answers.jsonl"), Path(folder, "results.jsonl")
        with source.open("wb") as stream:
            for index, (response, expected) in enumerate(cases):
                row = {"id": index, "agent_response": response, "expected_output": expected}
                stream.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
        command = [
            sys.executable,
            "-m",
            "assay.cli",
            "grade-file",
            str(source),
            "-g",
            "true-false",
            "-o",
            str(output),
            "--min-pass-rate",
            "0",  # measured, not gated: most rows fail on purpose
        ]
        walls = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
    wall = statistics.median(walls)
    return wall, len(cases) / wall


def main() -> None:
    """Parse arguments, run every measurement, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    cases = make_cases(args.cases)
    service = GraderService()
    print(f"{args.cases:,} cases, median of {args.repeats} passes, Python {sys.version.split()[0]}")
    bare = time_calls(bare_true_false(), cases, args.repeats)
    print(f"  bare Python loop (true-false work)  {bare:6.3f} µs/call")
    for grader in service.list():
        micros = time_calls(grader.grade, cases, args.repeats)
        print(f"  {grader.grader_id:<34}  {micros:6.3f} µs/call  ({micros / bare:4.2f}× bare loop)")
    wall, rate = time_grade_file(cases, max(1, args.repeats // 2 + 1))
    print(f"  assay grade-file (whole process)    {wall:6.2f} s  = {rate:,.0f} rows/s")


if __name__ == "__main__":
    main()
