"""Benchmark: ``assay run`` over recorded answers beside a bare standard-library floor, as whole processes.

Run: ``.venv/bin/python bench/cli_run.py [--cases 10000 200000] [--full] [--repeats 3] [--keyed]``.

For each N, a true-false suite of N cases and N recorded answers (two thirds right) are written, then
``assay run suite.jsonl -g true-false --responses answers.jsonl -o out.jsonl`` and ``bench/cli_run_floor.py``
(reads the same files, grades with the same rules, writes the same result lines) run in turn, ``--repeats``
times each. Printed per N: the median wall time, CPU time (user + system) and peak RSS (the child's
``ru_maxrss``) of each, and the ratios. Targets: peak RSS ≤ 150 MB at any N; wall time ≤ 1.5x the floor's at
200,000 cases. ``--full`` adds N = 1,000,000.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSAY = [sys.executable, "-m", "assay.cli", "run"]
FLOOR = [sys.executable, str(ROOT / "bench" / "cli_run_floor.py")]


def write_files(directory: Path, count: int, *, keyed: bool = False) -> tuple[Path, Path]:
    """A true-false suite of ``count`` cases and a recorded answer for each: row N answering case N, or
    (``keyed``) cases with an ``id`` and answers naming it by ``key``, in the suite's order."""
    suite, answers = directory / "suite.jsonl", directory / "answers.jsonl"
    with suite.open("w") as cases, answers.open("w") as replies:
        for n in range(count):
            case = {"input": f"Is {n} odd?", "expected_output": "true" if n % 2 else "false"}
            reply = {"agent_response": "yes" if n % 3 else "no"}
            if keyed:
                case, reply = {"id": f"case-{n}", **case}, {"key": f"case-{n}", **reply}
            cases.write(json.dumps(case) + "\n")
            replies.write(json.dumps(reply) + "\n")
    return suite, answers


@dataclass(frozen=True)
class Measure:
    """One process run: wall seconds, CPU seconds (user + system), peak resident set in MB."""

    wall_s: float
    cpu_s: float
    peak_mb: float


def measure(command: list[str]) -> Measure:
    """Run ``command`` (which must succeed) and read its resource use from ``wait4``."""
    # Bytecode is written and used, as an installed package has it: a tree without it would be compiled anew
    # by every run (the same as bench/startup.py does).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[:4]} exited {process.returncode}")
    return Measure(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(measures: list[Measure]) -> Measure:
    """Medians of each figure."""
    return Measure(
        statistics.median(m.wall_s for m in measures),
        statistics.median(m.cpu_s for m in measures),
        statistics.median(m.peak_mb for m in measures),
    )


def bench(count: int, repeats: int, *, keyed: bool = False) -> tuple[Measure, Measure]:
    """Medians of ``assay run`` and of the floor over ``count`` cases, run in turn."""
    with tempfile.TemporaryDirectory(prefix="assay-bench-cli-run-") as name:
        directory = Path(name)
        suite, answers = write_files(directory, count, keyed=keyed)
        output = directory / "out.jsonl"
        assay_command = [*ASSAY, str(suite), "-g", "true-false", "--responses", str(answers)]
        assay_command += ["-o", str(output), "--min-pass-rate", "0"]
        floor_command = [*FLOOR, str(suite), str(answers), str(directory / "floor.jsonl")]
        assay_runs, floor_runs = [], []
        for _ in range(repeats):
            output.unlink(missing_ok=True)  # a file holding results is refused without --resume
            assay_runs.append(measure(assay_command))
            floor_runs.append(measure(floor_command))
            with output.open("rb") as lines:  # the first line is the run's header, not a result
                written = sum(1 for line in lines if not line.startswith(b'{"assay_run"'))
            if written != count:
                raise RuntimeError(f"assay run wrote {written} results of {count}")
    return median(assay_runs), median(floor_runs)


def main(argv: list[str] | None = None) -> None:
    """Print the figures of each N, one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, nargs="+", default=[10_000, 200_000])
    parser.add_argument("--full", action="store_true", help="add 1,000,000 cases")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keyed", action="store_true", help="cases with ids, answers naming them by key")
    args = parser.parse_args(argv)
    counts = [*args.cases, *([1_000_000] if args.full else [])]
    print(
        f"{'cases':>9}  {'assay wall':>10} {'cpu':>7} {'peak':>8}  "
        f"{'floor wall':>10} {'cpu':>7} {'peak':>7}  {'wall x':>6} {'cpu x':>6}"
    )
    for count in counts:
        assay, floor = bench(count, args.repeats, keyed=args.keyed)
        print(
            f"{count:>9,}  {assay.wall_s:>9.2f}s {assay.cpu_s:>6.2f}s {assay.peak_mb:>6.0f}MB  "
            f"{floor.wall_s:>9.2f}s {floor.cpu_s:>6.2f}s {floor.peak_mb:>5.0f}MB  "
            f"{assay.wall_s / floor.wall_s:>6.2f} {assay.cpu_s / floor.cpu_s:>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
