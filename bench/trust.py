"""Benchmark: issue 23's trust figures — false passes per class and recall per language on the trust corpus
(tests/data/corpus), and the slowest grade() call on a 50 KB reply.

Run: ``PYTHONPATH=src .venv/bin/python bench/trust.py [--repeats 3]``. Targets: 0 false passes; recall
≥ 90 % on the clear rows of every language; no call over 50 ms on a 50 KB reply.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the corpus and its graders are the tests' (tests/support/trust_corpus.py)

from tests.support.trust_corpus import grader_for, load, tally  # noqa: E402

from assay.graders import GraderInterface, catalog  # noqa: E402

_TARGET_MS = 50.0


def _slowest(grader: GraderInterface, reply: str, expected: str, repeats: int) -> float:
    """The slowest of ``repeats`` calls, in ms (wall clock: what a caller waits)."""
    worst = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        grader.grade(reply, expected)
        worst = max(worst, (time.perf_counter() - start) * 1000)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = load()
    started = time.perf_counter()
    found = tally(rows)
    elapsed = time.perf_counter() - started
    print(f"trust corpus: {len(rows):,} replies graded in {elapsed:.2f} s")
    print(f"\nfalse passes by class (wrong and unclear rows): {sum(found.false_passes.values())}")
    for cls, count in sorted(found.unclear.items()):
        print(f"  {cls:16} {found.false_passes[cls]:4} of {count:4}")
    print("\nrecall on clear rows, per language (correct rows pass, wrong rows fail)")
    for language in sorted(found.clear):
        read, clear = found.read[language], found.clear[language]
        print(f"  {language:12} {read:4}/{clear:<4} {found.recall(language):6.1%}")
    big = [row for row in rows if len(row["reply"].encode()) >= 45_000]
    print(
        f"\nslowest call on a ~50 KB reply ({len(big)} corpus rows, {args.repeats} calls each; "
        "target ≤ 50 ms)"
    )
    worst = 0.0
    for row in big:
        ms = _slowest(grader_for(row["grader"], row["language"]), row["reply"], row["expected"], args.repeats)
        worst = max(worst, ms)
    print(f"  extract on corpus rows      {worst:7.2f} ms")
    reply = big[0]["reply"] if big else "x " * 25_000
    reply = (reply * 2)[:50_000]
    for grader_id, expected in (
        ("string-match", "Paris"), ("contains", "Paris"), ("regex", "P.*s"), ("numeric", "42"),
        ("choice", "B"), ("fuzzy", "Paris"), ("overlap", "Paris"), ("true-false", "true"), ("not", "Paris"),
        ("extract", "true"),
    ):  # fmt: skip
        grader_class = catalog.lookup(grader_id)
        assert grader_class is not None
        ms = _slowest(grader_class(), reply, expected, args.repeats)
        worst = max(worst, ms)
        print(f"  {grader_id:26}  {ms:7.2f} ms")
    verdict = "meets" if worst <= _TARGET_MS else "MISSES"
    print(f"\nslowest: {worst:.2f} ms ({verdict} the 50 ms target)")


if __name__ == "__main__":
    main()
