"""Benchmark: ``assay eval`` over a large suite with three assertions per case, as a whole process.

Run: ``.venv/bin/python bench/eval_file.py [--cases 100000] [--repeats 1]``.

Writes a suite of N cases (metadata ``lang`` in three values), N recorded answers (two thirds right) and an
``assay.yaml`` whose default ``assert`` gives every case three assertions (true-false, a negated contains, a
regex), with a results file, a JUnit report and gates overall, by ``lang`` and by assertion; then runs
``assay eval`` on it and prints the median wall time, CPU time and peak RSS (``ru_maxrss`` of the child).
Target (issue 24): peak RSS ≤ 150 MB at 100,000 cases.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from cli_run import Measure, measure, median

ASSAY = [sys.executable, "-m", "assay.cli", "eval"]

EVAL_FILE = """\
suites: [suite.jsonl]
target: {type: responses, path: answers.jsonl}
assert:
  - {grader_id: true-false}
  - {grader_id: not, name: no disclaimer, expected_output: as an ai,
     config: {grader: {grader_id: contains, config: {whole_words: false}}}}
  - {grader_id: regex, name: one word, config: {pattern: '^\\\\w+$'}}
outputs: {results: results.jsonl, junit: junit.xml}
gates:
  min_pass_rate: 0
  by_metadata: [{key: lang, min_pass_rate: 0}]
  by_assertion: [{assertion: true-false, min_pass_rate: 0}]
"""


def write_files(directory: Path, count: int) -> Path:
    """The suite, its answers and the ``assay.yaml``; the latter's path."""
    languages = ("en", "de", "fr")
    with (directory / "suite.jsonl").open("w") as cases, (directory / "answers.jsonl").open("w") as replies:
        for n in range(count):
            case = {
                "input": f"Is {n} odd?",
                "expected_output": "true" if n % 2 else "false",
                "metadata": {"lang": languages[n % 3]},
            }
            cases.write(json.dumps(case) + "\n")
            replies.write(json.dumps({"agent_response": "yes" if n % 3 else "no"}) + "\n")
    path = directory / "assay.yaml"
    path.write_text(EVAL_FILE)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="assay-bench-eval-") as folder:
        path = write_files(Path(folder), args.cases)
        runs: list[Measure] = [measure([*ASSAY, str(path)]) for _ in range(args.repeats)]
        found = median(runs)
        results = sum(1 for _ in (Path(folder) / "results.jsonl").open()) - 1  # its header line aside
    print(
        f"assay eval, {args.cases:,} cases x 3 assertions: wall {found.wall_s:.2f} s, "
        f"CPU {found.cpu_s:.2f} s, peak RSS {found.peak_mb:.1f} MB (target <= 150 MB); "
        f"{results:,} results written"
    )


if __name__ == "__main__":
    main()
