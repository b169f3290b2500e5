"""Benchmark: the preflight check of a stored suite (what ``POST /api/evaluations`` does before it starts).

Run: ``.venv/bin/python bench/preflight.py [--cases 200000] [--repeats 5]``. A SQLite suite of N true-false
cases (1 % not booleans) is checked by ``preflight_suite`` (streamed, all counted, first 10 named), beside a
bare loop over the same rows (``sqlite3`` cursor, decode the stored JSON text as storage does, strip +
casefold + set lookup): medians, side by side.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from assay.domain import NewCase
from assay.graders import TrueFalseGrader
from assay.services.grading.preflight import preflight_suite
from assay.services.suites.service import SuiteService
from assay.storage.database import create_db_engine, migrate, session_factory

BOOLEANS = frozenset({"true", "yes", "1", "false", "no", "0"})


def median_s(function: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.db"
        engine = create_db_engine(f"sqlite:///{path}")
        migrate(engine)
        sessions = session_factory(engine)
        cases = [
            NewCase(input=f"q{n}", expected_output="maybe" if n % 100 == 0 else ("yes" if n % 2 else "false"))
            for n in range(args.cases)
        ]
        with sessions() as session:
            suite_id = SuiteService(session).create("bench", "", cases).id
        grader = TrueFalseGrader()

        def assay_preflight() -> None:
            with sessions() as session:
                report = preflight_suite(session, suite_id, grader)
            assert report.invalid == args.cases // 100 + (1 if args.cases % 100 else 0)

        def bare_loop() -> None:
            connection = sqlite3.connect(path)
            rows = connection.execute(
                "SELECT id, position, expected_output FROM cases WHERE suite_id = ? ORDER BY position",
                (suite_id,),
            )
            invalid = sum(1 for _, _, stored in rows if json.loads(stored).strip().casefold() not in BOOLEANS)
            connection.close()
            assert invalid == args.cases // 100 + (1 if args.cases % 100 else 0)

        ours, bare = median_s(assay_preflight, args.repeats), median_s(bare_loop, args.repeats)
        print(f"preflight of {args.cases:,} cases (median of {args.repeats})")
        print(f"  preflight_suite  {ours * 1000:9.1f} ms  {ours / args.cases * 1e6:6.2f} µs/case")
        print(f"  bare sqlite3     {bare * 1000:9.1f} ms  {bare / args.cases * 1e6:6.2f} µs/case")
        print(f"  ratio            {ours / bare:9.2f}x")
        engine.dispose()


if __name__ == "__main__":
    main()
